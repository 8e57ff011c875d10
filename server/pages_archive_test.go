package server_test

import (
	"net/http"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server"
)

// The pages of an archive of several elections, on the embedded archive
// (25 general elections, 2022 current): each election's pages under its
// own path, the elections page, the history, a person's page and the
// people's search.

// TestArchivePages requests the archive's pages and an election's under
// its path: status, headers, what each shows and its golden HTML.
func TestArchivePages(t *testing.T) {
	s := pagesServer(t)
	tests := []pageCase{
		{"the elections", "/elections", 200, "elections.html", []string{
			"<h1>Elections</h1>", `<a href="/elections" aria-current="page">Elections</a>`,
			`<h2 id="election-2022-heading"><a href="/en/">General election 2022</a> <span class="tag">current</span></h2>`,
			`<h2 id="election-1962-heading"><a href="/elections/1962/">General election 1962</a></h2>`,
			"<dd>83.2%: 295,248 valid votes of 355,075 registered voters</dd>",
			"<caption>2022: each party&#39;s first preferences, their share of the valid votes, its seats at the count and its candidates elected</caption>",
			"<caption>1981: each party&#39;s first preferences, their share of the valid votes and its seats at the count</caption>",
			`<th scope="row"><a href="/elections/1981/parties/pl">Labour Party</a></th>` + "\n" + `<td class="number" data-label="First preferences">109,990</td>`,
			`<a href="/history">Their history, election by election</a>`,
		}, []string{`class="election-bar"`}},
		{"the elections in Maltese", "/mt/elections", 200, "", []string{
			`<html lang="mt">`, `<h2 id="election-2017-heading"><a href="/mt/elections/2017/">Elezzjoni ġenerali 2017</a></h2>`,
			`<a href="/elections" hreflang="en" lang="en">English</a>`, `<a href="/mt/elections/1981/parties/pl">Partit Laburista</a>`}, nil},
		{"the history", "/history", 200, "history.html", []string{
			"<h1>History</h1>",
			"The party with the most first preferences did not win the most seats at the count in 6 of the 25 elections:",
			"<li>1981: PN, 114,132 first preferences and 31 seats; PL, 109,990 first preferences and 34 seats.</li>",
			`<svg class="chart chart-wide" viewBox="0 0 640 260" width="100%" role="img" aria-label="A chart of each party&#39;s share of the first preferences in every election, oldest first; the table below gives every number."`,
			`<caption>The 25 elections with count sheets, the newest first:`,
		}, []string{`class="election-bar"`}},
		{"the history in Maltese", "/mt/history", 200, "", []string{
			"Il-partit bl-aktar ewwel preferenzi ma rebaħx l-aktar siġġijiet fl-għadd f&#39;6 mill-25 elezzjoni:",
			"<li>1981: PN, 114,132 ewwel preferenzi u 31 siġġu; PL, 109,990 ewwel preferenzi u 34 siġġu.</li>"}, nil},
		{"a person", "/people/robert-abela", 200, "person-robert-abela.html", []string{
			"<h1>Robert Abela</h1>", "Stood in 2 elections, from 2017 to 2022, as the archive links their candidacies. Elected at the count in 2 of them.",
			`<svg class="chart person-chart"`, `<a href="/elections/2017/candidates/robert-abela">Robert Abela</a>`,
			`<td class="number" data-label="First preferences">3,403</td>` + "\n" + `<td data-label="At the count">elected at count 14</td>`,
			`<li><strong>2017:</strong> <span>People: a candidate&#39;s person_id is the 2022 candidate&#39;s`,
			`href="/api/public/v1/people/robert-abela"`, `<a href="/mt/people/robert-abela" hreflang="mt" lang="mt">Malti</a>`,
		}, []string{`class="election-bar"`}},
		{"a person across decades", "/people/dom-mintoff", 200, "person-dom-mintoff.html", []string{
			"Stood in 8 elections, from 1962 to 1996, as the archive links their candidacies. Elected at the count in 8 of them.",
			`<a href="/elections/1962/districts/2">2</a>`,
			"<li><strong>1996, 1992, 1987, 1981, 1976, 1971, 1966 and 1962:</strong> <span>People: a candidate shares a person_id with a candidate of the election before or after only where the same name",
		}, nil},
		{"a person in Maltese", "/mt/people/robert-abela", 200, "", []string{`<html lang="mt">`, "Ikkontesta f&#39;2 elezzjoni, mill-2017 sal-2022, kif l-arkivju jorbot il-kandidaturi tiegħu.", `<a href="/mt/elections/2017/parties/pl">Partit Laburista</a>`}, nil},
		{"the people's search", "/people", 200, "", []string{`<form class="filters" action="/people" method="get" role="search">`, `<input id="people-q" name="q" type="search" value=""`}, []string{"<table"}},
		{"people named", "/people?q=mintoff", 200, "people-mintoff.html", []string{
			"<caption>12 people named “mintoff”</caption>", `<th scope="row"><a href="/people/dom-mintoff">Dom Mintoff</a></th>` + "\n" + `<td data-label="Party">PL</td>` + "\n" + `<td data-label="Elections">1996, 1992, 1987, 1981, 1976, 1971, 1966, 1962</td>`,
			`href="/api/public/v1/people?q=mintoff"`}, nil},
		// Maltese counts 2 to 10 in the plural, 11 and more in the singular.
		{"people named, in Maltese", "/mt/people?q=mintoff", 200, "", []string{"<caption>12 persuna bl-isem “mintoff”</caption>"}, nil},
		{"people named nothing found", "/mt/people?q=zzzz", 200, "", []string{`<p class="note" id="none">L-ebda persuna ma jisimha “zzzz”.</p>`}, nil},
		{"a refused search of people", "/people?q=x", 400, "", []string{`<span class="error" id="people-q-error">Give a name of 2 to 100 letters; “x” is not one.</span>`, `value="x" placeholder`}, nil},
		{"no such person", "/people/nobody-at-all", 404, "", []string{"<h1>No such person</h1>"}, nil},

		{"a past election's home", "/elections/1962/", 200, "home-1962.html", []string{
			`<title>Home · Malta general election of 1962</title>`,
			`<p class="past"><strong>General election 1962</strong> — not the latest: the current election is <a href="/">2022</a>.</p>`,
			`<li><a href="/elections/1955/"><span aria-hidden="true">← </span>1955</a></li>`, `<li><a href="/elections/1966/">1966<span aria-hidden="true"> →</span></a></li>`,
			`<link rel="alternate" type="application/json" href="/api/public/v1/elections/1962">`,
			`<a href="/api/public/v1/elections/1962/candidates">`, `<a href="/mt/elections/1962/" hreflang="mt" lang="mt">Malti</a>`,
			`<form class="search" action="/elections/1962/search"`}, nil},
		{"a past election's district", "/elections/1962/districts/5", 200, "district-1962-5.html", []string{
			`<p class="past"><strong>General election 1962</strong> — not the latest: the current election is <a href="/districts/5">2022</a>.</p>`,
			`<p class="previous"><a href="/elections/1955/districts/5">District 5 in 1955</a>. District numbers are each election&#39;s own: 1955 had 8 districts and 1962 10, so district 5 of 1955 is not district 5 of 1962.</p>`,
			`<caption id="sheet-caption">District 5: quota 2,362</caption>`, `href="/elections/1962/districts/5/count.csv"`,
			`href="/api/public/v1/elections/1962/results/5"`, `<p>The data lists no locality of district 5.</p>`}, nil},
		{"a past election's district in Maltese", "/mt/elections/1962/districts/5", 200, "", []string{
			`<p class="past"><strong>Elezzjoni ġenerali 1962</strong> — mhijiex l-aħħar waħda: l-elezzjoni kurrenti hija dik tas-sena <a href="/mt/districts/5">2022</a>.</p>`,
			`<a href="/mt/elections/1955/districts/5">Distrett 5 fl-1955</a>`}, nil},
		{"a district of a sheet with known defects", "/elections/2008/districts/1", 200, "district-2008-1.html", []string{
			"<strong>This count sheet is known to be wrong.</strong>", "<strong>Count 14 does not add up to the valid votes.</strong>",
			`<p class="previous"><a href="/elections/2003/districts/1">District 1 in 2003</a>. Boundaries move from one election to the next, and the data lists no locality of district 1 in 2008 and 2003: whether the two covered the same area is not known.</p>`}, nil},
		{"the results of 1981", "/elections/1981/results", 200, "results-1981.html", []string{
			`<td class="number" data-label="First preferences">114,132</td>`, `<a href="/elections/1981/districts/1#count">District 1</a>`,
			`<p class="json">This page as JSON: <a href="/api/public/v1/elections/1981/results">`,
			// Its district 10's sheet does not balance from count 13.
			`<td data-label="Status">final; ⚠ the sheet has known defects</td>`}, nil},
		{"a district of the election before the current one", "/elections/2017/districts/5", 200, "", []string{
			`<p class="previous"><a href="/elections/2013/districts/5">District 5 in 2013</a>. Boundaries move from one election to the next, and the data lists no locality of district 5 in 2013: whether the two covered the same area is not known.</p>`}, nil},
		// The 2021 revision moved part of Żebbuġ from district 7 to 6,
		// and part of Naxxar from 12 to 10 (malta-2017's SOURCES.md).
		{"a district that gained part of a locality", "/districts/6", 200, "", []string{
			`<p class="previous"><a href="/elections/2017/districts/6">District 6 in 2017</a>. Boundaries move from one election to the next: district 6 lists Żebbuġ (part) in 2022 and not in 2017; Luqa in part in both, the part as each election&#39;s notes say.</p>`}, nil},
		{"a district whose whole locality was split", "/districts/7", 200, "", []string{
			`<p class="previous"><a href="/elections/2017/districts/7">District 7 in 2017</a>. Boundaries move from one election to the next: district 7 lists Żebbuġ whole in 2017 and in part in 2022.</p>`}, nil},
		{"a district whose whole locality was split, in Maltese", "/mt/districts/7", 200, "", []string{
			`<p class="previous"><a href="/mt/elections/2017/districts/7">Distrett 7 fl-2017</a>. Il-konfini jinbidlu minn elezzjoni għal oħra: id-distrett 7 għandu Żebbuġ kollha fl-2017 u parzjalment fl-2022.</p>`}, nil},
		{"a district split in both elections", "/districts/10", 200, "", []string{
			`<p class="previous"><a href="/elections/2017/districts/10">District 10 in 2017</a>. Boundaries move from one election to the next; district 10 lists the same localities in 2022 and in 2017, Naxxar in part in both, the part as each election&#39;s notes say.</p>`}, nil},
		// Gozo's Żebbuġ is not Malta's: the same localities in both.
		{"a district with a namesake of another", "/districts/13", 200, "", []string{
			`<p class="previous"><a href="/elections/2017/districts/13">District 13 in 2017</a>. Boundaries move from one election to the next; district 13 lists the same localities in 2022 and in 2017.</p>`}, nil},
		{"a district the election before did not have", "/elections/1962/districts/9", 200, "", []string{
			`<p class="previous"><a href="/elections/1955/districts">The districts of 1955</a>. 1955 had 8 districts, and none numbered 9.</p>`,
			`<li><a href="/elections/1955/districts"><span aria-hidden="true">← </span>1955</a></li>`}, nil},
		{"the oldest election's district", "/elections/1921/districts/1", 200, "", []string{`<li><a href="/elections/1924/districts/1">1924<span aria-hidden="true"> →</span></a></li>`}, []string{`class="previous"`, "←"}},
		{"a past election's candidate", "/elections/2017/candidates/robert-abela", 200, "", []string{
			`<li><a href="/candidates/robert-abela">2022<span aria-hidden="true"> →</span></a></li>`, `<li><a href="/elections/2013/candidates"><span aria-hidden="true">← </span>2013</a></li>`,
			"<dt>Other elections</dt>\n" + `<dd><a href="/candidates/robert-abela">2022</a></dd>`, `<a href="/people/robert-abela">Every election Robert Abela stood in</a>`}, nil},
		{"a past election's party", "/elections/1962/parties/pn", 200, "", []string{`<li><a href="/elections/1955/parties/pn">`, `href="/api/public/v1/elections/1962/parties/pn"`}, nil},
		{"a party the election before did not have", "/elections/1927/parties/pn", 200, "", []string{`<li><a href="/elections/1924/parties"><span aria-hidden="true">← </span>1924</a></li>`}, nil},
		{"a past election's candidates, filtered", "/elections/2017/candidates?stood_in=5&party=pl", 200, "", []string{
			`<form class="filters" action="/elections/2017/candidates" method="get">`, `href="/elections/2017/candidates.csv?party=pl&amp;stood_in=5"`,
			`<li><a href="/candidates">2022<span aria-hidden="true"> →</span></a></li>`, `href="/api/public/v1/elections/2017/candidates?party=pl&amp;stood_in=5"`}, nil},
		{"a past election's refused filter", "/elections/1962/candidates?district=13", 400, "", []string{
			`<span class="error" id="district-error">There is no district “13”: choose one of the list.</span>`, `<option value="10">District 10</option>`}, []string{`<option value="11">`}},
		{"a past election's search", "/elections/1962/search?q=mintoff", 200, "", []string{
			`<a href="/elections/1962/candidates/dom-mintoff">Dom Mintoff</a>`, `<li><a href="/elections/1966/search?q=mintoff">1966`, `<a href="/people?q=mintoff">Search the people of every election</a>`}, nil},
		{"a past election's districts", "/elections/1962/districts", 200, "", []string{`<h2><a href="/elections/1962/districts/10">District 10</a></h2>`,
			`<p class="json">This page as JSON: <a href="/api/public/v1/elections/1962/districts">`}, []string{`id="district-11"`}},
		{"a past election's parties", "/elections/1962/parties", 200, "", []string{
			`<p class="json">This page as JSON: <a href="/api/public/v1/elections/1962/parties">`}, nil},
		{"the current election at its own path", "/elections/2022/districts/5", 200, "", []string{
			`<li><a href="/elections/2017/districts/5"><span aria-hidden="true">← </span>2017</a></li>`, `href="/elections/2022/districts/5/count.csv"`,
			`<a href="/mt/elections/2022/districts/5" hreflang="mt" lang="mt">Malti</a>`}, []string{`class="past"`, "→"}},
		{"an election the archive does not hold", "/elections/1900/districts/5", 404, "election-404.html", []string{
			"<h1>No such election</h1>", "No election has this address. The archive holds these 25, the newest first:",
			`<li><a href="/elections/1962/">1962</a></li>`, `<li><a href="/en/">2022</a></li>`}, nil},
		{"an election the archive does not hold, in Maltese", "/mt/elections/2016/", 404, "", []string{"<h1>L-ebda elezzjoni bħal din</h1>", `<li><a href="/mt/elections/2017/">2017</a></li>`}, nil},
		{"a district past a past election's", "/elections/1962/districts/11", 404, "", []string{"There is no page at this address."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkPage(t, s, tt, "archive_") })
	}
}

// TestElectionPagePaths: an election's home without its slash leads to
// it, an election is named by slug or id in any case, its downloads are
// its own, and a path naming no election is the 404 page naming them.
func TestElectionPagePaths(t *testing.T) {
	s := pagesServer(t)
	a := embedded(t)
	for _, tt := range []struct{ target, location string }{
		{"/elections/1962", "/elections/1962/"},
		{"/mt/elections/1962", "/mt/elections/1962/"},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusPermanentRedirect || rec.Header().Get("Location") != tt.location {
			t.Errorf("%s: status %d, Location %q; want 308 and %s", tt.target, rec.Code, rec.Header().Get("Location"), tt.location)
		}
	}
	if rec := pageGet(t, s, http.MethodGet, "/elections/1900", nil); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "<h1>No such election</h1>") {
		t.Errorf("/elections/1900: status %d, want the 404 page naming the elections", rec.Code)
	}
	e, err := a.Election("1962")
	if err != nil {
		t.Fatal(err)
	}
	want := pageGet(t, s, http.MethodGet, "/elections/1962/districts/5", nil).Body.String()
	if got := pageGet(t, s, http.MethodGet, "/elections/"+strings.ToUpper(e.Record.ID)+"/districts/5", nil); got.Code != 200 || got.Body.String() != want {
		t.Errorf("1962's district 5 by the election's id: status %d, not the page of its slug", got.Code)
	}
	// The downloads of an election under its path are its own rows.
	for _, tt := range []struct{ target, first string }{
		{"/elections/1962/candidates.csv?stood_in=5", "\ufeffName,"},
		{"/elections/1962/districts/5/count.csv", "\ufeff"},
		{"/elections/1962/parties.csv", "\ufeffName,"},
		{"/elections/1962/districts.csv", "\ufeffNumber,"},
	} {
		rec := pageGet(t, s, http.MethodGet, tt.target, nil)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") || !strings.HasPrefix(rec.Body.String(), tt.first) {
			t.Errorf("%s: status %d, Content-Type %q; want 200 and CSV", tt.target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	rows := strings.Count(pageGet(t, s, http.MethodGet, "/elections/1962/districts.csv", nil).Body.String(), "\r\n") - 1
	if rows != len(e.Dataset().Districts()) {
		t.Errorf("1962's districts.csv has %d rows, want its %d districts", rows, len(e.Dataset().Districts()))
	}
	if rec := pageGet(t, s, http.MethodGet, "/elections/1900/candidates.csv", nil); rec.Code != http.StatusNotFound {
		t.Errorf("the candidates of an election the archive does not hold: status %d, want 404", rec.Code)
	}
	// Every page of every election answers, in both languages.
	for _, e := range a.Elections() {
		for _, l := range []string{"", "/mt"} {
			base := l + "/elections/" + e.Record.Slug
			for _, path := range []string{"/", "/parties", "/districts", "/candidates", "/results", "/search?q=ab"} {
				if rec := pageGet(t, s, http.MethodGet, base+path, nil); rec.Code != http.StatusOK {
					t.Errorf("%s: status %d", base+path, rec.Code)
				}
			}
			for _, d := range e.Dataset().Districts() {
				if rec := pageGet(t, s, http.MethodGet, base+"/districts/"+itoa(d.Number), nil); rec.Code != http.StatusOK {
					t.Errorf("%s/districts/%d: status %d", base, d.Number, rec.Code)
				}
			}
		}
	}
}

// TestArchivePagesOfOneElection: a dataset served alone, an archive of one
// election, has no elections link in its header and no bar, as before.
func TestArchivePagesOfOneElection(t *testing.T) {
	ds, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := serverOf(ds, server.Options{Pages: true, RateLimit: 1000})
	for _, target := range []string{"/", "/districts/5", "/candidates/robert-abela"} {
		body := pageGet(t, s, http.MethodGet, target, nil).Body.String()
		for _, unwanted := range []string{`href="/elections"`, `class="election-bar"`, `class="previous"`, "Across elections"} {
			if strings.Contains(body, unwanted) {
				t.Errorf("%s, of a dataset served alone, has %s", target, unwanted)
			}
		}
	}
	if a := archive.Of(ds); len(a.Elections()) != 1 {
		t.Fatalf("archive.Of holds %d elections", len(a.Elections()))
	}
}
