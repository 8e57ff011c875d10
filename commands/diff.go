package commands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/diff"
)

// embeddedArg names the embedded dataset where diff takes a directory.
const embeddedArg = "embedded"

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "show what a new version of a dataset, or of an archive, changes, before publishing it",
		ArgsUsage: "OLD NEW",
		Description: "Compares two dataset directories (either may be the word \"embedded\" for the\n" +
			"embedded dataset; write ./embedded for a directory of that name): the manifest's\n" +
			"changed keys, then, for parties, districts, candidates and results (the count\n" +
			"sheets, by district), the records added (+), removed (-) and changed (~), matched\n" +
			"by id, each change as field: old → new.\n" +
			"Warnings name identity breaks: a slug or district number under a new id, and an\n" +
			"elected candidate removed. Both datasets must be valid: an invalid one is\n" +
			"reported on stderr as validate reports it.\n" +
			"Of two archives of elections (or an archive and a dataset), the elections added\n" +
			"(+) and removed (-), matched by slug, a change of the current one, then each\n" +
			"election in both that changed, compared as two datasets are.\n" +
			"Exit status: 0 no differences, 1 differences, 2 usage error or invalid dataset.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
		},
		OnUsageError: onUsageError,
		Action:       diffDatasets,
	}
}

// diffReport is the JSON form of a diff, for CI pipelines.
type diffReport struct {
	// Election is, in a diff of two archives, the slug of the election
	// compared; "" in a diff of two datasets.
	Election string   `json:"election,omitempty"`
	Equal    bool     `json:"equal"`
	Old      diffSide `json:"old"`
	New      diffSide `json:"new"`
	*diff.Diff
	Summary diffSummary `json:"summary"`
}

type diffSide struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

type diffSummary struct {
	Added           int  `json:"added"`
	Removed         int  `json:"removed"`
	Changed         int  `json:"changed"`
	ManifestChanged bool `json:"manifest_changed"`
	Warnings        int  `json:"warnings"`
}

// diffDatasets is diff's action: it compares OLD with NEW, writes what
// changed, and exits 1 when they differ.
func diffDatasets(c *cli.Context) error {
	format, args, err := diffArgs(c)
	if err != nil {
		return err
	}
	// The garbage collector runs at half the usual growth of the heap:
	// diff is one batch of short-lived garbage (each side's load), so
	// this costs no time measurably and lowers the peak by a sixth.
	defer gcpace.Lower(50)()
	sides, err := loadEditions(c, format, args)
	if err != nil {
		return err
	}
	equal := true
	if sides[0].single && sides[1].single {
		r := newDiffReport(args, [2]*diff.Edition{sides[0].elections[0].edition, sides[1].elections[0].edition})
		if format == "json" {
			err = writeDiffJSON(c.App.Writer, r)
		} else {
			err = writeDiff(c.App.Writer, r)
		}
		equal = r.Equal
	} else {
		r := newArchiveDiff(sides)
		if format == "json" {
			err = writeArchiveDiffJSON(c.App.Writer, r)
		} else {
			err = writeArchiveDiff(c.App.Writer, r)
		}
		equal = r.Equal
	}
	if err != nil {
		return err
	}
	if !equal {
		return quietError{ExitFailure}
	}
	return nil
}

// diffArgs checks diff's command line and returns its format and its two
// datasets, OLD and NEW.
func diffArgs(c *cli.Context) (format string, args []string, err error) {
	format = c.String("format")
	if format != "text" && format != "json" {
		return "", nil, usagef("--format must be text or json, got %q", format)
	}
	if c.NArg() != 2 {
		return "", nil, usagef("diff takes two datasets, OLD and NEW (a directory or %q), got %s", embeddedArg, dataset.Quantity(c.NArg(), "argument"))
	}
	args = c.Args().Slice()
	for _, arg := range args {
		if arg == embeddedArg {
			continue
		}
		if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
			return "", nil, usagef("%s is not a directory (write %q for the embedded dataset)", arg, embeddedArg)
		}
	}
	return format, args, nil
}

// diffSideOf is one side of a diff: an archive (a dataset's an archive of
// one), each election kept encoded for the comparison.
type diffSideOf struct {
	path      string
	version   string
	single    bool
	current   string
	elections []electionEdition // newest first
}

// electionEdition is an election of a side of a diff, encoded.
type electionEdition struct {
	slug, name, dir string
	edition         *diff.Edition
}

// loadEditions loads both sides and encodes each election for the
// comparison. An invalid one is reported on stderr in format, as
// validate reports it.
func loadEditions(c *cli.Context, format string, args []string) ([2]diffSideOf, error) {
	// Both sides are loaded before either is judged, so one run reports
	// every problem of both.
	// Each side is kept encoded for the comparison, not loaded: a diff
	// of two large editions holds one loaded dataset at a time.
	var sides [2]diffSideOf
	invalid := false
	for i, arg := range args {
		dir := arg
		if arg == embeddedArg {
			dir = ""
		}
		arch, err := loadRecords(c.Context, dir)
		var report *dataset.Report
		switch {
		case errors.As(err, &report):
			invalid = true
			subject := checkedSubject{what: subjectOf(dir)}
			if format == "text" {
				_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: %s is not a valid %s:\n", arg, subject.what)
			}
			if err := writeReport(c.App.ErrWriter, c.App.ErrWriter, format, subject, report, false); err != nil {
				return sides, err
			}
		case err != nil:
			return sides, err
		default:
			side := diffSideOf{path: arg, version: arch.Version, single: arch.Single(), current: arch.Current().Record.Slug}
			for _, e := range arch.Elections() {
				side.elections = append(side.elections, electionEdition{e.Record.Slug, e.Record.Name, e.Dir, diff.NewEdition(e.Dataset())})
			}
			sides[i] = side
		}
	}
	if invalid {
		return sides, quietError{ExitUsage}
	}
	return sides, nil
}

// newDiffReport compares the two editions of args and counts the changes.
func newDiffReport(args []string, sets [2]*diff.Edition) diffReport {
	d := diff.Compare(sets[0], sets[1])
	r := diffReport{
		Equal: d.Equal(),
		Old:   diffSide{args[0], sets[0].Version},
		New:   diffSide{args[1], sets[1].Version},
		Diff:  d,
	}
	for _, col := range d.Collections {
		r.Summary.Added += len(col.Added)
		r.Summary.Removed += len(col.Removed)
		r.Summary.Changed += len(col.Changed)
	}
	r.Summary.ManifestChanged = len(d.Manifest) > 0
	r.Summary.Warnings = len(d.Warnings)
	return r
}

// writeDiff prints the diff for a person: the two sides, the manifest's
// changes, each collection that changed, the warnings, and a summary line.
func writeDiff(w io.Writer, r diffReport) error {
	// Written as it goes: a diff of two large editions is megabytes.
	b := bufio.NewWriter(w)
	writeDiffBody(b, r)
	s := r.Summary
	switch {
	case !r.Equal:
		manifest := ""
		if s.ManifestChanged {
			manifest = ", " + dataset.ManifestFile + " changed"
		}
		fmt.Fprintf(b, "ballot: datasets differ: %d added, %d removed, %d changed%s, %s\n", s.Added, s.Removed, s.Changed, manifest, dataset.Quantity(s.Warnings, "warning"))
	case r.Old.Version != r.New.Version:
		b.WriteString("ballot: no differences in the data; the files differ in layout only, so the version changes\n")
	default:
		b.WriteString("ballot: no differences\n")
	}
	return b.Flush()
}

// writeDiffBody writes the diff r of two datasets, or of one election in
// two archives, to b: the two sides, the manifest's changes, each
// collection that changed, and the warnings.
func writeDiffBody(b *bufio.Writer, r diffReport) {
	fmt.Fprintf(b, "--- %s (version %.12s)\n+++ %s (version %.12s)\n", r.Old.Path, r.Old.Version, r.New.Path, r.New.Version)
	if len(r.Manifest) > 0 {
		fmt.Fprintf(b, "%s: %d changed\n", dataset.ManifestFile, len(r.Manifest))
		for _, ch := range r.Manifest {
			fmt.Fprintf(b, "  ~ %s\n", ch)
		}
	}
	for _, col := range r.Collections {
		if len(col.Added)+len(col.Removed)+len(col.Changed) == 0 {
			continue
		}
		fmt.Fprintf(b, "%s: %d added, %d removed, %d changed\n", col.Name, len(col.Added), len(col.Removed), len(col.Changed))
		for _, rec := range col.Added {
			fmt.Fprintf(b, "  + %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
		}
		for _, rec := range col.Removed {
			fmt.Fprintf(b, "  - %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
		}
		for _, rec := range col.Changed {
			fmt.Fprintf(b, "  ~ %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
			for _, ch := range rec.Changes {
				fmt.Fprintf(b, "      %s\n", ch)
			}
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(b, "warning: %s: %s\n", wn.Collection, wn.Message)
	}
}

// writeDiffJSON writes r as a json.Encoder indenting by two spaces would,
// record by record as it goes rather than the whole report in one buffer:
// a diff of two large editions is megabytes.
func writeDiffJSON(w io.Writer, r diffReport) error {
	b := bufio.NewWriter(w)
	if err := writeDiffJSONAt(b, r, ""); err != nil {
		return err
	}
	_ = b.WriteByte('\n')
	return b.Flush()
}

// writeDiffJSONAt writes r to b as writeDiffJSON does, as a value at the
// indent given, its first line already placed and no newline after it.
func writeDiffJSONAt(b *bufio.Writer, r diffReport, indent string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var err error
	// value writes v indented as at depth (its first line already placed).
	value := func(v any, depth string) {
		buf.Reset()
		enc.SetIndent(depth, "  ")
		if e := enc.Encode(v); e != nil && err == nil {
			err = e
		}
		_, _ = b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	// list writes n items as a JSON array at depth.
	list := func(n int, depth string, item func(i int, depth string)) {
		if n == 0 {
			_, _ = b.WriteString("[]")
			return
		}
		_, _ = b.WriteString("[\n")
		for i := range n {
			_, _ = b.WriteString(depth + "  ")
			item(i, depth+"  ")
			if i < n-1 {
				_ = b.WriteByte(',')
			}
			_ = b.WriteByte('\n')
		}
		_, _ = b.WriteString(depth + "]")
	}
	field := func(depth, name string, last bool, write func()) {
		_, _ = b.WriteString(depth + `"` + name + `": `)
		write()
		if !last {
			_ = b.WriteByte(',')
		}
		_ = b.WriteByte('\n')
	}
	in := indent + "  "
	_, _ = b.WriteString("{\n")
	if r.Election != "" {
		field(in, "election", false, func() { value(r.Election, in) })
	}
	field(in, "equal", false, func() { value(r.Equal, in) })
	field(in, "old", false, func() { value(r.Old, in) })
	field(in, "new", false, func() { value(r.New, in) })
	field(in, "manifest", false, func() { value(r.Manifest, in) })
	field(in, "collections", false, func() {
		list(len(r.Collections), in, func(i int, depth string) {
			col := r.Collections[i]
			in := depth + "  "
			_, _ = b.WriteString("{\n")
			field(in, "name", false, func() { value(col.Name, in) })
			field(in, "key", false, func() { value(col.Key, in) })
			field(in, "added", false, func() {
				list(len(col.Added), in, func(i int, depth string) { value(col.Added[i], depth) })
			})
			field(in, "removed", false, func() {
				list(len(col.Removed), in, func(i int, depth string) { value(col.Removed[i], depth) })
			})
			field(in, "changed", true, func() {
				list(len(col.Changed), in, func(i int, depth string) { value(col.Changed[i], depth) })
			})
			_, _ = b.WriteString(depth + "}")
		})
	})
	field(in, "warnings", false, func() { value(r.Warnings, in) })
	field(in, "summary", true, func() { value(r.Summary, in) })
	_, _ = b.WriteString(indent + "}")
	return err
}

// recordLabel names a record for a person: its id, its natural key and
// its name ("3340687a-… slug pl \"Partit Laburista\"").
func recordLabel(keyField, id string, key json.RawMessage, name string) string {
	var k string
	if json.Unmarshal(key, &k) != nil {
		k = string(key)
	}
	label := fmt.Sprintf("%s %s %s", id, keyField, k)
	if name != "" {
		label += fmt.Sprintf(" %q", name)
	}
	return label
}

// loadRecords loads a dataset or an archive for diff: checked as validate
// checks it, its records in published order, none of the API's answers
// prepared (see dataset.Options.RecordsOnly).
func loadRecords(ctx context.Context, dir string) (*archive.Archive, error) {
	if dir == "" {
		return archive.Default()
	}
	defer gcpace.Load()()
	arch, err := archive.LoadDirContext(ctx, dir, dataset.Options{RecordsOnly: true})
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("stopped while loading the dataset: %w", context.Cause(ctx))
	}
	return arch, err
}
