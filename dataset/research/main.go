// Command research makes, once, the sheets that ballot import reads for an
// election of the embedded archive from the research files of that
// election (the count sheets as transcribed, the parties, the districts'
// localities and the links of its people to a later election's), as
// SOURCES.md beside each election tells. Its output is committed in the
// election's sheets/ folder and read by go generate like any publisher's
// sheets; running it again makes the same files.
//
//	go run ./dataset/research -later dataset/malta-2022 dataset/malta-2017
//
// reads dataset/malta-2017/source/ and writes parties.csv, districts.csv,
// candidates.csv, counts.csv and district_totals.csv in
// dataset/malta-2017/sheets/ (its dataset.toml is written by hand).
//
// Candidates are made from the count sheets: one per name and party, with
// every district they contested in the sheets' order. A name and party on
// more than two districts is more than one person (a candidate contests at
// most two), and is made one candidate per pair of districts, in the
// sheets' order, with its own person. Each candidate's person key is that
// of the later election's candidate it is linked to, where the research
// links them by the same name and party or by a likely variant of the
// name; any other is a person of its own.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"ballot/dataset"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

func main() {
	later := flag.String("later", "", "the later election's dataset directory, whose candidates the research's people file links to, or, with -history, the people of the oldest election after the history")
	history := flag.Bool("history", false, "make the sheets of every year of the history in DIR/source")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: research [-later DIR] [-history] DIR")
		os.Exit(2)
	}
	do := run
	if *history {
		do = runHistory
	}
	if err := do(flag.Arg(0), *later); err != nil {
		fmt.Fprintln(os.Stderr, "research:", err)
		os.Exit(1)
	}
}

func run(dir, later string) error {
	src, out := filepath.Join(dir, "source"), filepath.Join(dir, "sheets")
	var laterKeys map[personName]string
	if later != "" {
		var err error
		if laterKeys, err = readLater(later); err != nil {
			return err
		}
	}
	parties, err := readCSV(filepath.Join(src, "parties.csv"))
	if err != nil {
		return err
	}
	if err := writeParties(out, parties); err != nil {
		return err
	}
	districts, err := readCSV(filepath.Join(src, "districts.csv"))
	if err != nil {
		return err
	}
	if err := writeDistricts(out, districts); err != nil {
		return err
	}
	counts, err := readCSV(filepath.Join(src, "counts.csv"))
	if err != nil {
		return err
	}
	links, err := readLinks(src, laterKeys)
	if err != nil {
		return err
	}
	if err := writeCandidates(out, counts, links, laterKeys); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(src, "counts.csv"), filepath.Join(out, "counts.csv")); err != nil {
		return err
	}
	return copyFile(filepath.Join(src, "district_totals.csv"), filepath.Join(out, "district_totals.csv"))
}

// table is a CSV file: its header and its rows, each cell by column name.
type table struct {
	header []string
	rows   []map[string]string
}

func readCSV(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	t := &table{header: rs[0]}
	for _, r := range rs[1:] {
		row := map[string]string{}
		for i, h := range t.header {
			if i < len(r) {
				row[h] = r[i]
			}
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

func writeCSV(path string, header []string, rows [][]string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// independent is the research's abbreviation of an independent candidate.
const independent = "IND"

// writeParties writes parties.csv: each party of the research but the
// independents, its slug its abbreviation in lower case.
func writeParties(out string, t *table) error {
	var rows [][]string
	for _, p := range t.rows {
		if p["abbreviation"] == independent {
			continue
		}
		rows = append(rows, []string{strings.ToLower(p["abbreviation"]), p["name"], p["abbreviation"], p["name_en"]})
	}
	return writeCSV(filepath.Join(out, "parties.csv"), []string{"slug", "name", "short_name", "name_en"}, rows)
}

// writeDistricts writes districts.csv: each locality of each district,
// split when it is listed under two districts of the same island, with its
// note. A locality of Gozo that shares its name with one of Malta (Żebbuġ)
// is another place: it takes the slug 2022's districts give it
// (zebbug-gozo), and its note says which it is not.
func writeDistricts(out string, t *table) error {
	gozo := func(d map[string]string) bool { return strings.HasPrefix(d["note"], "Gozo") }
	type place struct {
		name string
		gozo bool
	}
	seen := map[place]int{}
	onMalta := map[string][]string{} // a name's districts on Malta
	for _, d := range t.rows {
		seen[place{d["locality"], gozo(d)}]++
		if !gozo(d) {
			onMalta[d["locality"]] = append(onMalta[d["locality"]], d["number"])
		}
	}
	var rows [][]string
	for _, d := range t.rows {
		split, slug, note := "", "", d["note"]
		if seen[place{d["locality"], gozo(d)}] > 1 {
			split = "yes"
		}
		if malta := onMalta[d["locality"]]; gozo(d) && len(malta) > 0 {
			slug = dataset.Slugify(d["locality"]) + "-gozo"
			which := "district " + malta[0]
			if len(malta) > 1 {
				which = "districts " + strings.Join(malta[:len(malta)-1], ", ") + " and " + malta[len(malta)-1]
			}
			note = fmt.Sprintf("%s; not the %s of %s", note, d["locality"], which)
		}
		rows = append(rows, []string{d["number"], d["locality"], slug, split, note})
	}
	return writeCSV(filepath.Join(out, "districts.csv"), []string{"number", "locality", "locality_slug", "split", "note"}, rows)
}

// personName is a name and party, as the research links people by them:
// the name folded (fold), the party's abbreviation.
type personName struct{ name, party string }

// slugKey marks the entries of readLater's map that hold a later
// candidate's slug, taken as a person key whether linked or not.
const slugKey = "\x00slug"

// readLater reads the later election's candidates (their names, parties
// and slugs; a candidate's person key there is its slug) and its count
// sheets' names, which the research's people file uses for some.
func readLater(dir string) (map[personName]string, error) {
	var parties []struct {
		ID        string
		ShortName string `json:"short_name"`
	}
	var cands []struct {
		Name, Slug string
		PartyID    *string `json:"party_id"`
	}
	if err := readJSON(filepath.Join(dir, "parties.json"), &parties); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(dir, "candidates.json"), &cands); err != nil {
		return nil, err
	}
	short := map[string]string{}
	for _, p := range parties {
		short[p.ID] = p.ShortName
	}
	keys := map[personName]string{}
	for _, c := range cands {
		party := independent
		if c.PartyID != nil {
			party = short[*c.PartyID]
		}
		n := personName{fold(c.Name), party}
		keys[personName{c.Slug, slugKey}] = c.Slug
		if _, ok := keys[n]; ok {
			keys[n] = "" // two candidates of one name and party: not a link
			continue
		}
		keys[n] = c.Slug
	}
	// The count sheets' own spelling of a name the candidates list writes
	// otherwise ("Carmelo [Charlie] Abela" for Carmelo Abela).
	sheets, err := readCSV(filepath.Join(dir, "sheets", "counts.csv"))
	if err != nil {
		return nil, err
	}
	for _, r := range sheets.rows {
		if r["audited_name"] == "" {
			continue
		}
		party := r["party_abbreviation"]
		if key, ok := keys[personName{fold(r["audited_name"]), party}]; ok {
			if n := (personName{fold(r["name"]), party}); keys[n] == "" {
				keys[n] = key
			}
		}
	}
	return keys, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// linked are the kinds of link to the later election that make one
// person of two candidates; the research's other kinds (another party:
// unconfirmed; ambiguous) leave two.
var linked = []string{"same name and party", "name variant, same party: likely"}

// readLinks reads the research's people file, if it has one, and returns
// the later person key of each name and party it links.
func readLinks(src string, later map[personName]string) (map[personName]string, error) {
	files, _ := filepath.Glob(filepath.Join(src, "people_*.csv"))
	links := map[personName]string{}
	for _, file := range files {
		t, err := readCSV(file)
		if err != nil {
			return nil, err
		}
		var from, to string // the columns: name_2017, name_2022
		for _, h := range t.header {
			switch {
			case strings.HasPrefix(h, "name_") && from == "":
				from = strings.TrimPrefix(h, "name_")
			case strings.HasPrefix(h, "name_"):
				to = strings.TrimPrefix(h, "name_")
			}
		}
		for _, r := range t.rows {
			if !slices.Contains(linked, r["link"]) {
				continue
			}
			party := r["party_"+to]
			key := later[personName{fold(r["name_"+to]), party}]
			if key == "" {
				return nil, fmt.Errorf("%s: %s (%s) is linked to %s (%s), whom the later election does not hold once", file, r["name_"+from], r["party_"+from], r["name_"+to], party)
			}
			links[personName{fold(r["name_"+from]), r["party_"+from]}] = key
		}
	}
	return links, nil
}

// candidate is one candidate made from the count sheets.
type candidate struct {
	name, party string
	districts   []string
	slug        string // given where two candidates share a name
	person      string
	rows        []map[string]string // its rows of counts.csv (the history's)
}

// writeCandidates writes candidates.csv from the count sheets' rows.
func writeCandidates(out string, counts *table, links, later map[personName]string) error {
	var order []personName
	rows := map[personName][]string{}
	for _, r := range counts.rows {
		if r["name"] == "Non-transferable" {
			continue
		}
		n := personName{r["name"], r["party_abbreviation"]}
		if _, ok := rows[n]; !ok {
			order = append(order, n)
		}
		rows[n] = append(rows[n], r["district"])
	}
	taken := map[string]bool{}
	for n, key := range later {
		if n.party == slugKey {
			taken[key] = true
		}
	}
	var cands []candidate
	for _, n := range order {
		ds := rows[n]
		if len(ds) <= 2 {
			cands = append(cands, candidate{name: n.name, party: n.party, districts: ds})
			continue
		}
		// One name on more than two districts: a candidate per pair.
		for i := 0; i < len(ds); i += 2 {
			c := candidate{name: n.name, party: n.party, districts: ds[i:min(i+2, len(ds))], slug: slugOf(n.name)}
			if i > 0 {
				c.slug += "-" + strconv.Itoa(i/2+1)
			}
			cands = append(cands, c)
		}
	}
	lexicon := surnames()
	var out2 [][]string
	for _, c := range cands {
		multi := c.slug != ""
		if key, ok := links[personName{fold(c.name), c.party}]; ok && !multi {
			c.person = key
		} else {
			base := c.slug
			if base == "" {
				base = slugOf(c.name)
			}
			c.person = base
			for n := 0; taken[c.person]; n++ {
				c.person = base + "-2017"
				if n > 0 {
					c.person += "-" + strconv.Itoa(n+1)
				}
			}
		}
		taken[c.person] = true
		given, family := split(c.name, lexicon)
		party := strings.ToLower(c.party)
		if c.party == independent {
			party = ""
		}
		out2 = append(out2, []string{c.name, given, family, party, strings.Join(c.districts, ";"), "", c.slug, c.person})
	}
	return writeCSV(filepath.Join(out, "candidates.csv"), []string{"name", "given_name", "family_name", "party", "districts", "elected", "slug", "person"}, out2)
}

// surnames are the family names of more than one word that the sheets'
// names hold, longest first: the transcription writes "Given Surname",
// so where the surname ends is known only of these.
func surnames() [][]string {
	list := []string{
		"Abela Wadge", "Agius Decelis", "Attard Previ", "Borg Duca", "Borg Manche`",
		"Bugeja Bartolo", "Camilleri Schembri", "Castaldi Paris", "Comodini Cachia",
		"De Marco", "Farrugia Portelli", "Farrugia Randon", "Fenech Adami",
		"Grech Mintoff", "Micallef Piccione", "Mifsud Bonnici", "Muscat Fenech Adami",
		"Perici Calascione", "Psaila Zammit", "Pullicino Orlando", "Rizzo Naudi",
		"Vella Brincat", "Zammit Alamango", "Zrinzo Azzopardi",
	}
	var out [][]string
	for _, s := range list {
		out = append(out, strings.Fields(s))
	}
	slices.SortStableFunc(out, func(a, b []string) int { return len(b) - len(a) })
	return out
}

// split splits a name as the sheets write it into the given and family
// name: the family name is a known surname of several words that ends the
// name, else the last word with any bracketed part after it ("Sammut
// [Hili]").
func split(name string, lexicon [][]string) (given, family string) {
	words := strings.Fields(name)
	for _, s := range lexicon {
		if len(words) > len(s) && slices.Equal(words[len(words)-len(s):], s) {
			return strings.Join(words[:len(words)-len(s)], " "), strings.Join(s, " ")
		}
	}
	i := len(words) - 1
	if strings.HasSuffix(words[i], "]") {
		for i > 0 && !strings.HasPrefix(words[i], "[") {
			i--
		}
		i--
	}
	if i < 1 {
		i = len(words) - 1
	}
	return strings.Join(words[:i], " "), strings.Join(words[i:], " ")
}

// fold is a name compared as the research compares them: lower case,
// without accents, brackets and punctuation, each run of spaces one.
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	r, _, err := transform.String(t, strings.ToLower(s))
	if err != nil {
		r = strings.ToLower(s)
	}
	return strings.Join(strings.FieldsFunc(r, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }), " ")
}

// slugOf makes a slug of a name as ballot import does: folded, each run of
// other characters a hyphen.
func slugOf(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range fold(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}
