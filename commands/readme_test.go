package commands_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// readmeShots are the pictures of the pages in the docs, as headless
// Chromium shows the page a real "ballot serve" answers over the embedded
// archive, at a desk's width and at a phone's: on README.md's first
// screens, district 5's page and the history; in docs/PAGES.md, the count
// of district 2, the results page and a person across decades.
var readmeShots = []struct {
	file          string
	width, height int64
	path, ready   string // the page, and a selector of its content
	doc           string // the document that shows it
}{
	{"district-5-1280.png", 1280, 900, "/districts/5", "#candidates caption", "README.md"},
	{"district-5-375.png", 375, 812, "/districts/5", "#candidates caption", "README.md"},
	{"count-district-2-1280.png", 1280, 900, "/districts/2#chart", "#sheet caption", "docs/PAGES.md"},
	{"count-district-2-375.png", 375, 812, "/districts/2#chart", "#sheet caption", "docs/PAGES.md"},
	{"results-1280.png", 1280, 900, "/results", "#district-results caption", "docs/PAGES.md"},
	{"results-375.png", 375, 812, "/results", "#district-results caption", "docs/PAGES.md"},
	{"history-1280.png", 1280, 900, "/history#upsets", "#history caption", "README.md"},
	{"person-dom-mintoff-375.png", 375, 812, "/people/dom-mintoff", "#candidacies-table caption", "docs/PAGES.md"},
}

const readmeShotsDir = "../docs/screenshots"

// TestReadmeScreenshots holds the docs' pictures to what the browser
// makes: with -update it takes them again (Chromium on PATH needed), as
// golden files are rewritten; without, it checks that its document shows
// each, and that each is a PNG of its window's size, as the browser took
// it. Pixels differ from one Chromium and its fonts to another, so they
// are not compared.
func TestReadmeScreenshots(t *testing.T) {
	if *update {
		takeReadmeScreenshots(t)
	}
	for _, s := range readmeShots {
		doc, err := os.ReadFile("../" + s.doc)
		if err != nil {
			t.Fatal(err)
		}
		// A picture's path is relative to the document that shows it.
		rel, err := filepath.Rel(filepath.Dir(s.doc), filepath.Join("docs/screenshots", s.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(doc, []byte("]("+rel+")")) {
			t.Errorf("%s does not show %s", s.doc, rel)
		}
		f, err := os.Open(filepath.Join(readmeShotsDir, s.file))
		if err != nil {
			t.Errorf("%v (go test ./commands -run TestReadmeScreenshots -update takes it)", err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: not a PNG: %v", s.file, err)
			continue
		}
		if int64(cfg.Width) != s.width || int64(cfg.Height) != s.height {
			t.Errorf("%s: %d×%d pixels, want the window's %d×%d", s.file, cfg.Width, cfg.Height, s.width, s.height)
		}
	}
}

// takeReadmeScreenshots loads each picture's page in Chromium at its
// width and writes what the window shows.
func takeReadmeScreenshots(t *testing.T) {
	t.Helper()
	needBrowser(t)
	p := startServerWith(t, "--rate-limit", "1000")
	ev := &browserEvents{urls: map[network.RequestID]string{}, corsFailed: map[string]string{}}
	browserCtx, stopBrowser := startBrowser(t, ev, browserTimeout+15*time.Second)
	defer stopBrowser()
	ctx, cancel := context.WithTimeout(browserCtx, browserTimeout)
	defer cancel()
	if err := chromedp.Listen(browserCtx, ev.listen); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(readmeShotsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range readmeShots {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.width, s.height)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.NavigateResponse("http://"+p.addr+s.path)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(s.ready))); err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(readmeShotsDir, s.file), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", filepath.Join(readmeShotsDir, s.file))
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.console) > 0 {
		t.Errorf("the browser reported: %s", strings.Join(ev.console, "; "))
	}
}
