package commands_test

// The count's pages at their edges, in a real browser: headless Chromium
// lays out each district's chart and count sheet, as only a browser can
// (a text's width is known only where its font is), and the test measures
// them: every text of the chart inside the chart's box, no two names of
// the elected over each other, and each name of the sheet inside its
// cell, on every district page of 2022, on districts of the archive's
// other shapes and of a sheet with known defects, on the history's chart
// and a person's, and on a district of many elected and very long names,
// at a desk's width and a phone's, in both languages.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// chartBoundsJS returns what leaves its place on the page: each text of
// the chart shown (the desk's or the phone's) whose box, with its white
// outline, is not inside the chart's viewBox; each two names of the
// elected whose text overlaps; a page wider than the window, with the
// last elements that reach past it; each name of the sheet whose text
// runs past its cell into the figures.
const chartBoundsJS = `(() => {
	const problems = [];
	const round = v => Math.round(v * 10) / 10;
	for (const svg of document.querySelectorAll("svg.chart")) {
		if (getComputedStyle(svg).display == "none") continue;
		const vb = svg.viewBox.baseVal, names = [];
		for (const t of svg.querySelectorAll("text")) {
			const b = t.getBBox(), halo = (parseFloat(t.getAttribute("stroke-width")) || 0) / 2;
			if (b.x - halo < 0 || b.y - halo < 0 || b.x + b.width + halo > vb.width || b.y + b.height + halo > vb.height) {
				problems.push(svg.classList[1] + ": " + JSON.stringify(t.textContent) + " spans " + round(b.x - halo) + "," + round(b.y - halo) +
					" to " + round(b.x + b.width + halo) + "," + round(b.y + b.height + halo) + ", outside the chart's 0,0 to " + vb.width + "," + vb.height);
			}
			if (halo > 0 && !t.hasAttribute("font-weight")) names.push({text: t.textContent, b});
		}
		for (let i = 0; i < names.length; i++) {
			for (const o of names.slice(i + 1)) {
				const a = names[i].b, b = o.b;
				if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) {
					problems.push(svg.classList[1] + ": the names " + JSON.stringify(names[i].text) + " and " + JSON.stringify(o.text) + " overlap");
				}
			}
		}
	}
	if (document.documentElement.scrollWidth > window.innerWidth) {
		const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.classList.length ? "." + e.classList[0] : "");
		const wide = [...document.querySelectorAll("main *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5 &&
			![...e.children].some(c => c.getBoundingClientRect().right > window.innerWidth + 0.5));
		problems.push("the page is " + document.documentElement.scrollWidth + " px wide in a " + window.innerWidth + " px window: " +
			wide.map(e => name(e.parentElement.parentElement) + " " + name(e.parentElement) + " " + name(e)).join("; "));
	}
	for (const th of document.querySelectorAll("#sheet tbody th, #sheet tfoot th")) {
		const text = document.createRange();
		text.selectNodeContents(th);
		const r = text.getBoundingClientRect(), next = th.nextElementSibling.getBoundingClientRect();
		if (r.right > next.left + 0.5) {
			problems.push("the sheet: the name " + JSON.stringify(th.textContent) + " runs " + round(r.right - next.left) + " px into the cell beside it");
		}
	}
	return problems;
})()`

// TestBrowserPagesChartBounds loads the page of each district of 2022, of
// districts of past elections, the history, a person's page, and a
// district of 25 elected, all elected together, with very long names, at
// 1280 and 375 pixels, in English and Maltese, and fails on each text
// chartBoundsJS finds out of its place; with axe-core (axeSource), it
// checks each page against WCAG 2.1 AA too.
func TestBrowserPagesChartBounds(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	axe := axeSource(t)
	shots := os.Getenv("BALLOT_SCREENSHOTS")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	type site struct {
		name  string
		p     *e2eProc
		pages []string
	}
	var pages2022 []string
	for n := 1; n <= 13; n++ {
		pages2022 = append(pages2022, "/districts/"+strconv.Itoa(n), "/mt/districts/"+strconv.Itoa(n))
	}
	// The archive's: districts of other shapes (10 districts of 1962,
	// 2 of 1945), a sheet with known defects (2008), the history's chart
	// and a person's.
	archivePages := []string{"/elections/1962/districts/5", "/mt/elections/1962/districts/5", "/elections/1945/districts/1",
		"/elections/2008/districts/1", "/mt/elections/2008/districts/1", "/elections/1981/districts/2",
		"/history", "/mt/history", "/people/dom-mintoff", "/mt/people/dom-mintoff", "/people/robert-abela"}
	embedded := startServerWith(t, "--rate-limit", "100000")
	sites := []site{
		{"2022", embedded, pages2022},
		{"archive", embedded, archivePages},
		{"long", startServerWith(t, "--data", longNamesDataset(t), "--rate-limit", "100000"), []string{"/districts/10", "/mt/districts/10"}},
	}

	ev := &browserEvents{urls: map[network.RequestID]string{}, corsFailed: map[string]string{}}
	// Ten times the cross-origin test's bound: this test loads 78 pages,
	// and with axe-core checks each (about two seconds a page here).
	browserCtx, stopBrowser := startBrowser(t, ev, 10*browserTimeout+15*time.Second)
	defer stopBrowser()
	ctx, cancel := context.WithTimeout(browserCtx, 10*browserTimeout)
	defer cancel()
	if err := chromedp.Listen(browserCtx, ev.listen); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1280, 375} {
		// The phone's width as a phone lays it out: its scrollbar over
		// the page, not beside it.
		var phone []chromedp.EmulateViewportOption
		if width < 1280 {
			phone = append(phone, chromedp.EmulateMobile)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900, phone...)); err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			for _, path := range s.pages {
				err := chromedp.Do(ctx, chromedp.Navigate("http://"+s.p.addr+path), chromedp.WaitReady(chromedp.CSS("svg.chart")))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](chartBoundsJS))
				if err != nil {
					t.Fatalf("%s: measuring: %v", path, err)
				}
				for _, p := range problems {
					t.Errorf("%s, %s at %d px: %s", s.name, path, width, p)
				}
				if axe != "" {
					for _, v := range axeViolations(t, ctx, axe) {
						t.Errorf("%s, %s at %d px: axe-core: %s", s.name, path, width, v)
					}
				}
				if shots == "" {
					continue
				}
				name := strings.ReplaceAll(fmt.Sprintf("chart-%s%s-%d", s.name, path, width), "/", "-")
				parts := []struct{ suffix, sel string }{{"", ".chart-box"}, {"-sheet", "#sheet"}}
				if !strings.Contains(path, "/districts/") {
					parts = parts[:1] // a chart, and no sheet
				}
				for _, shot := range parts {
					png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(shot.sel)))
					if err == nil {
						err = os.WriteFile(filepath.Join(shots, name+shot.suffix+".png"), png, 0o644)
					}
					if err != nil {
						t.Errorf("screenshot of %s: %v", path, err)
					}
				}
			}
		}
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, m := range ev.console {
		t.Errorf("the browser reported: %s", m)
	}
}

// longNamesDataset writes the embedded dataset with district 10's count
// changed to one of 25 seats, all filled at the first count with the
// quota exactly, so that the 25 lines of the elected end together, and
// three of them renamed: a name of many words, one word of 75 letters,
// and one of Maltese letters. It returns the directory.
func longNamesDataset(t *testing.T) string {
	t.Helper()
	files := datasettest.CountsFiles(t, true)
	names := map[string]string{} // by candidate id
	elected := map[string]bool{}
	datasettest.Edit(t, files, dataset.CountsFile, func(sheets []map[string]any) []map[string]any {
		for _, sh := range sheets {
			if sh["district_number"] != 10.0 {
				continue
			}
			// 25 seats: a quota of 1,000 in 25,974 valid votes; 25
			// candidates with 1,000 each, and 3 with 324, 325 and 325.
			sh["seats"], sh["valid_votes"], sh["quota"] = 25, 25974, 1000
			sh["counts"] = []any{map[string]any{"number": 1, "event": "first_preferences", "candidate_ids": []any{}, "votes": 0, "non_transferable": 0}}
			delete(sh, "elected")
			rows := sh["candidacies"].([]any)
			if len(rows) != 28 {
				t.Fatalf("district 10's sheet has %d rows, want 28", len(rows))
			}
			long := []string{
				"Maria Concetta Immaculata Spiteri Debono Cardona Gatt",
				"Wolfeschlegelsteinhausenbergerdorffvoralternwarengewissenhaftschaferswessen",
				"Ġużeppi Ħabib Żammit Ċassar Ħili Ġauċi",
			}
			for j, r := range rows {
				row := r.(map[string]any)
				total := 1000
				switch {
				case j == 25:
					total = 324
				case j > 25:
					total = 325
				}
				row["totals"], row["first_preferences"] = []any{total}, total
				delete(row, "elected_at_count")
				delete(row, "excluded_at_count")
				id := row["candidate_id"].(string)
				if j < len(long) {
					row["name"], names[id] = long[j], long[j]
				}
				elected[id] = j < 25
			}
		}
		return sheets
	})
	datasettest.Edit(t, files, dataset.CandidatesFile, func(candidates []map[string]any) []map[string]any {
		for _, c := range candidates {
			id := c["id"].(string)
			if name, ok := names[id]; ok {
				c["name"], c["given_name"], c["family_name"] = name, name, name
			}
			if elected[id] {
				c["elected"] = true
			}
		}
		return candidates
	})
	dir := t.TempDir()
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dataset.Load(files); err != nil {
		t.Fatalf("the dataset of long names: %v", err)
	}
	return dir
}
