package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"weak"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server"
)

// The elections of the embedded archive, as the API names them.
const (
	election2022ID = "3ed01b18-814b-573d-8f7d-45a4a5f8da04"
	election2017ID = "5b2089a1-8da1-5463-b88c-3c8615b2115c"
)

// electionLinkTo is a success whose records continue on the next page,
// at path and query.
func electionLinkTo(path, query string) map[string]string {
	return merge(success, map[string]string{"Link": "<" + path + "?" + query + `>; rel="next"`})
}

// TestElectionsEndpoints checks the elections, an election's collections
// and the people on status, headers and the exact body (golden files
// under testdata/elections), as TestEndpoints does the collections.
func TestElectionsEndpoints(t *testing.T) {
	tests := []struct {
		name   string
		req    request
		status int
		header map[string]string
		golden string
	}{
		{"the elections, newest first", request{target: "/api/public/v1/elections"}, 200, success, "elections/elections.json"},
		{"one election by slug", request{target: "/api/public/v1/elections/2017"}, 200, success, "elections/2017.json"},
		{"one election by id in capitals", request{target: "/api/public/v1/elections/" + strings.ToUpper(election2017ID)}, 200, success, "elections/2017.json"},
		{"an election of another year: the slugs, and the one a slip away", request{target: "/api/public/v1/elections/2016"}, 404, failure, "elections/404-2016.json"},
		{"2017's candidates of a district and party", request{target: "/api/public/v1/elections/2017/candidates?district=5&party=pl"}, 200, success, "elections/2017-candidates-district-5-party-pl.json"},
		{"the same by the election's id", request{target: "/api/public/v1/elections/" + election2017ID + "/candidates?district=5&party=PL"}, 200, success, "elections/2017-candidates-district-5-party-pl.json"},
		{"2017's count sheet of district 5", request{target: "/api/public/v1/elections/2017/results/5"}, 200, success, "elections/2017-result-5.json"},
		{"2017's national totals", request{target: "/api/public/v1/elections/2017/results/national"}, 200, success, "elections/2017-results-national.json"},
		{"2017's Robert Abela", request{target: "/api/public/v1/elections/2017/candidates/robert-abela"}, 200, success, "elections/2017-candidate-robert-abela.json"},
		{"2017's parties", request{target: "/api/public/v1/elections/2017/parties"}, 200, success, "elections/2017-parties.json"},
		{"2017's districts of a locality", request{target: "/api/public/v1/elections/2017/districts?locality=Naxxar"}, 200, success, "elections/2017-districts-locality-naxxar.json"},
		{"2017's candidates, paged: the link keeps the election's path", request{target: "/api/public/v1/elections/2017/candidates?limit=2&offset=2"},
			200, electionLinkTo("/api/public/v1/elections/2017/candidates", "limit=2&offset=4"), "elections/2017-candidates-limit-2-offset-2.json"},
		{"the current election by its path: today's answer", request{target: "/api/public/v1/elections/2022/candidates?district=5"}, 200, success, "candidates-district-5.json"},
		{"the current election's first page links its own path", request{target: "/api/public/v1/elections/2022/candidates"},
			200, electionLinkTo("/api/public/v1/elections/2022/candidates", "limit=100&offset=100"), "candidates.json"},
		{"by id, the link keeps the path as asked", request{target: "/api/public/v1/elections/" + election2022ID + "/candidates"},
			200, electionLinkTo("/api/public/v1/elections/"+election2022ID+"/candidates", "limit=100&offset=100"), "candidates.json"},
		{"an election's refused filter: the collection's problem", request{target: "/api/public/v1/elections/2017/candidates?district=14"}, 400, failure, "400-district.json"},
		{"an election's record not found", request{target: "/api/public/v1/elections/2017/candidates/toni-bezzina"}, 404, failure, "elections/404-2017-candidate.json"},
		{"an election's collection of an unknown election", request{target: "/api/public/v1/elections/2016/candidates"}, 404, failure, "elections/404-2016.json"},
		{"an unknown election's record", request{target: "/api/public/v1/elections/latest/parties/pn"}, 404, failure, "elections/404-latest.json"},
		{"no path below an election but its collections'", request{target: "/api/public/v1/elections/2017/ballots"}, 404, failure, "404.json"},
		{"an election's path with a trailing slash", request{target: "/api/public/v1/elections/2017/"}, 404, failure, "404.json"},
		{"no election between the slashes", request{target: "/api/public/v1/elections//candidates"}, 404, failure, "404.json"},
		{"an encoded slash is no separator", request{target: "/api/public/v1/elections/2017%2Fcandidates"}, 404, failure, "404.json"},
		{"an encoded slash in the election's key", request{target: "/api/public/v1/elections/20%2F17/candidates"}, 404, failure, "404.json"},
		{"encoded digits name the same election", request{target: "/api/public/v1/elections/20%317/parties"}, 200, success, "elections/2017-parties.json"},
		{"an election's record, its digits encoded", request{target: "/api/public/v1/elections/%32%30%31%37"}, 200, success, "elections/2017.json"},

		{"people by name", request{target: "/api/public/v1/people?q=abela"}, 200, success, "elections/people-q-abela.json"},
		{"people by a name in capitals with accents, trimmed", request{target: "/api/public/v1/people?q=%20AB%C3%89LA%20"}, 200, success, "elections/people-q-abela.json"},
		{"people matching nobody", request{target: "/api/public/v1/people?q=qqq"}, 200, success, "elections/people-q-none.json"},
		{"a person by slug: every candidacy, newest first", request{target: "/api/public/v1/people/robert-abela"}, 200, success, "elections/person-robert-abela.json"},
		{"a person by id in capitals", request{target: "/api/public/v1/people/31C25F81-6F9E-594D-AB37-15E7312AD94D"}, 200, success, "elections/person-robert-abela.json"},
		{"q of one character", request{target: "/api/public/v1/people?q=a"}, 400, failure, "elections/400-people-q.json"},
		{"q missing", request{target: "/api/public/v1/people"}, 400, failure, "elections/400-people-no-q.json"},
		{"q empty", request{target: "/api/public/v1/people?q="}, 400, failure, "elections/400-people-no-q.json"},
		{"q given twice", request{target: "/api/public/v1/people?q=ab&q=cd"}, 400, failure, "elections/400-people-q-twice.json"},
		{"nobody", request{target: "/api/public/v1/people/nobody"}, 404, failure, "elections/404-person.json"},
		{"a person's slug a slip away", request{target: "/api/public/v1/people/robert-abel"}, 404, failure, "elections/404-person-misspelt.json"},
	}
	s, _ := newServer(t, server.Options{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, ownClient(tt.req, i))
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			wantHeaders(t, rec.Header(), merge(everyResponse, tt.header))
			if got, want := rec.Header().Get("Content-Length"), itoa(rec.Body.Len()); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
			golden(t, tt.golden, rec.Body.Bytes())
			if tt.status == 200 {
				checkEnvelope(t, rec.Body.Bytes())
			} else {
				checkProblem(t, rec.Body.Bytes(), tt.status)
			}
		})
	}
}

// TestElectionPathsAnswerAsToday: each endpoint of a collection, under the
// current election's path, answers what it answers without one: the same
// body and the same ETag.
func TestElectionPathsAnswerAsToday(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	for _, path := range []string{"/parties", "/parties/pn", "/districts", "/districts?locality=birgu", "/districts/5", "/candidates?limit=500",
		"/candidates?q=zammit", "/candidates?elected=true&stood_in=5", "/candidates/toni-bezzina", "/results", "/results/5", "/results/national"} {
		today := do(t, s, request{target: server.BasePath + path})
		for _, election := range []string{"2022", election2022ID} {
			got := do(t, s, request{target: server.ElectionsPath + "/" + election + path})
			if got.Code != 200 || !bytes.Equal(got.Body.Bytes(), today.Body.Bytes()) || got.Header().Get("ETag") != today.Header().Get("ETag") {
				t.Errorf("%s under /elections/%s: status %d, ETag %s; want 200, the body and the ETag %s of %s", path, election, got.Code, got.Header().Get("ETag"), today.Header().Get("ETag"), path)
			}
		}
	}
	// 2017's are its own.
	if a, b := do(t, s, request{target: server.BasePath + "/parties"}), do(t, s, request{target: server.ElectionsPath + "/2017/parties"}); bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || a.Header().Get("ETag") == b.Header().Get("ETag") {
		t.Error("2017's parties answer as 2022's")
	}
}

// TestPersonCandidacies: a person's candidacies are newest first, each
// with the first preferences and the count that elected them in each
// district, as the count sheets give them (Robert Abela: elected at the
// first count in districts 2 and 5 in 2022, at the 14th in district 6 in
// 2017, with 3,403 first preferences there).
func TestPersonCandidacies(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	var body struct {
		Data []struct {
			Slug, Name  string
			Candidacies []struct {
				ElectionSlug string `json:"election_slug"`
				CandidateID  string `json:"candidate_id"`
				Elected      *bool
				Results      []struct {
					District int  `json:"district_number"`
					First    int  `json:"first_preferences"`
					Elected  *int `json:"elected_at_count"`
					Excluded *int `json:"excluded_at_count"`
				}
			}
		}
	}
	if err := json.Unmarshal(do(t, s, request{target: "/api/public/v1/people/robert-abela"}).Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	type result struct{ district, first, elected int }
	want := map[string][]result{"2022": {{2, 11694, 1}, {5, 9996, 1}}, "2017": {{6, 3403, 14}}}
	p := body.Data[0]
	if len(body.Data) != 1 || p.Name != "Robert Abela" || len(p.Candidacies) != 2 || p.Candidacies[0].ElectionSlug != "2022" || p.Candidacies[1].ElectionSlug != "2017" {
		t.Fatalf("person %+v, want Robert Abela's candidacies of 2022 then 2017", body.Data)
	}
	for _, c := range p.Candidacies {
		var got []result
		for _, r := range c.Results {
			if r.Elected == nil || r.Excluded != nil {
				t.Errorf("%s, district %d: elected at %v, excluded at %v; want elected", c.ElectionSlug, r.District, r.Elected, r.Excluded)
				continue
			}
			got = append(got, result{r.District, r.First, *r.Elected})
		}
		if !equalResults(got, want[c.ElectionSlug]) || c.Elected == nil || !*c.Elected {
			t.Errorf("%s: results %v, elected %v; want %v, elected", c.ElectionSlug, got, c.Elected, want[c.ElectionSlug])
		}
		// The candidacy is that election's candidate, by its id.
		rec := do(t, s, request{target: server.ElectionsPath + "/" + c.ElectionSlug + "/candidates/" + c.CandidateID})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"slug":"robert-abela"`) {
			t.Errorf("%s's candidate %s: status %d", c.ElectionSlug, c.CandidateID, rec.Code)
		}
	}
}

func equalResults[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestElectionsAnswerAsCollections: the elections, an election's
// collections and the people are answered as the collections are: a weak
// ETag and 304, HEAD without the body, gzip that decompresses to the
// plain body with the same tag, and the CORS preflight.
func TestElectionsAnswerAsCollections(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	var etags []string
	for _, target := range []string{"/api/public/v1/elections", "/api/public/v1/elections/2017", "/api/public/v1/elections/2017/candidates",
		"/api/public/v1/elections/2017/candidates?district=5&party=pl", "/api/public/v1/elections/2017/results/5", "/api/public/v1/elections/2017/candidates/robert-abela",
		"/api/public/v1/people?q=abela", "/api/public/v1/people/robert-abela"} {
		t.Run(target, func(t *testing.T) {
			get := do(t, s, request{target: target})
			etag := get.Header().Get("ETag")
			if get.Code != 200 || !strings.HasPrefix(etag, `W/"`) {
				t.Fatalf("status %d, ETag %q; want 200 and a weak tag", get.Code, etag)
			}
			for _, other := range etags {
				if other == etag {
					t.Errorf("ETag %s is another answer's too", etag)
				}
			}
			etags = append(etags, etag)
			if nm := do(t, s, request{target: target, header: map[string]string{"If-None-Match": etag}}); nm.Code != 304 || nm.Body.Len() != 0 {
				t.Errorf("If-None-Match: status %d, %d body bytes; want 304 and none", nm.Code, nm.Body.Len())
			}
			head := do(t, s, request{method: http.MethodHead, target: target})
			if head.Code != 200 || head.Body.Len() != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", head.Code, head.Body.Len())
			}
			for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control"} {
				if head.Header().Get(k) != get.Header().Get(k) {
					t.Errorf("%s: HEAD %q, GET %q", k, head.Header().Get(k), get.Header().Get(k))
				}
			}
			zipped := do(t, s, request{target: target, header: map[string]string{"Accept-Encoding": "gzip"}})
			if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != etag {
				t.Fatalf("Content-Encoding %q, ETag %q; want gzip and %s", zipped.Header().Get("Content-Encoding"), zipped.Header().Get("ETag"), etag)
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped.Body.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(plain, get.Body.Bytes()) {
				t.Errorf("gzip decompresses to other bytes (%v)", err)
			}
			pre := do(t, s, request{method: http.MethodOptions, target: target, header: map[string]string{"Origin": "https://news.example", "Access-Control-Request-Method": "GET"}})
			if pre.Code != http.StatusNoContent {
				t.Errorf("preflight: status %d, want 204", pre.Code)
			}
			wantHeaders(t, pre.Header(), map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS", "Access-Control-Max-Age": "86400"})
		})
	}
}

// TestElectionsRateLimit: an election's collection spends the counter of
// the collection, whatever the election; the elections and the people
// spend the counter of every path that is no collection's.
func TestElectionsRateLimit(t *testing.T) {
	tests := []struct {
		name, first, then string
		remaining         string
	}{
		{"an election's candidates spend the candidates' counter", "/api/public/v1/candidates", "/api/public/v1/elections/2017/candidates", "58"},
		{"two elections' candidates share it", "/api/public/v1/elections/2022/candidates/robert-abela", "/api/public/v1/elections/2017/candidates?district=5", "58"},
		{"an election's results share the results' counter", "/api/public/v1/results/national", "/api/public/v1/elections/2017/results/5", "58"},
		{"an election's parties are not the candidates", "/api/public/v1/candidates", "/api/public/v1/elections/2017/parties", "59"},
		{"the elections spend the shared counter", "/api/public/v1/", "/api/public/v1/elections", "58"},
		{"the people spend the shared counter", "/api/public/v1/elections/2017", "/api/public/v1/people/robert-abela", "58"},
		{"a search of the people too", "/api/public/v1/people?q=abela", "/nowhere", "58"},
		{"an unknown election spends its collection's counter", "/api/public/v1/elections/2016/candidates", "/api/public/v1/candidates", "58"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t, server.Options{})
			do(t, s, request{target: tt.first})
			rec := do(t, s, request{target: tt.then})
			wantHeaders(t, rec.Header(), map[string]string{"X-RateLimit-Remaining": tt.remaining})
		})
	}
	t.Run("61 requests to an election's candidates: the 429 of the candidates", func(t *testing.T) {
		s, _ := newServer(t, server.Options{})
		for range 60 {
			do(t, s, request{target: "/api/public/v1/elections/2017/candidates"})
		}
		if rec := do(t, s, request{target: "/api/public/v1/candidates"}); rec.Code != 429 {
			t.Errorf("/candidates after 60 requests to 2017's: status %d, want 429", rec.Code)
		}
		if rec := do(t, s, request{target: "/api/public/v1/elections/2017/parties"}); rec.Code != 200 {
			t.Errorf("2017's parties: status %d, want 200", rec.Code)
		}
	})
}

// TestElectionsMetricsRoutes: an election's collection is counted in the
// metrics under the collection's route name, and the elections and people
// under theirs: no route name for each election.
func TestElectionsMetricsRoutes(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	for _, target := range []string{"/api/public/v1/candidates", "/api/public/v1/elections/2017/candidates", "/api/public/v1/elections/2016/candidates",
		"/api/public/v1/elections", "/api/public/v1/people?q=abela", "/api/public/v1/people/robert-abela"} {
		do(t, s, request{target: target})
	}
	admin := s.AdminHandler(func() (*archive.Archive, error) { return nil, errors.New("not reloaded here") })
	metrics := do(t, admin, request{target: "/metrics"}).Body.String()
	for _, want := range []string{
		`ballot_http_requests_total{route="candidates",status="200"} 2`,
		`ballot_http_requests_total{route="candidates",status="404"} 1`,
		`ballot_http_requests_total{route="elections",status="200"} 1`,
		`ballot_http_requests_total{route="people",status="200"} 1`,
		`ballot_http_requests_total{route="person",status="200"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if strings.Contains(metrics, `route="2017`) {
		t.Error("/metrics names an election as a route")
	}
}

// archiveFiles copies the embedded archive into a map a test may break.
func archiveFiles(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(dataset.ArchiveFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dataset.ArchiveFS(), path)
		m[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReloadBrokenElection: a reload whose 2017 is broken (an unbalanced
// count) is refused whole, naming 2017's file, and both elections of the
// archive before it are still served, byte for byte; mended, a reload
// serves the new archive, both elections at once.
func TestReloadBrokenElection(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	targets := []string{"/api/public/v1/elections", "/api/public/v1/candidates", "/api/public/v1/elections/2017/results/5", "/api/public/v1/people/robert-abela"}
	before := map[string]string{}
	for _, target := range targets {
		before[target] = do(t, s, request{target: target}).Header().Get("ETag")
	}
	broken := archiveFiles(t)
	const counts = "malta-2017/counts.json"
	broken[counts] = &fstest.MapFile{Data: bytes.Replace(broken[counts].Data, []byte(`"totals":[3403,3436,`), []byte(`"totals":[3403,3435,`), 1)}
	if bytes.Equal(broken[counts].Data, archiveFiles(t)[counts].Data) {
		t.Fatal("Robert Abela's totals of 2017 are not in counts.json as the test breaks them")
	}
	_, err := s.Reload(func() (*archive.Archive, error) { return archive.Load(broken) })
	var report *dataset.Report
	if !errors.As(err, &report) || !strings.HasPrefix(report.Errors[0].String(), "malta-2017/counts.json: ") {
		t.Fatalf("the reload of a broken 2017: %v; want refused, naming malta-2017/counts.json", err)
	}
	for _, target := range targets {
		if rec := do(t, s, request{target: target}); rec.Code != 200 || rec.Header().Get("ETag") != before[target] {
			t.Errorf("%s after the refusal: status %d, ETag %s; want the last good archive's %s", target, rec.Code, rec.Header().Get("ETag"), before[target])
		}
	}

	// A new edition of 2017 alone: the next archive, every election of it.
	mended := archiveFiles(t)
	const parties = "malta-2017/parties.json"
	mended[parties] = &fstest.MapFile{Data: bytes.Replace(mended[parties].Data, []byte(`"name_en": "Labour Party"`), []byte(`"name_en": "The Labour Party"`), 1)}
	if bytes.Equal(mended[parties].Data, archiveFiles(t)[parties].Data) {
		t.Fatal("Labour's name in English is not in 2017's parties.json as the test changes it")
	}
	next, err := s.Reload(func() (*archive.Archive, error) { return archive.Load(mended) })
	if err != nil {
		t.Fatal(err)
	}
	if rec := do(t, s, request{target: "/api/public/v1/elections/2017/parties"}); !strings.Contains(rec.Body.String(), `"name_en":"The Labour Party"`) {
		t.Errorf("2017's parties after the reload lack its new edition: %.300s", rec.Body)
	}
	for _, target := range targets {
		rec := do(t, s, request{target: target})
		changed := rec.Header().Get("ETag") != before[target]
		// The archive's own answers name its version, 2017's collections
		// its version: all but 2022's.
		if want := target != "/api/public/v1/candidates"; changed != want {
			t.Errorf("%s after the reload of archive %.12s: ETag %s, changed %t, want %t", target, next.Version, rec.Header().Get("ETag"), changed, want)
		}
	}
}

// TestPastElectionLetGo: a server made holds no past election's dataset;
// a past election let go (ReleaseIdle) answers
// again, API and pages, with the same status, body and ETag as before,
// from its dataset loaded again; the current election is never let go.
func TestPastElectionLetGo(t *testing.T) {
	a, err := archive.Load(archiveFiles(t)) // an archive of its own: the embedded one is shared
	if err != nil {
		t.Fatal(err)
	}
	s, _ := serverOn(a, server.Options{RateLimit: 1000, Pages: true})
	// Made, the server has used no past election: serve's first release
	// lets them all go.
	if released := s.ReleaseIdle(time.Now().Add(time.Millisecond)); len(released) != len(a.Elections())-1 {
		t.Errorf("a server just made: its first release let go of %q, want every past election", released)
	}
	for _, e := range a.Elections() {
		if e.IsHeld() != (e == a.Current()) {
			t.Errorf("after the first release: %s held %v", e.Record.Slug, e.IsHeld())
		}
	}
	targets := []string{
		server.ElectionsPath + "/1962/candidates?district=5", server.ElectionsPath + "/1962/results/5",
		server.ElectionsPath + "/2017/parties", server.ElectionsPath + "/2017/candidates/robert-abela",
		"/elections/1962/districts/5", "/mt/elections/2017/candidates", "/elections/1962/candidates.csv", "/elections/1962/districts/5/count.csv",
	}
	// A page is no answer of the API: pageGet does not hold it to
	// openapi.json.
	get := func(target string, i int) *httptest.ResponseRecorder {
		if strings.HasPrefix(target, server.BasePath) {
			return do(t, s, ownClient(request{target: target}, i))
		}
		return pageGet(t, s, http.MethodGet, target, nil)
	}
	var before []*httptest.ResponseRecorder
	for i, target := range targets {
		before = append(before, get(target, i))
	}
	var held []string
	for _, e := range a.Elections() {
		if e.IsHeld() && e != a.Current() {
			held = append(held, e.Record.Slug)
		}
	}
	if !slices.Contains(held, "1962") || !slices.Contains(held, "2017") {
		t.Fatalf("held after the requests: %q; want 1962 and 2017 among them", held)
	}
	i1962, _ := a.ElectionIndex("1962")
	gone := weak.Make(a.Elections()[i1962].Dataset())
	if got := s.ReleaseIdle(time.Now().Add(-time.Hour)); len(got) != 0 {
		t.Errorf("elections used now let go as unused for an hour: %q", got)
	}
	if released := s.ReleaseIdle(time.Now().Add(time.Hour)); !slices.Equal(released, held) || !a.Current().IsHeld() {
		t.Fatalf("let go of %q (the current one held: %v); want those held, %q", released, a.Current().IsHeld(), held)
	}
	// Nothing of the server keeps 1962's dataset once let go: its
	// answers, queries and pages went with it.
	runtime.GC()
	if gone.Value() != nil {
		t.Error("1962's dataset still reachable once let go")
	}
	// A request for an election that is not there lists every election
	// and loads none.
	if rec := pageGet(t, s, http.MethodGet, "/elections/1888/", nil); rec.Code != http.StatusNotFound {
		t.Errorf("/elections/1888/: status %d, want 404", rec.Code)
	}
	if rec := pageGet(t, s, http.MethodGet, "/people?q=abela", nil); rec.Code != http.StatusOK {
		t.Errorf("/people?q=abela: status %d, want 200", rec.Code)
	}
	for _, e := range a.Elections() {
		if e.IsHeld() && e != a.Current() {
			t.Errorf("%s held after a 404 under /elections and a search of the people", e.Record.Slug)
		}
	}
	for i, target := range targets {
		got, want := get(target, len(targets)+i), before[i]
		if got.Code != want.Code || got.Code != http.StatusOK || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || got.Header().Get("ETag") != want.Header().Get("ETag") {
			t.Errorf("%s after its election was let go: status %d, ETag %s, %d bytes; before: %d, %s, %d bytes", target,
				got.Code, got.Header().Get("ETag"), got.Body.Len(), want.Code, want.Header().Get("ETag"), want.Body.Len())
		}
	}
	// Nothing asked for 1921: it has not been loaded again.
	if oldest := a.Elections()[len(a.Elections())-1]; oldest.IsHeld() {
		t.Errorf("%s held, and no request asked for it since it was let go", oldest.Record.Slug)
	}
}
