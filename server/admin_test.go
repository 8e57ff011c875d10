package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server"
)

// edition returns the embedded dataset with its manifest's title changed,
// so it has another version.
func edition(t *testing.T, title string) *dataset.Dataset {
	t.Helper()
	files := fstest.MapFS{}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: b}
	}
	m := string(files[dataset.ManifestFile].Data)
	i := strings.Index(m, "title = ")
	j := i + strings.Index(m[i:], "\n")
	files[dataset.ManifestFile].Data = []byte(m[:i] + "title = \"" + title + "\"" + m[j:])
	ds, err := dataset.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestReload(t *testing.T) {
	var logged bytes.Buffer
	s, _ := newServer(t, server.Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	etag := do(t, s, request{target: "/api/public/v1/parties"}).Header().Get("ETag")

	second := edition(t, "Second edition")
	got, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(second), nil })
	if err != nil || got.Current().Dataset() != second {
		t.Fatalf("Reload = %v, %v", got, err)
	}
	rec := do(t, s, request{target: "/api/public/v1/parties", header: map[string]string{"If-None-Match": etag}})
	if rec.Code != 200 || rec.Header().Get("ETag") == etag {
		t.Errorf("after a reload: status %d, ETag %s; want 200 and a new tag", rec.Code, rec.Header().Get("ETag"))
	}

	secondTag := rec.Header().Get("ETag")
	broken := &dataset.Report{Errors: []dataset.Problem{{File: "parties.json", Pointer: "/0/id", Rule: "uuid", Message: "not a UUID"}}}
	if _, err := s.Reload(func() (*archive.Archive, error) { return nil, broken }); !errors.Is(err, broken) {
		t.Fatalf("Reload of a broken dataset: %v", err)
	}
	if got := do(t, s, request{target: "/api/public/v1/parties"}).Header().Get("ETag"); got != secondTag {
		t.Errorf("a refused reload changed what is served: ETag %s, want %s", got, secondTag)
	}
	if !strings.Contains(logged.String(), "reload refused: still serving the previous dataset") || !strings.Contains(logged.String(), "version="+second.Version) {
		t.Errorf("log = %q, want the refusal and the version still served", logged.String())
	}
}

func TestAdmin(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 2, MaxClients: 64})
	reloads := []error{nil, &dataset.Report{Errors: []dataset.Problem{{File: "candidates.json", Pointer: "/3/party_id", Rule: "reference", Message: "no party has id x"}}}}
	next := edition(t, "Next")
	admin := s.AdminHandler(func() (*archive.Archive, error) {
		err := reloads[0]
		reloads = reloads[1:]
		if err != nil {
			return nil, err
		}
		return archive.Of(next), nil
	})
	// Some public traffic for the metrics: a 429 and more clients than
	// MaxClients, so counters are evicted.
	for range 3 {
		do(t, s, request{target: "/api/public/v1/parties"})
	}
	for i := range 200 {
		do(t, s, request{target: "/api/public/v1/districts", remote: netip.AddrFrom4([4]byte{198, 51, byte(i / 256), byte(i)}).String() + ":1"})
	}

	tests := []struct {
		name, method, target string
		status               int
		contains             []string
	}{
		{"alive", "GET", "/healthz", 200, []string{`{"status":"alive"}`}},
		{"alive, by Kubernetes' name", "GET", "/livez", 200, []string{`{"status":"alive"}`}},
		{"ready with the archive's version", "GET", "/readyz", 200, []string{`"status":"ready"`, `"title":"` + malta(t).Manifest.Title + `"`, `"version":"` + embedded(t).Version + `"`, `"loaded_at":"2026-11-21T04:15:00.123Z"`}},
		{"reload", "POST", "/reload", 200, []string{`{"status":"reloaded","version":"` + next.Version + `"}`}},
		{"a refused reload", "POST", "/reload", 422, []string{`"status":"refused"`, `candidates.json: /3/party_id: no party has id x`, `"version":"` + next.Version + `"`}},
		{"metrics", "GET", "/metrics", 200, []string{
			`ballot_http_requests_total{route="parties",status="200"} 2`,
			`ballot_http_requests_total{route="parties",status="429"} 1`,
			`ballot_rate_limited_requests_total{route="parties"} 1`,
			`ballot_http_request_duration_seconds_bucket{route="districts",le="+Inf"} 200`,
			`ballot_rate_limit_tracked_clients `,
			`ballot_rate_limit_evictions_total `,
			`ballot_dataset_reloads_total{outcome="success"} 1`,
			`ballot_dataset_reloads_total{outcome="failure"} 1`,
			`ballot_dataset_info{published_at="2026-11-21",title="Next",version="` + next.Version + `"} 1`,
			`ballot_dataset_loaded_timestamp_seconds `,
			`ballot_dataset_reload_failures_total 1`,
			`ballot_dataset_reload_failure_timestamp_seconds 1.795234500123`, // 04:15:00.123
			`ballot_build_info{commit="unknown",go_version="` + runtime.Version() + `",version="devel"} 1`,
		}},
		{"unknown path", "GET", "/admin", 404, []string{`"status":404`}},
		{"reload needs POST", "GET", "/reload", 405, []string{`"status":405`}},
		{"health needs GET", "DELETE", "/healthz", 405, []string{`"status":405`}},
		{"liveness needs GET", "POST", "/livez", 405, []string{`"status":405`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, admin, request{method: tt.method, target: tt.target})
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			for _, want := range tt.contains {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("body lacks %q:\n%.2000s", want, rec.Body)
				}
			}
			for _, h := range []string{"X-RateLimit-Limit", "Access-Control-Allow-Origin"} {
				if rec.Header().Get(h) != "" {
					t.Errorf("the admin listener sent %s", h)
				}
			}
		})
	}
	t.Run("evictions are counted and the cap holds", func(t *testing.T) {
		body := do(t, admin, request{target: "/metrics"}).Body.String()
		if strings.Contains(body, "ballot_rate_limit_evictions_total 0\n") {
			t.Error("no eviction counted after 200 clients with a cap of 64")
		}
		var tracked float64
		for _, line := range strings.Split(body, "\n") {
			if v, ok := strings.CutPrefix(line, "ballot_rate_limit_tracked_clients "); ok {
				_ = json.Unmarshal([]byte(v), &tracked)
			}
		}
		if tracked == 0 || tracked > 64 {
			t.Errorf("tracked clients = %v, want 1 to 64", tracked)
		}
	})
}

// TestTrustedProxy: behind a trusted proxy, clients are limited by their
// forwarded address; a client sending the header directly is not believed.
func TestTrustedProxy(t *testing.T) {
	var logged bytes.Buffer
	s, _ := newServer(t, server.Options{
		RateLimit: 2,
		ClientIP:  server.ClientIP{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		Logger:    slog.New(slog.NewJSONHandler(&logged, nil)),
		AccessLog: true,
	})
	const proxy, direct = "10.0.0.5:40000", "203.0.113.50:40000"
	via := func(xff string) request {
		return request{target: "/api/public/v1/parties", remote: proxy, header: map[string]string{"X-Forwarded-For": xff}}
	}
	steps := []struct {
		name      string
		req       request
		status    int
		remaining string
	}{
		{"client A via the proxy", via("198.51.100.7"), 200, "1"},
		{"client A again", via("198.51.100.7"), 200, "0"},
		{"client A is limited", via("198.51.100.7"), 429, "0"},
		{"a Forwarded header is not read when the proxy writes X-Forwarded-For", request{target: "/api/public/v1/parties", remote: proxy, header: map[string]string{"Forwarded": "for=198.51.100.7"}}, 200, "1"},
		{"client B via the proxy has its own quota", via("198.51.100.8"), 200, "1"},
		{"a forged hop before client B is not believed", via("198.51.100.7, 198.51.100.8"), 200, "0"},
		{"a direct client forging A's address is counted as itself", request{target: "/api/public/v1/parties", remote: direct, header: map[string]string{"X-Forwarded-For": "198.51.100.7"}}, 200, "1"},
		{"a malformed header counts a client the proxy did not name", via("not-an-ip"), 200, "1"},
		{"another malformed header counts the same", via("198.51.100.9, ,"), 200, "0"},
		{"the proxy's own counter is apart", request{target: "/api/public/v1/parties", remote: proxy}, 200, "0"},
	}
	for _, st := range steps {
		rec := do(t, s, st.req)
		if rec.Code != st.status || rec.Header().Get("X-RateLimit-Remaining") != st.remaining {
			t.Errorf("%s: status %d, remaining %s; want %d, %s", st.name, rec.Code, rec.Header().Get("X-RateLimit-Remaining"), st.status, st.remaining)
		}
	}
	var line struct {
		ClientIP string `json:"client_ip"`
		Route    string `json:"route"`
		Status   int    `json:"status"`
		Bytes    int    `json:"bytes"`
		Msg      string `json:"msg"`
	}
	if err := json.Unmarshal(bytes.SplitN(logged.Bytes(), []byte("\n"), 2)[0], &line); err != nil {
		t.Fatal(err)
	}
	if line.Msg != "request" || line.ClientIP != "198.51.100.7" || line.Route != "parties" || line.Status != 200 || line.Bytes == 0 {
		t.Errorf("access log line = %+v, want the resolved client 198.51.100.7, route parties, 200 and its size", line)
	}
}

// TestAdminStatusAfterRefusal: a refused reload leaves /readyz ready (the
// dataset before it is still served), and /readyz's body gives what is
// served and the last refusal: when, the directory, the first problems.
// The metrics count it; the build is named.
func TestAdminStatusAfterRefusal(t *testing.T) {
	s, clk := newServer(t, server.Options{DataDir: "/srv/elections/current", Build: server.Build{Version: "v1.4.0", Commit: "4cc3c63"}})
	var problems []dataset.Problem
	for i := range 7 {
		problems = append(problems, dataset.Problem{File: "candidates.json", Pointer: fmt.Sprintf("/%d/party_id", i), Rule: "reference", Message: "no party has id x"})
	}
	loads := []func() (*archive.Archive, error){
		func() (*archive.Archive, error) { return nil, &dataset.Report{Errors: problems} },
		func() (*archive.Archive, error) {
			return nil, errors.New("open /srv/elections/current: permission denied")
		},
		func() (*archive.Archive, error) { return archive.Of(edition(t, "Next")), nil },
	}
	admin := s.AdminHandler(func() (*archive.Archive, error) {
		load := loads[0]
		loads = loads[1:]
		return load()
	})
	// A load that failed is the dataset's place's problem, not the
	// server's: refused with 422 like an invalid dataset, never a 5xx.
	steps := []struct {
		name         string
		reload       int    // the status POST /reload answers first, or 0
		reloadGolden string // its body, or ""
		golden       string
	}{
		{"before any reload", 0, "", "admin-readyz-fresh.json"},
		{"after an invalid dataset", 422, "", "admin-readyz-refused.json"},
		{"after a load that failed", 422, "admin-reload-failed.json", "admin-readyz-failed.json"},
		{"after a reload that succeeded", 200, "", "admin-readyz-reloaded.json"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			clk.Advance(time.Minute)
			if st.reload != 0 {
				rec := do(t, admin, request{method: "POST", target: "/reload"})
				if rec.Code != st.reload {
					t.Fatalf("POST /reload: %d, want %d: %s", rec.Code, st.reload, rec.Body)
				}
				if st.reloadGolden != "" {
					golden(t, st.reloadGolden, rec.Body.Bytes())
				}
			}
			rec := do(t, admin, request{target: "/readyz"})
			if rec.Code != 200 {
				t.Fatalf("/readyz: %d, want 200 (the previous dataset is served): %s", rec.Code, rec.Body)
			}
			golden(t, st.golden, rec.Body.Bytes())
		})
	}
	metrics := do(t, admin, request{target: "/metrics"}).Body.String()
	for _, want := range []string{
		`ballot_build_info{commit="4cc3c63",go_version="` + runtime.Version() + `",version="v1.4.0"} 1` + "\n",
		`ballot_dataset_reload_failures_total 2` + "\n",
		`ballot_dataset_reloads_total{outcome="failure"} 2` + "\n",
		`ballot_dataset_reloads_total{outcome="success"} 1` + "\n",
		`ballot_dataset_reload_failure_timestamp_seconds 1.795234680123`, // 04:18:00.123, the second refusal
		`ballot_dataset_loaded_timestamp_seconds 1.795234740123`,         // 04:19:00.123
		`ballot_dataset_info{published_at="2026-11-21",title="Next",version="`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestReloadCountedBeforeServed: once a reloaded dataset is served, the
// metrics count the reload and name its version, so that a monitor that
// sees the new version (or /readyz) never finds the reload missing from
// /metrics. The end of Options.PaceGC's pacing, which comes after the new
// dataset is served, looks at both.
func TestReloadCountedBeforeServed(t *testing.T) {
	next := edition(t, "Next")
	var s *server.Server
	var admin http.Handler
	checked := false
	opts := server.Options{PaceGC: func() func() {
		return func() {
			if s == nil || checked {
				return // the start, or the check done
			}
			checked = true
			if got := do(t, s, request{target: "/api/public/v1/parties"}).Header().Get("ETag"); !strings.Contains(got, next.Version[:16]) {
				t.Fatalf("the new dataset is not served yet: ETag %s", got)
			}
			metrics := do(t, admin, request{target: "/metrics"}).Body.String()
			for _, want := range []string{
				`ballot_dataset_reloads_total{outcome="success"} 1` + "\n",
				`title="Next",version="` + next.Version + `"} 1` + "\n",
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("/metrics once the reload is served has no %q", want)
				}
			}
		}
	}}
	s, _ = newServer(t, opts)
	admin = s.AdminHandler(func() (*archive.Archive, error) { return archive.Of(next), nil })
	if _, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(next), nil }); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("PaceGC's end was not called on the reload")
	}
}
