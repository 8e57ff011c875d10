package server_test

import (
	"net/http"
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
	"ballot/server"
)

// errataDataset is the embedded dataset whose district 5 sheet has one
// vote too many in count 4's non-transferable, stated as a known defect,
// and two corrections: Radu Gheorghe's total at count 4, an empty cell in
// the source, and Tania Gauci's party, which the source gives as the PL.
func errataDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	m := datasettest.CountsFiles(t, true)
	party := map[string]any{} // short name -> id
	datasettest.Edit(t, m, dataset.PartiesFile, func(ps []map[string]any) []map[string]any {
		for _, p := range ps {
			party[p["short_name"].(string)] = p["id"]
		}
		return ps
	})
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		s := sheets[4]
		for _, k := range []string{"district_number", "elected"} {
			delete(s, k)
		}
		counts := s["counts"].([]any)
		for k := range counts {
			counts[k] = map[string]any{"non_transferable": counts[k].(map[string]any)["non_transferable"]}
		}
		counts[3].(map[string]any)["non_transferable"] = counts[3].(map[string]any)["non_transferable"].(float64) + 1
		id := map[string]any{}
		for _, row := range s["candidacies"].([]any) {
			r := row.(map[string]any)
			id[r["name"].(string)] = r["candidate_id"]
			for _, k := range []string{"party_id", "first_preferences", "elected_at_count", "excluded_at_count"} {
				delete(r, k)
			}
		}
		s["defects"] = []any{map[string]any{"count": 4, "rule": "count-balance", "note": "the transcription's count 4 has one vote too many"}}
		s["corrections"] = []any{
			map[string]any{"candidate_id": id["Radu Gheorghe"], "count": 4, "field": "total", "from": nil, "to": 0, "evidence": "the cell is empty in the source"},
			map[string]any{"candidate_id": id["Tania Gauci"], "count": nil, "field": "party", "from": party["PL"], "to": party["ABBA"], "evidence": "her row's party total is ABBA's"},
		}
		return sheets
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatalf("loading the dataset with errata: %v", err)
	}
	return ds
}

// earlyDataset is the embedded dataset whose district 5 sheet ends at
// count 17, one count short, with its last seat unfilled: stated as a
// known defect of the sheet as a whole, which says who took the seat as
// published, Stefan Zrinzo Azzopardi.
func earlyDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	m := datasettest.CountsFiles(t, true)
	datasettest.Edit(t, m, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		s := sheets[4]
		for _, k := range []string{"district_number", "elected"} {
			delete(s, k)
		}
		counts := s["counts"].([]any)
		s["counts"] = counts[:len(counts)-1]
		var stefan any
		for _, row := range s["candidacies"].([]any) {
			r := row.(map[string]any)
			totals := r["totals"].([]any)
			r["totals"] = totals[:len(totals)-1]
			if r["name"] == "Stefan Zrinzo Azzopardi" {
				stefan = r["candidate_id"]
			}
			for _, k := range []string{"elected_at_count", "excluded_at_count"} {
				delete(r, k)
			}
		}
		for _, c := range s["counts"].([]any) {
			for _, k := range []string{"number", "event", "candidate_ids", "votes"} {
				delete(c.(map[string]any), k)
			}
		}
		s["defects"] = []any{map[string]any{"count": nil, "rule": "elected-seats", "note": "the transcription ends at count 17", "elected": []any{stefan}}}
		return sheets
	})
	ds, err := dataset.Load(m)
	if err != nil {
		t.Fatalf("loading the dataset whose sheet ends early: %v", err)
	}
	return ds
}

// TestPagesOfErrata: a district's page whose sheet states a known defect
// says so above the count, naming it with the rule's message and the
// note; marks the count concerned in the story and the sheet's table; and
// marks each corrected figure in the table, listing it beside the table
// with the source's figure and the evidence; in both languages. A sheet
// that ends early names, in the notice and at its last count, who took
// the seat it leaves unfilled, as its defect states them, and says of
// their outcome that they were elected as published.
func TestPagesOfErrata(t *testing.T) {
	s, _ := serverOf(errataDataset(t), server.Options{Pages: true, RateLimit: 1000})
	for _, tt := range []pageCase{
		{"a district with a defect and corrections", "/districts/5", 200, "district-errata.html", []string{
			`<div class="defects" id="defects">`,
			`<p><strong>This count sheet is known to be wrong.</strong> The record it was made from breaks the rules of the count, as listed here.`,
			`<li><strong>Count 4 does not add up to the valid votes.</strong> <code>count-balance</code>: <q>count 4: the totals add up to 22,790, and the valid votes are 22,789</q>. The publisher&#39;s note: <span>the transcription&#39;s count 4 has one vote too many</span></li>`,
			`<li><strong>Count 4:</strong> <a class="defect" href="#defects">⚠ known defect</a> Radu Gheorghe excluded with 31 votes:`,
			`Count 4<span class="event">Radu Gheorghe excluded</span><a class="defect" href="#defects">⚠ known defect</a></th>`,
			`>Radu Gheorghe</a></th>`,
			`>Tania Gauci Fiorini</a> <a class="fix" href="#correction-2">*2</a></th>`,
			`<td class="number gone"><span class="change">−31</span>— <a class="fix" href="#correction-1">*1</a></td>`,
			`<li id="correction-1"><strong>*1</strong> Count 4, Radu Gheorghe — in the sheet: 0; in the source: an empty cell. Evidence: <span>the cell is empty in the source</span></li>`,
			`<li id="correction-2"><strong>*2</strong> Tania Gauci Fiorini — party in the sheet:`,
		}, []string{`<li><strong>Count 3:</strong> <a class="defect"`, `<li><strong>Count 5:</strong> <a class="defect"`}},
		{"in Maltese", "/mt/districts/5", 200, "", []string{
			`<p><strong>Din il-folja tal-għadd hija magħrufa li fiha żbalji.</strong>`,
			`<li><strong>It-totali tal-għadd 4 ma jaqblux mal-voti validi.</strong> <code>count-balance</code>: <q lang="en">count 4: the totals add up to 22,790, and the valid votes are 22,789</q>. In-nota tal-pubblikatur: <span lang="en">the transcription&#39;s count 4 has one vote too many</span></li>`,
			`<li><strong>Għadd 4:</strong> <a class="defect" href="#defects">⚠ difett magħruf</a> Radu Gheorghe eliminat/a b&#39;31 vot:`,
			`<li id="correction-1"><strong>*1</strong> Għadd 4, Radu Gheorghe — fil-folja: 0; fis-sors: ċella vojta. Evidenza: <span lang="en">the cell is empty in the source</span></li>`,
			`<li id="correction-2"><strong>*2</strong> Tania Gauci Fiorini — partit fil-folja:`,
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkPage(t, s, tt, "errata-") })
	}
	// A sheet that ends early says, in the notice and at its last count,
	// who took the seat it leaves unfilled, as published.
	early, _ := serverOf(earlyDataset(t), server.Options{Pages: true, RateLimit: 1000})
	for _, tt := range []pageCase{
		{"a district whose sheet ends early", "/districts/5", 200, "", []string{
			`<li><strong>The sheet ends before every seat is filled.</strong> <code>elected-seats</code>: <q>the sheet is final, but its 17 counts elect 4 of its 5 seats: after count 17, Anthony [Toni] Bezzina, below the last seat, has 3,250 votes, 3,485 with Owen Bonnici&#39;s surplus of 235 votes still to transfer, and Stefan Zrinzo Azzopardi, who would take it, has 3,274; a further count could still change who is elected</q>. The publisher&#39;s note: <span>the transcription ends at count 17</span> Who took the seats the sheet leaves unfilled is given as published, not shown by a count: Stefan Zrinzo Azzopardi.</li>`,
			`. The sheet ends here with one seat unfilled; as published, Stefan Zrinzo Azzopardi takes it.</li>`,
			`>Stefan Zrinzo Azzopardi</a> (<a href="/parties/pl">Labour Party</a>): elected as published; the sheet ends at count 17</li>`,
		}, nil},
		{"in Maltese", "/mt/districts/5", 200, "", []string{
			`<span lang="en">the transcription ends at count 17</span> Min ħa s-siġġijiet li l-folja tħalli vojta huwa mogħti kif ippubblikat, mhux muri minn xi għadd: Stefan Zrinzo Azzopardi.</li>`,
			`. Il-folja tieqaf hawn u fadal siġġu wieħed x&#39;jimtela; kif ippubblikat, imur għand Stefan Zrinzo Azzopardi.</li>`,
			`): elett/a kif ippubblikat; il-folja tieqaf fl-għadd 17</li>`,
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkPage(t, early, tt, "errata-early-") })
	}
}

// TestAPIOfErrata: the result record of a sheet with a defect and
// corrections serves them, and one without serves empty arrays.
// A sheet that ends early, whose defect states who took the seat left as
// published, serves the defect naming them, and elects them at its last
// count: in its elected, their elected_at_count, and the national seats.
func TestAPIOfErrata(t *testing.T) {
	early, _ := serverOf(earlyDataset(t), server.Options{RateLimit: 1000})
	const stefan = "4f6d7b88-0885-5a10-bba0-8b2dc1196e1f"
	for _, tt := range []struct{ target, body string }{
		{"/api/public/v1/results/5", `"note":"the transcription ends at count 17","elected":["` + stefan + `"]}]`},
		{"/api/public/v1/results/5", `"message":"the sheet is final, but its 17 counts elect 4 of its 5 seats: after count 17, Anthony [Toni] Bezzina, below the last seat, has 3,250 votes, 3,485 with Owen Bonnici's surplus of 235 votes still to transfer, and Stefan Zrinzo Azzopardi, who would take it, has 3,274; a further count could still change who is elected"`},
		{"/api/public/v1/results/5", `"` + stefan + `"],"ties":[]`},
		{"/api/public/v1/results/national", `"seats":65,`},
	} {
		rec := do(t, early, request{method: http.MethodGet, target: tt.target})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("%s: status %d, body %.400s…; want 200 holding %s", tt.target, rec.Code, rec.Body, tt.body)
		}
	}
	s, _ := serverOf(errataDataset(t), server.Options{RateLimit: 1000})
	for _, tt := range []struct{ target, body string }{
		{"/api/public/v1/results/5", `"defects":[{"count":4,"rule":"count-balance","message":"count 4: the totals add up to 22,790, and the valid votes are 22,789","note":"the transcription's count 4 has one vote too many","elected":[]}]`},
		{"/api/public/v1/results/5", `"corrections":[{"candidate_id":"7b74d698-9f3c-5cbc-addd-a8b6c90f3271","count":4,"field":"total","from":null,"to":0,"evidence":"the cell is empty in the source"},{"candidate_id":"151928f3-62c7-5963-8167-d9bd2778fba3","count":null,"field":"party","from":"3340687a-1cbe-535f-87e7-72791cd00741","to":"a2207904-8b5f-5135-9321-5a3721b07366","evidence":"her row's party total is ABBA's"}]`},
		{"/api/public/v1/results/6", `"ties":[{"count":6,`},
		{"/api/public/v1/results/6", `"corrections":[],"defects":[]}]`},
	} {
		rec := do(t, s, request{method: http.MethodGet, target: tt.target})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("%s: status %d, body %.400s…; want 200 holding %s", tt.target, rec.Code, rec.Body, tt.body)
		}
	}
}
