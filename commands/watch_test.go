package commands_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// watchWait bounds each wait for the watcher: a reload follows a change
// within a second on an idle machine, and the tests may run on a loaded one.
const watchWait = 20 * time.Second

// TestWatchLinkTargetRecreated: serve --watch on a --data symbolic link
// whose target is deleted (the empty place is refused, the edition served
// stays) and then made again with another edition serves the new edition,
// and the next one after it: the watcher follows the link to its target's
// name, not to the directory the target was when serve started.
func TestWatchLinkTargetRecreated(t *testing.T) {
	t.Parallel()
	eds := publishEditions(t)
	tests := []struct {
		name    string
		target  func(root string) string // what the link holds
		made    string                   // the target's directory, under root
		removed string                   // what rm -rf removes, under root
		// via: --data names the link through another link to root, so
		// root has two names.
		via bool
	}{
		{"the target beside the link", func(string) string { return "v1" }, "v1", "v1", false},
		{"the target in another directory", func(string) string { return filepath.Join("releases", "v1") }, "releases/v1", "releases/v1", false},
		{"an absolute target", func(root string) string { return filepath.Join(root, "releases", "v1") }, "releases/v1", "releases/v1", false},
		{"the target's directory removed too", func(string) string { return filepath.Join("releases", "v1") }, "releases/v1", "releases", false},
		{"the link's directory by another name", func(root string) string { return filepath.Join(root, "v1") }, "v1", "v1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			made := filepath.Join(root, tt.made)
			writeFiles(t, made, eds[0].files)
			if err := os.Symlink(tt.target(root), filepath.Join(root, "current")); err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(root, "current")
			if tt.via {
				other := filepath.Join(t.TempDir(), "elections")
				if err := os.Symlink(root, other); err != nil {
					t.Fatal(err)
				}
				data = filepath.Join(other, "current")
			}
			s := watchServe(t, "--data", data, "--watch")
			if v := s.readyVersion(); v != eds[0].version {
				t.Fatalf("serving version %.12s at start, want %.12s", v, eds[0].version)
			}
			refused := regexp.MustCompile(`level=ERROR msg="reload refused: still serving the previous dataset"`)
			for round, e := range []int{1, 0} {
				before := len(refused.FindAllString(s.log.String(), -1))
				if err := os.RemoveAll(filepath.Join(root, tt.removed)); err != nil {
					t.Fatal(err)
				}
				prodEventually(t, watchWait, fmt.Sprintf("round %d: the missing target refused", round), func() (bool, string) {
					n := len(refused.FindAllString(s.log.String(), -1))
					return n > before, fmt.Sprintf("%d refusals logged", n-before)
				})
				writeFiles(t, made, eds[e].files)
				prodEventually(t, watchWait, fmt.Sprintf("round %d: version %.12s served", round, eds[e].version), func() (bool, string) {
					v := s.readyVersion()
					return v == eds[e].version, "/readyz version " + v
				})
			}
			// A target missing for a while is no fault of the watch.
			if strings.Contains(s.log.String(), "level=WARN") {
				t.Errorf("a warning logged; want none")
			}
		})
	}
}

// watchServe runs "ballot serve" in-process with args, on loopback ports,
// with no rate limit to speak of and no access log, as publishServe runs
// the binary, until the test ends, and waits for its serving line. The
// publishProc it returns has no process: its log, addresses, client and
// done are set. A serve in-process waits 25 ms of quiet before it reloads
// (TestMain), against the binary's 250.
func watchServe(t *testing.T, args ...string) *publishProc {
	t.Helper()
	// An empty file, so that no config.toml of the working directory
	// applies.
	config := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(config, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, DisableCompression: true}
	s := &publishProc{log: &publishLog{}, hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	// done is closed once serve has returned, its exit in exitErr: the
	// cleanup waits for it, and waitLog stops at it.
	s.done = runServe(ctx, s.log, &s.exitErr, append([]string{"serve", "--config", config,
		"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--rate-limit", "1000000000", "--access-log=false"}, args...)...)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		cancel()
		select {
		case <-s.done:
			if s.exitErr != nil {
				t.Errorf("serve exited with %v, want 0", s.exitErr)
			}
		case <-time.After(watchWait):
			t.Errorf("serve did not stop within %v of its context's end", watchWait)
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", s.log)
		}
	})
	prodEventually(t, watchWait, "the serving line", func() (bool, string) {
		select {
		case <-s.done:
			t.Fatalf("serve exited with %v before serving", s.exitErr)
		default:
		}
		m := publishServing.FindStringSubmatch(s.log.String())
		if m == nil {
			return false, "not in the log"
		}
		s.api, s.admin = m[1], m[2]
		return true, ""
	})
	return s
}
