package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"ballot/dataset"
)

// embeddedArg names the embedded dataset where diff takes a directory.
const embeddedArg = "embedded"

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "show what a new version of a dataset changes, before publishing it",
		ArgsUsage: "OLD NEW",
		Description: "Compares two dataset directories (either may be the word \"embedded\" for the\n" +
			"embedded dataset; write ./embedded for a directory of that name): the manifest's\n" +
			"changed keys, then, for parties, districts and candidates, the records added (+),\n" +
			"removed (-) and changed (~), matched by id, each change as field: old → new.\n" +
			"Warnings name identity breaks: a slug or district number under a new id, and an\n" +
			"elected candidate removed. Both datasets must be valid: an invalid one is\n" +
			"reported on stderr as validate reports it.\n" +
			"Exit status: 0 no differences, 1 differences, 2 usage error or invalid dataset.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
		},
		OnUsageError: onUsageError,
		Action:       diff,
	}
}

// diffReport is the JSON form of a diff, for CI pipelines.
type diffReport struct {
	Equal bool     `json:"equal"`
	Old   diffSide `json:"old"`
	New   diffSide `json:"new"`
	*dataset.Diff
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

func diff(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	if c.NArg() != 2 {
		return usagef("diff takes two datasets, OLD and NEW (a directory or %q), got %s", embeddedArg, count(c.NArg(), "argument"))
	}
	args := c.Args().Slice()
	for _, arg := range args {
		if arg == embeddedArg {
			continue
		}
		if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
			return usagef("%s is not a directory (write %q for the embedded dataset)", arg, embeddedArg)
		}
	}
	// Both sides are loaded before either is judged, so one run reports
	// every problem of both.
	var sets [2]*dataset.Dataset
	invalid := false
	for i, arg := range args {
		dir := arg
		if arg == embeddedArg {
			dir = ""
		}
		ds, err := loadDataset(c.Context, dir, 0)
		var report *dataset.Report
		switch {
		case errors.As(err, &report):
			invalid = true
			if format == "text" {
				_, _ = fmt.Fprintf(c.App.ErrWriter, "ballot: %s is not a valid dataset:\n", arg)
			}
			if err := writeReport(c.App.ErrWriter, c.App.ErrWriter, format, report, false); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		sets[i] = ds
	}
	if invalid {
		return quietError{ExitUsage}
	}
	d := dataset.Compare(sets[0], sets[1])
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

	var err error
	if format == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = writeDiff(c.App.Writer, r)
	}
	if err != nil {
		return err
	}
	if !r.Equal {
		return quietError{ExitFailure}
	}
	return nil
}

// writeDiff prints the diff for a person: the two sides, the manifest's
// changes, each collection that changed, the warnings, and a summary line.
func writeDiff(w io.Writer, r diffReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s (version %.12s)\n+++ %s (version %.12s)\n", r.Old.Path, r.Old.Version, r.New.Path, r.New.Version)
	if len(r.Manifest) > 0 {
		fmt.Fprintf(&b, "%s: %d changed\n", dataset.ManifestFile, len(r.Manifest))
		for _, ch := range r.Manifest {
			fmt.Fprintf(&b, "  ~ %s\n", ch)
		}
	}
	for _, col := range r.Collections {
		if len(col.Added)+len(col.Removed)+len(col.Changed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d added, %d removed, %d changed\n", col.Name, len(col.Added), len(col.Removed), len(col.Changed))
		for _, rec := range col.Added {
			fmt.Fprintf(&b, "  + %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
		}
		for _, rec := range col.Removed {
			fmt.Fprintf(&b, "  - %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
		}
		for _, rec := range col.Changed {
			fmt.Fprintf(&b, "  ~ %s\n", recordLabel(col.Key, rec.ID, rec.Key, rec.Name))
			for _, ch := range rec.Changes {
				fmt.Fprintf(&b, "      %s\n", ch)
			}
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s: %s\n", wn.Collection, wn.Message)
	}
	s := r.Summary
	switch {
	case !r.Equal:
		manifest := ""
		if s.ManifestChanged {
			manifest = ", " + dataset.ManifestFile + " changed"
		}
		fmt.Fprintf(&b, "ballot: datasets differ: %d added, %d removed, %d changed%s, %s\n", s.Added, s.Removed, s.Changed, manifest, count(s.Warnings, "warning"))
	case r.Old.Version != r.New.Version:
		b.WriteString("ballot: no differences in the data; the files differ in layout only, so the version changes\n")
	default:
		b.WriteString("ballot: no differences\n")
	}
	_, err := io.WriteString(w, b.String())
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
