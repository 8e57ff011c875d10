package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"ballot/internal/testprograms"
)

// versionJSON is the output of "ballot version --format json".
type versionJSON struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time"`
	Modified   bool   `json:"modified"`
	Go         string `json:"go"`
	Dataset    struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"dataset"`
}

// TestVersion checks "ballot version" in both formats. A test binary carries
// no module version and no VCS record, so it says devel and unknown; the
// dataset is the one serve would serve, whose version the index publishes.
func TestVersion(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	index := p.client(t, "127.0.0.1").send(t, http.MethodGet, e2eBase+"/", nil)
	var served struct{ Title, Version string }
	if err := json.Unmarshal(index.body, &served); err != nil || served.Version == "" {
		t.Fatalf("the index has no dataset version: %v: %.200s", err, index.body)
	}

	code, stdout, stderr := run(t, "version", "--format", "json")
	if code != 0 || stderr != "" {
		t.Fatalf("version --format json: exit %d, stderr %q", code, stderr)
	}
	if keys := objectKeys(t, []byte(stdout)); fmt.Sprint(keys) != "[version commit commit_time modified go dataset]" {
		t.Errorf("keys %q, want version commit commit_time modified go dataset", keys)
	}
	var got versionJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not JSON: %v: %s", err, stdout)
	}
	want := versionJSON{Version: "devel", Commit: "unknown", CommitTime: "unknown", Go: runtime.Version()}
	want.Dataset.Title, want.Dataset.Version = served.Title, served.Version
	if got != want {
		t.Errorf("version --format json = %+v, want %+v", got, want)
	}

	code, stdout, stderr = run(t, "version")
	wantText := fmt.Sprintf("ballot devel\ncommit:      unknown\ncommit time: unknown\ngo:          %s\ndataset:     %s (version %s)\n", runtime.Version(), served.Title, served.Version)
	if code != 0 || stderr != "" || stdout != wantText {
		t.Errorf("version: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, wantText)
	}

	for _, args := range [][]string{{"version", "--format", "yaml"}, {"version", "extra"}} {
		if code, stdout, stderr := run(t, args...); code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 with a reason", args, code, stdout, stderr)
		}
	}
}

// TestVersionBinary checks that a built binary reports the version of Go
// that built it and what the toolchain recorded of its source.
func TestVersionBinary(t *testing.T) {
	testprograms.EndToEnd(t, "builds the binary and reads it with go version -m")
	t.Parallel()
	bin := e2eBuild(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version", "--format", "json").Output()
	if err != nil {
		t.Fatalf("ballot version --format json: %v", err)
	}
	var got versionJSON
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&got); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	goOut, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	if got.Go != runtime.Version() {
		t.Errorf("go %q, want %q", got.Go, runtime.Version())
	}
	// The toolchain's own reading of the binary: the commit is there exactly
	// when it recorded one.
	hasVCS := bytes.Contains(goOut, []byte("vcs.revision="))
	switch {
	case hasVCS && !bytes.Contains(goOut, []byte("vcs.revision="+got.Commit+"\n")):
		t.Errorf("commit %q is not the vcs.revision of go version -m:\n%s", got.Commit, goOut)
	case !hasVCS && got.Commit != "unknown":
		t.Errorf("commit %q, want unknown: the binary records none", got.Commit)
	}
}
