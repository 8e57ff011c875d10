package maltagen_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"ballot/dataset"
	"ballot/dataset/internal/maltagen"
)

const (
	sourceDir = "../../malta-2022/source"
	outDir    = "../../malta-2022"
)

// manifest returns the committed manifest, which the generator reads.
func manifest(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(outDir, dataset.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generate runs the generator on the committed sources.
func generate(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := maltagen.Generate(os.DirFS(sourceDir), manifest(t))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return files
}

// decode decodes one generated file into v.
func decode(t *testing.T, files map[string][]byte, name string, v any) {
	t.Helper()
	b, ok := files[name]
	if !ok {
		t.Fatalf("Generate returned no %s", name)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

type generated struct {
	parties    []dataset.Party
	districts  []dataset.District
	candidates []dataset.Candidate
}

func load(t *testing.T) generated {
	t.Helper()
	files := generate(t)
	var g generated
	decode(t, files, dataset.PartiesFile, &g.parties)
	decode(t, files, dataset.DistrictsFile, &g.districts)
	decode(t, files, dataset.CandidatesFile, &g.candidates)
	return g
}

func (g generated) candidate(t *testing.T, name string) dataset.Candidate {
	t.Helper()
	for _, c := range g.candidates {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no candidate named %q", name)
	return dataset.Candidate{}
}

func TestCommittedJSONMatchesGenerator(t *testing.T) {
	files := generate(t)
	want := []string{dataset.CandidatesFile, dataset.ManifestFile, dataset.DistrictsFile, dataset.PartiesFile}
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
		t.Fatalf("Generate returned files %q, want %q", got, want)
	}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			committed, err := os.ReadFile(filepath.Join(outDir, name))
			if err != nil {
				t.Fatalf("%v; run `go generate ./dataset/...`", err)
			}
			if !bytes.Equal(committed, files[name]) {
				t.Errorf("dataset/malta-2022/%s is not what the generator makes from dataset/malta-2022/source; run `go generate ./dataset/...`", name)
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	first, second := generate(t), generate(t)
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestOutputFormat(t *testing.T) {
	for name, b := range generate(t) {
		if name == dataset.ManifestFile {
			continue // the manifest is passed through as it is
		}
		t.Run(name, func(t *testing.T) {
			if !bytes.HasPrefix(b, []byte("[\n  {\n    \"id\": ")) {
				t.Errorf("does not start as a 2-space indented array of records: %.40q", b)
			}
			if !bytes.HasSuffix(b, []byte("\n]\n")) {
				t.Errorf("does not end with a closing bracket and a newline")
			}
			for _, escaped := range []string{`\u0026`, `\u003c`, `\u003e`, `\u0027`} {
				if bytes.Contains(b, []byte(escaped)) {
					t.Errorf("contains the escape %s; characters must stay literal", escaped)
				}
			}
		})
	}
	files := generate(t)
	for _, literal := range []struct{ file, text string }{
		{dataset.DistrictsFile, `"name": "Ħamrun"`},
		{dataset.DistrictsFile, `"name_en": "St Julian's"`},
		{dataset.PartiesFile, `"name": "ADPD – The Green Party"`},
		{dataset.CandidatesFile, `"name": "José Herrera"`},
	} {
		if !bytes.Contains(files[literal.file], []byte(literal.text)) {
			t.Errorf("%s does not contain %s literally", literal.file, literal.text)
		}
	}
}

func TestCounts(t *testing.T) {
	g := load(t)
	localities := 0
	councils := map[string]bool{}
	for _, d := range g.districts {
		localities += len(d.Localities)
		for _, l := range d.Localities {
			// Gozo's Żebbuġ (district 13) is another council than Malta's.
			island := "Malta"
			if d.Number == 13 {
				island = "Gozo"
			}
			councils[island+"/"+l.Name] = true
		}
	}
	elected, incumbents := 0, 0
	for _, c := range g.candidates {
		if c.Elected != nil && *c.Elected {
			elected++
		}
		if c.IsIncumbent != nil {
			if !*c.IsIncumbent {
				t.Errorf("%s: is_incumbent is false; no source says so of anyone", c.Name)
			}
			incumbents++
		}
	}
	tests := []struct {
		name      string
		got, want int
	}{
		{"parties", len(g.parties), 6},
		{"districts", len(g.districts), 13},
		{"locality entries", localities, 73},
		{"distinct councils", len(councils), 68},
		{"candidates", len(g.candidates), 140},
		{"elected candidates", elected, 78},
		{"incumbents", incumbents, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
}

func TestParties(t *testing.T) {
	g := load(t)
	ptr := func(s string) *string { return &s }
	want := []dataset.Party{
		{Slug: "pl", Name: "Partit Laburista", ShortName: "PL", NameEN: ptr("Labour Party"), Website: ptr("https://partitlaburista.org")},
		{Slug: "pn", Name: "Partit Nazzjonalista", ShortName: "PN", NameEN: ptr("Nationalist Party"), Website: ptr("https://pn.org.mt")},
		{Slug: "adpd", Name: "ADPD – The Green Party", ShortName: "ADPD", Website: ptr("https://adpd.mt")},
		{Slug: "abba", Name: "ABBA", ShortName: "ABBA", Website: ptr("https://abba.com.mt")},
		{Slug: "volt", Name: "Volt Malta", ShortName: "Volt", Website: ptr("https://www.voltmalta.org")},
		{Slug: "pp", Name: "Partit Popolari", ShortName: "PP", NameEN: ptr("People's Party"), Website: ptr("https://partitpopolari.mt")},
	}
	if len(g.parties) != len(want) {
		t.Fatalf("got %d parties, want %d", len(g.parties), len(want))
	}
	str := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	for i, w := range want {
		t.Run(w.Slug, func(t *testing.T) {
			p := g.parties[i]
			for _, f := range []struct{ field, got, want string }{
				{"slug", p.Slug, w.Slug},
				{"name", p.Name, w.Name},
				{"short_name", p.ShortName, w.ShortName},
				{"name_en", str(p.NameEN), str(w.NameEN)},
				{"color", str(p.Color), "<null>"},
				{"website", str(p.Website), str(w.Website)},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
				}
			}
		})
	}
}

func TestDistricts(t *testing.T) {
	g := load(t)
	for i, d := range g.districts {
		if d.Number != i+1 {
			t.Errorf("district %d has number %d, want %d", i, d.Number, i+1)
		}
		if want := "District " + strconv.Itoa(i+1); d.Name != want {
			t.Errorf("district %d is named %q, want %q", d.Number, d.Name, want)
		}
		slugs := map[string]bool{}
		for _, l := range d.Localities {
			want := dataset.Slugify(l.Name)
			if d.Number == 13 && l.Name == "Żebbuġ" {
				want = "zebbug-gozo" // not the Żebbuġ of districts 6 and 7
			}
			if l.Slug != want {
				t.Errorf("district %d: %q has slug %q, want %q", d.Number, l.Name, l.Slug, want)
			}
			if slugs[l.Slug] {
				t.Errorf("district %d: slug %q is not unique", d.Number, l.Slug)
			}
			slugs[l.Slug] = true
		}
	}
}

func TestSplitCouncils(t *testing.T) {
	g := load(t)
	split := func(number int, name string) (found, isSplit bool) {
		for _, d := range g.districts {
			if d.Number != number {
				continue
			}
			for _, l := range d.Localities {
				if l.Name == name {
					return true, l.Split
				}
			}
		}
		return false, false
	}
	tests := []struct {
		council   string
		districts [2]int
	}{
		{"Fgura", [2]int{2, 4}},
		{"Luqa", [2]int{5, 6}},
		{"Żebbuġ", [2]int{6, 7}},
		{"Naxxar", [2]int{10, 12}},
		{"San Pawl il-Baħar", [2]int{11, 12}},
	}
	want := 0
	for _, tt := range tests {
		t.Run(tt.council, func(t *testing.T) {
			for _, n := range tt.districts {
				found, isSplit := split(n, tt.council)
				switch {
				case !found:
					t.Errorf("not in district %d", n)
				case !isSplit:
					t.Errorf("not split in district %d", n)
				}
			}
		})
		want += len(tt.districts)
	}
	got := 0
	for _, d := range g.districts {
		for _, l := range d.Localities {
			if l.Split {
				got++
			}
		}
	}
	if got != want {
		t.Errorf("%d locality entries are split, want %d", got, want)
	}
	if found, isSplit := split(13, "Żebbuġ"); !found || isSplit {
		t.Errorf("Gozo's Żebbuġ: found %v, split %v; want found and not split", found, isSplit)
	}
}

func TestLocalityEnglishNames(t *testing.T) {
	g := load(t)
	want := map[string]string{
		"Birgu":             "Vittoriosa",
		"Isla":              "Senglea",
		"Bormla":            "Cospicua",
		"San Ġiljan":        "St Julian's",
		"San Pawl il-Baħar": "St Paul's Bay",
	}
	for _, d := range g.districts {
		for _, l := range d.Localities {
			got := "<null>"
			if l.NameEN != nil {
				got = *l.NameEN
			}
			w, ok := want[l.Name]
			if !ok {
				w = "<null>"
			}
			if got != w {
				t.Errorf("district %d, %s: name_en %q, want %q", d.Number, l.Name, got, w)
			}
		}
	}
}

func TestIndependents(t *testing.T) {
	g := load(t)
	var independents []string
	for _, c := range g.candidates {
		if c.PartyID == nil {
			independents = append(independents, c.Name)
		}
	}
	want := []string{"Noel Apap", "Nazzareno Bonnici", "Arnold Cassola"}
	if !slices.Equal(independents, want) {
		t.Errorf("candidates with null party_id: %q, want %q", independents, want)
	}
}

func TestNameSplits(t *testing.T) {
	g := load(t)
	tests := []struct {
		name, given, family string
	}{
		{"Keith Azzopardi Tanti", "Keith", "Azzopardi Tanti"},
		{"Edward Zammit Lewis", "Edward", "Zammit Lewis"},
		{"Malcolm Paul Agius Galea", "Malcolm Paul", "Agius Galea"},
		{"Mario de Marco", "Mario", "de Marco"},
		{"Katya De Giovanni", "Katya", "De Giovanni"},
		{"Jean Claude Micallef", "Jean Claude", "Micallef"},
		{"Ivan J. Bartolo", "Ivan J.", "Bartolo"},
		{"Beppe Fenech Adami", "Beppe", "Fenech Adami"},
		{"Alex Perici Calascione", "Alex", "Perici Calascione"},
		{"Mark Anthony Sammut", "Mark Anthony", "Sammut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := g.candidate(t, tt.name)
			if c.GivenName != tt.given || c.FamilyName != tt.family {
				t.Errorf("split %q / %q, want %q / %q", c.GivenName, c.FamilyName, tt.given, tt.family)
			}
		})
	}
	for _, c := range g.candidates {
		if c.GivenName+" "+c.FamilyName != c.Name {
			t.Errorf("%q: given name %q and family name %q do not make up the name", c.Name, c.GivenName, c.FamilyName)
		}
	}
}

func TestCandidateDistricts(t *testing.T) {
	g := load(t)
	number := map[string]int{}
	for _, d := range g.districts {
		number[d.ID] = d.Number
	}
	for _, c := range g.candidates {
		if len(c.DistrictIDs) == 0 {
			t.Errorf("%s has no district", c.Name)
			continue
		}
		if c.PrimaryDistrictID != c.DistrictIDs[0] {
			t.Errorf("%s: primary district is not the first of district_ids", c.Name)
		}
		for i, id := range c.DistrictIDs {
			if number[id] == 0 {
				t.Errorf("%s: district id %s names no district", c.Name, id)
			}
			if i > 0 && number[id] <= number[c.DistrictIDs[i-1]] {
				t.Errorf("%s: district_ids are not in ascending district number", c.Name)
			}
		}
	}
	tests := []struct {
		name      string
		districts []int
	}{
		{"Robert Abela", []int{2, 5}},
		{"Arnold Cassola", []int{10, 11}},
		{"Nazzareno Bonnici", []int{3, 13}},
		{"Ivan Bartolo", []int{11}},
		{"Ivan J. Bartolo", []int{9, 12}},
		{"Bernice Bonello", []int{2, 4}},
		{"Doris Borg", []int{2, 4}},
		{"Alessia Psaila Zammit", []int{6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := g.candidate(t, tt.name)
			var got []int
			for _, id := range c.DistrictIDs {
				got = append(got, number[id])
			}
			if !slices.Equal(got, tt.districts) {
				t.Errorf("districts %v, want %v", got, tt.districts)
			}
		})
	}
}

func TestLeftOutCandidates(t *testing.T) {
	g := load(t)
	for _, name := range []string{"Jane Chircop", "Matthew Grech", "Joseph Ellis", "Romina Magro", "Rebecca Paris", "John Mark Attard"} {
		for _, c := range g.candidates {
			if c.Name == name {
				t.Errorf("%s has no district in the sources and must be left out", name)
			}
		}
	}
}

// The ids were computed once from the namespace and natural keys; they must
// never change, since clients may have stored them.
func TestStableIDs(t *testing.T) {
	g := load(t)
	partyID := func(slug string) string {
		for _, p := range g.parties {
			if p.Slug == slug {
				return p.ID
			}
		}
		return ""
	}
	districtID := func(n int) string {
		for _, d := range g.districts {
			if d.Number == n {
				return d.ID
			}
		}
		return ""
	}
	tests := []struct {
		name, got, want string
	}{
		{"party pl", partyID("pl"), "3340687a-1cbe-535f-87e7-72791cd00741"},
		{"district 1", districtID(1), "e15cb27f-fe38-5006-941a-db985fc8e40c"},
		{"district 13", districtID(13), "1a5b110d-3507-548c-bcb5-0771720a01d0"},
		{"candidate robert-abela", g.candidate(t, "Robert Abela").ID, "096d8135-71fe-5b81-b421-97c341bd1972"},
		{"party_id of Robert Abela", deref(g.candidate(t, "Robert Abela").PartyID), "3340687a-1cbe-535f-87e7-72791cd00741"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("id %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestIDsUnique(t *testing.T) {
	g := load(t)
	seen := map[string]string{}
	add := func(id, what string) {
		t.Helper()
		if other, dup := seen[id]; dup {
			t.Errorf("id %s is used by %s and %s", id, other, what)
		}
		seen[id] = what
		if strings.ToLower(id) != id || len(id) != 36 {
			t.Errorf("%s: id %q is not a lowercase canonical UUID", what, id)
		}
	}
	for _, p := range g.parties {
		add(p.ID, "party "+p.Slug)
	}
	for _, d := range g.districts {
		add(d.ID, "district "+d.Name)
	}
	for _, c := range g.candidates {
		add(c.ID, "candidate "+c.Slug)
	}
}

// sources returns the committed source files as an in-memory file system,
// with each edit applied to the text of the file it is keyed by.
func sources(t *testing.T, edits map[string]func(string) string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	names := []string{"parties.csv", "districts.csv", "candidates.csv", "candidates_provenance.csv", "candidates_without_district.csv"}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(sourceDir, name))
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: b}
	}
	for file, edit := range edits {
		f, ok := m[file]
		if !ok {
			t.Fatalf("no source file %s", file)
		}
		edited := edit(string(f.Data))
		if edited == string(f.Data) {
			t.Fatalf("edit of %s changed nothing", file)
		}
		f.Data = []byte(edited)
	}
	return m
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func TestGenerateRejectsBadSources(t *testing.T) {
	type edits = map[string]func(string) string
	tests := []struct {
		name    string
		edits   edits
		wantErr string
	}{
		{"party unknown to the table", edits{"parties.csv": replace("PP,Partit Popolari (People's Party)", "XY,Partit Popolari (People's Party)")}, `party "XY" is not in the generator's party table`},
		{"party missing from the CSV", edits{"parties.csv": replace("PP,Partit Popolari (People's Party),https://partitpopolari.mt\n", "")}, `party "PP" of the generator's party table is missing`},
		{"party name without its expected parenthetical", edits{"parties.csv": replace("Partit Laburista (Labour Party)", "Partit Laburista")}, "expects one"},
		{"duplicate locality slug", edits{"districts.csv": replace("1,Floriana,", "1,Valletta,")}, `slug "valletta" is not unique`},
		{"English name not at the start of the note", edits{"districts.csv": replace("2,Birgu,Vittoriosa", "2,Birgu,")}, "does not start with its English name"},
		{"split in one district only", edits{"districts.csv": replace("4,Fgura,split: the part not in district 2", "4,Fgura,")}, `"Fgura" is marked split but is split in only one district`},
		{"district out of range", edits{"districts.csv": replace("1,Marsa,", "14,Marsa,")}, "not a number from 1 to 13"},
		{"bad elected value", edits{
			"candidates.csv":            replace("Ray Abela,PL,1;3,yes", "Ray Abela,PL,1;3,maybe"),
			"candidates_provenance.csv": replace("Ray Abela,Ray,Abela,PL,1;3,yes,yes", "Ray Abela,Ray,Abela,PL,1;3,yes,maybe"),
		}, "want yes or no"},
		{"candidate files disagree on party", edits{"candidates.csv": replace("Ray Abela,PL,", "Ray Abela,PN,")}, "party_abbreviation"},
		{"candidate files disagree on districts", edits{"candidates.csv": replace("Ray Abela,PL,1;3,", "Ray Abela,PL,1;4,")}, "districts"},
		{"candidate missing from provenance", edits{"candidates_provenance.csv": replace("Ray Abela,Ray,Abela", "Roy Abela,Roy,Abela")}, `"Ray Abela" is not in candidates_provenance.csv`},
		{"candidate missing from candidates.csv", edits{"candidates.csv": replace("Ray Abela,PL,1;3,yes\n", "")}, `"Ray Abela" is not in candidates.csv`},
		{"name split does not make up the name", edits{"candidates_provenance.csv": replace("Ray Abela,Ray,Abela", "Ray Abela,Ray,Abel")}, "do not make up the name"},
		{"duplicate candidate slug", edits{
			"candidates.csv":            replace("Ray Abela,PL,1;3,yes\n", "Ray Abela,PL,1;3,yes\nRay Abela.,PL,1;3,yes\n"),
			"candidates_provenance.csv": replace("Sammy Farrugia,Sammy,Farrugia,", "Ray Abela.,Ray,Abela.,PL,1;3,yes,yes,,,high,X,\nSammy Farrugia,Sammy,Farrugia,"),
		}, "same slug"},
		{"left-out candidate also listed", edits{"candidates_without_district.csv": replace("Jane Chircop,", "Ray Abela,")}, "also in candidates.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := maltagen.Generate(sources(t, tt.edits), manifest(t))
			if err == nil {
				t.Fatalf("Generate succeeded, want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}
