package commands_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"ballot/internal/testprograms"
)

// What a dataset file or a start-up can do to serve: files that block,
// grow or lead out of the dataset directory, a configuration file that
// blocks, and a signal while the dataset loads.

// filesRun runs ballot with args in-process and returns its exit code and
// stderr. A run that has not ended within a minute (the defect some of
// these tests look for is a serve that never ends) fails the test.
func filesRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := runWithin(t, time.Minute, args...)
	return code, stderr
}

// filesEnv is the environment without BALLOT_* variables.
func filesEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BALLOT_") {
			env = append(env, kv)
		}
	}
	return env
}

// filesCopyValid copies the valid test dataset into a new directory.
func filesCopyValid(t *testing.T) string {
	t.Helper()
	return filesCopyRecords(t, prodValidDataset)
}

// filesCopyRecords copies the manifest and the three record files of the
// dataset directory src, and no count sheets, into a new directory.
func filesCopyRecords(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"dataset.toml", "parties.json", "districts.json", "candidates.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestServeRefusesAnOversizedFile(t *testing.T) {
	t.Parallel()
	fi, err := os.Stat(filepath.Join(prodValidDataset, "candidates.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := filesRun(t, "serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--data", filesCopyValid(t), "--max-dataset-bytes", "2000")
	want := fmt.Sprintf("candidates.json: is %d bytes, more than the limit of 2000 bytes a file (max_dataset_bytes)\n", fi.Size())
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "serving") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and the line %q", code, stderr, want)
	}
	code, stderr = filesRun(t, "serve", "--max-dataset-bytes", "100")
	if want := "ballot: flag --max-dataset-bytes: max_dataset_bytes must be a number of bytes from 1024 to 1073741824 (1 GiB)\n"; code != 2 || stderr != want {
		t.Errorf("--max-dataset-bytes 100: exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}

// TestServeConfigMustBeARegularFile: --config naming a FIFO held serve
// before it could see a signal.
func TestServeConfigMustBeARegularFile(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := filesRun(t, "serve", "--listen", "127.0.0.1:0", "--config", fifo)
	if want := "ballot: config " + fifo + ": not a regular file\n"; code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}

// TestReloadOfAFIFOAnswersAndTheNextReloadWorks: a FIFO in place of
// candidates.json wedged every reload that followed.
func TestReloadOfAFIFOAnswersAndTheNextReloadWorks(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary")
	t.Parallel()
	data := filesCopyValid(t)
	p := prodStart(t, t.TempDir(), nil, "--data", data, "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)

	candidates := filepath.Join(data, "candidates.json")
	saved, err := os.ReadFile(candidates)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(candidates); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(candidates, 0o644); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: nil}}
	resp, err := hc.Post("http://"+admin+"/reload", "", nil)
	if err != nil {
		t.Fatalf("POST /reload with a FIFO in the dataset: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `"candidates.json: is not a regular file (a FIFO); a FIFO, a device or a directory cannot hold dataset data"`
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), want) {
		t.Errorf("POST /reload: %d %s; want 422 with the error %s", resp.StatusCode, body, want)
	}

	// The publisher puts the file back and signals: this reload works.
	if err := os.Remove(candidates); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(candidates, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	prodWaitLog(t, p, regexp.MustCompile(`msg="dataset reloaded"`), "a reload after the FIFO is gone")
}

// TestServeStopsWhileLoading: SIGTERM while a large dataset loads ends serve
// without binding its port or serving, instead of after the load.
func TestServeStopsWhileLoading(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary while it loads a large file")
	t.Parallel()
	data := filesCopyValid(t)
	size := filesWriteLarge(t, filepath.Join(data, "candidates.json"))

	cmd := exec.Command(e2eBuild(t), "serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--data", data)
	cmd.Dir = t.TempDir()
	cmd.Env = filesEnv()
	// The event: the process has read the file into memory, so it is
	// loading (scanning and decoding 40 MB take seconds more).
	stderr := stopWhileHolding(t, cmd, size, "serve holds the dataset file in memory")
	if got, want := stderr, "ballot: stopped while loading the dataset: terminated signal received\n"; got != want {
		t.Errorf("stderr:\n%.2000s\nwant %q (and no \"serving\" line)", got, want)
	}
}

// TestServeSIGHUPWhileLoading: SIGHUP while a large dataset loads used to
// end serve (status 129, not a line logged). It is logged, and honoured
// once the dataset is served: the load under way may have read the files
// from before the change the signal announces, so serve reloads, and
// serves the candidates.json published meanwhile.
func TestServeSIGHUPWhileLoading(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary while it loads a large file")
	t.Parallel()
	data := filesCopyValid(t)
	size := filesWriteLarge(t, filepath.Join(data, "candidates.json"))

	p := launchServe(t, t.TempDir(), nil, "--admin-listen", "", "--data", data)
	t.Cleanup(func() {
		p.stop(t) // SIGTERM, exit 0, "ballot: stopped"
		if t.Failed() {
			t.Logf("stderr of ballot serve (pid %d):\n%s", p.cmd.Process.Pid, p.stderr.shortened())
		}
	})
	alive := func(what string) {
		t.Helper()
		select {
		case <-p.done:
			t.Fatalf("ballot serve ended (%v) before %s", p.err, what)
		default:
		}
	}

	// The event: the process has read the file into memory, so it is
	// loading (scanning and decoding 40 MB take seconds more).
	pid := p.cmd.Process.Pid
	prodEventually(t, time.Minute, "serve holds the dataset file in memory", func() (bool, string) {
		alive("holding the dataset file in memory")
		rss := procMemory(pid, "VmRSS")
		return rss > size, fmt.Sprintf("RSS %d bytes, file %d bytes", rss, size)
	})
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	const early = `msg="SIGHUP while starting: the dataset will be reloaded once it is served"`
	prodEventually(t, 2*time.Minute, "the SIGHUP logged while loading", func() (bool, string) {
		alive("logging the SIGHUP sent while it loads")
		log := p.stderr.String()
		if strings.Contains(log, "ballot: serving") && !strings.Contains(log, early) {
			t.Fatalf("the dataset was served before SIGHUP was sent: the load was too quick for this test")
		}
		return strings.Contains(log, early), "no such line in stderr"
	})

	// A new version is published while the first still loads.
	small, err := os.ReadFile(filepath.Join(prodValidDataset, "candidates.json"))
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "candidates.json")
	if err := os.WriteFile(next, small, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, filepath.Join(data, "candidates.json")); err != nil {
		t.Fatal(err)
	}

	select {
	case p.addr = <-p.stderr.found:
	case <-p.done:
		t.Fatalf("ballot serve ended (%v) before serving", p.err)
	case <-time.After(2 * time.Minute):
		t.Fatalf("ballot serve did not serve within 2 minutes of SIGHUP")
	}
	reloaded := regexp.MustCompile(`msg="dataset reloaded" title="[^"]*" version=([0-9a-f]{64})`)
	prodEventually(t, 2*time.Minute, "the dataset reloaded once served", func() (bool, string) {
		alive("reloading the dataset")
		return reloaded.MatchString(p.stderr.String()), "no such line in stderr"
	})

	log := p.stderr.String()
	logged, serving, reloading := strings.Index(log, early), strings.Index(log, "ballot: serving"), strings.Index(log, `msg="SIGHUP: reloading the dataset"`)
	if !(logged < serving && serving < reloading) {
		t.Errorf("want the SIGHUP logged while starting, then the \"serving\" line, then the reload: at %d, %d, %d", logged, serving, reloading)
	}
	if n := strings.Count(log, `msg="SIGHUP: reloading the dataset"`); n != 1 {
		t.Errorf("%d reloads begun, want 1", n)
	}
	first := regexp.MustCompile(`msg=serving title="[^"]*" version=([0-9a-f]{64})`).FindStringSubmatch(log)
	if then := reloaded.FindStringSubmatch(log); first == nil || first[1] == then[1] {
		t.Errorf("served version %q, then reloaded %q: want the version published during the load", first, then[1])
	}
	env := checkOK(t, p.client(t, "").send(t, http.MethodGet, e2eBase+"/candidates?limit=500", nil))
	if len(env.Data) != 13 {
		t.Errorf("%d candidates served after the reload, want the 13 published during the load", len(env.Data))
	}
}

// filesWriteLarge writes a candidates.json of 120,000 candidates (about 40
// MB, under the default limit) and returns its size.
func filesWriteLarge(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("[\n")
	const district = "54eb2986-b9b2-5cff-988a-1bd4d9e1e9f3"
	for i := range 120_000 {
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `  {"id": "00000000-0000-4000-8000-%012d", "slug": "person-%d", "name": "Person Number%d", "given_name": "Person", "family_name": "Number%d", "party_id": null, "primary_district_id": %q, "district_ids": [%q], "elected": null}`, i, i, i, i, district, district)
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
