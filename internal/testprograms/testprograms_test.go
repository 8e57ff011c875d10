package testprograms_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"ballot/internal/testprograms"
)

// TestSkipsAndSummary runs go test, without -v, on testdata/fixture with a
// PATH that has none of the programs: the tests that need them are
// skipped, the package passes, and the go command's output ends with one
// line naming the tests skipped and how to install each program. Under
// BALLOT_TEST_REQUIRE=all, or a list naming a missing program, they fail.
// Under -short they are skipped as end-to-end tests before the programs are
// looked for, with no line; under -short with BALLOT_TEST_REQUIRE=all they
// fail.
func TestSkipsAndSummary(t *testing.T) {
	testprograms.EndToEnd(t, "runs go test on a package of its own, once for each case")
	goTool, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Fatal(err)
	}
	const summary = "ballot/fixture: SKIPPED 3 tests for want of a program: " +
		"redis-server is not on PATH (TestNeedsNginxAndRedis, TestNeedsRedis): install it with bash .ci/redis-deps (Debian's redis-server); " +
		"nginx is not on PATH (TestNeedsNginxAndRedis): install it with bash .ci/nginx-deps (Debian's nginx, in /usr/sbin); " +
		"chromium is not on PATH (TestNeedsChromium): install it with bash .ci/browser-deps (Debian's chromium); " +
		"BALLOT_TEST_REQUIRE=all makes these failures\n"
	tests := []struct {
		name, require string
		short, fail   bool
		want          []string
	}{
		{"skipped, and one line says so", "", false, false, []string{summary, "ok  \tballot/internal/testprograms/testdata/fixture\t"}},
		{"BALLOT_TEST_REQUIRE=all fails them", "all", false, true, []string{
			"--- FAIL: TestNeedsRedis",
			"this test needs a program: redis-server is not on PATH; install it with bash .ci/redis-deps (Debian's redis-server) (BALLOT_TEST_REQUIRE=all: a missing program is a failure)",
			"--- FAIL: TestNeedsNginxAndRedis",
			"this test needs a program: nginx is not on PATH; install it with bash .ci/nginx-deps (Debian's nginx, in /usr/sbin); redis-server is not on PATH; install it with bash .ci/redis-deps (Debian's redis-server) (BALLOT_TEST_REQUIRE=all: a missing program is a failure)",
			"--- FAIL: TestNeedsChromium",
		}},
		{"a list fails what it names and skips the rest", "chromium, nginx", false, true, []string{
			"--- FAIL: TestNeedsChromium",
			"--- FAIL: TestNeedsNginxAndRedis",
			"ballot/fixture: SKIPPED 1 test for want of a program: redis-server is not on PATH (TestNeedsRedis): install it with bash .ci/redis-deps (Debian's redis-server); BALLOT_TEST_REQUIRE=all makes these failures\n",
		}},
		{"-short skips them as end-to-end, with no line", "", true, false, []string{"ok  \tballot/internal/testprograms/testdata/fixture\t"}},
		{"-short under BALLOT_TEST_REQUIRE=all fails them", "all", true, true, []string{
			"--- FAIL: TestNeedsRedis",
			"end-to-end: runs redis-server; run without -short (BALLOT_TEST_REQUIRE=all: every test must run, so -short is a failure)",
			"--- FAIL: TestNeedsNginxAndRedis",
			"end-to-end: runs nginx and redis-server; run without -short (BALLOT_TEST_REQUIRE=all: every test must run, so -short is a failure)",
			"--- FAIL: TestNeedsChromium",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"test", "-count=1", "./testdata/fixture"}
			if tt.short {
				args = append(args, "-short")
			}
			cmd := exec.Command(goTool, args...)
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "BALLOT_TEST_REQUIRE=") {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, "PATH="+t.TempDir(), "CGO_ENABLED=0", "BALLOT_TEST_REQUIRE="+tt.require)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if (err != nil) != tt.fail {
				t.Errorf("go test: %v, want failure %v\n%s", err, tt.fail, &out)
			}
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("go test's output lacks %q:\n%s", want, &out)
				}
			}
			switch lines := strings.Count(out.String(), "\n"); {
			case tt.fail:
			case tt.short && lines != 1:
				t.Errorf("go test -short printed %d lines, want 1: ok:\n%s", lines, &out)
			case !tt.short && lines != 2:
				t.Errorf("go test printed %d lines, want 2: the summary and ok:\n%s", lines, &out)
			}
		})
	}
}
