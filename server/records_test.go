package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"ballot/server"
)

const toniBezzinaID = "c8a434ca-00bf-5ee8-9c7f-f7d204b6abe9"

// TestRecords checks one record by its key, and the districts holding a
// locality, on status, headers and the exact body, as TestEndpoints does.
func TestRecords(t *testing.T) {
	tests := []struct {
		name   string
		target string
		status int
		header map[string]string
		golden string
	}{
		{"party by slug", "/api/public/v1/parties/pn", 200, success, "party-pn.json"},
		{"party by slug in capitals", "/api/public/v1/parties/PN", 200, success, "party-pn.json"},
		{"party by UUID in capitals", "/api/public/v1/parties/" + strings.ToUpper(partyPNID), 200, success, "party-pn.json"},
		{"query parameters on a record are ignored", "/api/public/v1/parties/pn?limit=0&locality=nowhere", 200, success, "party-pn.json"},
		{"district by number", "/api/public/v1/districts/5", 200, success, "district-5.json"},
		{"district number with a leading zero", "/api/public/v1/districts/05", 200, success, "district-5.json"},
		{"district by UUID in capitals", "/api/public/v1/districts/" + strings.ToUpper(district5ID), 200, success, "district-5.json"},
		{"candidate by slug", "/api/public/v1/candidates/toni-bezzina", 200, success, "candidate-toni-bezzina.json"},
		{"candidate by slug in mixed case", "/api/public/v1/candidates/Toni-Bezzina", 200, success, "candidate-toni-bezzina.json"},
		{"candidate by UUID", "/api/public/v1/candidates/" + toniBezzinaID, 200, success, "candidate-toni-bezzina.json"},
		{"a percent-encoded key", "/api/public/v1/candidates/toni%2Dbezzina", 200, success, "candidate-toni-bezzina.json"},

		{"no such candidate", "/api/public/v1/candidates/nobody", 404, failure, "404-candidate.json"},
		{"a party slug one letter off", "/api/public/v1/parties/pnn", 404, failure, "404-party-misspelt.json"},
		{"a UUID of another collection", "/api/public/v1/parties/" + district5ID, 404, failure, "404-party-district-id.json"},
		{"district 14", "/api/public/v1/districts/14", 404, failure, "404-district.json"},
		{"district 0", "/api/public/v1/districts/0", 404, failure, "404-district-0.json"},
		{"a key with a control character is not repeated", "/api/public/v1/candidates/a%00b", 404, failure, "404-candidate-unprintable.json"},
		{"an empty key is no endpoint", "/api/public/v1/parties/", 404, failure, "404.json"},
		{"a segment more is no endpoint", "/api/public/v1/parties/pn/x", 404, failure, "404.json"},
		{"a trailing slash after the key", "/api/public/v1/parties/pn/", 404, failure, "404.json"},
		{"an encoded slash in a key", "/api/public/v1/parties/pn%2Fx", 404, failure, "404.json"},
		{"a collection in capitals", "/api/public/v1/PARTIES/pn", 404, failure, "404.json"},

		{"locality by its Maltese name", "/api/public/v1/districts?locality=Bir%C5%BCebbu%C4%A1a", 200, success, "districts-locality-birzebbuga.json"},
		{"locality without accents", "/api/public/v1/districts?locality=birzebbuga", 200, success, "districts-locality-birzebbuga.json"},
		{"locality in capitals", "/api/public/v1/districts?locality=BIRZEBBUGA", 200, success, "districts-locality-birzebbuga.json"},
		{"locality by its English name", "/api/public/v1/districts?locality=Vittoriosa", 200, success, "districts-locality-birgu.json"},
		{"locality by its slug", "/api/public/v1/districts?locality=birgu", 200, success, "districts-locality-birgu.json"},
		{"a split council gives both districts", "/api/public/v1/districts?locality=Luqa", 200, success, "districts-locality-luqa.json"},
		{"an English name of a split council", "/api/public/v1/districts?locality=St+Paul%27s+Bay", 200, success, "districts-locality-st-pauls-bay.json"},
		{"an empty locality is none", "/api/public/v1/districts?locality=", 200, success, "districts.json"},
		{"locality matching nothing", "/api/public/v1/districts?locality=London", 400, failure, "400-locality.json"},
		{"locality misspelt gets suggestions", "/api/public/v1/districts?locality=Mars", 400, failure, "400-locality-suggestions.json"},
		{"locality given twice", "/api/public/v1/districts?locality=Luqa&locality=Luqa", 400, failure, "400-locality-twice.json"},
		{"locality badly percent-encoded", "/api/public/v1/districts?locality=%zz", 400, failure, "400-locality.json"},
	}
	s, _ := newServer(t, server.Options{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, s, ownClient(request{target: tt.target}, i))
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

// TestRecordsAnswerAsCollections: a record and a locality's districts are
// answered as every collection is: HEAD without the body, 304 on their
// ETag, gzip that decompresses to the plain body, a tag of their own.
func TestRecordsAnswerAsCollections(t *testing.T) {
	targets := []string{
		"/api/public/v1/parties/pn",
		"/api/public/v1/districts/5",
		"/api/public/v1/candidates/toni-bezzina",
		"/api/public/v1/districts?locality=Luqa",
	}
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	tags := map[string]string{}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			get := do(t, s, request{target: target})
			etag := get.Header().Get("ETag")
			if get.Code != 200 || !strings.HasPrefix(etag, `W/"`) {
				t.Fatalf("status %d, ETag %q; want 200 and a weak tag", get.Code, etag)
			}
			if other, seen := tags[etag]; seen {
				t.Errorf("ETag %s is also %s's", etag, other)
			}
			tags[etag] = target

			head := do(t, s, request{method: http.MethodHead, target: target})
			if head.Code != 200 || head.Body.Len() != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", head.Code, head.Body.Len())
			}
			for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control"} {
				if head.Header().Get(k) != get.Header().Get(k) {
					t.Errorf("%s: HEAD %q, GET %q", k, head.Header().Get(k), get.Header().Get(k))
				}
			}

			cached := do(t, s, request{target: target, header: map[string]string{"If-None-Match": etag}})
			if cached.Code != 304 || cached.Body.Len() != 0 {
				t.Errorf("If-None-Match: status %d, %d body bytes; want 304 and none", cached.Code, cached.Body.Len())
			}

			zipped := do(t, s, request{target: target, header: map[string]string{"Accept-Encoding": "gzip"}})
			if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != etag {
				t.Fatalf("Content-Encoding %q, ETag %q; want gzip and %s", zipped.Header().Get("Content-Encoding"), zipped.Header().Get("ETag"), etag)
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped.Body.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(body, get.Body.Bytes()) {
				t.Errorf("gunzipped body %q, %v; want %q", body, err, get.Body)
			}
		})
	}
}

// TestRecordsRateLimit: a record spends its collection's counter, a
// locality lookup the districts', and no other.
func TestRecordsRateLimit(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	steps := []struct {
		target    string
		remaining string
	}{
		{"/api/public/v1/parties", "59"},
		{"/api/public/v1/parties/pn", "58"},
		{"/api/public/v1/parties/nobody", "57"},
		{"/api/public/v1/candidates/toni-bezzina", "59"},
		{"/api/public/v1/districts/5", "59"},
		{"/api/public/v1/districts?locality=Luqa", "58"},
		{"/api/public/v1/districts?locality=London", "57"},
		{"/api/public/v1/parties/", "59"}, // no endpoint: the shared counter
	}
	for _, step := range steps {
		rec := do(t, s, request{target: step.target})
		if got := rec.Header().Get("X-RateLimit-Remaining"); got != step.remaining {
			t.Errorf("%s: X-RateLimit-Remaining %s, want %s", step.target, got, step.remaining)
		}
	}
}
