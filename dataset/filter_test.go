package dataset_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// slugsOf returns the slugs of a candidates result's records, in order.
func slugsOf(t *testing.T, ds *dataset.Dataset, res dataset.Result) []string {
	t.Helper()
	var slugs []string
	for i := range res.Count() {
		var c struct{ Slug string }
		if err := json.Unmarshal(datasettest.Answer(ds, res).Record(i), &c); err != nil {
			t.Fatal(err)
		}
		if want := ds.Candidates()[res.Index(i)].Slug; c.Slug != want {
			t.Fatalf("record %d is %s, its index names %s", i, c.Slug, want)
		}
		slugs = append(slugs, c.Slug)
	}
	return slugs
}

// TestReadersFiltersMatchTheirDefinition holds stood_in, elected and q,
// alone and with district and party, to what they mean, checked record by
// record over the embedded data: stood_in keeps the candidates whose
// district_ids hold the district (not only their primary one), elected the
// candidates whose elected is that value, q those whose name, given name
// or family name contains the text, folded; all combine by AND, in
// published order.
func TestReadersFiltersMatchTheirDefinition(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	idOf := map[int]string{}
	for _, d := range ds.Districts() {
		idOf[d.Number] = d.ID
	}
	numberOf := map[string]int{}
	for n, id := range idOf {
		numberOf[id] = n
	}
	partyID := map[string]string{} // slug → id
	for _, p := range ds.Parties() {
		partyID[p.Slug] = p.ID
	}
	type filters struct{ district, stoodIn, party, elected, q string }
	var cases []filters
	for n := 1; n <= dataset.DefaultDistricts; n++ {
		cases = append(cases,
			filters{stoodIn: strconv.Itoa(n)},
			filters{stoodIn: strconv.Itoa(n), elected: "true"},
			filters{district: strconv.Itoa(n%13 + 1), stoodIn: strconv.Itoa(n)},
			filters{stoodIn: strings.ToUpper(idOf[n]), party: "PN", elected: "false"},
		)
	}
	for _, q := range []string{"ab", "AB", "  farrugia ", "Fárrugia", "sammy farrugia", "zz", "el", "a.", "Ray Abela", "abela"} {
		cases = append(cases, filters{q: q}, filters{q: q, elected: "true"}, filters{q: q, party: "pl", stoodIn: "5"})
	}
	cases = append(cases, filters{elected: "true"}, filters{elected: "false"}, filters{elected: "false", party: "pn", district: "5"})
	matches := 0
	for _, f := range cases {
		p := dataset.Params{"limit": {"500"}}
		for name, v := range map[string]string{"district": f.district, "stood_in": f.stoodIn, "party": f.party, "elected": f.elected, "q": f.q} {
			if v != "" {
				p[name] = []string{v}
			}
		}
		res, err := ds.Query(dataset.Candidates, p)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		var want []string
		for _, c := range ds.Candidates() {
			keep := true
			if f.district != "" {
				keep = keep && strconv.Itoa(numberOf[c.PrimaryDistrictID]) == f.district
			}
			if f.stoodIn != "" {
				n, err := strconv.Atoi(f.stoodIn)
				if err != nil {
					n = numberOf[strings.ToLower(f.stoodIn)]
				}
				keep = keep && slices.Contains(c.DistrictIDs, idOf[n])
			}
			if f.party != "" {
				keep = keep && c.PartyID != nil && *c.PartyID == partyID[strings.ToLower(f.party)]
			}
			if f.elected != "" {
				keep = keep && c.Elected != nil && strconv.FormatBool(*c.Elected) == f.elected
			}
			if f.q != "" {
				q := dataset.Fold(strings.TrimSpace(f.q))
				keep = keep && (strings.Contains(dataset.Fold(c.Name), q) || strings.Contains(dataset.Fold(c.GivenName), q) ||
					strings.Contains(dataset.Fold(c.FamilyName), q))
			}
			if keep {
				want = append(want, c.Slug)
			}
		}
		if got := slugsOf(t, ds, res); !slices.Equal(got, want) {
			t.Errorf("%+v:\n got %v\nwant %v", f, got, want)
		}
		if res.Total() != len(want) || res.Count() != len(want) {
			t.Errorf("%+v: count %d, total %d, want %d", f, res.Count(), res.Total(), len(want))
		}
		matches += len(want)
	}
	if matches < 500 {
		t.Fatalf("only %d matches in all: the cases test too little", matches)
	}
}

// TestQFoldsMalteseLetters: q finds names written with Maltese letters
// from plain ASCII, and the other way round, with letter case ignored.
func TestQFoldsMalteseLetters(t *testing.T) {
	m := datasettest.Files(t)
	names := map[string][3]string{ // slug → name, given name, family name
		"sammy-farrugia":      {"Ġorġ Żammit", "Ġorġ", "Żammit"},
		"tania-gauci-fiorini": {"Ċensu Ħili", "Ċensu", "Ħili"},
		"anthony-buttigieg":   {"Marija Għarbi", "Marija", "Għarbi"},
	}
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		for _, r := range rs {
			if n, ok := names[r["slug"].(string)]; ok {
				r["name"], r["given_name"], r["family_name"] = n[0], n[1], n[2]
			}
		}
		return rs
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want []string
	}{
		// The embedded data has plain Zammits too, in published order.
		{"zammit", []string{"sammy-farrugia", "stanley-zammit", "alessia-psaila-zammit", "edward-zammit-lewis", "christian-zammit"}},
		{"ŻAMMIT", []string{"sammy-farrugia", "stanley-zammit", "alessia-psaila-zammit", "edward-zammit-lewis", "christian-zammit"}},
		{"gorg", []string{"sammy-farrugia"}},
		{"ġorġ żammit", []string{"sammy-farrugia"}},
		{"gorg zammit", []string{"sammy-farrugia"}},
		{"hili", []string{"tania-gauci-fiorini", "davina-sammut-hili"}},
		{"ħili", []string{"tania-gauci-fiorini", "davina-sammut-hili"}},
		{"ensu ħ", []string{"tania-gauci-fiorini"}},
		{"cens", []string{"tania-gauci-fiorini"}},
		{"gharbi", []string{"anthony-buttigieg"}},
		{"għarbi", []string{"anthony-buttigieg"}},
		{"ARBI", []string{"anthony-buttigieg"}},
		{"z\u0307ammit ", []string{"sammy-farrugia", "stanley-zammit", "alessia-psaila-zammit", "edward-zammit-lewis", "christian-zammit"}}, // Ż as Z and a combining dot
		{"buttigieg", nil}, // the old name is gone
		{"zammit\x00", nil},
	}
	for _, tt := range tests {
		res, err := ds.Query(dataset.Candidates, dataset.Params{"q": {tt.q}})
		if err != nil {
			t.Fatalf("q=%q: %v", tt.q, err)
		}
		got := slugsOf(t, ds, res)
		if tt.q == "buttigieg" {
			got = slices.DeleteFunc(got, func(s string) bool { return s != "anthony-buttigieg" })
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("q=%q: got %v, want %v", tt.q, got, tt.want)
		}
	}
}

// TestReadersFiltersRefused: each bad value is refused with a reason that
// names what the parameter accepts, every refused parameter at once.
func TestReadersFiltersRefused(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		params dataset.Params
		want   string
	}{
		{dataset.Params{"stood_in": {"14"}}, "stood_in must be a district number from 1 to 13 or a district UUID"},
		{dataset.Params{"stood_in": {"0"}}, "stood_in must be a district number from 1 to 13 or a district UUID"},
		{dataset.Params{"stood_in": {"five"}}, "stood_in must be a district number from 1 to 13 or a district UUID"},
		{dataset.Params{"stood_in": {"00000000-0000-4000-8000-000000000000"}}, "stood_in names no published district; must be a district number from 1 to 13 or a district UUID"},
		{dataset.Params{"stood_in": {"5", "6"}}, "stood_in must be given at most once"},
		{dataset.Params{"elected": {"yes"}}, "elected must be true or false"},
		{dataset.Params{"elected": {"True"}}, "elected must be true or false"},
		{dataset.Params{"elected": {"1"}}, "elected must be true or false"},
		{dataset.Params{"elected": {" true"}}, "elected must be true or false"},
		{dataset.Params{"q": {"a"}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
		{dataset.Params{"q": {"  ż  "}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
		{dataset.Params{"q": {"   "}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
		{dataset.Params{"q": {strings.Repeat("ż", 101)}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
		{dataset.Params{"q": {"ab\xff"}}, "q must be text of 2 to 100 characters, spaces at either end not counted"},
		{dataset.Params{"q": {"ab", "cd"}}, "q must be given at most once"},
		{dataset.Params{"q": {"\u0301\u0307"}}, "q must hold a letter or a digit"},
		{dataset.Params{"q": {"--"}}, "q must hold a letter or a digit"},
		{dataset.Params{"stood_in": {"14"}, "elected": {"no"}, "q": {"x"}, "offset": {"x"}},
			"stood_in must be a district number from 1 to 13 or a district UUID; elected must be true or false; " +
				"q must be text of 2 to 100 characters, spaces at either end not counted; " +
				"offset must be an integer from 0 to the number of candidates matching the filters"},
		{dataset.Params{"q": {"farrugia"}, "offset": {"7"}}, "offset must be an integer from 0 to 6, the number of candidates matching the filters"},
	}
	for _, tt := range tests {
		_, err := ds.Query(dataset.Candidates, tt.params)
		var perr *dataset.ParamError
		if !errors.As(err, &perr) || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.params, err, tt.want)
		}
	}
	for _, ok := range []dataset.Params{
		{"q": {strings.Repeat("ż", 100)}}, {"q": {" ab "}}, {"stood_in": {"05"}}, {"elected": {""}}, {"q": {""}}, {"stood_in": {""}},
		{"q": {"farrugia"}, "offset": {"6"}},
	} {
		if _, err := ds.Query(dataset.Candidates, ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestReadersFiltersPage: a filtered answer pages as the others do (a
// page is the slice of all the matches at its offset, the meta says the
// filters in canonical form and the next page's query keeps them), and its
// gzip encoding is its body.
func TestReadersFiltersPage(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 0, time.UTC)
	all, err := ds.Query(dataset.Candidates, dataset.Params{"stood_in": {"5"}, "limit": {"500"}})
	if err != nil {
		t.Fatal(err)
	}
	allSlugs := slugsOf(t, ds, all)
	if len(allSlugs) < 5 {
		t.Fatalf("stood_in=5 keeps %d candidates", len(allSlugs))
	}
	res, err := ds.Query(dataset.Candidates, dataset.Params{"stood_in": {"D0E4F679-6E46-543C-A8F9-478075ABCC0A"}, "limit": {"2"}, "offset": {"2"}, "q": {" AR "}, "elected": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	body := string(datasettest.Answer(ds, res).AppendJSON(nil, at))
	wantTail := `],"meta":{"count":` + strconv.Itoa(res.Count()) + `,"total":` + strconv.Itoa(res.Total()) +
		`,"limit":2,"offset":2,"filters":{"district":null,"party":null,` +
		`"stood_in":{"number":5,"id":"d0e4f679-6e46-543c-a8f9-478075abcc0a"},"elected":true,"q":"AR"},"generatedAt":"2026-11-21T04:15:00.000Z"}}` + "\n"
	if !strings.HasSuffix(body, wantTail) {
		t.Errorf("body ends\n%s\nwant\n%s", body[max(0, len(body)-len(wantTail)):], wantTail)
	}

	page, err := ds.Query(dataset.Candidates, dataset.Params{"stood_in": {"5"}, "limit": {"2"}, "offset": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := slugsOf(t, ds, page); !slices.Equal(got, allSlugs[3:5]) {
		t.Errorf("stood_in=5 at offset 3: %v, want %v", got, allSlugs[3:5])
	}
	if page.Offset() != 3 || page.Total() != len(allSlugs) {
		t.Errorf("offset %d, total %d", page.Offset(), page.Total())
	}
	if got, want := string(datasettest.Answer(ds, page).AppendNextQuery(nil)), "stood_in=5&limit=2&offset=5"; got != want {
		t.Errorf("next query %q, want %q", got, want)
	}
	// No candidate matches: the next offset is 0, but the filters are all kept, q escaped.
	q, err := ds.Query(dataset.Candidates, dataset.Params{"district": {"5"}, "party": {"PN"}, "q": {"a&b ż"}, "elected": {"false"}, "stood_in": {"6"}, "limit": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(datasettest.Answer(ds, q).AppendNextQuery(nil)), "district=5&party=pn&stood_in=6&elected=false&q=a%26b+%C5%BC&limit=1&offset=0"; got != want {
		t.Errorf("next query %q, want %q", got, want)
	}
	if got, want := string(datasettest.Answer(ds, q).AppendFilterQuery(nil)), "district=5&party=pn&stood_in=6&elected=false&q=a%26b+%C5%BC&"; got != want {
		t.Errorf("filter query %q, want %q", got, want)
	}
	if got := string(datasettest.Answer(ds, all).AppendFilterQuery([]byte("x?"))); got != "x?stood_in=5&" {
		t.Errorf("filter query appended to x?: %q", got)
	}
	for _, r := range []dataset.Result{res, page, all, q} {
		zr, err := gzip.NewReader(bytes.NewReader(datasettest.Answer(ds, r).AppendGzip(nil, at)))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || string(unzipped) != string(datasettest.Answer(ds, r).AppendJSON(nil, at)) {
			t.Errorf("gzip body differs from the body (%v)", err)
		}
	}
}

// TestReadersFiltersETags: filtered answers with different bodies never
// share an ETag, and none shares one with an unfiltered answer.
func TestReadersFiltersETags(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 0, time.UTC)
	bodyOf := map[string]string{}
	n := 0
	for _, district := range []string{"", "5"} {
		for _, stood := range []string{"", "5", "6"} {
			for _, elected := range []string{"", "true", "false"} {
				for _, q := range []string{"", "ab", "AB", "el", "zz"} {
					for _, offset := range []string{"", "1"} {
						for _, limit := range []string{"", "1", "100"} {
							p := dataset.Params{"district": {district}, "stood_in": {stood}, "elected": {elected}, "q": {q}, "offset": {offset}, "limit": {limit}}
							res, err := ds.Query(dataset.Candidates, p)
							if err != nil {
								continue // an offset past the total
							}
							n++
							body, tag := string(datasettest.Answer(ds, res).AppendJSON(nil, at)), datasettest.Answer(ds, res).ETag()
							if prev, ok := bodyOf[tag]; ok && prev != body {
								t.Fatalf("%q: ETag %s also tags another body:\n%s\n%s", p, tag, prev, body)
							}
							bodyOf[tag] = body
						}
					}
				}
			}
		}
	}
	if n < 300 {
		t.Fatalf("only %d answers", n)
	}
}
