package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCandidatesPageReadersFilters: the candidates page shows the rows the
// readers' filters keep, and pages of other rows never share an ETag (a
// client holding one must never get a 304 for another).
func TestCandidatesPageReadersFilters(t *testing.T) {
	s := pagesServer(t)
	rec := pageGet(t, s, http.MethodGet, "/candidates?q=zammit", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{"Stanley Zammit", "Alessia Psaila Zammit", "Edward Zammit Lewis"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "Robert Abela") {
		t.Error("the page shows a candidate q does not keep")
	}
	tags := map[string]string{}
	for _, target := range []string{"/candidates", "/candidates?q=zammit", "/candidates?q=abela", "/candidates?district=5",
		"/candidates?district=5&q=ar", "/candidates?stood_in=5", "/candidates?elected=true", "/candidates?elected=false&stood_in=5"} {
		tag := pageGet(t, s, http.MethodGet, target, nil).Header().Get("ETag")
		if prev, ok := tags[tag]; ok {
			t.Errorf("%s and %s share the ETag %s", target, prev, tag)
		}
		tags[tag] = target
	}
}
