package archive_test

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/uuid"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// namespace is the embedded dataset's ids.namespace.
const namespace = "813b69c7-cf6a-402e-aa77-01673dae86ce"

// election is the embedded dataset's files with an [election] table of
// the lines given in its dataset.toml, or none without lines, and no
// candidate's person_id: each test gives the persons it is about
// (setPerson).
func election(t *testing.T, lines ...string) fstest.MapFS {
	t.Helper()
	m := datasettest.Files(t)
	table := ""
	if len(lines) > 0 {
		table = "[election]\n" + strings.Join(lines, "\n") + "\n"
	}
	datasettest.WithElection(t, m, table)
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			delete(r, "person_id")
		}
		return rs
	})
	return m
}

// twoElections is an archive of the embedded dataset twice: as 2022
// (current, dated) and as 2017 (dated five years before), each with a
// change made by edit when given.
func twoElections(t *testing.T, manifest string, edit2022, edit2017 func(fstest.MapFS)) fstest.MapFS {
	t.Helper()
	e2022 := election(t, `slug = "2022"`, `name = "Elezzjoni Ġenerali 2022"`, `name_en = "General election 2022"`, `date = 2022-03-26`)
	e2017 := election(t, `slug = "2017"`, `name = "Elezzjoni Ġenerali 2017"`, `date = 2017-06-03`)
	if edit2022 != nil {
		edit2022(e2022)
	}
	if edit2017 != nil {
		edit2017(e2017)
	}
	return archiveOf(manifest, map[string]fstest.MapFS{"2022": e2022, "2017": e2017})
}

// archiveOf is an archive of archive.toml and the elections by directory.
func archiveOf(manifest string, elections map[string]fstest.MapFS) fstest.MapFS {
	m := fstest.MapFS{archive.File: {Data: []byte(manifest)}}
	for dir, files := range elections {
		for name, f := range files {
			m[dir+"/"+name] = f
		}
	}
	return m
}

const twoTOML = `elections = ["2022", "2017"]
current = "2022"
`

// setPerson gives the candidates with the slugs the person_id of the key
// (as import derives it, in the embedded dataset's namespace).
func setPerson(t *testing.T, m fstest.MapFS, key string, slugs ...string) {
	t.Helper()
	id := uuid.NewSHA1(uuid.MustParse(namespace), []byte("person/"+key)).String()
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if slices.Contains(slugs, r["slug"].(string)) {
				r["person_id"] = id
			}
		}
		return rs
	})
}

func personID(key string) string {
	return uuid.NewSHA1(uuid.MustParse(namespace), []byte("person/"+key)).String()
}

// TestSingleDataset: a dataset's files are an archive of one election,
// current, whose dataset is the dataset as it loads alone, and whose
// record says what a dataset without [election] can say.
func TestSingleDataset(t *testing.T) {
	a, err := archive.Load(election(t))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(election(t))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Single() || len(a.Elections()) != 1 || a.Current() != a.Elections()[0] {
		t.Fatalf("single %t, %d elections, current %p of %p", a.Single(), len(a.Elections()), a.Current(), a.Elections()[0])
	}
	e := a.Current()
	if e.Dataset().Version != ds.Version || a.Version != ds.Version || e.Dir != "" {
		t.Errorf("version %s (archive %s), dir %q; want the dataset's %s and no directory", e.Dataset().Version, a.Version, e.Dir, ds.Version)
	}
	if len(a.Warnings) != len(ds.Warnings) || a.Size() != int64(ds.Size()) {
		t.Errorf("%d warnings, size %d; want the dataset's %d and %d", len(a.Warnings), a.Size(), len(ds.Warnings), ds.Size())
	}
	seats := 0
	for _, s := range ds.Sheets() {
		seats += s.Seats
	}
	want := `{"id":"` + uuid.NewSHA1(uuid.MustParse(namespace), []byte("election/current")).String() + `","slug":"current","name":"Malta general election, 26 March 2022","name_en":null,"kind":"general","date":null,"current":true,"districts":13,"seats":` + strconv.Itoa(seats) + `,"counts":{"parties":6,"districts":13,"candidates":177,"results":13}}`
	if got := string(dataset.EncodeRecord(e.Record)); got != want {
		t.Errorf("record\n%s\nwant\n%s", got, want)
	}
	if len(a.People()) != 0 {
		t.Errorf("%d people; want none: no candidate has a person_id", len(a.People()))
	}
}

// TestOf: an archive of a dataset already loaded is what a load of its
// files makes of it: one election, current, its record and its warnings.
func TestOf(t *testing.T) {
	m := election(t)
	loaded, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	a := archive.Of(ds)
	if !a.Single() || a.Current().Dataset() != ds || a.Version != loaded.Version || a.Size() != loaded.Size() ||
		len(a.Warnings) != len(loaded.Warnings) || !bytes.Equal(dataset.EncodeRecord(a.Current().Record), dataset.EncodeRecord(loaded.Current().Record)) {
		t.Errorf("Of: single %t, version %s, size %d, %d warnings, record %+v; want the load's %s, %d, %d, %+v",
			a.Single(), a.Version, a.Size(), len(a.Warnings), a.Current().Record, loaded.Version, loaded.Size(), len(loaded.Warnings), loaded.Current().Record)
	}
}

// TestSingleDatasetElection: a dataset's [election] names its election,
// and its id, without [election] id, is derived from the slug; without
// ids.namespace, in ballot's own namespace.
func TestSingleDatasetElection(t *testing.T) {
	m := election(t, `slug = "2022"`, `name = "Elezzjoni Ġenerali 2022"`, `name_en = "General election 2022"`, `kind = "general"`, `date = 2022-03-26`)
	a, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Current().Record
	if r.Slug != "2022" || r.Name != "Elezzjoni Ġenerali 2022" || *r.NameEN != "General election 2022" || *r.Date != "2022-03-26" ||
		r.ID != uuid.NewSHA1(uuid.MustParse(namespace), []byte("election/2022")).String() {
		t.Errorf("record %+v", r)
	}
	m[dataset.ManifestFile].Data = []byte(strings.Replace(string(m[dataset.ManifestFile].Data), `namespace = "`+namespace+`"`, "", 1))
	if a, err = archive.Load(m); err != nil {
		t.Fatal(err)
	}
	if got, want := a.Current().Record.ID, uuid.NewSHA1(uuid.MustParse(archive.Namespace), []byte("election/2022")).String(); got != want {
		t.Errorf("id without a namespace %s, want %s", got, want)
	}
}

// TestTwoElections: an archive's elections newest first, the current one,
// their records, and the people who stood in both.
func TestTwoElections(t *testing.T) {
	m := twoElections(t, `elections = ["2017", "2022"]
current = "2022"
`, func(m fstest.MapFS) {
		setPerson(t, m, "robert-abela", "robert-abela")
		setPerson(t, m, "ivan-bartolo", "ivan-bartolo")
	}, func(m fstest.MapFS) {
		setPerson(t, m, "robert-abela", "robert-abela")
		setPerson(t, m, "ivan-bartolo-2", "ivan-bartolo-2")
		datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
			for _, r := range rs {
				if r["slug"] == "ivan-bartolo-2" {
					r["slug"] = "ivan-bartolo" // in 2017, the other Ivan Bartolo had the plain slug
				} else if r["slug"] == "ivan-bartolo" {
					r["slug"] = "ivan-bartolo-3"
				}
			}
			return rs
		})
	})
	a, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if a.Single() {
		t.Error("an archive is single")
	}
	var slugs []string
	for _, e := range a.Elections() {
		slugs = append(slugs, e.Dir+":"+e.Record.Slug)
	}
	if want := []string{"2022:2022", "2017:2017"}; !slices.Equal(slugs, want) {
		t.Errorf("elections %v, want %v, newest first", slugs, want)
	}
	if c := a.Current(); c.Record.Slug != "2022" || !c.Record.Current || a.Elections()[1].Record.Current {
		t.Errorf("current %s; 2017 current %t", c.Record.Slug, a.Elections()[1].Record.Current)
	}
	for _, key := range []string{"2017", uuid.NewSHA1(uuid.MustParse(namespace), []byte("election/2017")).String()} {
		if e, err := a.Election(strings.ToUpper(key)); err != nil || e.Record.Slug != "2017" {
			t.Errorf("Election(%q) = %v, %v", key, e, err)
		}
	}
	for key, want := range map[string]string{
		"2016":   `no election has the slug or id "2016"; the elections are "2022" and "2017"; did you mean "2017"?`,
		"latest": `no election has the slug or id "latest"; the elections are "2022" and "2017"`,
	} {
		if _, err := a.Election(key); err == nil || err.Error() != want {
			t.Errorf("Election(%s): %v, want %s", key, err, want)
		}
	}
	if i, err := a.ElectionIndex("2017"); err != nil || a.Elections()[i].Record.Slug != "2017" {
		t.Errorf("ElectionIndex(2017) = %d, %v", i, err)
	}

	// People: Robert Abela in both; the 2022 Ivan Bartolo keeps the slug,
	// the 2017 one, whose candidate slug was the same, has 2017's added.
	var people []string
	for _, p := range a.People() {
		people = append(people, p.Slug+" "+p.Name+" "+strconv.Itoa(len(p.Candidacies)))
	}
	if want := []string{"robert-abela Robert Abela 2", "ivan-bartolo Ivan Bartolo 1", "ivan-bartolo-2017 Ivan Bartolo 1"}; !slices.Equal(people, want) {
		t.Errorf("people %q, want %q", people, want)
	}
	p, err := a.Person("ROBERT-ABELA")
	if err != nil {
		t.Fatal(err)
	}
	if q, err := a.Person(strings.ToUpper(personID("robert-abela"))); err != nil || q != p {
		t.Errorf("Person by id: %v, %v", q, err)
	}
	if i, err := a.PersonIndex("robert-abela"); err != nil || &a.People()[i] != p {
		t.Errorf("PersonIndex(robert-abela) = %d, %v", i, err)
	}
	if p.ID != personID("robert-abela") || p.Candidacies[0].ElectionSlug != "2022" || p.Candidacies[1].ElectionSlug != "2017" {
		t.Errorf("Robert Abela: %s, candidacies in %s then %s", p.ID, p.Candidacies[0].ElectionSlug, p.Candidacies[1].ElectionSlug)
	}
	c := p.Candidacies[0]
	ds := a.Current().Dataset()
	ci, _ := ds.Lookup(dataset.Candidates, "robert-abela")
	cand := ds.Candidates()[ci]
	if c.CandidateID != cand.ID || c.ElectionID != a.Current().Record.ID || c.Name != "Robert Abela" || !slices.Equal(c.DistrictIDs, cand.DistrictIDs) || *c.Elected != true {
		t.Errorf("candidacy %+v", c)
	}
	// His rows of the count sheets of districts 2 and 5.
	if len(c.Results) != 2 || c.Results[0].DistrictNumber != 2 || c.Results[1].DistrictNumber != 5 {
		t.Fatalf("results %+v, want districts 2 and 5", c.Results)
	}
	sheet, _ := ds.Sheet(5)
	for _, row := range sheet.Candidacies {
		if row.CandidateID == cand.ID && (row.FirstPreferences != c.Results[1].FirstPreferences || *row.ElectedAtCount != *c.Results[1].ElectedAtCount || c.Results[1].ExcludedAtCount != nil) {
			t.Errorf("district 5: %+v, want the sheet's row %+v", c.Results[1], row)
		}
	}
	if _, err := a.Person("robert-abel"); err == nil || err.Error() != `no person has the slug or id "robert-abel"; did you mean "robert-abela"?` {
		t.Errorf("Person(robert-abel): %v", err)
	}
}

// TestSearchPeople: people are found by the candidates' q rules, in
// published order, and a q the candidates refuse is refused the same.
func TestSearchPeople(t *testing.T) {
	m := twoElections(t, twoTOML, func(m fstest.MapFS) {
		setPerson(t, m, "robert-abela", "robert-abela")
		setPerson(t, m, "carmelo-abela", "carmelo-abela")
		setPerson(t, m, "ray-abela", "ray-abela")
	}, func(m fstest.MapFS) {
		setPerson(t, m, "robert-abela", "robert-abela")
		// A name a person bore in 2017 finds them.
		datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
			for _, r := range rs {
				if r["slug"] == "robert-abela" {
					r["name"], r["given_name"] = "Bobby Abela", "Bobby"
				}
			}
			return rs
		})
	})
	a, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"ABELA", []string{"carmelo-abela", "ray-abela", "robert-abela"}},
		{"  bobby ", []string{"robert-abela"}},
		{"abéla", []string{"carmelo-abela", "ray-abela", "robert-abela"}},
		{"xq", []string{}},
	}
	for _, tt := range tests {
		found, err := a.SearchPeople(tt.q)
		if err != nil {
			t.Fatalf("q=%q: %v", tt.q, err)
		}
		got := []string{}
		for _, i := range found {
			got = append(got, a.People()[i].Slug)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("q=%q: %v, want %v", tt.q, got, tt.want)
		}
	}
	// The API's search: q required, once, then as SearchPeople reads it.
	for _, tt := range []struct {
		params dataset.Params
		want   string
	}{
		{dataset.Params{"q": {"ABELA"}}, "3 people"},
		{dataset.Params{"q": {"abela"}, "limit": {"1"}}, "3 people"},
		{nil, "q is required: the text to look for in the names, of 2 to 100 characters"},
		{dataset.Params{"q": {""}}, "q is required: the text to look for in the names, of 2 to 100 characters"},
		{dataset.Params{"q": {"ab", "cd"}}, "q must be given at most once"},
		{dataset.Params{"q": {"a"}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
	} {
		found, err := a.QueryPeople(tt.params)
		got := strconv.Itoa(len(found)) + " people"
		var perr *dataset.ParamError
		if errors.As(err, &perr) && len(perr.Params) == 1 && perr.Params[0].Name == "q" {
			got = err.Error()
		} else if err != nil {
			got = "error " + err.Error()
		}
		if got != tt.want {
			t.Errorf("QueryPeople(%v): %s, want %s", tt.params, got, tt.want)
		}
	}
	ds := a.Current().Dataset()
	for _, q := range []string{"a", "  ", "\u0301\u0301", strings.Repeat("x", 101)} {
		_, err := a.SearchPeople(q)
		_, want := ds.Query(dataset.Candidates, dataset.Params{"q": {q}})
		var perr *dataset.ParamError
		if !errors.As(err, &perr) || want == nil || err.Error() != want.Error() {
			t.Errorf("q=%q: %v, want the candidates' %v", q, err, want)
		}
	}
}

// TestArchiveRules: each rule of an archive, broken alone, refuses the
// archive with its one message, naming the election by its directory and
// the file.
func TestArchiveRules(t *testing.T) {
	replace := func(old, new string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			m[dataset.ManifestFile].Data = []byte(strings.Replace(string(m[dataset.ManifestFile].Data), old, new, 1))
		}
	}
	tests := []struct {
		name               string
		manifest           string
		edit2022, edit2017 func(fstest.MapFS)
		want               []string
	}{
		{"slug used twice", twoTOML, nil, replace(`slug = "2017"`, `slug = "2022"`), []string{
			`2017/dataset.toml: election.slug: slug "2022" is already the slug of the election in 2022/dataset.toml: each election of an archive has a slug of its own`,
		}},
		{"no slug", twoTOML, nil, replace(`slug = "2017"`, ``), []string{
			`2017/dataset.toml: election.slug: key "election.slug" is missing: an archive names each election by a slug, in [election] (slug = "2022")`,
		}},
		{"no name", twoTOML, nil, replace(`name = "Elezzjoni Ġenerali 2017"`, ``), []string{
			`2017/dataset.toml: election.name: key "election.name" is missing: an archive gives each election a name, in [election]`,
		}},
		{"no [election]", twoTOML, nil, func(m fstest.MapFS) { datasettest.WithElection(t, m, "") }, []string{
			`2017/dataset.toml: election.slug: key "election.slug" is missing: an archive names each election by a slug, in [election] (slug = "2022")`,
			`2017/dataset.toml: election.name: key "election.name" is missing: an archive gives each election a name, in [election]`,
		}},
		{"id used twice", twoTOML, replace(`slug = "2022"`, "slug = \"2022\"\nid = \"0f8b6f4e-1f2a-5d3c-9b7e-6a5d4c3b2a19\""), replace(`slug = "2017"`, "slug = \"2017\"\nid = \"0f8b6f4e-1f2a-5d3c-9b7e-6a5d4c3b2a19\""), []string{
			`2017/dataset.toml: election.id: election "2017" has the id 0f8b6f4e-1f2a-5d3c-9b7e-6a5d4c3b2a19, which is already the id of election "2022" in 2022/dataset.toml`,
		}},
		{"no current election", "elections = [\"2022\", \"2017\"]\n", nil, nil, []string{
			`archive.toml: current: key "current" is missing: name the current election by its slug ("2022" or "2017")`,
		}},
		{"current names no election", "elections = [\"2022\", \"2017\"]\ncurrent = \"2016\"\n", nil, nil, []string{
			`archive.toml: current: no election has the slug "2016" (did you mean "2017"?); the slugs are "2022" and "2017"`,
		}},
		{"current names no election, none near", "elections = [\"2022\", \"2017\"]\ncurrent = \"latest\"\n", nil, nil, []string{
			`archive.toml: current: no election has the slug "latest"; the slugs are "2022" and "2017"`,
		}},
		{"a person id on two names", twoTOML, nil, func(m fstest.MapFS) { setPerson(t, m, "x", "robert-abela", "owen-bonnici") }, nil},
		{"a title with a control character", twoTOML + "title = \"Elections\\u0007\"\n", nil, nil, []string{
			`archive.toml: title: holds the control character U+0007, not allowed in names, slugs, ids and links`,
		}},
		{"a blank title", twoTOML + "title = \" \"\n", nil, nil, []string{
			`archive.toml: title: key "title" is blank: name the archive, or leave the key out`,
		}},
		{"unknown key", twoTOML + "curent = \"2017\"\n", nil, nil, []string{
			`archive.toml: curent: unknown key "curent" (did you mean "current"?)`,
		}},
		{"no elections", "current = \"2022\"\n", nil, nil, []string{
			`archive.toml: elections: key "elections" is missing or empty: list each election's directory, relative to archive.toml (elections = ["2022", "2017"])`,
			`archive.toml: current: no election has the slug "2022"; the slugs are none`,
		}},
		{"a directory out of the archive", "elections = [\"2022\", \"../2017\", \"/2017\"]\ncurrent = \"2022\"\n", nil, nil, []string{
			`archive.toml: elections: "../2017" is not a directory inside the archive: name each election's directory relative to archive.toml, with / between its parts and no ..`,
			`archive.toml: elections: "/2017" is not a directory inside the archive: name each election's directory relative to archive.toml, with / between its parts and no ..`,
		}},
		{"a directory twice", "elections = [\"2022\", \"2017\", \"./2017\"]\ncurrent = \"2022\"\n", nil, nil, []string{
			`archive.toml: elections: "./2017" is listed twice: an election is listed once`,
		}},
		{"no such directory", "elections = [\"2022\", \"2016\"]\ncurrent = \"2022\"\n", nil, nil, []string{
			`archive.toml: elections: "2016" is not a directory beside archive.toml: each election is a dataset directory in the archive`,
		}},
		{"archive.toml and dataset.toml", twoTOML, nil, nil, []string{
			`archive.toml: this directory holds both archive.toml and dataset.toml: an archive's elections are in directories of their own, each with its dataset.toml; keep one of the two files here`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := twoElections(t, tt.manifest, tt.edit2022, tt.edit2017)
			if tt.name == "archive.toml and dataset.toml" {
				m[dataset.ManifestFile] = datasettest.Files(t)[dataset.ManifestFile]
			}
			want := tt.want
			if want == nil { // the dataset's own message, in its election
				broken := election(t)
				setPerson(t, broken, "x", "robert-abela", "owen-bonnici")
				_, err := dataset.Load(broken)
				var r *dataset.Report
				if !errors.As(err, &r) || len(r.Errors) != 1 {
					t.Fatalf("the election alone: %v", err)
				}
				want = []string{"2017/" + r.Errors[0].String()}
			}
			a, err := archive.Load(m)
			var r *dataset.Report
			if a != nil || !errors.As(err, &r) {
				t.Fatalf("loaded: %v, %v", a, err)
			}
			var got []string
			for _, p := range r.Errors {
				got = append(got, p.String())
			}
			if !slices.Equal(got, want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestBrokenElection: an election that breaks a dataset's rule refuses
// the archive with the election's problems, its directory before each
// file, and the problems of the other elections in the same run.
func TestBrokenElection(t *testing.T) {
	unbalance := func(m fstest.MapFS) {
		datasettest.Edit(t, m, dataset.CountsFile, func(rs []map[string]any) []map[string]any {
			totals := rs[4]["candidacies"].([]any)[0].(map[string]any)["totals"].([]any)
			totals[5] = totals[5].(float64) - 1
			return rs
		})
	}
	alone := election(t)
	unbalance(alone)
	_, err := dataset.Load(alone)
	var own *dataset.Report
	if !errors.As(err, &own) || len(own.Errors) == 0 {
		t.Fatalf("the unbalanced election alone: %v", err)
	}
	var want []string
	for _, p := range own.Errors {
		want = append(want, "2017/"+p.String())
	}
	want = append(want, `archive.toml: current: no election has the slug "2016" (did you mean "2017"?); the slugs are "2022" and "2017"`)
	_, err = archive.Load(twoElections(t, "elections = [\"2022\", \"2017\"]\ncurrent = \"2016\"\n", nil, unbalance))
	var r *dataset.Report
	if !errors.As(err, &r) {
		t.Fatalf("loaded: %v", err)
	}
	var got []string
	for _, p := range r.Errors {
		got = append(got, p.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPersonWarnings: the same name and party in two elections under two
// persons, or without one, is a warning of the newer election's
// candidates.json; one person in both is not.
func TestPersonWarnings(t *testing.T) {
	tests := []struct {
		name               string
		edit2022, edit2017 func(fstest.MapFS)
		want               string
	}{
		{"linked", func(m fstest.MapFS) { setPerson(t, m, "robert-abela", "robert-abela") }, func(m fstest.MapFS) { setPerson(t, m, "robert-abela", "robert-abela") }, ""},
		{"two persons", func(m fstest.MapFS) { setPerson(t, m, "robert-abela", "robert-abela") }, func(m fstest.MapFS) { setPerson(t, m, "abela", "robert-abela") },
			"2022/candidates.json: Robert Abela, PL, in 2017 and 2022 (two different person_ids): give both the same person key if they are one person"},
		{"a person in 2022 only", func(m fstest.MapFS) { setPerson(t, m, "robert-abela", "robert-abela") }, nil,
			"2022/candidates.json: Robert Abela, PL, in 2017 and 2022 (a person_id in 2022 only): give both the same person key if they are one person"},
		{"a person in 2017 only", nil, func(m fstest.MapFS) { setPerson(t, m, "robert-abela", "robert-abela") },
			"2022/candidates.json: Robert Abela, PL, in 2017 and 2022 (a person_id in 2017 only): give both the same person key if they are one person"},
		{"no person", nil, nil,
			"2022/candidates.json: Robert Abela, PL, in 2017 and 2022 (no person_id in either): give both the same person key if they are one person"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := archive.Load(twoElections(t, twoTOML, tt.edit2022, tt.edit2017))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range a.Warnings {
				if strings.Contains(p.Message, "Robert Abela") {
					got = append(got, p.String())
				}
			}
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if !slices.Equal(got, want) {
				t.Errorf("warnings %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLoadDir: an archive on disk loads as it does from an fs.FS, and
// its elections must be directories inside it.
func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	for name, f := range twoElections(t, twoTOML, nil, nil) {
		p := filepath.Join(dir, "elections", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := archive.LoadDir(filepath.Join(dir, "elections"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Elections()) != 2 || a.Current().Dir != "2022" {
		t.Fatalf("%d elections, current %q", len(a.Elections()), a.Current().Dir)
	}
	size, err := archive.FilesSize(filepath.Join(dir, "elections"))
	if err != nil || size != a.Size() {
		t.Errorf("FilesSize %d, %v; the load read %d", size, err, a.Size())
	}
	// 2017 becomes a link to a copy outside the archive.
	if err := os.Rename(filepath.Join(dir, "elections", "2017"), filepath.Join(dir, "2017")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "2017"), filepath.Join(dir, "elections", "2017")); err != nil {
		t.Fatal(err)
	}
	_, err = archive.LoadDir(filepath.Join(dir, "elections"))
	want := "dataset is invalid: 1 error\n" + `archive.toml: elections: "2017" is a link to a directory outside the archive; only directories inside it are read`
	if err == nil || err.Error() != want {
		t.Errorf("an election linked from outside: %v, want %s", err, want)
	}
}

// TestPersonSlugTaken: a person's slug with their latest election's slug
// added is numbered when another person has it already.
func TestPersonSlugTaken(t *testing.T) {
	m := twoElections(t, twoTOML, func(m fstest.MapFS) {
		setPerson(t, m, "ivan-bartolo", "ivan-bartolo")
		setPerson(t, m, "ray-abela", "ray-abela")
		datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
			for _, r := range rs {
				if r["slug"] == "ray-abela" {
					r["slug"] = "ivan-bartolo-2017"
				}
			}
			return rs
		})
	}, func(m fstest.MapFS) { setPerson(t, m, "another-ivan-bartolo", "ivan-bartolo") })
	a, err := archive.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, p := range a.People() {
		slugs = append(slugs, p.Slug)
	}
	if want := []string{"ivan-bartolo-2017", "ivan-bartolo", "ivan-bartolo-2017-2"}; !slices.Equal(slugs, want) {
		t.Errorf("slugs %v, want %v", slugs, want)
	}
}

// TestCheckDirWarns: a check of an archive on disk gives each warning, its
// election's directory before its file, to Options.Warn as it is found,
// the archive's own last, and keeps none; a dataset directory's are the
// dataset's own.
func TestCheckDirWarns(t *testing.T) {
	dir := t.TempDir()
	m := twoElections(t, twoTOML, nil, func(m fstest.MapFS) {
		datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
			return append(rs, map[string]any{"id": "00000000-0000-4000-8000-000000000001", "slug": "extra", "name": "Extra", "short_name": "X"})
		})
	})
	for name, f := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	kept, err := archive.CheckDirContext(t.Context(), dir, dataset.Options{Warn: func(p dataset.Problem) { got = append(got, p.String()) }})
	if err != nil || kept != nil {
		t.Fatalf("kept %v, %v", kept, err)
	}
	if len(got) < 2 || got[0] != `2017/parties.json: /6: party "extra" has no candidates` || !strings.HasPrefix(got[1], "2022/candidates.json: ") {
		t.Errorf("warnings %q…, want 2017's party first, then the archive's", got[:min(len(got), 2)])
	}
	alone, err := archive.CheckDirContext(t.Context(), filepath.Join(dir, "2017"), dataset.Options{})
	if err != nil || len(alone) != 1 || alone[0].String() != `parties.json: /6: party "extra" has no candidates` {
		t.Errorf("2017 alone: %v, %v", alone, err)
	}
}

// TestSlugList: the elections a message names, one by one for a few, the
// newest few, the oldest and how many for an archive of a century.
func TestSlugList(t *testing.T) {
	quote := strconv.Quote
	tests := []struct {
		slugs []string
		want  string
	}{
		{nil, "none"},
		{[]string{"2022"}, `"2022"`},
		{[]string{"2022", "2017"}, `"2022" and "2017"`},
		{[]string{"2022", "2017", "2013", "2008", "2003", "1998"}, `"2022", "2017", "2013", "2008", "2003" and "1998"`},
		{[]string{"2022", "2017", "2013", "2008", "2003", "1998", "1996"}, `"2022", "2017", "2013", "2008", "2003", … "1996" (7 in all)`},
	}
	for _, tt := range tests {
		if got := archive.SlugList(tt.slugs, quote); got != tt.want {
			t.Errorf("SlugList(%q) = %s, want %s", tt.slugs, got, tt.want)
		}
	}
}

// TestSeatsAtTheCount holds the embedded archive to the seats each party
// won at the count as published (dataset/malta-history/source/SOURCES.md,
// "Checked"), and 1981's first preferences, in which the party with fewer
// won more seats. 1992's and 2013's count the seats their sheets of
// district 8, and of 1 and 9, leave unfilled, which their known defects
// state as published; 1992's are its published seats, no seat having
// been added after that count.
func TestSeatsAtTheCount(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		election string
		seats    map[string]int // by party's short name
		first    map[string]int // first preferences, where the test holds them
	}{
		{"1921", map[string]int{"UPM": 14, "CP": 7, "PL": 7, "PDN": 4}, nil},
		{"1962", map[string]int{"PN": 25, "PL": 16, "DNP": 4, "CWP": 4, "PCP": 1}, nil},
		{"1971", map[string]int{"PL": 28, "PN": 27}, nil},
		{"1981", map[string]int{"PL": 34, "PN": 31}, map[string]int{"PL": 109990, "PN": 114132}},
		{"1992", map[string]int{"PN": 34, "PL": 31}, nil},
		{"2013", map[string]int{"PL": 39, "PN": 26}, nil},
		{"2017", map[string]int{"PL": 37, "PN": 28}, map[string]int{"PL": 170976, "PN": 135696}},
		{"2022", map[string]int{"PL": 38, "PN": 27}, nil},
	}
	for _, tt := range tests {
		e, err := a.Election(tt.election)
		if err != nil {
			t.Fatal(err)
		}
		short := map[string]string{}
		for _, p := range e.Dataset().Parties() {
			short[p.ID] = p.ShortName
		}
		seats, first := map[string]int{}, map[string]int{}
		for _, p := range e.Dataset().NationalTotals().Parties {
			name := "IND"
			if p.PartyID != nil {
				name = short[*p.PartyID]
			}
			if p.SeatsAtCount > 0 {
				seats[name] = p.SeatsAtCount
			}
			if _, ok := tt.first[name]; ok {
				first[name] = p.FirstPreferences
			}
		}
		if !maps.Equal(seats, tt.seats) {
			t.Errorf("%s: seats at the count %v, want %v", tt.election, seats, tt.seats)
		}
		if tt.first != nil && !maps.Equal(first, tt.first) {
			t.Errorf("%s: first preferences %v, want %v", tt.election, first, tt.first)
		}
	}
}
