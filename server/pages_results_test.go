package server_test

import (
	"net/http"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
	"ballot/server"
)

// TestResultsWithoutParliament: when elected is not known of every
// candidate, the results page shows no seats in parliament, and says
// none: its table's caption names the seats at the count alone, in both
// languages.
func TestResultsWithoutParliament(t *testing.T) {
	files := datasettest.CountsFiles(t, true)
	datasettest.Edit(t, files, dataset.CandidatesFile, func(candidates []map[string]any) []map[string]any {
		for _, c := range candidates {
			if c["elected"] == false {
				delete(c, "elected") // not known of one candidate
				break
			}
		}
		return candidates
	})
	ds, err := dataset.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	if ds.SeatsWon() != nil {
		t.Fatal("the seats in parliament are known of the dataset")
	}
	opts := server.DefaultOptions()
	opts.Pages, opts.RateLimit = true, 1000
	s := server.New(archive.Of(ds), opts)
	tests := []struct {
		target          string
		contains, lacks []string
	}{
		{"/results", []string{
			html("<caption>Each party's first preferences and share of the valid votes in the 13 districts counted, and its seats at the count</caption>"),
			`<td class="number" data-label="Seats at the count">65</td>`,
		}, []string{"parliament"}},
		{"/mt/results", []string{
			html("<caption>L-ewwel preferenzi ta' kull partit u s-sehem tiegħu mill-voti validi fid-distretti magħduda (13), u s-siġġijiet tiegħu fl-għadd</caption>"),
		}, []string{"parlament"}},
	}
	for _, tt := range tests {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", tt.target, rec.Code)
		}
		body := rec.Body.String()
		for _, want := range tt.contains {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", tt.target, want)
			}
		}
		for _, unwanted := range tt.lacks {
			if strings.Contains(body, unwanted) {
				t.Errorf("%s has %q", tt.target, unwanted)
			}
		}
	}
}
