package pages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/uuid"

	"ballot/archive"
	"ballot/dataset"
)

// TestListedAtMost: the listings made at load show at most Listed rows of
// a list, and say how many there are and where the rest are; the party a
// reader chose beyond them is still offered in the form, by its name. A
// dataset of very many parties or localities would otherwise make pages,
// in each language, many times its own size at every load.
func TestListedAtMost(t *testing.T) {
	const extra = Listed + 100
	files := dataset.Files{}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	var parties []map[string]any
	var districts []map[string]any
	if err := json.Unmarshal(files[dataset.PartiesFile], &parties); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(files[dataset.DistrictsFile], &districts); err != nil {
		t.Fatal(err)
	}
	for i := range extra {
		slug := fmt.Sprintf("zz%04d", i) // sorted after every real party
		parties = append(parties, map[string]any{"id": uuid.NewSHA1(uuid.NameSpaceURL, []byte(slug)).String(), "slug": slug, "name": "Zz " + slug, "short_name": "Z"})
		locs := districts[0]["localities"].([]any)
		districts[0]["localities"] = append(locs, map[string]any{"name": "Lokalità " + slug, "slug": "lokalita-" + slug})
	}
	files[dataset.PartiesFile], files[dataset.DistrictsFile] = dataset.EncodeJSON(parties), dataset.EncodeJSON(districts)
	ds, err := dataset.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"openapi":"3.1.0","info":{"summary":"s","description":"d","version":"1"},"paths":{},"components":{"responses":{},"headers":{}}}`
	site, err := New(Election{Archive: archive.Of(ds)}, About{Title: "t"}, "/api/public/v1", []byte(doc), English)
	if err != nil {
		t.Fatal(err)
	}
	total := len(ds.Parties())
	count := func(page []byte, s string) int { return bytes.Count(page, []byte(s)) }

	_, table, _ := bytes.Cut(site.Parties, []byte(`<table id="parties">`))
	if got := count(table, `<a href="/parties/`); got != Listed {
		t.Errorf("the parties page links %d parties, want %d", got, Listed)
	}
	for _, want := range []string{
		fmt.Sprintf("<caption>%d parties, ordered by name</caption>", total),
		fmt.Sprintf(`<p class="more">The first %d of %d parties; every one is in the CSV download and in the API.</p>`, Listed, total),
	} {
		if count(site.Parties, want) != 1 {
			t.Errorf("the parties page lacks %q", want)
		}
	}
	localities := len(ds.Districts()[0].Localities)
	for _, want := range []string{
		fmt.Sprintf("<caption>The %d localities of district 1</caption>", localities),
		fmt.Sprintf(`<p class="more">The first %d of %d localities; every one is in the API.</p>`, Listed, localities),
	} {
		if count(site.Districts, want) != 1 {
			t.Errorf("the districts page lacks %q", want)
		}
	}
	if got := count(site.Districts, "Lokalità zz"); got != Listed-(localities-extra) {
		t.Errorf("the districts page shows %d of the added localities, want %d", got, Listed-(localities-extra))
	}

	options := func(page []byte) int {
		_, form, _ := bytes.Cut(page, []byte(`<select id="party" name="party">`))
		form, _, _ = bytes.Cut(form, []byte("</select>"))
		return count(form, "<option value=\"") - 1 // less "any party"
	}
	if got := options(site.Candidates); got != Listed {
		t.Errorf("the candidates form offers %d parties, want %d", got, Listed)
	}
	last := fmt.Sprintf("zz%04d", extra-1)
	res, err := ds.Query(dataset.Candidates, dataset.Params{"party": {last}})
	if err != nil {
		t.Fatal(err)
	}
	page := site.renderCandidates(res, candidateFilter{party: last, limit: "100"}, nil)
	if got := options(page); got != Listed+1 {
		t.Errorf("with party=%s, the form offers %d parties, want %d", last, got, Listed+1)
	}
	if want := `<option value="` + last + `" lang="mt" selected>Zz ` + last + `</option>`; !strings.Contains(string(page), want) {
		i := strings.Index(string(page), `value="`+last+`"`)
		t.Errorf("with party=%s, the form lacks %s: %.200s", last, want, page[max(i-20, 0):])
	}
}

// TestClip: a page shows at most Clipped characters of a dataset's text,
// counted in characters, not bytes, and marks what it left out.
func TestClip(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", ""},
		{"a real name", "Partit Nazzjonalista", "Partit Nazzjonalista"},
		{"exactly Clipped", strings.Repeat("a", Clipped), strings.Repeat("a", Clipped)},
		{"one more", strings.Repeat("a", Clipped+1), strings.Repeat("a", Clipped) + "…"},
		{"Maltese letters, Clipped of them in twice the bytes", strings.Repeat("ħ", Clipped), strings.Repeat("ħ", Clipped)},
		{"Maltese letters, one more", strings.Repeat("ħ", Clipped+1), strings.Repeat("ħ", Clipped) + "…"},
		{"megabytes", strings.Repeat("Ż", 1<<20), strings.Repeat("Ż", Clipped) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clip(tt.text); got != tt.want {
				t.Errorf("clip of %d bytes: %d bytes, want %d", len(tt.text), len(got), len(tt.want))
			}
		})
	}
}
