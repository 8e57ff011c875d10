package commands_test

// The pages for people, in a real browser: headless Chromium loads each page
// of a real "ballot serve" process, and the test checks what a person would
// see go wrong: a status other than the page's, a message in the console
// (a CSP violation, a failed load), a request to another origin, a page
// wider than a phone. It submits the candidates form as a person would
// and compares the table with the API's records. With $BALLOT_SCREENSHOTS
// naming a directory, it writes there a screenshot of each page (PNG) for
// a person to look at; without, it takes none, which would be two thirds
// of its time for pictures no one sees.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"ballot/internal/testprograms"
)

// pageVisit is one page the browser loads.
type pageVisit struct {
	name   string // of its screenshot
	path   string
	status int
	ready  string // a selector of the page's own content
}

// TestBrowserPages loads every page in Chromium, and, with axe-core
// (axeSource), checks each against WCAG 2.1 AA.
func TestBrowserPages(t *testing.T) {
	needBrowser(t)
	t.Parallel()

	// A rate limit no page load comes near (the stylesheet and the icon
	// are counted by none).
	p := startServerWith(t, "--rate-limit", "1000")
	origin := "http://" + p.addr
	shots := os.Getenv("BALLOT_SCREENSHOTS")
	if shots == "" {
		t.Log("no screenshots: set BALLOT_SCREENSHOTS to a directory to have one of each page")
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	axe := axeSource(t)
	ev := &browserEvents{urls: map[network.RequestID]string{}, corsFailed: map[string]string{}}
	// Six times the cross-origin test's bound: this test loads seventy
	// pages, and with BALLOT_SCREENSHOTS takes a screenshot of most, some
	// of them very long.
	browserCtx, stopBrowser := startBrowser(t, ev, 6*browserTimeout+15*time.Second)
	ctx, cancel := context.WithTimeout(browserCtx, 6*browserTimeout)
	defer cancel()
	if err := chromedp.Listen(browserCtx, ev.listen); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	// newMessages returns what the browser reported since the last call.
	seen := 0
	newMessages := func() []string {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		m := ev.console[seen:]
		seen = len(ev.console)
		return append([]string(nil), m...)
	}
	screenshot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Errorf("screenshot of %s: %v", name, err)
			return
		}
		path := filepath.Join(shots, name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	// visit loads a page, checks its status and that the browser reported
	// nothing but the failed load of an error page, and takes its picture
	// unless its name is empty.
	visit := func(v pageVisit) {
		t.Helper()
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(origin+v.path))
		if err == nil {
			err = chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(v.ready)))
		}
		if err != nil {
			t.Fatalf("%s: %v\nbrowser messages: %q", v.path, err, newMessages())
		}
		if resp.Status != int64(v.status) || resp.MimeType != "text/html" {
			t.Errorf("%s: status %d, type %s; want %d and text/html", v.path, resp.Status, resp.MimeType, v.status)
		}
		for _, m := range newMessages() {
			if v.status != http.StatusOK && strings.Contains(m, fmt.Sprintf("status of %d", v.status)) && strings.Contains(m, origin+v.path) {
				continue // the browser's own note of an error page's status
			}
			t.Errorf("%s: the browser reported: %s", v.path, m)
		}
		if v.name != "" {
			screenshot(v.name)
		}
	}

	// Every page, in both languages, at a desk's width and a phone's: no
	// page wider than the window (tables stack or scroll in their own
	// box), and a picture of each at both widths.
	visits := []pageVisit{
		{"home", "/", 200, "form[action='/districts']"},
		{"home-mt", "/mt/", 200, "form[action='/mt/districts']"},
		{"parties", "/parties", 200, "#parties caption"},
		{"parties-mt", "/mt/parties", 200, "#parties caption"},
		{"districts", "/districts", 200, "#district-13"},
		{"district-10", "/districts/10", 200, "#candidates caption"},
		{"count-district-2", "/districts/2", 200, "#sheet caption"},
		{"count-district-2-mt", "/mt/districts/2", 200, "#sheet caption"},
		{"results", "/results", 200, "#district-results caption"},
		{"results-mt", "/mt/results", 200, "#district-results caption"},
		{"district-10-mt", "/mt/districts/10", 200, "#candidates caption"},
		{"candidates", "/candidates", 200, "#candidates caption"},
		{"candidates-mt", "/mt/candidates", 200, "#candidates caption"},
		{"party-pn", "/parties/pn", 200, "#candidates caption"},
		{"candidate-robert-abela", "/candidates/robert-abela", 200, "dl"},
		{"candidate-robert-abela-mt", "/mt/candidates/robert-abela", 200, "dl"},
		{"reference", "/reference", 200, "#headers"},
		{"candidates-400", "/candidates?district=14&party=nope&limit=0", 400, "#district-error"},
		{"districts-400", "/districts?locality=Birzebuga", 400, "#locality-error"},
		{"party-404", "/parties/no-such-party", 404, "h1"},
		{"404", "/no-such-page", 404, "h1"},
		// The archive's pages, and a past election's under its path.
		{"elections", "/elections", 200, "#election-1921"},
		{"elections-mt", "/mt/elections", 200, "#election-1921"},
		{"history", "/history", 200, "#history caption"},
		{"history-mt", "/mt/history", 200, "#history caption"},
		{"person-robert-abela", "/people/robert-abela", 200, "#candidacies-table caption"},
		{"person-robert-abela-mt", "/mt/people/robert-abela", 200, "#candidacies-table caption"},
		{"person-dom-mintoff", "/people/dom-mintoff", 200, "#candidacies-table caption"},
		{"people-mintoff", "/people?q=mintoff", 200, "#people caption"},
		{"people-400", "/people?q=x", 400, "#people-q-error"},
		{"home-1962", "/elections/1962/", 200, ".past"},
		{"count-1962-district-5", "/elections/1962/districts/5", 200, "#sheet caption"},
		{"count-1962-district-5-mt", "/mt/elections/1962/districts/5", 200, "#sheet caption"},
		{"count-2008-district-1", "/elections/2008/districts/1", 200, "#defects"},
		{"results-1981", "/elections/1981/results", 200, "#district-results caption"},
		{"candidate-2017-robert-abela", "/elections/2017/candidates/robert-abela", 200, "dl"},
		{"election-404", "/elections/1900/", 404, "h1"},
	}
	for _, size := range []struct{ w, h int64 }{{1280, 900}, {375, 667}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h)); err != nil {
			t.Fatal(err)
		}
		for _, v := range visits {
			name := fmt.Sprintf("%s-%d", v.name, size.w)
			if v.path == "/reference" && size.w < 1280 {
				name = "" // 60,000 pixels long on a phone: its first screen only, below
			}
			v.name = name
			visit(v)
			widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
			if err != nil {
				t.Fatal(err)
			}
			if widths[0] > widths[1] {
				t.Errorf("%s is %d px wide in a %d px window", v.path, widths[0], widths[1])
			}
			if axe != "" {
				for _, violation := range axeViolations(t, ctx, axe) {
					t.Errorf("%s at %d px: axe-core: %s", v.path, size.w, violation)
				}
			}
			if name == "" && shots != "" {
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err == nil {
					err = os.WriteFile(filepath.Join(shots, "reference-375.png"), png, 0o644)
				}
				if err != nil {
					t.Errorf("screenshot of the reference: %v", err)
				}
			}
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	// The candidates form, filled and sent as a person would, on a
	// phone: who stood in district 5 for PN.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 667)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(origin+"/candidates"),
		chromedp.WaitReady(chromedp.CSS("#candidates caption")),
		chromedp.SetValue(chromedp.CSS("#stood_in"), "5"),
		chromedp.SetValue(chromedp.CSS("#party"), "pn"),
		chromedp.Click(chromedp.CSS("form.filters button[type='submit']")),
		// Only the answer's markup selects them: the values set above
		// are the form's, not its HTML.
		chromedp.WaitReady(chromedp.CSS(`#stood_in option[value="5"][selected]`)),
		chromedp.WaitReady(chromedp.CSS(`#party option[value="pn"][selected]`)),
	); err != nil {
		t.Fatalf("submitting the candidates form: %v\nbrowser messages: %q", err, newMessages())
	}
	for _, m := range newMessages() {
		t.Errorf("the candidates form: the browser reported: %s", m)
	}
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if want := origin + "/candidates?stood_in=5&district=&party=pn&q=&elected=&limit=100"; location != want {
		t.Errorf("the form went to %s, want %s", location, want)
	}
	type row struct{ Slug, Name, Party, District string }
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]row](`[...document.querySelectorAll("#candidates tbody tr")].map(tr => ({
		Slug: tr.querySelector("th a").getAttribute("href").replace("/candidates/", ""),
		Name: tr.querySelector("th a").textContent,
		Party: tr.cells[1].textContent,
		District: tr.cells[2].textContent,
	}))`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot("candidates-stood-in-5-pn-375")

	var records struct {
		Data []struct {
			Slug, Name        string
			PrimaryDistrictID string `json:"primary_district_id"`
		}
	}
	apiGet(t, origin+e2eBase+"/candidates?stood_in=5&party=pn", &records)
	var districts struct {
		Data []struct {
			ID     string
			Number int
		}
	}
	apiGet(t, origin+e2eBase+"/districts", &districts)
	number := map[string]string{}
	for _, d := range districts.Data {
		number[d.ID] = fmt.Sprint(d.Number)
	}
	var parties struct {
		Data []struct {
			ID, Slug, Name string
			NameEN         *string `json:"name_en"`
		}
	}
	apiGet(t, origin+e2eBase+"/parties", &parties)
	var pn string // as an English page names it
	for _, party := range parties.Data {
		if party.Slug == "pn" {
			pn = party.Name
			if party.NameEN != nil {
				pn = *party.NameEN
			}
		}
	}
	if len(records.Data) == 0 || len(rows) != len(records.Data) {
		t.Fatalf("the page shows %d rows, the API answers %d records", len(rows), len(records.Data))
	}
	for i, rec := range records.Data {
		if want := (row{rec.Slug, rec.Name, pn, number[rec.PrimaryDistrictID]}); rows[i] != want {
			t.Errorf("row %d: %+v, want %+v (the API's record %d)", i+1, rows[i], want, i+1)
		}
	}

	// The search box of every page, used as a person would: a name
	// without its Maltese letters finds the names with them.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(origin+"/mt/"),
		chromedp.WaitReady(chromedp.CSS("header form.search")),
		chromedp.SetValue(chromedp.CSS("#q"), "zammit"),
		chromedp.Click(chromedp.CSS("header form.search button[type='submit']")),
		chromedp.WaitReady(chromedp.CSS("#candidates caption")),
	); err != nil {
		t.Fatalf("searching for a name: %v\nbrowser messages: %q", err, newMessages())
	}
	location, err = chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if want := origin + "/mt/search?q=zammit"; location != want {
		t.Errorf("the search went to %s, want %s", location, want)
	}
	screenshot("search-zammit-mt-375")
	for _, m := range newMessages() {
		t.Errorf("the search: the browser reported: %s", m)
	}

	checked := stopBrowser()
	t.Logf("Chromium closed (%d processes checked)", checked)

	// Every request the browser made went to the server's origin.
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.urls) == 0 {
		t.Fatal("the browser reported no request")
	}
	for _, u := range ev.urls {
		method, rawURL, _ := strings.Cut(u, " ")
		if parsed, err := url.Parse(rawURL); err != nil || parsed.Scheme+"://"+parsed.Host != origin {
			t.Errorf("a request to another origin: %s %s", method, rawURL)
		}
	}
	for _, f := range ev.failed {
		t.Errorf("a failed load: %s", f)
	}
}

// apiGet decodes the JSON answer of a GET into v.
func apiGet(t *testing.T, u string, v any) {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// axeSource is axe-core's script (axe.min.js, from the npm package
// axe-core) at the path $BALLOT_AXE_JS names, or "" when it is unset:
// then the pages are not checked for accessibility, and the test says so.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("BALLOT_AXE_JS")
	if path == "" {
		const why = "BALLOT_AXE_JS is not set: the pages are not checked with axe-core (npm pack axe-core; set it to the package's axe.min.js)"
		if testprograms.RequiresAll() {
			t.Fatalf("%s, and %s=all asks for every check (.ci/axe fetches it)", why, testprograms.RequireVar)
		}
		t.Log(why)
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("BALLOT_AXE_JS: %v", err)
	}
	return string(b)
}

// axeViolations runs axe-core on the page the browser shows, with the
// rules of WCAG 2.0 and 2.1, levels A and AA, and returns each violation
// with the elements it found it on. The script goes in through the
// DevTools protocol, which the pages' Content-Security-Policy (no script)
// does not govern, as a reader's extension would.
func axeViolations(t *testing.T, ctx context.Context, source string) []string {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](source+";0")); err != nil {
		t.Fatalf("loading axe-core: %v", err)
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => r.violations.map(v => v.id + " (" + v.impact + "): " + v.help + ": " + v.nodes.map(n => n.target.join(" ")).join(", ")))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	return found
}
