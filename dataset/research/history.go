package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"ballot/suggest"
)

// The history: the count sheets of every general election before 2017,
// one folder a year in the research (source/YEAR/counts.csv and
// district_totals.csv), with one list of the parties of every year
// (source/parties.csv). Each year becomes an election of the archive,
// YEAR/ beside source/, whose sheets this makes: its parties, its
// districts (numbered as that year numbered them; the research lists no
// locality of them), its candidates, one per name and party, and its
// dataset.toml. A candidate's person is shared with a candidate of the
// election before or after only where the same name, folded, and the same
// party stand once in each: a link by name alone, which the coverage notes
// say.

// year is one election of the history, as the research gives it.
type year struct {
	slug        string
	corrections [][]string // the empty cells filled, as corrections.csv rows
	counts      *table
	totals      *table
	districts   int
	cands       []candidate
	published   [][2]string // the districts whose sheet ends with seats unfilled, and who took them as published (defects.csv's elected)
}

// runHistory makes the sheets of every year of dir/source, linking its
// people to the later election's (its dataset directory) where that is
// given.
func runHistory(dir, later string) error {
	src := filepath.Join(dir, "source")
	parties, err := readCSV(filepath.Join(src, "parties.csv"))
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	var years []*year
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || !e.IsDir() {
			continue
		}
		y := &year{slug: e.Name()}
		if y.counts, err = readCSV(filepath.Join(src, y.slug, "counts.csv")); err != nil {
			return err
		}
		if y.totals, err = readCSV(filepath.Join(src, y.slug, "district_totals.csv")); err != nil {
			return err
		}
		y.districts = len(y.totals.rows)
		y.cands = candidatesOf(y.counts)
		years = append(years, y)
	}
	// Newest first: each year's people are linked to the next election's,
	// whose keys are made already.
	slices.SortFunc(years, func(a, b *year) int { return cmp.Compare(b.slug, a.slug) })
	next, taken, err := laterPeople(later)
	if err != nil {
		return err
	}
	for _, y := range years {
		here := map[personName]int{} // how many candidates of each name and party
		for _, c := range y.cands {
			here[personName{fold(c.name), c.party}]++
		}
		keys := map[personName]string{}
		for i := range y.cands {
			c := &y.cands[i]
			n := personName{fold(c.name), c.party}
			if key, ok := next[n]; ok && key != "" && here[n] == 1 {
				c.person = key
			} else {
				c.person = freeKey(slugOf(c.name), y.slug, taken)
			}
			taken[c.person] = true
			if here[n] == 1 {
				keys[n] = c.person
			} else {
				keys[n] = "" // two of one name and party: no link
			}
		}
		next = keys
	}
	for _, y := range years {
		out := filepath.Join(dir, y.slug, "sheets")
		if err := writeYear(out, y, parties); err != nil {
			return err
		}
		if err := writeManifest(out, y, parties); err != nil {
			return err
		}
	}
	return nil
}

// laterPeople reads the person keys of the later election's candidates
// (its sheets' candidates.csv) by name and party, and every key it uses.
func laterPeople(later string) (map[personName]string, map[string]bool, error) {
	next, taken := map[personName]string{}, map[string]bool{}
	if later == "" {
		return next, taken, nil
	}
	t, err := readCSV(filepath.Join(later, "sheets", "candidates.csv"))
	if err != nil {
		return nil, nil, err
	}
	for _, r := range t.rows {
		n := personName{fold(r["name"]), strings.ToUpper(r["party"])}
		if n.party == "" {
			n.party = independent
		}
		if _, ok := next[n]; ok {
			next[n] = ""
		} else {
			next[n] = r["person"]
		}
		taken[r["person"]] = true
	}
	return next, taken, nil
}

// freeKey is a person key made of a slug not taken: the slug, or the slug
// and the year, numbered after that.
func freeKey(slug, year string, taken map[string]bool) string {
	if !taken[slug] {
		return slug
	}
	key := slug + "-" + year
	for n := 2; taken[key]; n++ {
		key = slug + "-" + year + "-" + strconv.Itoa(n)
	}
	return key
}

// candidatesOf makes the candidates of a year's count sheets: one per
// name (folded) and party, with every district of its rows in the sheets'
// order, the name as its first row prints it; but two rows of one name
// and party in one district are two people, each a candidate of their own.
func candidatesOf(counts *table) []candidate {
	var cands []candidate
	at := map[personName][]int{} // candidates of a name and party
	for _, r := range counts.rows {
		if r["name"] == "Non-transferable" {
			continue
		}
		n := personName{fold(r["name"]), r["party_abbreviation"]}
		i := -1
		for _, j := range at[n] {
			if !slices.Contains(cands[j].districts, r["district"]) {
				i = j
				break
			}
		}
		if i < 0 {
			i = len(cands)
			cands = append(cands, candidate{name: r["name"], party: r["party_abbreviation"]})
			at[n] = append(at[n], i)
			if k := len(at[n]); k > 1 {
				cands[i].slug = slugOf(r["name"]) + "-" + strconv.Itoa(k)
				if k == 2 {
					cands[at[n][0]].slug = slugOf(r["name"])
				}
			}
		}
		cands[i].districts = append(cands[i].districts, r["district"])
		cands[i].rows = append(cands[i].rows, r)
	}
	return cands
}

// writeYear writes the sheets of one year.
func writeYear(out string, y *year, parties *table) error {
	used := map[string]bool{}
	for _, c := range y.cands {
		used[c.party] = true
	}
	var prows [][]string
	for _, p := range parties.rows {
		if !used[p["abbreviation"]] || p["abbreviation"] == independent || !inYears(p["years"], y.slug) {
			continue
		}
		prows = append(prows, []string{strings.ToLower(p["abbreviation"]), p["name"], p["abbreviation"], p["name_en"]})
		delete(used, p["abbreviation"])
	}
	delete(used, independent)
	for p := range used {
		return fmt.Errorf("%s: party %s is in no row of parties.csv for that year", y.slug, p)
	}
	if err := writeCSV(filepath.Join(out, "parties.csv"), []string{"slug", "name", "short_name", "name_en"}, prows); err != nil {
		return err
	}
	var drows [][]string
	for _, d := range y.totals.rows {
		drows = append(drows, []string{d["district"], "", d["seats"], "No locality of this district is in the data: the research lists none, and the district's number is that of " + y.slug + "'s districts, not today's."})
	}
	if err := writeCSV(filepath.Join(out, "districts.csv"), []string{"number", "locality", "seats", "note"}, drows); err != nil {
		return err
	}
	lexicon := surnames()
	var crows [][]string
	for _, c := range y.cands {
		given, family := split(c.name, lexicon)
		party := strings.ToLower(c.party)
		if c.party == independent {
			party = ""
		}
		crows = append(crows, []string{c.name, given, family, party, strings.Join(c.districts, ";"), "", c.slug, c.person})
	}
	if err := writeCSV(filepath.Join(out, "candidates.csv"), []string{"name", "given_name", "family_name", "party", "districts", "elected", "slug", "person"}, crows); err != nil {
		return err
	}
	// counts.csv as the research gives it, with the candidate each row
	// is a candidacy of where its name is printed otherwise or shared.
	header := slices.Insert(slices.Clone(y.counts.header), 3, "candidate")
	var rows [][]string
	last := map[string]int{} // each district's last count
	for _, d := range y.totals.rows {
		last[d["district"]], _ = strconv.Atoi(d["counts"])
	}
	for _, r := range y.counts.rows {
		row := make([]string, 0, len(header))
		for _, h := range header {
			if h == "candidate" {
				row = append(row, candidateOf(y.cands, r))
				continue
			}
			row = append(row, r[h])
		}
		fillExcluded(y, r, row, header, last[r["district"]])
		rows = append(rows, row)
	}
	if err := writeCSV(filepath.Join(out, "counts.csv"), header, rows); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(filepath.Dir(filepath.Dir(out)), "source", y.slug, "district_totals.csv"), filepath.Join(out, "district_totals.csv")); err != nil {
		return err
	}
	if err := writeCorrections(out, y); err != nil {
		return err
	}
	return writeDefects(out, y)
}

// fillExcluded writes 0 in each empty cell of a row of counts.csv, up to
// its district's last count, after the count at which its candidate fell
// to 0 (excluded): the transcription leaves a few such cells empty. Each
// is a correction of the year's, with its evidence.
func fillExcluded(y *year, r map[string]string, row, header []string, last int) {
	out := 0 // the count at which the row fell to 0
	for i, h := range header {
		k, err := strconv.Atoi(strings.TrimPrefix(h, "count_"))
		if err != nil || !strings.HasPrefix(h, "count_") || k > last {
			continue
		}
		switch {
		case row[i] == "0" && out == 0 && k > 1:
			out = k
		case row[i] == "" && out > 0:
			row[i] = "0"
			after := "and its cells before and after are 0"
			if k == last {
				after = "and its cell before is 0"
			}
			y.corrections = append(y.corrections, []string{r["district"], strconv.Itoa(k), r["name"], "total", "", "0",
				fmt.Sprintf("the cell is empty in the transcription: the row was excluded at count %d, %s", out, after)})
		}
	}
}

// writeCorrections writes the year's corrections.csv: the changes the
// research made to the transcription (source/corrections.csv), each with
// its evidence, and the empty cells filled, when it has any.
func writeCorrections(out string, y *year) error {
	src := filepath.Join(filepath.Dir(filepath.Dir(out)), "source")
	t, err := readCSV(filepath.Join(src, "corrections.csv"))
	if err != nil {
		return err
	}
	parties, err := readCSV(filepath.Join(src, "parties.csv"))
	if err != nil {
		return err
	}
	abbr := map[string]string{}
	for _, p := range parties.rows {
		abbr[p["code"]] = p["abbreviation"]
	}
	var rows [][]string
	for _, c := range t.rows {
		name := c["source_name"]
		if family, given, ok := strings.Cut(name, ", "); ok {
			name = given + " " + family
		}
		switch col := c["column"]; {
		case col == "YEAR" && c["corrected"] == y.slug:
			rows = append(rows, []string{c["district"], "", name, "district", c["as_transcribed"] + ", district " + c["district"], c["district"], c["evidence"]})
		case c["year"] != y.slug:
		case col == "PARTY":
			rows = append(rows, []string{c["district"], "", name, "party", abbr[c["as_transcribed"]], abbr[c["corrected"]], c["evidence"]})
		case strings.HasPrefix(col, "Ct"):
			rows = append(rows, []string{c["district"], strings.TrimPrefix(col, "Ct"), name, "total", c["as_transcribed"], c["corrected"], c["evidence"]})
		}
	}
	rows = append(rows, y.corrections...)
	if len(rows) == 0 {
		return nil
	}
	return writeCSV(filepath.Join(out, "corrections.csv"), []string{"district", "count", "name", "field", "from", "to", "evidence"}, rows)
}

// writeDefects writes the year's defects.csv: each count the research
// found not to balance (source/unbalanced.csv), and each other break of
// the rules of the count the archive states (malta-history/defects.csv),
// with who took the seats a sheet that ends too early leaves unfilled, as
// published, when it has any.
func writeDefects(out string, y *year) error {
	dir := filepath.Dir(filepath.Dir(out))
	unbalanced, err := readCSV(filepath.Join(dir, "source", "unbalanced.csv"))
	if err != nil {
		return err
	}
	stated, err := readCSV(filepath.Join(dir, "defects.csv"))
	if err != nil {
		return err
	}
	var rows [][]string
	for _, u := range unbalanced.rows {
		if u["year"] != y.slug {
			continue
		}
		by, _ := strconv.Atoi(u["sum_minus_valid_votes"])
		way := "more"
		if by < 0 {
			by, way = -by, "fewer"
		}
		rows = append(rows, []string{u["district"], u["count"], "count-balance", fmt.Sprintf("The transcription's totals and non-transferable add up to %d %s than the valid votes (the research's unbalanced.csv); no source at hand mends the count.", by, way), ""})
	}
	for _, d := range stated.rows {
		if d["year"] != y.slug {
			continue
		}
		rows = append(rows, []string{d["district"], d["count"], d["rule"], d["note"], d["elected"]})
		if d["elected"] != "" {
			y.published = append(y.published, [2]string{d["district"], d["elected"]})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return writeCSV(filepath.Join(out, "defects.csv"), []string{"district", "count", "rule", "note", "elected"}, rows)
}

// candidateOf is what the candidate column of a row of counts.csv says:
// the candidate's slug where two share its name and party, its name where
// the row prints it otherwise, else nothing.
func candidateOf(cands []candidate, r map[string]string) string {
	for _, c := range cands {
		for _, cr := range c.rows {
			if sameRow(cr, r) {
				switch {
				case c.slug != "":
					return c.slug
				case cr["name"] != c.name:
					return c.name
				}
				return ""
			}
		}
	}
	return ""
}

func sameRow(a, b map[string]string) bool {
	return a["district"] == b["district"] && a["name"] == b["name"] && a["party_abbreviation"] == b["party_abbreviation"] && a["count_1"] == b["count_1"]
}

// inYears reports whether year is in the span of years, "1921-1953" or
// "1947".
func inYears(span, year string) bool {
	from, to, ok := strings.Cut(span, "-")
	if !ok {
		to = from
	}
	return from <= year && year <= to
}

// bonusSeats are the years whose parliament the Constitution's rule of
// proportionality gave seats after the count (SOURCES.md, "Checked").
var bonusSeats = []string{"1987", "1996", "2008", "2013"}

// writeManifest writes a year's dataset.toml: what the data is, its
// election, and what it lacks.
func writeManifest(out string, y *year, parties *table) error {
	seats := map[string]int{}
	var order []string
	for _, d := range y.totals.rows {
		if seats[d["seats"]] == 0 {
			order = append(order, d["seats"])
		}
		seats[d["seats"]]++
	}
	var bySeats []string
	for _, s := range order {
		bySeats = append(bySeats, fmt.Sprintf("%d electing %s members", seats[s], s))
	}
	districts := fmt.Sprintf("The %d districts of %s, numbered as that election numbered them (district 2 of %s is not district 2 of 2022), %s. The research lists no locality of them, so none is given.", y.districts, y.slug, y.slug, strings.Join(bySeats, " and "))
	if len(order) == 1 {
		districts = fmt.Sprintf("The %d districts of %s, numbered as that election numbered them (district 2 of %s is not district 2 of 2022), each electing %s members. The research lists no locality of them, so none is given.", y.districts, y.slug, y.slug, order[0])
	}
	notes := []string{
		districts,
		fmt.Sprintf("Candidates: one per name and party of the count sheets, %d in all, each with every district they stood in. Names are as the transcription prints them, in plain ASCII: they lack the Maltese letters, and some are initials or abbreviations. The split into given and family name is by rule (the last word, or a known surname of several words) and may be wrong.", len(y.cands)),
	}
	for _, c := range y.cands {
		if strings.HasSuffix(c.slug, "-2") {
			notes = append(notes, fmt.Sprintf("Two candidacies of one district name %s (%s): two people here, the second with the slug %s.", c.name, c.party, c.slug))
		}
	}
	after := "the casual elections"
	if slices.Contains(bonusSeats, y.slug) {
		after = "the casual elections, and the seats the Constitution's rule of proportionality gave a party after the count of " + y.slug
	}
	notes = append(notes,
		"elected is true for the candidates the count sheets elect; for everyone else it is null (not known): the sheets do not tell who won a seat after the count ("+after+").",
	)
	for _, p := range y.published {
		var names []string
		for n := range strings.SplitSeq(p[1], ";") {
			names = append(names, strings.TrimSpace(n))
		}
		what, it := "the seat", "it"
		if len(names) > 1 {
			what, it = fmt.Sprintf("the %d seats", len(names)), "them"
		}
		notes = append(notes, fmt.Sprintf("The count sheet of district %s ends before every seat is filled: as published, %s took %s it leaves unfilled, which no count of the sheet shows. The sheet's known defect states it, and the sheet elects at its last count who took %s.", p[0], suggest.List(names, "and"), what, it))
	}
	notes = append(notes,
		"People: a candidate shares a person_id with a candidate of the election before or after only where the same name (letter case, accents, brackets and punctuation ignored) and the same party stand once in each. Such a link rests on the name alone, not on a source that says they are one person; a person whose name is printed otherwise in another year is two persons here.",
	)
	var inferred []string
	used := map[string]bool{}
	for _, c := range y.cands {
		used[c.party] = true
	}
	for _, p := range parties.rows {
		if used[p["abbreviation"]] && inYears(p["years"], y.slug) && strings.HasPrefix(p["basis"], "inferred") {
			inferred = append(inferred, fmt.Sprintf("%s (%s): %s", p["name"], p["abbreviation"], strings.TrimPrefix(p["basis"], "inferred: ")))
		}
	}
	if len(inferred) > 0 {
		notes = append(notes, "The research infers the names of these parties from the figures it has, not from a list that names them: "+strings.Join(inferred, "; ")+".")
	}
	notes = append(notes, "The poll's date is not in the research files, so the election has none.")
	var b strings.Builder
	fmt.Fprintf(&b, "# The manifest of the %s election of ballot's embedded archive (see\n# dataset/archive.toml), made by dataset/research with its sheets.\n\n", y.slug)
	fmt.Fprintf(&b, "title = %q\n", "Malta general election of "+y.slug)
	fmt.Fprintf(&b, "description = %q\n", "The count sheets of the Maltese general election of "+y.slug+", district by district, from the Electoral Commission's results as transcribed in a public research dataset, with the parties and the candidates they name. Every fact and its source is listed in SOURCES.md beside the data.")
	b.WriteString("license = \"CC-BY-4.0\"\nlicense_url = \"https://creativecommons.org/licenses/by/4.0/\"\npublished_at = 2026-11-28\n\n")
	b.WriteString("[publisher]\nname = \"ballot sample data\"\nurl = \"https://ballot.example/\"\nabout_url = \"https://ballot.example/about\"\n\n")
	fmt.Fprintf(&b, "[election]\nslug = %q\nname = %q\nname_en = %q\nkind = \"general\"\ndistricts = %d\n\n", y.slug, "Elezzjoni ġenerali "+y.slug, "General election "+y.slug, y.districts)
	fmt.Fprintf(&b, "[coverage]\nsummary = %q\nnotes = [\n", fmt.Sprintf("The general election of %s: the count sheets of its %d districts and the %d candidates they name; no locality, no poll date, and names without the Maltese letters.", y.slug, y.districts, len(y.cands)))
	for _, n := range notes {
		fmt.Fprintf(&b, "  %q,\n", n)
	}
	b.WriteString("]\n\n# How ballot import derives the ids: the publisher's namespace, the same as\n# every election's of the archive, so that a person key gives one person_id.\n")
	fmt.Fprintf(&b, "[ids]\nnamespace = \"813b69c7-cf6a-402e-aa77-01673dae86ce\"\nkey_prefix = %q\n", "malta-"+y.slug+"/")
	return os.WriteFile(filepath.Join(out, "dataset.toml"), []byte(b.String()), 0o644)
}
