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

// html is text as the pages' templates escape it.
var html = strings.NewReplacer("'", "&#39;", "+", "&#43;").Replace

// countPageCases are the pages of the count, from datasettest.Counts:
// district 2's
// (23 counts: two elected on first preferences, their surpluses, 18
// exclusions, the last two elected as the candidates left) and the
// results page, in both languages.
var countPageCases = []pageCase{
	{"a district's count", "/districts/2", 200, "", []string{
		"<h1>District 2</h1>", `<h2 id="count-heading">The count</h2>`,
		"<dt>Valid votes</dt>\n<dd>22,816</dd>", `<dt>Quota</dt>` + "\n" + `<dd id="quota"><strong>3,803</strong></dd>`,
		"<dt>Registered voters</dt>\n<dd>26,940</dd>",
		// The elected, in order, with the count and their votes.
		`<li><strong class="mark">✓</strong> <a href="/candidates/robert-abela">Robert Abela</a> (<a href="/parties/pl">Labour Party</a>): elected at count 1, with 11,694 votes</li>`,
		`<li><strong class="mark">✓</strong> <a href="/candidates/alison-zerafa-civelli">Alison Zerafa Civelli</a> (<a href="/parties/pl">Labour Party</a>): elected at count 23, with 2,828 votes</li>`,
		// The others, with their first preferences, and a seat won
		// elsewhere or not at the count.
		"<caption>The 20 other candidates of district 2, with their first preferences and how they left the count</caption>",
		`<td class="number" data-label="First preferences">338</td>` + "\n" + `<td data-label="At the count">elected in district 4, at count 2</td>`,
		`<td data-label="At the count">excluded at count 13; elected, not at the count (by a casual election or the gender mechanism)</td>`,
		`<td data-label="At the count">excluded at count 5</td>`,
		// The story, one sentence per count.
		html("<li><strong>Count 1:</strong> The first preferences of 22,816 valid votes; the quota is 3,803. Robert Abela and Stephen Spiteri reach the quota and are elected.</li>"),
		html("<li><strong>Count 2:</strong> Robert Abela's surplus of 7,891 votes transferred: Clyde Caruana +2,378, Alison Zerafa Civelli +971, Byron Camilleri +928, …; none became non-transferable.</li>"),
		html("<li><strong>Count 5:</strong> Antoine Daccache excluded with 32 votes: Jesrit Angel Camilleri +14, Romina Magro +6, Alison Zerafa Civelli +1, …; 2 votes became non-transferable.</li>"),
		html("<strong>Count 20:</strong> Joe Mizzi excluded with 1,488 votes: Clyde Caruana +391, Christopher Agius +301, Alison Zerafa Civelli +235, …; 118 votes became non-transferable. Clyde Caruana reaches the quota and is elected.</li>"),
		html("<li><strong>Count 23:</strong> Bernice Bonello excluded with 2,177 votes: Alison Zerafa Civelli +44, Christopher Agius +24, Byron Camilleri +21; 2,088 votes became non-transferable. Christopher Agius and Alison Zerafa Civelli are elected without reaching the quota: no surplus is left, and of the 3 candidates still in the count the 2 highest take the seats left; Byron Camilleri, with 2,701, is not elected.</li>"),
		// The chart, an image whose text alternative is the sheet.
		html(`<svg class="chart chart-wide" viewBox="0 0 640 400" width="100%" role="img" aria-label="A chart of each candidate's total at every count of district 2; the count sheet below gives every number." font-size="14">`),
		html(`<svg class="chart chart-narrow" viewBox="0 0 340 380" width="100%" role="img" aria-label="A chart of each candidate's total at every count of district 2; the count sheet below gives every number." font-size="13">`),
		`paint-order="stroke" font-weight="600">Quota 3,803</text>`,
		`paint-order="stroke">Alison Zerafa Civelli</text></svg>`, `paint-order="stroke">5</text></svg>`,
		`stroke-width="3"/></svg> Alison Zerafa Civelli</li>` + "\n</ol>",
		// The sheet: its own scrolling box, the quota in the caption,
		// each count's event, the transfers and the elected marked.
		`<section class="table sheet" tabindex="0" aria-labelledby="sheet-caption">`,
		`<caption id="sheet-caption">District 2: quota 3,803</caption>`,
		html("<p class=\"note\">Each candidate's total after every count, with its change at that count above it. Totals at or above the quota of 3,803 are in bold on green"),
		html(`<th scope="col" class="number">Count 2<span class="event">Robert Abela's surplus</span></th>`),
		`<th scope="col" class="number">Count 5<span class="event">Antoine Daccache excluded</span></th>`,
		`<td class="number quota"><strong>✓ 11,694</strong></td>`,
		html(`<td class="number quota"><span class="change">−7,891</span><strong>3,803</strong></td>`),
		html(`<td class="number"><span class="change">+2,378</span>2,868</td>`),
		`<th scope="row">Non-transferable</th>`,
		html(`<td class="number"><span class="change">+2,088</span>2,903</td>`),
		`<p class="csv"><a href="/districts/2/count.csv" download>This count sheet as CSV</a></p>`,
		`<p class="json">This count as JSON: <a href="/api/public/v1/results/2">/api/public/v1/results/2</a></p>`,
		`href="/api/public/v1/candidates?stood_in=2"`, "<h2>Locality</h2>",
	}, []string{`id="candidates" class`, "<script", "style="}},
	{"a district's count in Maltese", "/mt/districts/2", 200, "", []string{
		`<h2 id="count-heading">L-għadd</h2>`, `<dt>Kwota</dt>` + "\n" + `<dd id="quota"><strong>3,803</strong></dd>`,
		`<a href="/mt/candidates/robert-abela">Robert Abela</a> (<a href="/mt/parties/pl">Partit Laburista</a>): elett/a fl-għadd 1, b&#39;11,694 vot</li>`,
		html("<li><strong>Għadd 1:</strong> L-ewwel preferenzi; il-voti validi huma 22,816 u l-kwota hija 3,803. Robert Abela u Stephen Spiteri: eletti, bil-kwota.</li>"),
		html("<li><strong>Għadd 2:</strong> Is-surplus ta' Robert Abela ta' 7,891 vot ġie trasferit: Clyde Caruana +2,378, Alison Zerafa Civelli +971, Byron Camilleri +928, …; il-voti kollha ġew trasferiti.</li>"),
		html("<li><strong>Għadd 5:</strong> Antoine Daccache eliminat/a b'32 vot: Jesrit Angel Camilleri +14, Romina Magro +6, Alison Zerafa Civelli +1, …; mhux trasferibbli: 2 voti.</li>"),
		html("Christopher Agius u Alison Zerafa Civelli: eletti mingħajr il-kwota, għax ma fadal l-ebda surplus u, minn 3 kandidati li għadhom fl-għadd, l-ogħla 2 jieħdu s-siġġijiet li fadal; Byron Camilleri, b'2,701, mhux elett/a.</li>"),
		`<td data-label="Fl-għadd">elett/a fid-distrett 4, fl-għadd 2</td>`,
		`paint-order="stroke" font-weight="600">Kwota 3,803</text>`,
		html(`<th scope="col" class="number">Għadd 2<span class="event">surplus ta' Robert Abela</span></th>`),
	}, nil},
	{"a district whose candidate won a seat in another", "/districts/4", 200, "", []string{
		`<a href="/candidates/byron-camilleri">Byron Camilleri</a> (<a href="/parties/pl">Labour Party</a>): elected at count 2, with`,
	}, nil},
	{"the results", "/results", 200, "", []string{
		"<h1>Results</h1>", `href="/api/public/v1/results"`,
		html("<caption>Each party's first preferences and share of the valid votes in the 13 districts counted, its seats at the count and its candidates elected</caption>"),
		`<th scope="row"><a href="/parties/pl">Labour Party</a></th>` + "\n" +
			`<td class="number" data-label="First preferences">162,707</td>` + "\n" +
			`<td class="number" data-label="Share">55.1%</td>` + "\n" +
			`<td class="number" data-label="Seats at the count">38</td>` + "\n" +
			`<td class="number" data-label="Candidates elected">43</td>`,
		`<th scope="row"><a href="/parties/pn">Nationalist Party</a></th>` + "\n" +
			`<td class="number" data-label="First preferences">123,233</td>` + "\n" +
			`<td class="number" data-label="Share">41.7%</td>` + "\n" +
			`<td class="number" data-label="Seats at the count">27</td>` + "\n" +
			`<td class="number" data-label="Candidates elected">35</td>`,
		`<th scope="row">independent</th>` + "\n" + `<td class="number" data-label="First preferences">1,282</td>`,
		`<td class="number" data-label="First preferences">295,248</td>`, `<td class="number" data-label="Seats at the count">65</td>`,
		`<th scope="row"><a href="/districts/2#count">District 2</a></th>` + "\n" + `<td data-label="Status">final</td>` + "\n" +
			`<td class="number" data-label="Valid votes">22,816</td>` + "\n" + `<td class="number" data-label="Quota">3,803</td>` + "\n" +
			`<td class="number" data-label="Counts">23</td>`,
		`<td class="number" data-label="Quota">3,799</td>`,
		`<td data-label="Elected"><a href="/candidates/robert-abela">Robert Abela</a>, <a href="/candidates/stephen-spiteri">Stephen Spiteri</a>, <a href="/candidates/clyde-caruana">Clyde Caruana</a>`,
	}, []string{"No results are published yet", `class="note"><`}},
	{"the results in Maltese", "/mt/results", 200, "", []string{
		"<h1>Riżultati</h1>", `<a href="/results" hreflang="en" lang="en">English</a>`,
		`<th scope="row"><a href="/mt/parties/pl">Partit Laburista</a></th>`,
		`<th scope="row"><a href="/mt/districts/2#count">Distrett 2</a></th>` + "\n" + `<td data-label="Stat">finali</td>`,
		`<td class="number" data-label="Sehem">55.1%</td>`,
	}, nil},
	{"home links to the results", "/en/", 200, "", []string{`<li><a href="/results"><strong>13</strong> districts counted</a></li>`}, nil},
}

// noSheetPageCases are pages of the dataset of datasettest.Counts without
// its count sheets: a district's page lists who stood, as before the
// count, and the results page says none is published.
var noSheetPageCases = []pageCase{
	{"a district's page", "/districts/10", 200, "", []string{
		"<h1>District 10</h1>", "<caption>The 28 candidates who stood in district 10, the elected first</caption>",
		"9 of them list district 10 as their primary district.", `<a href="/districts/4" title="District 4">4</a>`,
		`<td data-label="Elected"><strong class="mark">✓ yes</strong></td>`}, []string{`id="count"`, "at count"}},
	{"no results yet", "/results", 200, "results-none.html", []string{
		`<p class="lead">No results are published yet: the dataset holds no count sheet.</p>`,
		`<th scope="row"><a href="/districts/2">District 2</a></th>` + "\n" + `<td data-label="Status">no count sheet</td>`}, []string{"<table id=\"parties\">", "#count"}},
	{"no results yet, in Maltese", "/mt/results", 200, "", []string{
		`<p class="lead">L-ebda riżultat għadu ma ġie ppubblikat: id-data ma fiha l-ebda folja tal-għadd.</p>`}, nil},
	{"home", "/en/", 200, "", []string{`<li><a href="/results"><strong>0</strong> districts counted</a></li>`}, nil},
}

// TestCountPagesWhileCounting: a sheet still counting (district 2's first
// 5 counts) shows its counts so far, its candidates as continuing, and
// claims no seat "not at the count" for those who stand there, since the
// count may yet elect them; a district with no sheet yet (13) shows who
// stood, as before; the results page counts the seats so far, and says
// which districts its totals cover.
func TestCountPagesWhileCounting(t *testing.T) {
	files := datasettest.CountsFiles(t, true)
	datasettest.Edit(t, files, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		two := sheets[1]
		two["status"] = "counting"
		two["counts"] = two["counts"].([]any)[:5]
		// What follows from the totals is left for the load to work out
		// again from the 5 counts.
		delete(two, "elected")
		for _, c := range two["candidacies"].([]any) {
			row := c.(map[string]any)
			row["totals"] = row["totals"].([]any)[:5]
			delete(row, "elected_at_count")
			delete(row, "excluded_at_count")
		}
		return sheets[:12] // district 13's not published yet
	})
	ds, err := dataset.Load(files)
	if err != nil {
		t.Fatalf("a sheet still counting: %v", err)
	}
	opts := server.DefaultOptions()
	opts.Pages, opts.RateLimit = true, 1000
	s := server.New(archive.Of(ds), opts)

	tests := []struct {
		target          string
		contains, lacks []string
	}{
		{"/districts/2", []string{
			"<dt>Status</dt>\n<dd>counting</dd>",
			`(<a href="/parties/pn">Nationalist Party</a>): elected at count 1, with 4,736 votes</li>`,
			`<td data-label="At the count">continuing</td>`,
			`<td data-label="At the count">elected in district 4, at count 2</td>`,
			html("<li><strong>Count 5:</strong> Antoine Daccache excluded with 32 votes:"),
			`<th scope="col" class="number">Count 5<span class="event">Antoine Daccache excluded</span></th></tr>`,
		}, []string{"not at the count", "Count 6", "Clyde Caruana reaches"}},
		{"/results", []string{
			`<th scope="row"><a href="/districts/2#count">District 2</a></th>` + "\n" + `<td data-label="Status">counting</td>`,
			`<td class="number" data-label="Counts">5</td>`,
			`<td data-label="Elected"><a href="/candidates/robert-abela">Robert Abela</a>, <a href="/candidates/stephen-spiteri">Stephen Spiteri</a></td>`,
			`<td class="number" data-label="Seats at the count">57</td>`,
			`<p class="note">The totals cover the 12 of 13 districts whose count sheet is published.</p>`,
			`<th scope="row"><a href="/districts/13">District 13</a></th>` + "\n" + `<td data-label="Status">no count sheet</td>`,
		}, nil},
		{"/districts/13", []string{
			`<caption>The `, `<td data-label="Elected"><strong class="mark">✓ yes</strong></td>`,
		}, []string{`id="count"`, "not at the count"}},
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
