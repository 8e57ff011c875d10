package dataset_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"strconv"
	"testing"

	"ballot/dataset"
)

// The facts of the embedded dataset that neither import nor validate can
// know: they hold the sheets in dataset/malta-2022/sheets to the sources
// described in dataset/malta-2022/SOURCES.md, so an edit of a sheet that
// loses or changes one of them fails here. That the embedded files are
// what import makes of the sheets is held by commands' TestEmbeddedIsImported.

// embedded holds the records of the embedded dataset, in file order.
type embedded struct {
	parties    []dataset.Party
	districts  []dataset.District
	candidates []dataset.Candidate
}

// loadEmbedded decodes the embedded files, refusing a field the records
// lack.
func loadEmbedded(t *testing.T) embedded {
	t.Helper()
	var e embedded
	for _, f := range []struct {
		name string
		v    any
	}{
		{dataset.PartiesFile, &e.parties},
		{dataset.DistrictsFile, &e.districts},
		{dataset.CandidatesFile, &e.candidates},
	} {
		b, err := fs.ReadFile(dataset.DefaultFS(), f.name)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.v); err != nil {
			t.Fatalf("decode %s: %v", f.name, err)
		}
	}
	return e
}

func (e embedded) candidate(t *testing.T, name string) dataset.Candidate {
	t.Helper()
	for _, c := range e.candidates {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no candidate named %q", name)
	return dataset.Candidate{}
}

// bySlug finds a candidate by slug, for names two candidates share.
func (e embedded) bySlug(t *testing.T, slug string) dataset.Candidate {
	t.Helper()
	for _, c := range e.candidates {
		if c.Slug == slug {
			return c
		}
	}
	t.Fatalf("no candidate with slug %q", slug)
	return dataset.Candidate{}
}

// str shows an optional value, null as <null>.
func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func TestEmbeddedCounts(t *testing.T) {
	e := loadEmbedded(t)
	localities := 0
	councils := map[string]bool{}
	for _, d := range e.districts {
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
	for _, c := range e.candidates {
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
		{"parties", len(e.parties), 6},
		{"districts", len(e.districts), 13},
		{"locality entries", localities, 73},
		{"distinct councils", len(councils), 68},
		// Every candidate of the count sheets: their 175 names, and
		// "Ivan Bartolo" is three people (SOURCES.md, "Count sheets").
		{"candidates", len(e.candidates), 177},
		{"elected candidates", elected, 78},
		{"incumbents", incumbents, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
}

func TestEmbeddedParties(t *testing.T) {
	e := loadEmbedded(t)
	ptr := func(s string) *string { return &s }
	want := []dataset.Party{
		{Slug: "pl", Name: "Partit Laburista", ShortName: "PL", NameEN: ptr("Labour Party"), Website: ptr("https://partitlaburista.org")},
		{Slug: "pn", Name: "Partit Nazzjonalista", ShortName: "PN", NameEN: ptr("Nationalist Party"), Website: ptr("https://pn.org.mt")},
		{Slug: "adpd", Name: "ADPD – The Green Party", ShortName: "ADPD", Website: ptr("https://adpd.mt")},
		{Slug: "abba", Name: "ABBA", ShortName: "ABBA", Website: ptr("https://abba.com.mt")},
		{Slug: "volt", Name: "Volt Malta", ShortName: "Volt", Website: ptr("https://www.voltmalta.org")},
		{Slug: "pp", Name: "Partit Popolari", ShortName: "PP", NameEN: ptr("People's Party"), Website: ptr("https://partitpopolari.mt")},
	}
	if len(e.parties) != len(want) {
		t.Fatalf("got %d parties, want %d", len(e.parties), len(want))
	}
	for i, w := range want {
		t.Run(w.Slug, func(t *testing.T) {
			p := e.parties[i]
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

func TestEmbeddedDistricts(t *testing.T) {
	e := loadEmbedded(t)
	for i, d := range e.districts {
		if d.Number != i+1 {
			t.Errorf("district %d has number %d, want %d", i, d.Number, i+1)
		}
		if want := "District " + strconv.Itoa(i+1); d.Name != want {
			t.Errorf("district %d is named %q, want %q", d.Number, d.Name, want)
		}
		for _, l := range d.Localities {
			want := dataset.Slugify(l.Name)
			if d.Number == 13 && l.Name == "Żebbuġ" {
				want = "zebbug-gozo" // not the Żebbuġ of districts 6 and 7
			}
			if l.Slug != want {
				t.Errorf("district %d: %q has slug %q, want %q", d.Number, l.Name, l.Slug, want)
			}
		}
	}
}

func TestEmbeddedSplitCouncils(t *testing.T) {
	e := loadEmbedded(t)
	split := func(number int, name string) (found, isSplit bool) {
		for _, d := range e.districts {
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
	for _, d := range e.districts {
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

func TestEmbeddedLocalityEnglishNames(t *testing.T) {
	e := loadEmbedded(t)
	want := map[string]string{
		"Birgu":             "Vittoriosa",
		"Isla":              "Senglea",
		"Bormla":            "Cospicua",
		"San Ġiljan":        "St Julian's",
		"San Pawl il-Baħar": "St Paul's Bay",
	}
	for _, d := range e.districts {
		for _, l := range d.Localities {
			w, ok := want[l.Name]
			if !ok {
				w = "<null>"
			}
			if got := str(l.NameEN); got != w {
				t.Errorf("district %d, %s: name_en %q, want %q", d.Number, l.Name, got, w)
			}
		}
	}
}

func TestEmbeddedIndependents(t *testing.T) {
	e := loadEmbedded(t)
	var independents []string
	for _, c := range e.candidates {
		if c.PartyID == nil {
			independents = append(independents, c.Name)
		}
	}
	want := []string{"Noel Apap", "Jane Chircop", "Nazzareno Bonnici", "Arnold Cassola"}
	if !slices.Equal(independents, want) {
		t.Errorf("candidates with null party_id: %q, want %q", independents, want)
	}
}

func TestEmbeddedNameSplits(t *testing.T) {
	e := loadEmbedded(t)
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
		// Named by the count sheets only, split by hand.
		{"Kenneth Spiteri", "Kenneth", "Spiteri"},
		{"David Pace Ross", "David", "Pace Ross"},
		{"Felix Busuttil Galea", "Felix", "Busuttil Galea"},
		{"Ivan Grech Mintoff", "Ivan", "Grech Mintoff"},
		{"Stevey Ellul Bonici", "Stevey", "Ellul Bonici"},
		{"Oliver De Gaetano", "Oliver", "De Gaetano"},
		{"George Paul Camilleri", "George Paul", "Camilleri"},
		{"David John Buttigieg", "David John", "Buttigieg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.candidate(t, tt.name)
			if c.GivenName != tt.given || c.FamilyName != tt.family {
				t.Errorf("split %q / %q, want %q / %q", c.GivenName, c.FamilyName, tt.given, tt.family)
			}
		})
	}
	for _, c := range e.candidates {
		if c.GivenName+" "+c.FamilyName != c.Name {
			t.Errorf("%q: given name %q and family name %q do not make up the name", c.Name, c.GivenName, c.FamilyName)
		}
	}
}

func TestEmbeddedCandidateDistricts(t *testing.T) {
	e := loadEmbedded(t)
	number := map[string]int{}
	for _, d := range e.districts {
		number[d.ID] = d.Number
	}
	for _, c := range e.candidates {
		// The count sheets give every district a candidate contested,
		// and the law allows two.
		if n := len(c.DistrictIDs); n < 1 || n > 2 {
			t.Errorf("%s: stands in %d districts, want 1 or 2", c.Name, n)
		}
		// No source marks a primary district, so the sheet lists each
		// candidate's districts in ascending order (SOURCES.md).
		for i, id := range c.DistrictIDs {
			if i > 0 && number[id] <= number[c.DistrictIDs[i-1]] {
				t.Errorf("%s: district_ids are not in ascending district number", c.Name)
			}
		}
	}
	tests := []struct {
		slug      string
		districts []int
	}{
		{"robert-abela", []int{2, 5}},
		{"arnold-cassola", []int{10, 11}},
		{"nazzareno-bonnici", []int{3, 13}},
		{"ivan-bartolo", []int{11}},
		{"ivan-j-bartolo", []int{9, 12}},
		// The count sheets' "Bartolo, Ivan" of 4 and 7: neither of the
		// two above for certain, so another candidate.
		{"ivan-bartolo-2", []int{4, 7}},
		{"kenneth-spiteri", []int{3, 12}},
		{"bernice-bonello", []int{2, 4}},
		{"doris-borg", []int{2, 4}},
		{"alessia-psaila-zammit", []int{6, 7}},
		// Second districts that only the count sheets give.
		{"errol-cutajar", []int{2, 3}},
		{"evarist-bartolo", []int{10, 12}},
		// Once left out for want of a district.
		{"jane-chircop", []int{2, 12}},
		{"matthew-grech", []int{10, 11}},
		{"joseph-ellis", []int{13}},
		{"romina-magro", []int{2, 4}},
		{"rebecca-paris", []int{6, 8}},
		{"john-mark-attard", []int{6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			c := e.bySlug(t, tt.slug)
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

// Who won a seat comes from the audit, not from the count sheets: the
// candidates only the sheets name were all beaten at the count and won no
// seat after it.
func TestEmbeddedElected(t *testing.T) {
	e := loadEmbedded(t)
	tests := []struct {
		slug    string
		elected bool
	}{
		{"ivan-bartolo", true},
		{"ivan-j-bartolo", true},
		{"ivan-bartolo-2", false},
		{"kenneth-spiteri", false},
		{"carmelo-abela", true},
		{"dario-vella", false},
		{"joseph-ellis", false},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			c := e.bySlug(t, tt.slug)
			if c.Elected == nil || *c.Elected != tt.elected {
				t.Errorf("elected %v, want %v", c.Elected, tt.elected)
			}
		})
	}
}

// The ids were computed once from the namespace and natural keys; they must
// never change, since clients may have stored them.
func TestEmbeddedStableIDs(t *testing.T) {
	e := loadEmbedded(t)
	partyID := func(slug string) string {
		for _, p := range e.parties {
			if p.Slug == slug {
				return p.ID
			}
		}
		return ""
	}
	districtID := func(n int) string {
		for _, d := range e.districts {
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
		{"candidate robert-abela", e.candidate(t, "Robert Abela").ID, "096d8135-71fe-5b81-b421-97c341bd1972"},
		{"party_id of Robert Abela", str(e.candidate(t, "Robert Abela").PartyID), "3340687a-1cbe-535f-87e7-72791cd00741"},
		{"candidate ivan-bartolo", e.bySlug(t, "ivan-bartolo").ID, "82d7d0a4-3412-5baa-9f5b-058077a3a7e9"},
		{"candidate ivan-j-bartolo", e.bySlug(t, "ivan-j-bartolo").ID, "be515e48-df35-5dff-a33f-14f6bcf7d269"},
		// Derived from its slug, which the sheet gives so that the name's
		// own slug stays with the Ivan Bartolo of district 11.
		{"candidate ivan-bartolo-2", e.bySlug(t, "ivan-bartolo-2").ID, "c2da3b7b-ef2a-5b33-be9a-e9d024f35612"},
		// Published as Kevin Spiteri (kevin-spiteri); the sheet gives the id.
		{"candidate kenneth-spiteri", e.bySlug(t, "kenneth-spiteri").ID, "7803977d-8da5-5346-9f9b-82004b073c85"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("id %q, want %q", tt.got, tt.want)
			}
		})
	}
}
