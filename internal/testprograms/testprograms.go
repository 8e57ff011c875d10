// Package testprograms is for tests that need a program ballot does not
// ship: redis-server, nginx or Chromium. Such a test calls Need first: when
// a program is not on PATH, the test is skipped with the reason and how to
// install the program, and the skip is recorded; the package's TestMain
// calls Main, which ends the run with one line naming what was skipped and
// how to install it. That line is written to the go command's own standard
// error when go test runs the package (on Linux), so that it shows without
// -v: go test shows nothing else of a package that passes. Under
// BALLOT_TEST_REQUIRE=all (CI sets it), or a comma-separated list of the
// programs ("redis-server,nginx"), a missing program fails the test
// instead.
//
// It also holds the one switch between the fast tests and the end-to-end
// ones: a test that needs a real program, a large file, a real process's
// signals or exit status, or a peak-memory reading calls EndToEnd (Need
// does), and go test -short skips it. Without -short everything runs, as
// in CI; under BALLOT_TEST_REQUIRE=all, -short is a failure there, so that
// a run that must be complete cannot be cut short. It imports testing, so
// only tests use it.
package testprograms

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Program is a program some tests need.
type Program struct {
	// Name is its name on PATH.
	Name string
	// Install says how to install it.
	Install string
}

// The programs ballot's tests use.
var (
	Redis    = Program{"redis-server", "bash .ci/redis-deps (Debian's redis-server)"}
	Nginx    = Program{"nginx", "bash .ci/nginx-deps (Debian's nginx, in /usr/sbin)"}
	Chromium = Program{"chromium", "bash .ci/browser-deps (Debian's chromium)"}
)

// RequireVar names the variable under which a missing program is a
// failure: "all", or a comma-separated list of programs.
const RequireVar = "BALLOT_TEST_REQUIRE"

var (
	mu      sync.Mutex
	inMain  bool
	skipped = map[Program][]string{} // the tests skipped for want of each program
)

// EndToEnd marks t as an end-to-end test, one that what says why: go test
// -short skips it, and runs the rest in about a minute. Under -short with
// BALLOT_TEST_REQUIRE=all, which asks for every test, it fails t instead.
func EndToEnd(t testing.TB, what string) {
	t.Helper()
	if !testing.Short() {
		return
	}
	reason := "end-to-end: " + what + "; run without -short"
	if requiresAll() {
		t.Fatalf("%s (%s=all: every test must run, so -short is a failure)", reason, RequireVar)
	}
	t.Skip(reason)
}

// Need returns the path of each program, in order, when every one is on
// PATH. A test that needs a program is an end-to-end test: under -short,
// Need skips it first (see EndToEnd). Otherwise it skips t, naming each program missing and how to
// install it, and records the skip for Main's line; or, when
// BALLOT_TEST_REQUIRE asks for a missing program, it fails t.
func Need(t testing.TB, programs ...Program) []string {
	t.Helper()
	names := make([]string, len(programs))
	for i, p := range programs {
		names[i] = p.Name
	}
	EndToEnd(t, "runs "+strings.Join(names, " and "))
	var paths, reasons []string
	var missing []Program
	for _, p := range programs {
		path, err := exec.LookPath(p.Name)
		if err != nil {
			missing = append(missing, p)
			reasons = append(reasons, fmt.Sprintf("%s is not on PATH; install it with %s", p.Name, p.Install))
			continue
		}
		paths = append(paths, path)
	}
	if len(missing) == 0 {
		return paths
	}
	reason := "this test needs a program: " + strings.Join(reasons, "; ")
	for _, p := range missing {
		if required(p) {
			t.Fatalf("%s (%s=%s: a missing program is a failure)", reason, RequireVar, os.Getenv(RequireVar))
		}
	}
	mu.Lock()
	if !inMain {
		mu.Unlock()
		t.Fatalf("%s; and the package's TestMain does not call testprograms.Main, which would report the skip", reason)
	}
	for _, p := range missing {
		skipped[p] = append(skipped[p], t.Name())
	}
	mu.Unlock()
	t.Skip(reason)
	return nil
}

// required reports whether BALLOT_TEST_REQUIRE makes p's absence a failure.
func required(p Program) bool {
	for name := range strings.SplitSeq(os.Getenv(RequireVar), ",") {
		if name = strings.TrimSpace(name); name == "all" || name == p.Name {
			return true
		}
	}
	return false
}

// RequiresAll reports whether BALLOT_TEST_REQUIRE asks for every test and
// check: a check that needs what the machine lacks (a program, a script
// named by a variable) fails then rather than being left out.
func RequiresAll() bool { return requiresAll() }

// requiresAll reports whether BALLOT_TEST_REQUIRE asks for every test.
func requiresAll() bool {
	for name := range strings.SplitSeq(os.Getenv(RequireVar), ",") {
		if strings.TrimSpace(name) == "all" {
			return true
		}
	}
	return false
}

// Main runs the tests of m and returns the exit code for os.Exit, after
// writing one line that names the tests skipped for want of a program, if
// any (see the package's comment). pkg names the package in that line.
func Main(m *testing.M, pkg string) int {
	mu.Lock()
	inMain = true
	mu.Unlock()
	code := m.Run()
	if line := Summary(pkg); line != "" {
		w, closeW := goStderr()
		_, _ = io.WriteString(w, line)
		closeW()
	}
	return code
}

// Summary is Main's line for pkg, or "" when no test was skipped.
func Summary(pkg string) string {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	var tests []string
	var parts []string
	for _, p := range []Program{Redis, Nginx, Chromium} {
		names := slices.Sorted(slices.Values(skipped[p]))
		if len(names) == 0 {
			continue
		}
		for _, n := range names {
			if !slices.Contains(tests, n) {
				tests = append(tests, n)
			}
		}
		parts = append(parts, fmt.Sprintf("%s is not on PATH (%s): install it with %s", p.Name, strings.Join(names, ", "), p.Install))
	}
	noun := "tests"
	if len(tests) == 1 {
		noun = "test"
	}
	return fmt.Sprintf("%s: SKIPPED %s %s for want of a program: %s; %s=all makes these failures\n",
		pkg, strconv.Itoa(len(tests)), noun, strings.Join(parts, "; "), RequireVar)
}
