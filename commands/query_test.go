package commands_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"ballot/archive"
	"ballot/commands"
	"ballot/dataset"
	"ballot/internal/apitest"
	"ballot/server"
)

var generatedAt = regexp.MustCompile(`"generatedAt":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)

func normalise(b []byte) []byte {
	return generatedAt.ReplaceAll(b, []byte(`"generatedAt":"2000-01-01T00:00:00.000Z"`))
}

// TestQueryPrintsWhatServeReturns runs a matrix of requests through the
// HTTP handler and through "ballot query", on the embedded dataset and on a
// dataset directory, and compares the bytes.
func TestQueryPrintsWhatServeReturns(t *testing.T) {
	t.Parallel()
	datasets := []struct {
		name, dir   string
		collections []dataset.Collection // the matrix's; nil for every one
	}{
		{"embedded", "", nil},
		{"directory", filepath.Join("testdata", "datasets", "valid"), nil},
	}
	for _, d := range datasets {
		var ds *dataset.Dataset
		var err error
		if d.dir == "" {
			ds, err = dataset.Default()
		} else {
			ds, err = dataset.LoadDir(d.dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		opts := server.DefaultOptions()
		opts.RateLimit = 1 << 30
		srv := server.New(archive.Of(ds), opts)
		districtValues := []string{"", "1", "05", "13", "14", strings.ToUpper(ds.Districts()[4].ID)}
		partyValues := []string{"", strings.ToUpper(ds.Parties()[0].Slug), ds.Parties()[1].ID, "no-such-party"}
		collections := d.collections
		if collections == nil {
			collections = dataset.Collections
		}
		for _, collection := range collections {
			for _, district := range districtValues {
				for _, party := range partyValues {
					for li, lo := range [][2]string{{"", ""}, {"1", ""}, {"7", ""}, {"500", ""}, {"0", ""}, {"7", "3"}, {"", "141"}} {
						limit, offset := lo[0], lo[1]
						q := url.Values{}
						args := []string{"query", string(collection)}
						if d.dir != "" {
							args = append(args, "--data", d.dir)
						}
						for _, p := range []struct{ name, value string }{{"district", district}, {"party", party}, {"limit", limit}, {"offset", offset}} {
							if p.value != "" {
								q.Set(p.name, p.value)
								args = append(args, "--"+p.name, p.value)
							}
						}
						target := server.BasePath + "/" + string(collection) + "?" + q.Encode()
						rec := httptest.NewRecorder()
						req := httptest.NewRequest("GET", target, nil)
						srv.ServeHTTP(rec, req)
						if li == 0 { // each filter once against the OpenAPI document; paging is the server tests'
							apitest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
						}
						code, stdout, stderr := run(t, args...)
						switch rec.Code {
						case 200:
							if code != 0 || stderr != wantNote(t, collection, rec) || !bytes.Equal(normalise([]byte(stdout)), normalise(rec.Body.Bytes())) {
								t.Fatalf("%s %s: query exit %d, stderr %q\nquery: %.300s\nserve: %.300s", d.name, target, code, stderr, stdout, rec.Body)
							}
						case 400:
							want := flagRefusal(t, rec.Body.Bytes())
							if code != commands.ExitUsage || stdout != "" || stderr != want {
								t.Fatalf("%s %s: query exit %d, stdout %q, stderr %q; want 2, nothing, %q", d.name, target, code, stdout, stderr, want)
							}
						default:
							t.Fatalf("%s %s: serve answered %d", d.name, target, rec.Code)
						}
					}
				}
			}
		}

		// One record by each of its keys, keys naming none, and the
		// districts of localities.
		type request struct {
			target string
			args   []string
		}
		var requests []request
		keys := map[dataset.Collection][]string{
			dataset.Parties:    {ds.Parties()[0].Slug, strings.ToUpper(ds.Parties()[1].ID), "no-such-party", "pnn"},
			dataset.Districts:  {"1", "05", "13", strings.ToUpper(ds.Districts()[4].ID), "0", "14", "five"},
			dataset.Candidates: {ds.Candidates()[0].Slug, ds.Candidates()[1].ID, "nobody", ds.Candidates()[2].Slug + "x"},
			dataset.Results:    {"1", "05", "13", strings.ToUpper(ds.Districts()[4].ID), "0", "14", "five", "national", "NATIONAL"},
		}
		for _, c := range collections {
			for _, key := range keys[c] {
				requests = append(requests, request{server.BasePath + "/" + string(c) + "/" + url.PathEscape(key), []string{"query", string(c), key}})
			}
		}
		localities := []string{"", "Luqa", "Birżebbuġa", "BIRZEBBUGA", "Vittoriosa", ds.Districts()[12].Localities[0].Slug, "Atlantis", "Mars"}
		for _, l := range localities {
			requests = append(requests, request{server.BasePath + "/districts?" + url.Values{"locality": {l}}.Encode(), []string{"query", "districts", "--locality", l}})
		}
		// The readers' filters, alone and together, refused and paged.
		readers := []url.Values{
			{"stood_in": {"5"}}, {"stood_in": {strings.ToUpper(ds.Districts()[5].ID)}, "elected": {"true"}}, {"stood_in": {"14"}},
			{"elected": {"false"}, "limit": {"3"}, "offset": {"2"}}, {"elected": {"yes"}}, {"elected": {"true"}, "party": {ds.Parties()[0].Slug}},
			{"q": {" ar "}}, {"q": {"ŻAMMIT"}}, {"q": {"a"}}, {"q": {"zz"}, "stood_in": {"1"}, "offset": {"1"}}, {"q": {"a&b c"}},
			{"q": {"ar"}, "elected": {"true"}, "stood_in": {"5"}, "district": {"5"}, "limit": {"1"}, "offset": {"1"}},
			// Given twice: refused, as the API refuses it, whatever the values.
			{"district": {"5", "6"}}, {"district": {"5", "5"}, "party": {"pn"}}, {"q": {"ar", "zammit"}, "limit": {"1", "2"}},
		}
		for _, v := range readers {
			args := []string{"query", "candidates"}
			for _, name := range slices.Sorted(maps.Keys(v)) {
				for _, value := range v[name] {
					args = append(args, "--"+strings.ReplaceAll(name, "_", "-"), value)
				}
			}
			requests = append(requests, request{server.BasePath + "/candidates?" + v.Encode(), args})
		}
		for _, r := range requests {
			args := r.args
			if d.dir != "" {
				args = append(args, "--data", d.dir)
			}
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", r.target, nil)
			srv.ServeHTTP(rec, req)
			apitest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
			code, stdout, stderr := run(t, args...)
			var p struct{ Detail string }
			_ = json.Unmarshal(rec.Body.Bytes(), &p)
			switch rec.Code {
			case 200:
				if code != 0 || stderr != wantNote(t, dataset.Candidates, rec) || !bytes.Equal(normalise([]byte(stdout)), normalise(rec.Body.Bytes())) {
					t.Errorf("%s %s: query exit %d, stderr %q\nquery: %.300s\nserve: %.300s", d.name, r.target, code, stderr, stdout, rec.Body)
				}
			case 400:
				if want := flagRefusal(t, rec.Body.Bytes()); code != commands.ExitUsage || stdout != "" || stderr != want {
					t.Errorf("%s %s: query exit %d, stdout %q, stderr %q; want 2, nothing, %q", d.name, r.target, code, stdout, stderr, want)
				}
			case 404:
				if code != commands.ExitFailure || stdout != "" || stderr != "ballot: "+p.Detail+"\n" {
					t.Errorf("%s %s: query exit %d, stdout %q, stderr %q; want 1, nothing, the problem's detail %q", d.name, r.target, code, stdout, stderr, p.Detail)
				}
			default:
				t.Errorf("%s %s: serve answered %d", d.name, r.target, rec.Code)
			}
		}
	}
}

// wantNote is what query prints on stderr for the answer rec: a note when
// the server's answer links to a next page, naming what it holds of the
// total, and nothing otherwise.
func wantNote(t *testing.T, c dataset.Collection, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if rec.Header().Get("Link") == "" {
		return ""
	}
	var env struct {
		Meta struct{ Count, Total, Offset int }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	m := env.Meta
	shown := fmt.Sprintf("%d of %d %s", m.Count, m.Total, c)
	if m.Offset > 0 {
		shown = fmt.Sprintf("%s %d to %d of %d", c, m.Offset+1, m.Offset+m.Count, m.Total)
	}
	return "note: " + shown + "; use --limit or --offset for the rest\n"
}

// TestQueryNotesWhatTheLimitLeftOut: when records remain after the answer,
// every format prints the answer alone on stdout and one line on stderr
// saying what was left out; when none remain, stderr stays empty.
func TestQueryNotesWhatTheLimitLeftOut(t *testing.T) {
	const rest = "; use --limit or --offset for the rest\n"
	tests := []struct {
		name  string
		args  []string
		lines int // of stdout
		note  string
	}{
		{"json, the default limit", []string{"candidates"}, 1, "note: 100 of 177 candidates" + rest},
		{"ndjson", []string{"candidates", "--format", "ndjson", "--limit", "7"}, 7, "note: 7 of 177 candidates" + rest},
		{"csv: a header and the rows", []string{"candidates", "--format", "csv"}, 101, "note: 100 of 177 candidates" + rest},
		{"table", []string{"candidates", "--format", "table", "--party", "pn", "--limit", "10"}, 11, "note: 10 of 70 candidates" + rest},
		{"a page in the middle", []string{"candidates", "--format", "csv", "--offset", "100", "--limit", "20"}, 21, "note: candidates 101 to 120 of 177" + rest},
		{"the last page", []string{"candidates", "--format", "csv", "--offset", "100"}, 78, ""},
		{"everything", []string{"candidates", "--format", "csv", "--limit", "500"}, 178, ""},
		{"an offset equal to the total", []string{"candidates", "--format", "csv", "--offset", "177"}, 1, ""},
		{"parties are never cut", []string{"parties", "--format", "csv", "--limit", "1"}, 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"query"}, tt.args...)...)
			if code != 0 || stderr != tt.note {
				t.Errorf("exit %d, stderr %q; want 0, %q", code, stderr, tt.note)
			}
			if n := strings.Count(stdout, "\n"); n != tt.lines {
				t.Errorf("stdout has %d lines, want %d", n, tt.lines)
			}
		})
	}
}

func TestQueryFormats(t *testing.T) {
	_, body, _ := run(t, "query", "candidates", "--district", "5")
	var env struct {
		Data []json.RawMessage
		Meta struct{ Count int }
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.Meta.Count == 0 {
		t.Fatalf("query body: %v", err)
	}

	t.Run("pretty", func(t *testing.T) {
		code, out, _ := run(t, "query", "candidates", "--district", "5", "--pretty")
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(out)); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		if !strings.Contains(out, "\n  \"data\": [\n    {\n      \"id\": ") {
			t.Errorf("not indented by two spaces: %.80q", out)
		}
		if !bytes.Equal(normalise(append(compact.Bytes(), '\n')), normalise([]byte(body))) {
			t.Error("--pretty holds other data than the plain body")
		}
	})
	t.Run("ndjson", func(t *testing.T) {
		code, out, _ := run(t, "query", "candidates", "--district", "5", "--format", "ndjson")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(env.Data) {
			t.Fatalf("%d lines, want %d", len(lines), len(env.Data))
		}
		for i, line := range lines {
			if line != string(env.Data[i]) {
				t.Errorf("line %d = %s, want %s", i, line, env.Data[i])
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		code, out, _ := run(t, "query", "candidates", "--district", "5", "--format", "csv")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"id", "slug", "name", "given_name", "family_name", "party_id", "party_short_name", "primary_district_id", "primary_district_number",
			"district_ids", "district_numbers", "elected", "is_incumbent", "website", "photo_url", "person_id"}
		if strings.Join(rows[0], ",") != strings.Join(want, ",") {
			t.Errorf("header %v, want %v", rows[0], want)
		}
		if len(rows) != len(env.Data)+1 {
			t.Errorf("%d rows, want %d and a header", len(rows)-1, len(env.Data))
		}
		var first dataset.Candidate
		_ = json.Unmarshal(env.Data[0], &first)
		if rows[1][9] != strings.Join(first.DistrictIDs, ";") {
			t.Errorf("district_ids cell %q, want the ids joined with ;", rows[1][9])
		}
		// The first candidate of district 5 is ADPD's, and stands in
		// districts 5 and 10.
		if want := []string{*first.PartyID, "ADPD", first.PrimaryDistrictID, "5", strings.Join(first.DistrictIDs, ";"), "5;10"}; strings.Join(rows[1][5:11], ",") != strings.Join(want, ",") {
			t.Errorf("party and district cells %q, want %q", rows[1][5:11], want)
		}
		_, out, _ = run(t, "query", "districts", "--format", "csv")
		rows, _ = csv.NewReader(strings.NewReader(out)).ReadAll()
		if rows[1][3] != "Valletta;Floriana;Ħamrun;Marsa;Pietà;Santa Venera" {
			t.Errorf("district 1 localities cell = %q", rows[1][3])
		}
		_, out, _ = run(t, "query", "candidates", "--district", "13", "--party", "volt", "--format", "csv")
		if out != strings.Join(want, ",")+"\n" {
			t.Errorf("no records: %q, want the header alone", out)
		}
	})
	t.Run("table", func(t *testing.T) {
		t.Setenv("COLUMNS", "")
		code, out, _ := run(t, "query", "candidates", "--district", "5", "--party", "pn", "--format", "table")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		// A table shows short names and numbers instead of the ids.
		if !strings.HasPrefix(lines[0], "slug ") || !strings.Contains(lines[1], "Toni Bezzina") || !strings.Contains(lines[1], "  PN  ") {
			t.Errorf("table:\n%s", out)
		}
		if col := strings.Index(lines[0], "name"); col < 0 || strings.Index(lines[1], "Toni Bezzina") != col {
			t.Errorf("columns are not aligned:\n%s", out)
		}
	})
}

// TestQueryTable: a table is for people. It fits 100 runes a line when
// stdout is not a terminal, or COLUMNS; it shows names and numbers, not ids,
// unless --ids adds them, whole; it cuts the longest values with "…".
func TestQueryTable(t *testing.T) {
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-`)
	tests := []struct {
		name    string
		columns string // COLUMNS
		args    []string
		width   int      // of every line, at most
		head    []string // the header's columns
		line    string   // a line of the table, whole
	}{
		{"parties", "", []string{"parties"}, 100,
			[]string{"slug", "name", "short_name", "name_en", "website"},
			"pl    Partit Laburista        PL          Labour Party       https://partitlaburista.org"},
		{"districts", "", []string{"districts"}, 100,
			[]string{"number", "name", "localities", "seats"},
			"13      District 13  Victoria;Fontana;Għajnsielem;Għarb;Għasri;Kerċem;Munxar;Nadur;Qala;San …  5"},
		{"candidates", "", []string{"candidates", "--limit", "500"}, 100,
			[]string{"slug", "name", "party", "district", "districts", "elected", "is_incumbent"},
			"malcolm-paul-agius-galea  Malcolm Paul Agius Gal…  PL     6         6;7        true"},
		{"one candidate", "", []string{"candidates", "toni-bezzina"}, 100,
			[]string{"slug", "name", "party", "district", "districts", "elected"},
			"toni-bezzina  Toni Bezzina  PN     5         5          true"},
		{"COLUMNS", "60", []string{"candidates", "--limit", "5"}, 60,
			[]string{"slug", "name", "party", "district", "districts", "elected"},
			"sean-apap-…  Sean Apap…  PL     1         1;6        false"},
		{"COLUMNS not a number", "wide", []string{"districts"}, 100,
			[]string{"number", "name", "localities", "seats"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("COLUMNS", tt.columns)
			code, out, _ := run(t, append([]string{"query", "--format", "table"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if got := strings.Fields(lines[0]); strings.Join(got, " ") != strings.Join(tt.head, " ") {
				t.Errorf("header %q, want the columns %q", lines[0], tt.head)
			}
			for i, line := range lines {
				if n := utf8.RuneCountInString(line); n > tt.width {
					t.Errorf("line %d is %d runes wide, more than %d: %q", i+1, n, tt.width, line)
				}
				if uuid.MatchString(line) {
					t.Errorf("line %d shows an id: %q", i+1, line)
				}
			}
			if tt.line != "" && !slices.Contains(lines, tt.line) {
				t.Errorf("no line %q in:\n%s", tt.line, out)
			}
		})
	}

	t.Run("--ids", func(t *testing.T) {
		t.Setenv("COLUMNS", "")
		code, out, _ := run(t, "query", "candidates", "--format", "table", "--limit", "5", "--ids")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lines := strings.Split(out, "\n")
		want := "id slug name party_id party primary_district_id district district_ids districts elected person_id"
		if got := strings.Join(strings.Fields(lines[0]), " "); got != want {
			t.Errorf("--ids header %q, want the columns %q", got, want)
		}
		// The ids are whole, beside the same columns as without --ids.
		if !strings.HasPrefix(lines[1], "25e863fe-82da-5526-9cef-5fb09d8af240  ray-abela ") ||
			!strings.Contains(lines[1], "  3340687a-1cbe-535f-87e7-72791cd00741  PL  ") ||
			!strings.Contains(lines[1], "  e15cb27f-fe38-5006-941a-db985fc8e40c;e3257aea-545f-53ea-ad1a-7efe1f4f1d22  1;3 ") {
			t.Errorf("--ids row %q: want the candidate's, party's and districts' ids whole", lines[1])
		}
	})
}

// TestQueryArchivePrintsWhatServeReturns: of the embedded archive, query
// prints what the API answers, byte for byte but for meta.generatedAt:
// the elections, one election, the people a search finds, one person, and
// an election's collections by --election; a refusal is the API's
// problem, as query words it.
func TestQueryArchivePrintsWhatServeReturns(t *testing.T) {
	a, err := archive.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := server.DefaultOptions()
	opts.RateLimit = 1 << 30
	srv := server.New(a, opts)
	tests := []struct {
		target string
		args   []string
	}{
		{"/elections", []string{"elections"}},
		{"/elections/2017", []string{"elections", "2017"}},
		{"/elections/" + strings.ToUpper(a.Elections()[0].Record.ID), []string{"elections", strings.ToUpper(a.Elections()[0].Record.ID)}},
		{"/elections/2016", []string{"elections", "2016"}},
		{"/people?q=abela", []string{"people", "--q", "abela"}},
		{"/people?q=%20%C5%BBAMMIT", []string{"people", "--q", " ŻAMMIT"}},
		{"/people?q=qqq", []string{"people", "--q", "qqq"}},
		{"/people?q=a", []string{"people", "--q", "a"}},
		{"/people", []string{"people"}},
		{"/people/robert-abela", []string{"people", "robert-abela"}},
		{"/people/nobody", []string{"people", "nobody"}},
		{"/elections/2017/candidates?district=5&party=pl", []string{"--election", "2017", "candidates", "--district", "5", "--party", "pl"}},
		{"/elections/2017/candidates?limit=2&offset=2", []string{"--election", "2017", "candidates", "--limit", "2", "--offset", "2"}},
		{"/elections/2017/candidates/robert-abela", []string{"--election", "2017", "candidates", "robert-abela"}},
		{"/elections/2017/results/5", []string{"--election", "2017", "results", "5"}},
		{"/elections/2017/results/national", []string{"--election", "2017", "results", "national"}},
		{"/elections/2017/districts?locality=Naxxar", []string{"--election", "2017", "districts", "--locality", "Naxxar"}},
		{"/elections/2017/candidates?district=14", []string{"--election", "2017", "candidates", "--district", "14"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", server.BasePath+tt.target, nil)
			srv.ServeHTTP(rec, req)
			apitest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
			code, stdout, stderr := run(t, append([]string{"query"}, tt.args...)...)
			switch rec.Code {
			case 200:
				if code != 0 || !bytes.Equal(normalise([]byte(stdout)), normalise(rec.Body.Bytes())) {
					t.Errorf("query exit %d, stderr %q\nquery: %.300s\nserve: %.300s", code, stderr, stdout, rec.Body)
				}
			case 400:
				if want := flagRefusal(t, rec.Body.Bytes()); code != commands.ExitUsage || stdout != "" || stderr != want {
					t.Errorf("query exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
				}
			case 404:
				var p struct{ Detail string }
				if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || code != commands.ExitFailure || stdout != "" || stderr != "ballot: "+p.Detail+"\n" {
					t.Errorf("query exit %d, stdout %q, stderr %q; want 1, nothing, the API's detail %q", code, stdout, stderr, p.Detail)
				}
			default:
				t.Fatalf("serve answered %d", rec.Code)
			}
		})
	}
	// NDJSON: the records, one a line, as the body holds them.
	_, body, _ := run(t, "query", "people", "--q", "abela")
	_, lines, _ := run(t, "query", "people", "--q", "abela", "--format", "ndjson")
	var env struct{ Data []json.RawMessage }
	if err := json.Unmarshal([]byte(body), &env); err != nil || len(env.Data) < 2 {
		t.Fatalf("people --q abela: %v, %d people", err, len(env.Data))
	}
	var want strings.Builder
	for _, r := range env.Data {
		want.Write(r)
		want.WriteByte('\n')
	}
	if lines != want.String() {
		t.Errorf("people --q abela --format ndjson:\n%.300s\nwant the records of the body, one a line:\n%.300s", lines, want.String())
	}
}

func TestQueryUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no collection", []string{"query"}, 2, "ballot: query takes one collection: parties, districts, candidates, results, elections or people, and at most one record's key\n"},
		{"two keys", []string{"query", "parties", "pn", "pl"}, 2, "ballot: query takes one collection: parties, districts, candidates, results, elections or people, and at most one record's key\n"},
		{"a key and a filter", []string{"query", "candidates", "toni-bezzina", "--limit", "1"}, 2, "ballot: a record's key takes no --district, --party, --stood-in, --elected, --q, --limit, --offset or --locality\n"},
		{"a key and a readers' filter", []string{"query", "candidates", "toni-bezzina", "--q", "toni"}, 2, "ballot: a record's key takes no --district, --party, --stood-in, --elected, --q, --limit, --offset or --locality\n"},
		{"stood-in 14", []string{"query", "candidates", "--stood-in", "14"}, 2, "ballot: --stood-in must be a district number from 1 to 13 or a district UUID\n"},
		{"elected not true or false", []string{"query", "candidates", "--elected", "yes"}, 2, "ballot: --elected must be true or false\n"},
		{"elected without its value", []string{"query", "candidates", "--elected"}, 2, "ballot: flag needs an argument: --elected\n"},
		{"q too short", []string{"query", "candidates", "--q", " ż "}, 2, "ballot: --q must be text of 2 to 100 characters, spaces at either end not counted\n"},
		{"offset beyond the total of q", []string{"query", "candidates", "--q", "zammit", "--offset", "5"}, 2, "ballot: --offset must be an integer from 0 to 4, the number of candidates matching the filters\n"},
		{"no such record", []string{"query", "districts", "14"}, 1, "ballot: no district has the number or id \"14\"; districts are numbered 1 to 13\n"},
		{"a misspelt slug", []string{"query", "parties", "pnn"}, 1, "ballot: no party has the slug or id \"pnn\"; did you mean \"pn\"?\n"},
		{"no such locality", []string{"query", "districts", "--locality", "Atlantis"}, 2, "ballot: --locality names no locality of this dataset; give a locality's name, English name or slug\n"},
		{"unknown collection", []string{"query", "ballots"}, 2, "ballot: unknown collection \"ballots\": use parties, districts, candidates, results, elections or people\n"},
		{"people without q", []string{"query", "people"}, 2, "ballot: --q is required: the text to look for in the names, of 2 to 100 characters\n"},
		{"people by a q too short", []string{"query", "people", "--q", "a"}, 2, "ballot: --q must be text of 2 to 100 characters, spaces at either end not counted\n"},
		{"people by q given twice", []string{"query", "people", "--q", "ab", "--q", "cd"}, 2, "ballot: --q must be given at most once\n"},
		{"a person and a filter", []string{"query", "people", "robert-abela", "--q", "ab"}, 2, "ballot: a record's key takes no --district, --party, --stood-in, --elected, --q, --limit, --offset or --locality\n"},
		{"no such person", []string{"query", "people", "nobody"}, 1, "ballot: no person has the slug or id \"nobody\"\n"},
		{"no such election", []string{"query", "elections", "2016"}, 1, "ballot: no election has the slug or id \"2016\"; the elections are \"2022\", \"2017\", \"2013\", \"2008\", \"2003\", … \"1921\" (25 in all); did you mean \"2017\"?\n"},
		{"the elections as CSV", []string{"query", "elections", "--format", "csv"}, 2, "ballot: elections print as json or ndjson\n"},
		{"people as a table", []string{"query", "people", "--q", "abela", "--format", "table"}, 2, "ballot: people print as json or ndjson\n"},
		{"the elections of an election", []string{"query", "elections", "--election", "2017"}, 2, "ballot: --election names the election of a collection; query elections KEY prints one election\n"},
		{"national totals as CSV", []string{"query", "results", "national", "--format", "csv"}, 2, "ballot: the national totals print as json or ndjson\n"},
		{"national totals as a table", []string{"query", "results", "national", "--format", "table"}, 2, "ballot: the national totals print as json or ndjson\n"},
		{"limit 0", []string{"query", "candidates", "--limit", "0"}, 2, "ballot: --limit must be an integer from 1 to 500\n"},
		{"district 14", []string{"query", "candidates", "--district", "14"}, 2, "ballot: --district must be a district number from 1 to 13 or a district UUID\n"},
		{"district given twice", []string{"query", "candidates", "--district", "5", "--district", "6"}, 2, "ballot: --district must be given at most once\n"},
		{"locality given twice", []string{"query", "districts", "--locality", "Luqa", "--locality", "Luqa"}, 2, "ballot: --locality must be given at most once\n"},
		{"unknown party", []string{"query", "candidates", "--party", "no-such-party"}, 2, "ballot: --party names no published party; must be a party slug (abba, adpd, pl, pn, pp, volt) or a party UUID\n"},
		{"flags before the collection", []string{"query", "--limit", "0", "candidates"}, 2, "ballot: --limit must be an integer from 1 to 500\n"},
		{"unknown format", []string{"query", "parties", "--format", "xml"}, 2, "ballot: --format must be json, ndjson, csv or table, got \"xml\"\n"},
		{"pretty CSV", []string{"query", "parties", "--format", "csv", "--pretty"}, 2, "ballot: --pretty applies only to --format json\n"},
		{"ids in JSON", []string{"query", "parties", "--ids"}, 2, "ballot: --ids applies only to --format table\n"},
		{"unknown flag", []string{"query", "parties", "--sort", "name"}, 2, "ballot: flag provided but not defined: -sort\n"},
		{"flag without its value", []string{"query", "candidates", "--limit"}, 2, "ballot: flag needs an argument: --limit\n"},
		{"offset beyond the total", []string{"query", "candidates", "--offset", "178"}, 2, "ballot: --offset must be an integer from 0 to 177, the number of candidates matching the filters\n"},
		{"offset beyond the filters' total", []string{"query", "candidates", "--district", "5", "--party", "pn", "--offset", "7"}, 2, "ballot: --offset must be an integer from 0 to 5, the number of candidates matching the filters\n"},
		{"offset negative", []string{"query", "candidates", "--offset", "-1"}, 2, "ballot: --offset must be an integer from 0 to 177, the number of candidates matching the filters\n"},
		{"broken dataset", []string{"query", "parties", "--data", filepath.Join("testdata", "datasets", "missing-file")}, 1, "districts.json: file is missing\nballot: dataset invalid: 1 error, 0 warnings\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.code || stdout != "" || stderr != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, %q", code, stdout, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// TestQueryColumnsGolden writes every collection of the embedded dataset and
// of the corpus's valid datasets as CSV and as a table, against golden files
// in testdata/query: every column and cell, byte for byte.
func TestQueryColumnsGolden(t *testing.T) {
	datasets := []struct{ name, dir string }{
		{"embedded", ""},
		{"valid", filepath.Join("testdata", "datasets", "valid")},
		{"warnings", filepath.Join("testdata", "datasets", "warnings")},
	}
	queries := []struct {
		name         string
		args         []string
		embeddedOnly bool // names the embedded dataset's district and party
	}{
		{"parties", []string{"parties"}, false},
		{"districts", []string{"districts"}, false},
		{"candidates", []string{"candidates", "--limit", "500"}, false},
		{"candidates-5-pn", []string{"candidates", "--district", "5", "--party", "pn"}, true},
		{"candidate", []string{"candidates", "toni-bezzina"}, true},
		{"districts-luqa", []string{"districts", "--locality", "Luqa"}, true},
	}
	for _, d := range datasets {
		for _, q := range queries {
			if q.embeddedOnly && d.dir != "" {
				continue
			}
			for _, format := range []string{"csv", "table"} {
				name := d.name + "-" + q.name + "." + format
				t.Run(name, func(t *testing.T) {
					args := append([]string{"query", "--format", format}, q.args...)
					if d.dir != "" {
						args = append(args, "--data", d.dir)
					}
					code, stdout, stderr := run(t, args...)
					if code != 0 || stderr != "" {
						t.Fatalf("exit %d, stderr %q", code, stderr)
					}
					golden(t, filepath.Join("testdata", "query", name), []byte(stdout))
				})
			}
		}
	}
}

// flagRefusal is the line query prints for what serve refused with the
// problem document body: each invalid parameter, named as its flag
// ("--stood-in", not "stood_in"), with serve's reason.
func flagRefusal(t *testing.T, body []byte) string {
	t.Helper()
	var p struct {
		InvalidParams []dataset.InvalidParam `json:"invalid_params"`
	}
	if err := json.Unmarshal(body, &p); err != nil || len(p.InvalidParams) == 0 {
		t.Fatalf("a 400 without invalid_params: %s", body)
	}
	parts := make([]string, len(p.InvalidParams))
	for i, ip := range p.InvalidParams {
		parts[i] = "--" + strings.ReplaceAll(ip.Name, "_", "-") + " " + ip.Reason
	}
	return "ballot: " + strings.Join(parts, "; ") + "\n"
}
