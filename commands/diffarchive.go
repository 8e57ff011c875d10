package commands

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"ballot/archive"
	"ballot/dataset"
	"ballot/diff"
)

// archiveDiff is the diff of two archives (or of an archive and a
// dataset, an archive of one): the elections added and removed, matched
// by slug, a change of the current election, and the diff of each
// election in both, as two datasets are compared. Its JSON form is for CI
// pipelines, as a diff of two datasets' is.
type archiveDiff struct {
	Equal bool     `json:"equal"`
	Old   diffSide `json:"old"`
	New   diffSide `json:"new"`
	// Current is the change of the current election; nil when it is the
	// same.
	Current *currentChange  `json:"current"`
	Added   []electionLabel `json:"added"`
	Removed []electionLabel `json:"removed"`
	// Elections are the diffs of the elections in both, in the new
	// archive's order, changed or not.
	Elections []diffReport       `json:"elections"`
	Summary   archiveDiffSummary `json:"summary"`
}

// currentChange is the slug of the current election, before and after.
type currentChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// electionLabel names an election added or removed: Dir is "" for a
// dataset's.
type electionLabel struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

// String names the election for a person: its slug, its name, and its
// directory in the archive.
func (e electionLabel) String() string {
	s := fmt.Sprintf("%s %q", e.Slug, e.Name)
	if e.Dir != "" {
		s += " in " + e.Dir + "/"
	}
	return s
}

type archiveDiffSummary struct {
	ElectionsAdded   int  `json:"elections_added"`
	ElectionsRemoved int  `json:"elections_removed"`
	ElectionsChanged int  `json:"elections_changed"`
	CurrentChanged   bool `json:"current_changed"`
	// Added, Removed, Changed and Warnings sum those of the elections in
	// both.
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Changed  int `json:"changed"`
	Warnings int `json:"warnings"`
}

// newArchiveDiff compares the two sides, elections matched by slug.
func newArchiveDiff(sides [2]diffSideOf) archiveDiff {
	old, new := sides[0], sides[1]
	r := archiveDiff{
		Old:     diffSide{old.path, old.version},
		New:     diffSide{new.path, new.version},
		Added:   []electionLabel{},
		Removed: []electionLabel{},
	}
	find := func(s diffSideOf, slug string) (electionEdition, bool) {
		for _, e := range s.elections {
			if e.slug == slug {
				return e, true
			}
		}
		return electionEdition{}, false
	}
	if old.current != new.current {
		r.Current = &currentChange{old.current, new.current}
		r.Summary.CurrentChanged = true
	}
	for _, e := range old.elections {
		if _, ok := find(new, e.slug); !ok {
			r.Removed = append(r.Removed, electionLabel{e.slug, e.name, e.dir})
		}
	}
	for _, e := range new.elections {
		before, ok := find(old, e.slug)
		if !ok {
			r.Added = append(r.Added, electionLabel{e.slug, e.name, e.dir})
			continue
		}
		d := newDiffReport([]string{sidePath(old.path, before.dir), sidePath(new.path, e.dir)}, [2]*diff.Edition{before.edition, e.edition})
		d.Election = e.slug
		r.Elections = append(r.Elections, d)
		if !d.Equal {
			r.Summary.ElectionsChanged++
		}
		r.Summary.Added += d.Summary.Added
		r.Summary.Removed += d.Summary.Removed
		r.Summary.Changed += d.Summary.Changed
		r.Summary.Warnings += d.Summary.Warnings
	}
	r.Summary.ElectionsAdded, r.Summary.ElectionsRemoved = len(r.Added), len(r.Removed)
	r.Equal = r.Current == nil && len(r.Added)+len(r.Removed) == 0 && r.Summary.ElectionsChanged == 0
	return r
}

// sidePath is the path of the election in dir of the side at path: the
// side's path for a dataset, or the election's directory in it.
func sidePath(path, dir string) string {
	if dir == "" {
		return path
	}
	return filepath.Join(path, dir)
}

// writeArchiveDiff prints the diff for a person: the two sides, the change
// of the current election, the elections added, removed and changed, each
// changed election's diff as a diff of two datasets prints it, and a
// summary line.
func writeArchiveDiff(w io.Writer, r archiveDiff) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "--- %s (version %.12s)\n+++ %s (version %.12s)\n", r.Old.Path, r.Old.Version, r.New.Path, r.New.Version)
	if r.Current != nil {
		fmt.Fprintf(b, "%s: current %q → %q\n", archive.File, r.Current.Old, r.Current.New)
	}
	s := r.Summary
	if s.ElectionsAdded+s.ElectionsRemoved+s.ElectionsChanged > 0 {
		fmt.Fprintf(b, "elections: %d added, %d removed, %d changed\n", s.ElectionsAdded, s.ElectionsRemoved, s.ElectionsChanged)
		for _, e := range r.Added {
			fmt.Fprintf(b, "  + %s\n", e)
		}
		for _, e := range r.Removed {
			fmt.Fprintf(b, "  - %s\n", e)
		}
		for _, e := range r.Elections {
			if !e.Equal {
				fmt.Fprintf(b, "  ~ %s\n", e.Election)
			}
		}
	}
	for _, e := range r.Elections {
		if !e.Equal {
			fmt.Fprintf(b, "election %s:\n", e.Election)
			writeDiffBody(b, e)
		}
	}
	switch {
	case !r.Equal:
		var parts []string
		if s.ElectionsAdded+s.ElectionsRemoved+s.ElectionsChanged > 0 {
			parts = append(parts, fmt.Sprintf("elections %d added, %d removed, %d changed", s.ElectionsAdded, s.ElectionsRemoved, s.ElectionsChanged))
		}
		if r.Current != nil {
			parts = append(parts, "the current election changed")
		}
		if s.ElectionsChanged > 0 {
			parts = append(parts, fmt.Sprintf("in the elections changed, records %d added, %d removed, %d changed, %s", s.Added, s.Removed, s.Changed, dataset.Quantity(s.Warnings, "warning")))
		}
		fmt.Fprintf(b, "ballot: archives differ: %s\n", strings.Join(parts, "; "))
	case r.Old.Version != r.New.Version:
		b.WriteString("ballot: no differences in the data; the files differ in layout only, so the version changes\n")
	default:
		b.WriteString("ballot: no differences\n")
	}
	return b.Flush()
}

// writeArchiveDiffJSON writes r as a json.Encoder indenting by two spaces
// would, each election's diff as it goes (writeDiffJSONAt).
func writeArchiveDiffJSON(w io.Writer, r archiveDiff) error {
	b := bufio.NewWriter(w)
	value := func(name string, v any) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("  ", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		fmt.Fprintf(b, "  %q: %s,\n", name, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	b.WriteString("{\n")
	for _, f := range []struct {
		name string
		v    any
	}{{"equal", r.Equal}, {"old", r.Old}, {"new", r.New}, {"current", r.Current}, {"added", r.Added}, {"removed", r.Removed}} {
		if err := value(f.name, f.v); err != nil {
			return err
		}
	}
	b.WriteString(`  "elections": `)
	if len(r.Elections) == 0 {
		b.WriteString("[]")
	} else {
		b.WriteString("[\n")
		for i, e := range r.Elections {
			b.WriteString("    ")
			if err := writeDiffJSONAt(b, e, "    "); err != nil {
				return err
			}
			if i < len(r.Elections)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ]")
	}
	b.WriteString(",\n")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(r.Summary); err != nil {
		return err
	}
	fmt.Fprintf(b, "  \"summary\": %s\n}\n", strings.TrimSuffix(buf.String(), "\n"))
	return b.Flush()
}
