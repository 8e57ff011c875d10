package server_test

import (
	"net/http"
	"testing"

	"ballot/server"
)

// BenchmarkPages: today's pages of the current election, a page prepared
// at load (the home page, the results) and a record's page kept once
// rendered (a district's with its count, a candidate's), and the same of
// a past election under its path, the archive's pages and a person's,
// each as a browser asks for it again and again.
func BenchmarkPages(b *testing.B) {
	s, _ := newServer(b, server.Options{Pages: true, RateLimit: 1 << 30})
	for _, target := range []string{"/", "/results", "/districts/5", "/candidates/robert-abela", "/mt/districts/5",
		"/elections/1962/", "/elections/1962/districts/5", "/elections", "/history", "/people/dom-mintoff"} {
		b.Run(target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rec := pageGet(b, s, http.MethodGet, target, nil); rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
