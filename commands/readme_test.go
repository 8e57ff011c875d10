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

// readmeShots are the pictures on README.md's first screen: a district's
// page at a desk's width and at a phone's, as headless Chromium shows the
// page a real "ballot serve" answers.
var readmeShots = []struct {
	file          string
	width, height int64
}{
	{"district-5-1280.png", 1280, 900},
	{"district-5-375.png", 375, 812},
}

const readmeShotsDir = "../docs/screenshots"

// TestReadmeScreenshots holds README.md's pictures to what the browser
// makes: with -update it takes them again (Chromium on PATH needed), as
// golden files are rewritten; without, it checks that README.md shows
// each, and that each is a PNG of its window's size, as the browser took
// it. Pixels differ from one Chromium and its fonts to another, so they
// are not compared.
func TestReadmeScreenshots(t *testing.T) {
	if *update {
		takeReadmeScreenshots(t)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range readmeShots {
		if !bytes.Contains(readme, []byte("](docs/screenshots/"+s.file+")")) {
			t.Errorf("README.md does not show docs/screenshots/%s", s.file)
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

// takeReadmeScreenshots loads district 5's page in Chromium at each width
// and writes what the window shows.
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
		if _, err := chromedp.Run(ctx, chromedp.NavigateResponse("http://"+p.addr+"/districts/5")); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("#candidates caption"))); err != nil {
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
