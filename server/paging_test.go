package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"ballot/server"
)

// page is a decoded candidates answer.
type page struct {
	Data []json.RawMessage
	Meta struct {
		Count, Total, Limit, Offset int
		Filters                     struct {
			District *struct {
				Number int
				ID     string
			}
			Party *struct{ Slug, ID string }
		}
	}
}

func decodePage(t *testing.T, body []byte) page {
	t.Helper()
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a page: %v: %.200s", err, body)
	}
	return p
}

// nextLink is the RFC 8288 next link of the Link header, with the URL
// captured.
var nextLink = regexp.MustCompile(`^<([^<>]*)>; rel="next"$`)

// TestPagingFollowsLinks pages through the candidates with no filter, of
// every district and of every party, with small limits, following the Link
// headers as a client would: the pages hold exactly the records of
// limit=500, in order, each page's meta says the total, the limit and its
// offset, and the last page has no Link.
func TestPagingFollowsLinks(t *testing.T) {
	ds := malta(t)
	s, _ := newServer(t, server.Options{RateLimit: 1 << 20})
	filters := []string{""}
	for _, d := range ds.Districts() {
		filters = append(filters, "district="+itoa(d.Number))
	}
	for _, p := range ds.Parties() {
		filters = append(filters, "party="+p.Slug)
	}
	for _, filter := range filters {
		all := decodePage(t, do(t, s, request{target: "/api/public/v1/candidates?limit=500&" + filter}).Body.Bytes())
		if len(all.Data) != all.Meta.Total || all.Meta.Total == 0 {
			t.Fatalf("%s: limit=500 gives %d records of a total of %d", filter, len(all.Data), all.Meta.Total)
		}
		for _, limit := range []int{1, 7, 13} {
			target := "/api/public/v1/candidates?" + filter + "&limit=" + itoa(limit)
			var got []json.RawMessage
			pages := 0
			for target != "" {
				pages++
				if pages > all.Meta.Total+1 {
					t.Fatalf("%s, limit %d: more pages than records", filter, limit)
				}
				rec := do(t, s, request{target: target})
				if rec.Code != http.StatusOK {
					t.Fatalf("%s: status %d", target, rec.Code)
				}
				checkEnvelope(t, rec.Body.Bytes())
				p := decodePage(t, rec.Body.Bytes())
				if p.Meta.Total != all.Meta.Total || p.Meta.Limit != limit || p.Meta.Offset != len(got) {
					t.Errorf("%s: meta total %d, limit %d, offset %d; want %d, %d, %d",
						target, p.Meta.Total, p.Meta.Limit, p.Meta.Offset, all.Meta.Total, limit, len(got))
				}
				echoed := ""
				if d := p.Meta.Filters.District; d != nil {
					echoed = "district=" + itoa(d.Number)
				}
				if party := p.Meta.Filters.Party; party != nil {
					echoed = "party=" + party.Slug
				}
				if echoed != filter {
					t.Errorf("%s: meta.filters echoes %q", target, echoed)
				}
				got = append(got, p.Data...)
				target = ""
				if link := rec.Header().Get("Link"); link != "" {
					m := nextLink.FindStringSubmatch(link)
					if m == nil {
						t.Fatalf("Link %q is not one next link", link)
					}
					target = m[1]
				}
				if last := len(got) == all.Meta.Total; last != (target == "") {
					t.Errorf("%s, limit %d: after %d of %d records, Link %q", filter, limit, len(got), all.Meta.Total, rec.Header().Get("Link"))
				}
			}
			if !slices.EqualFunc(got, all.Data, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
				t.Errorf("%s, limit %d: the pages hold %d records, not limit=500's %d in order", filter, limit, len(got), len(all.Data))
			}
			if want := (all.Meta.Total + limit - 1) / limit; pages != want {
				t.Errorf("%s, limit %d: %d pages, want %d", filter, limit, pages, want)
			}
		}
	}
}

// TestPageLinks: the Link of a page at a public URL is absolute, HEAD
// carries it as GET does, a 304 does not, and the ETag of each page
// differs with its offset and limit.
func TestPageLinks(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000, PublicURL: "https://elections.example.org/"})
	const target = "/api/public/v1/candidates?district=5&limit=4&offset=4"
	const want = `<https://elections.example.org/api/public/v1/candidates?district=5&limit=4&offset=8>; rel="next"`
	get := do(t, s, request{target: target})
	wantHeaders(t, get.Header(), map[string]string{"Link": want})
	head := do(t, s, request{method: http.MethodHead, target: target})
	wantHeaders(t, head.Header(), map[string]string{"Link": want, "ETag": get.Header().Get("ETag"), "Content-Length": get.Header().Get("Content-Length")})
	notModified := do(t, s, request{target: target, header: map[string]string{"If-None-Match": get.Header().Get("ETag")}})
	if notModified.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d, want 304", notModified.Code)
	}
	wantHeaders(t, notModified.Header(), map[string]string{"Link": ""})

	tags := map[string]string{}
	for _, q := range []string{"district=5&limit=4", "district=5&limit=4&offset=4", "district=5&limit=4&offset=8", "district=5&limit=5&offset=4", "district=5&limit=8", "limit=4&offset=4"} {
		tag := do(t, s, request{target: "/api/public/v1/candidates?" + q}).Header().Get("ETag")
		if other, seen := tags[tag]; seen {
			t.Errorf("%s and %s have the same ETag %s", q, other, tag)
		}
		tags[tag] = q
	}
}

// TestGzipPages: every page, compressed at load or on request, is gzip of
// exactly its plain body.
func TestGzipPages(t *testing.T) {
	s, _ := newServer(t, server.Options{RateLimit: 1000})
	for _, q := range []string{"offset=1&limit=1", "offset=7&limit=13", "offset=100", "offset=176", "offset=177", "district=5&party=pn&offset=3", "limit=500&offset=2"} {
		target := "/api/public/v1/candidates?" + q
		plain := do(t, s, request{target: target})
		zipped := do(t, s, request{target: target, header: map[string]string{"Accept-Encoding": "gzip"}})
		wantHeaders(t, zipped.Header(), map[string]string{"Content-Encoding": "gzip", "Link": plain.Header().Get("Link"), "ETag": plain.Header().Get("ETag")})
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		body, err := io.ReadAll(zr) // checks the CRC-32 and the length
		if err != nil {
			t.Fatalf("%s: invalid gzip: %v", q, err)
		}
		if !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("%s: gzip holds %.200q, want %.200q", q, body, plain.Body)
		}
	}
}
