// Package maltagen builds the JSON files of ballot's embedded default
// dataset (parties.json, districts.json and candidates.json in
// dataset/malta-2022) from the sourced CSV facts about the Malta general
// election of 26 March 2022 (dataset/malta-2022/source).
//
// It holds only what is Malta-specific: it checks the sources against each
// other and against its small hand-written tables, and turns their shape
// into the CSV sheets of `ballot import` (package dataset/sheet), which
// builds the files exactly as it does for any publisher. The derivation
// rules are documented in dataset/malta-2022/SOURCES.md, section "How the
// JSON files are derived". Generate fails, naming the file and line, on
// anything it cannot derive without guessing.
package maltagen

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// The source files that Generate reads.
const (
	partiesCSV         = "parties.csv"
	districtsCSV       = "districts.csv"
	candidatesCSV      = "candidates.csv"
	provenanceCSV      = "candidates_provenance.csv"
	withoutDistrictCSV = "candidates_without_district.csv"
)

// districtCount is the number of electoral districts, numbered from 1.
const districtCount = 13

// Generate reads the CSV files in src, turns them into the sheets of
// `ballot import` and imports them with manifest (the dataset's
// dataset.toml, whose [ids] table fixes the ids: see SOURCES.md,
// "Identifiers"). It returns the dataset's four files keyed by name, the
// manifest unchanged. The output depends only on the input.
func Generate(src fs.FS, manifest []byte) (map[string][]byte, error) {
	parties, abbrs, err := buildParties(src)
	if err != nil {
		return nil, err
	}
	districts, err := buildDistricts(src)
	if err != nil {
		return nil, err
	}
	candidates, err := buildCandidates(src, abbrs)
	if err != nil {
		return nil, err
	}
	sheets := dataset.Files{dataset.ManifestFile: manifest}
	for name, rows := range map[string][][]string{sheet.PartiesFile: parties, sheet.DistrictsFile: districts, sheet.CandidatesFile: candidates} {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.WriteAll(rows); err != nil {
			return nil, fmt.Errorf("writing the %s sheet: %w", name, err)
		}
		sheets[name] = b.Bytes()
	}
	files, err := sheet.Import(sheets)
	if err != nil {
		return nil, fmt.Errorf("importing the sheets made from the sources:\n%w", err)
	}
	return files, nil
}

// buildParties returns the parties sheet, in parties.csv order, and a map
// from the CSV abbreviation to the party's slug.
func buildParties(src fs.FS) ([][]string, map[string]string, error) {
	t, err := readCSV(src, partiesCSV, "abbreviation", "name", "website")
	if err != nil {
		return nil, nil, err
	}
	rows := [][]string{{"slug", "name", "short_name", "name_en", "website"}}
	ids := map[string]string{}
	seenIND := false
	for _, r := range t.rows {
		abbr := t.get(r, "abbreviation")
		if abbr == independent {
			if seenIND {
				return nil, nil, t.errorf(r, "abbreviation %q appears twice", abbr)
			}
			seenIND = true
			continue
		}
		if _, dup := ids[abbr]; dup {
			return nil, nil, t.errorf(r, "abbreviation %q appears twice", abbr)
		}
		fact, ok := partyFacts[abbr]
		if !ok {
			return nil, nil, t.errorf(r, "party %q is not in the generator's party table (short name, meaning of the bracketed name part); add it there", abbr)
		}
		name, paren, hasParen := splitParenthetical(t.get(r, "name"))
		switch {
		case hasParen && fact.paren == noParen:
			return nil, nil, t.errorf(r, "party %q: name has a bracketed part %q but the party table says it has none", abbr, paren)
		case !hasParen && fact.paren != noParen:
			return nil, nil, t.errorf(r, "party %q: name has no bracketed part but the party table expects one", abbr)
		}
		if name == "" {
			return nil, nil, t.errorf(r, "party %q has an empty name", abbr)
		}
		slug := strings.ToLower(abbr)
		if dataset.Slugify(slug) != slug {
			return nil, nil, t.errorf(r, "party %q: abbreviation does not make a valid slug", abbr)
		}
		nameEN := "" // no colour either: no source gives party colours
		if fact.paren == englishParen {
			nameEN = paren
		}
		rows = append(rows, []string{slug, name, fact.shortName, nameEN, t.get(r, "website")})
		ids[abbr] = slug
	}
	if !seenIND {
		return nil, nil, fmt.Errorf("%s: no %q row for independent candidates", partiesCSV, independent)
	}
	for _, abbr := range slices.Sorted(maps.Keys(partyFacts)) {
		if _, ok := ids[abbr]; !ok {
			return nil, nil, fmt.Errorf("%s: party %q of the generator's party table is missing", partiesCSV, abbr)
		}
	}
	return rows, ids, nil
}

// splitParenthetical splits "Name (Other)" into "Name" and "Other". A name
// without a final bracketed part is returned whole.
func splitParenthetical(s string) (name, paren string, ok bool) {
	if !strings.HasSuffix(s, ")") {
		return s, "", false
	}
	i := strings.LastIndex(s, " (")
	if i < 0 {
		return s, "", false
	}
	return strings.TrimSpace(s[:i]), s[i+2 : len(s)-1], true
}

// buildDistricts returns the districts sheet: one row per locality, in
// districts.csv order.
func buildDistricts(src fs.FS) ([][]string, error) {
	t, err := readCSV(src, districtsCSV, "number", "locality", "note")
	if err != nil {
		return nil, err
	}
	rows := [][]string{{"number", "locality", "locality_slug", "locality_name_en", "split", "note"}}
	localities := make([]int, districtCount+1)
	slugs := make([]map[string]bool, districtCount+1)
	splitCount := map[string]int{}
	usedEnglish := map[string]bool{}
	usedSlugs := map[localityKey]bool{}
	for _, r := range t.rows {
		n, err := parseDistrict(t.get(r, "number"))
		if err != nil {
			return nil, t.errorf(r, "%v", err)
		}
		name := t.get(r, "locality")
		if name == "" {
			return nil, t.errorf(r, "empty locality")
		}
		note := t.get(r, "note")
		loc := dataset.Locality{
			Name:  name,
			Slug:  dataset.Slugify(name),
			Split: strings.Contains(note, "split"),
			Note:  optional(note),
		}
		if slug, ok := localitySlugs[localityKey{n, name}]; ok {
			loc.Slug = slug
			usedSlugs[localityKey{n, name}] = true
		}
		if loc.Slug == "" {
			return nil, t.errorf(r, "locality %q has an empty slug", name)
		}
		if slugs[n] == nil {
			slugs[n] = map[string]bool{}
		}
		if slugs[n][loc.Slug] {
			return nil, t.errorf(r, "district %d: locality slug %q is not unique", n, loc.Slug)
		}
		slugs[n][loc.Slug] = true
		if en, ok := localityEnglish[name]; ok {
			if note != en && !strings.HasPrefix(note, en+";") {
				return nil, t.errorf(r, "locality %q: note %q does not start with its English name %q", name, note, en)
			}
			loc.NameEN = &en
			usedEnglish[name] = true
		}
		if loc.Split {
			splitCount[name]++
		}
		split := ""
		if loc.Split {
			split = "yes"
		}
		// The slug is written only where the table gives one; the import
		// derives every other from the name, as the rule is the same.
		slug := ""
		if loc.Slug != dataset.Slugify(name) {
			slug = loc.Slug
		}
		rows = append(rows, []string{strconv.Itoa(n), name, slug, deref(loc.NameEN), split, note})
		localities[n]++
	}
	for _, name := range slices.Sorted(maps.Keys(splitCount)) {
		if splitCount[name] < 2 {
			return nil, fmt.Errorf("%s: %q is marked split but is split in only one district", districtsCSV, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(localityEnglish)) {
		if !usedEnglish[name] {
			return nil, fmt.Errorf("%s: locality %q of the generator's English-name table is missing", districtsCSV, name)
		}
	}
	for key := range localitySlugs {
		if !usedSlugs[key] {
			return nil, fmt.Errorf("%s: locality %q of district %d in the generator's slug table is missing", districtsCSV, key.name, key.district)
		}
	}
	for n := 1; n <= districtCount; n++ {
		if localities[n] == 0 {
			return nil, fmt.Errorf("%s: district %d has no localities", districtsCSV, n)
		}
	}
	return rows, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseDistrict parses a district number 1..13 written in plain decimal.
func parseDistrict(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > districtCount || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("district %q is not a number from 1 to %d", s, districtCount)
	}
	return n, nil
}

// buildCandidates returns the candidates sheet, in candidates.csv order.
func buildCandidates(src fs.FS, partySlugs map[string]string) ([][]string, error) {
	t, err := readCSV(src, candidatesCSV, "name", "party_abbreviation", "districts", "elected")
	if err != nil {
		return nil, err
	}
	prov, err := readCSV(src, provenanceCSV, "name", "given_name_inferred", "family_name_inferred", "party_abbreviation", "districts", "elected")
	if err != nil {
		return nil, err
	}
	without, err := readCSV(src, withoutDistrictCSV, "name", "party_abbreviation")
	if err != nil {
		return nil, err
	}

	provByName := map[string]row{}
	for _, r := range prov.rows {
		name := prov.get(r, "name")
		if _, dup := provByName[name]; dup {
			return nil, prov.errorf(r, "candidate %q appears twice", name)
		}
		provByName[name] = r
	}
	left := map[string]row{}
	for _, r := range without.rows {
		left[without.get(r, "name")] = r
	}

	rows := [][]string{{"name", "given_name", "family_name", "party", "districts", "elected", "is_incumbent"}}
	names := map[string]bool{}
	slugs := map[string]string{}
	for _, r := range t.rows {
		name := t.get(r, "name")
		if name == "" {
			return nil, t.errorf(r, "empty name")
		}
		if names[name] {
			return nil, t.errorf(r, "candidate %q appears twice", name)
		}
		names[name] = true
		if lr, ok := left[name]; ok {
			return nil, without.errorf(lr, "candidate %q is also in %s", name, candidatesCSV)
		}
		pr, ok := provByName[name]
		if !ok {
			return nil, t.errorf(r, "candidate %q is not in %s", name, provenanceCSV)
		}
		for _, col := range []string{"party_abbreviation", "districts", "elected"} {
			if a, b := t.get(r, col), prov.get(pr, col); a != b {
				return nil, t.errorf(r, "candidate %q: %s is %q here but %q in %s", name, col, a, b, provenanceCSV)
			}
		}

		slug := dataset.Slugify(name)
		if slug == "" {
			return nil, t.errorf(r, "candidate %q has an empty slug", name)
		}
		if other, dup := slugs[slug]; dup {
			return nil, t.errorf(r, "candidates %q and %q have the same slug %q", other, name, slug)
		}
		slugs[slug] = name

		split := nameSplit{given: prov.get(pr, "given_name_inferred"), family: prov.get(pr, "family_name_inferred")}
		if o, ok := nameSplitOverrides[name]; ok {
			split = o
		}
		if split.given == "" || split.family == "" || split.given+" "+split.family != name {
			return nil, prov.errorf(pr, "candidate %q: given name %q and family name %q do not make up the name", name, split.given, split.family)
		}

		party := "" // an independent
		if abbr := t.get(r, "party_abbreviation"); abbr != independent {
			slug, ok := partySlugs[abbr]
			if !ok {
				return nil, t.errorf(r, "candidate %q: unknown party %q", name, abbr)
			}
			party = slug
		}

		districts, err := parseDistricts(t.get(r, "districts"))
		if err != nil {
			return nil, t.errorf(r, "candidate %q: %v", name, err)
		}

		e := t.get(r, "elected")
		if e != "yes" && e != "no" {
			return nil, t.errorf(r, "candidate %q: elected is %q, want yes or no", name, e)
		}

		incumbent := "" // unknown: see incumbents
		if _, ok := incumbents[name]; ok {
			incumbent = "yes"
		}
		rows = append(rows, []string{name, split.given, split.family, party, districts, e, incumbent})
	}

	if len(rows) == 1 {
		return nil, fmt.Errorf("%s: no candidates", candidatesCSV)
	}
	for _, r := range prov.rows {
		if name := prov.get(r, "name"); !names[name] {
			return nil, prov.errorf(r, "candidate %q is not in %s", name, candidatesCSV)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(incumbents)) {
		if !names[name] {
			return nil, fmt.Errorf("incumbents table: %q names no candidate", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(nameSplitOverrides)) {
		if !names[name] {
			return nil, fmt.Errorf("name-split override for %q names no candidate", name)
		}
	}
	return rows, nil
}

// parseDistricts turns "10;1" into "1;10": ascending district number. The
// first is the primary district: the sources mark none, and list a
// candidate's districts in ascending order.
func parseDistricts(s string) (string, error) {
	var numbers []int
	for _, part := range strings.Split(s, ";") {
		n, err := parseDistrict(part)
		if err != nil {
			return "", err
		}
		if slices.Contains(numbers, n) {
			return "", fmt.Errorf("district %d is listed twice", n)
		}
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ";"), nil
}

// optional returns nil for an empty CSV field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// table is a CSV file read whole, its columns found by header name.
type table struct {
	file string
	cols map[string]int
	rows []row
}

type row struct {
	line   int
	fields []string
}

func (t *table) get(r row, col string) string { return r.fields[t.cols[col]] }

func (t *table) errorf(r row, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", t.file, r.line, fmt.Sprintf(format, args...))
}

// readCSV reads file from src and checks that its header has the columns
// want. Fields with leading or trailing white space are rejected, so a value
// is always used exactly as written.
func readCSV(src fs.FS, file string, want ...string) (*table, error) {
	data, err := fs.ReadFile(src, file)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(data))
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", file, err)
	}
	t := &table{file: file, cols: map[string]int{}}
	for i, h := range header {
		if _, dup := t.cols[h]; dup {
			return nil, fmt.Errorf("%s: column %q appears twice", file, h)
		}
		t.cols[h] = i
	}
	for _, w := range want {
		if _, ok := t.cols[w]; !ok {
			return nil, fmt.Errorf("%s: no column %q", file, w)
		}
	}
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		r := row{line: line, fields: fields}
		for i, f := range fields {
			if f != strings.TrimSpace(f) {
				return nil, t.errorf(r, "column %q has leading or trailing white space", header[i])
			}
		}
		t.rows = append(t.rows, r)
	}
	return t, nil
}
