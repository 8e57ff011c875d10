package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"ballot/archive"
	"ballot/dataset"
	"ballot/server"
)

// TestReloadLogsFewProblems: a reload logs at most LoggedProblems of a
// dataset's warnings, or of a refused dataset's errors, then how many more
// there are, however many the dataset has.
func TestReloadLogsFewProblems(t *testing.T) {
	var logged bytes.Buffer
	s, _ := newServer(t, server.Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	problems := func(n int) []dataset.Problem {
		var ps []dataset.Problem
		for i := range n {
			ps = append(ps, dataset.Problem{File: "parties.json", Pointer: fmt.Sprintf("/%d", i), Rule: "party-unused", Message: fmt.Sprintf("party \"p%d\" has no candidates", i)})
		}
		return ps
	}

	next := edition(t, "Many warnings")
	next.Warnings = problems(1000)
	if _, err := s.Reload(func() (*archive.Archive, error) { return archive.Of(next), nil }); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logged.String(), `msg="dataset warning"`); n != server.LoggedProblems {
		t.Errorf("%d warnings logged, want %d", n, server.LoggedProblems)
	}
	if !strings.Contains(logged.String(), `level=WARN msg="more dataset warnings, not logged: ballot validate lists up to 1,000 of each kind" count=980`) {
		t.Errorf("no line for the warnings not logged:\n%s", logged.String())
	}

	logged.Reset()
	broken := &dataset.Report{Errors: problems(500)}
	if _, err := s.Reload(func() (*archive.Archive, error) { return nil, broken }); err == nil {
		t.Fatal("a broken dataset was served")
	}
	line := logged.String()
	if strings.Count(line, "\n") != 1 || !strings.Contains(line, `dataset is invalid: 500 errors\nparties.json: /0: party \"p0\" has no candidates`) ||
		!strings.Contains(line, `/19: party \"p19\"`) || strings.Contains(line, `/20: party`) ||
		!strings.Contains(line, `\n… and 480 more (ballot validate lists up to 1,000 of each kind)"`) {
		t.Errorf("refusal logged as:\n%s", line)
	}
}
