package dataset_test

import (
	"fmt"
	"slices"
	"testing"

	"ballot/dataset"
)

// TestProblemString: a problem, of a dataset or of a sheet, is one line:
// FILE, then :LINE:CHAR (the character left out when 0), or : POINTER
// when there is no line; : COLUMN for a sheet's column; then the message,
// with "warning: " before that of a warning.
func TestProblemString(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    dataset.Problem
		want string
	}{
		{"pointer", dataset.Problem{File: "parties.json", Pointer: "/0/slug", Rule: "slug", Message: "m"}, "parties.json: /0/slug: m"},
		{"manifest key", dataset.Problem{File: "dataset.toml", Pointer: "ids.namespace", Message: "m"}, "dataset.toml: ids.namespace: m"},
		{"syntax error", dataset.Problem{File: "parties.json", Line: 2, Char: 10, Rule: "json-syntax", Message: "m"}, "parties.json:2:10: m"},
		{"a line before a pointer", dataset.Problem{File: "dataset.toml", Pointer: "title", Line: 2, Char: 1, Message: "m"}, "dataset.toml:2:1: m"},
		{"sheet cell", dataset.Problem{File: "parties.csv", Line: 3, Column: "slug", Message: "m"}, "parties.csv:3: slug: m"},
		{"sheet column", dataset.Problem{File: "districts.csv", Column: "number", Message: "m"}, "districts.csv: number: m"},
		{"line only", dataset.Problem{File: "parties.csv", Line: 2, Message: "m"}, "parties.csv:2: m"},
		{"file only", dataset.Problem{File: "parties.csv", Message: "m"}, "parties.csv: m"},
		{"character", dataset.Problem{File: "parties.csv", Line: 2, Char: 7, Message: "m"}, "parties.csv:2:7: m"},
		{"character without a line", dataset.Problem{File: "parties.csv", Char: 7, Message: "m"}, "parties.csv: m"},
		{"warning", dataset.Problem{File: "parties.csv", Line: 2, Column: "name", Message: "m", Warning: true}, "parties.csv:2: name: warning: m"},
		{"dataset warning", dataset.Problem{File: "parties.json", Pointer: "/1", Message: "m", Warning: true}, "parties.json: /1: warning: m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := string(tt.p.AppendLine([]byte("> "))); got != "> "+tt.want {
				t.Errorf("AppendLine = %q, want %q", got, "> "+tt.want)
			}
		})
	}
}

// TestNoteString: a note, which stands for the problems of a kind counted
// and not kept, is one line too: FILE, then how many more.
func TestNoteString(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    dataset.Problem
		want string
	}{
		{"problems", dataset.Problem{File: "counts.json", Rule: "range", More: 8319000}, "counts.json: … and 8,319,000 more problems of the same kind"},
		{"one", dataset.Problem{File: "counts.csv", Line: 1001, More: 1}, "counts.csv: … and 1 more problem of the same kind"},
		{"warnings", dataset.Problem{File: "parties.json", Rule: "party-unused", More: 980, Warning: true}, "parties.json: … and 980 more warnings of the same kind"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// sprinted counts the times fmt writes it: a message written.
type sprinted struct{ n *int }

func (s sprinted) String() string { *s.n++; return "x" }

// TestBound: of each kind a list keeps the first KeptOfAKind, and its
// first KeptAtLeast once KeptInAll are kept in all; the rest are counted
// in one note of their kind, their messages never written, and Settle
// puts each note just after the last kept of its kind. The count is
// exact.
func TestBound(t *testing.T) {
	const kinds, each = 7, 2000
	var b dataset.Bound
	var list []dataset.Problem
	written := 0
	for i := range each {
		for k := range kinds {
			rule := fmt.Sprintf("rule-%d", k)
			list = b.Add(list, dataset.Problem{File: "counts.json", Pointer: fmt.Sprintf("/%d", i), Rule: rule}, rule, "is %v", sprinted{&written})
		}
	}
	kept := 0
	for _, p := range list {
		if p.More == 0 {
			kept++
		}
	}
	if kept != written {
		t.Errorf("%d messages written for %d problems kept", written, kept)
	}
	if kept > dataset.KeptInAll+kinds*dataset.KeptAtLeast {
		t.Errorf("%d problems kept, want at most %d", kept, dataset.KeptInAll+kinds*dataset.KeptAtLeast)
	}
	if errors, warnings := dataset.CountProblems(list); errors != kinds*each || warnings != 0 {
		t.Errorf("CountProblems = %d errors, %d warnings; want %d, 0", errors, warnings, kinds*each)
	}
	list = dataset.Settle(list)
	for k := range kinds {
		rule := fmt.Sprintf("rule-%d", k)
		var of []dataset.Problem
		for _, p := range list {
			if p.Rule == rule {
				of = append(of, p)
			}
		}
		kept := len(of) - 1
		if kept < dataset.KeptAtLeast || kept > dataset.KeptOfAKind {
			t.Errorf("%s: %d kept, want %d to %d", rule, kept, dataset.KeptAtLeast, dataset.KeptOfAKind)
		}
		for i, p := range of {
			if (p.More > 0) != (i == len(of)-1) {
				t.Fatalf("%s: problem %d of %d is %q: want one note, last", rule, i, len(of), p)
			}
		}
		if note := of[len(of)-1]; note.More != each-kept {
			t.Errorf("%s: the note counts %d, want %d", rule, note.More, each-kept)
		}
	}
	for i, p := range list {
		if p.More > 0 && list[i-1].Rule != p.Rule {
			t.Errorf("the note %q follows %q, of another kind", p, list[i-1])
		}
	}
}

// TestBoundListsSetApart: a note counts within its own list, so a list
// cut back to before a kind's first problem loses their count with them,
// and two lists added together settle into one note of each kind (an
// import does both: it drops what a file gave when the file turns out
// not to be UTF-8, and sets a sheet's rows' problems apart).
func TestBoundListsSetApart(t *testing.T) {
	var b dataset.Bound
	var main, rows []dataset.Problem
	add := func(list []dataset.Problem, file string, line int, format string) []dataset.Problem {
		return b.Add(list, dataset.Problem{File: file, Line: line}, format, format, line)
	}
	for line := range 1500 {
		main = add(main, "a.csv", line+2, "row %d is short")
	}
	mark := len(main)
	for line := range 1500 {
		main = add(main, "b.csv", line+2, "row %d is short")
	}
	if errors, _ := dataset.CountProblems(main); errors != 3000 {
		t.Errorf("main counts %d, want 3000", errors)
	}
	main = main[:mark] // b.csv's are gone
	if errors, _ := dataset.CountProblems(main); errors != 1500 {
		t.Errorf("main cut back counts %d, want 1500", errors)
	}
	// The same kind in two lists: a note in each.
	for line := range 300 {
		rows = add(rows, "a.csv", line+2000, "row %d is short")
	}
	all := dataset.Settle(append(main, rows...))
	if errors, _ := dataset.CountProblems(all); errors != 1800 {
		t.Errorf("the lists together count %d, want 1800", errors)
	}
	var notes []string
	for _, p := range all {
		if p.More > 0 {
			notes = append(notes, p.String())
		}
	}
	if want := []string{"a.csv: … and 800 more problems of the same kind"}; !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
