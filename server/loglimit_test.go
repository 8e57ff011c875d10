package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
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

// TestArchiveWarningsLogged: a reload of an archive logs its current
// election's warnings one by one, and of its past elections how many
// there are, in one line: the embedded archive's known defects and
// missing localities of the history are validate's to list.
func TestArchiveWarningsLogged(t *testing.T) {
	var logged bytes.Buffer
	s, _ := newServer(t, server.Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if _, err := s.Reload(archive.Default); err != nil {
		t.Fatal(err)
	}
	var warns []string
	for line := range strings.Lines(logged.String()) {
		if strings.Contains(line, "level=WARN") {
			_, msg, _ := strings.Cut(strings.TrimSpace(line), "level=WARN ")
			warns = append(warns, msg)
		}
	}
	want := []string{
		`msg="dataset warning" problem="malta-2022/candidates.json: Ivan Bartolo, PN, in 2017 and 2022 (two different person_ids): give both the same person key if they are one person"`,
		`msg="warnings of the past elections, not logged one by one: ballot validate lists them" count=274 elections=24`,
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings logged:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
}
