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
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a dataset directory, or an archive of elections, before publishing it",
		ArgsUsage: "[DIR]",
		Description: "Checks the dataset in DIR (default: the embedded archive) with the same rules\n" +
			"serve applies, and reports every problem at once, one per line on stdout:\n" +
			"FILE: POINTER: message (POINTER is a JSON pointer into FILE, or a key of\n" +
			"dataset.toml), or FILE:LINE:COLUMN: message for a syntax error. Of an archive\n" +
			"(a DIR with archive.toml), every election with these rules, each problem's FILE\n" +
			"after its election's directory (2017/counts.json), and the archive's own rules.\n" +
			"It reads max_dataset_bytes from the configuration serve reads (--config, or\n" +
			"config.toml when present; BALLOT_MAX_DATASET_BYTES; --max-dataset-bytes), so\n" +
			"a file serve would refuse as too large is refused here too.\n" +
			"Exit status: 0 valid, 1 invalid (or warnings with --strict), 2 usage error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: text or json"},
			&cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"},
			&cli.StringFlag{Name: "config", Usage: "configuration `FILE` whose max_dataset_bytes applies (default: config.toml when present)"},
			settingFor("max_dataset_bytes").newFlag(),
		},
		OnUsageError: onUsageError,
		Action:       validate,
	}
}

// reportProblem is the JSON form of a dataset.Problem in validate's
// report, {"valid": BOOL, "errors": [...], "warnings": [...]} (and
// "unlisted": [...], reportUnlisted, when some were not kept)
// (writeJSONReport), a contract with CI pipelines: column is the
// character on the line (the problem's Char; validate reads no sheet, so
// no problem of its has a sheet's Column), and line and column are null,
// not left out, when the problem is not at a line.
type reportProblem struct {
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	Line    *int   `json:"line"`
	Column  *int   `json:"column"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// reportUnlisted is, in validate's JSON report, the problems of one kind
// that were counted and not listed (see dataset.KeptOfAKind): their file,
// their rule, whether they are warnings, and how many.
type reportUnlisted struct {
	File    string `json:"file"`
	Rule    string `json:"rule"`
	Warning bool   `json:"warning"`
	Count   int    `json:"count"`
}

func toReportProblem(p dataset.Problem) reportProblem {
	rp := reportProblem{File: p.File, Pointer: p.Pointer, Rule: p.Rule, Message: p.Message}
	if p.Line > 0 {
		rp.Line, rp.Column = &p.Line, &p.Char
	}
	return rp
}

func validate(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	if c.NArg() > 1 {
		return usagef("validate takes at most one directory, got %s", dataset.Quantity(c.NArg(), "argument"))
	}
	dir := c.Args().First()
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("%s is not a directory", dir)
		}
	}
	maxBytes, err := maxDatasetBytesFrom(c)
	if err != nil {
		return err
	}
	// In text, each warning is written as the check gives it rather than
	// held here too. A dataset with errors has no warnings, so the errors
	// still come first.
	var text *textReport
	var warn func(dataset.Problem)
	if format == "text" {
		text = newTextReport(c.App.Writer)
		warn = text.warn
	}
	report := &dataset.Report{}
	warnings, elections, err := checkDataset(c.Context, dir, maxBytes, warn)
	switch {
	case err == nil:
		report.Warnings = warnings
	case errors.As(err, &report):
	default:
		return err
	}
	if text == nil {
		valid := report.Valid() && !(c.Bool("strict") && len(report.Warnings) > 0)
		if err := writeJSONReport(c.App.Writer, report, valid); err != nil {
			return err
		}
		if !valid {
			return quietError{ExitFailure}
		}
		return nil
	}
	valid := report.Valid() && !(c.Bool("strict") && text.warnings > 0)
	for _, p := range report.Errors {
		text.problem(p)
	}
	subject := checkedSubject{what: subjectOf(dir), elections: elections}
	count, _ := dataset.CountProblems(report.Errors)
	if err := text.finish(c.App.ErrWriter, subject, count, valid); err != nil {
		return err
	}
	if !valid {
		return quietError{ExitFailure}
	}
	return nil
}

// maxDatasetBytesFrom resolves max_dataset_bytes as serve does: the
// default, the configuration file, BALLOT_MAX_DATASET_BYTES, then
// --max-dataset-bytes. The file is read whole, and refused as serve would
// refuse it (an unknown key, a syntax error); a bad value is a usage error
// naming its source.
func maxDatasetBytesFrom(c *cli.Context) (int, error) {
	path, required := configPath(c)
	cfg, inFile, err := decodeConfig(path, required)
	if err != nil {
		return 0, usageError{err}
	}
	s := settingFor("max_dataset_bytes")
	if err := s.apply(c, &cfg); err != nil {
		return 0, usagef("%s: %w", s.source(c), err)
	}
	if err := cfg.checkMaxDatasetBytes(); err != nil {
		return 0, usageError{fromSource(c, path, inFile, err)}
	}
	return cfg.MaxDatasetBytes, nil
}

// checkedSubject is what a report's summary line says was checked: a
// dataset, or an archive, with how many elections a valid one holds (0
// when it is not known: an invalid archive's may not all be read).
type checkedSubject struct {
	what      string // "dataset" or "archive"
	elections int
}

// subjectOf is what the directory dir holds, for a report's summary: an
// archive or a dataset; "" is the embedded archive.
func subjectOf(dir string) string {
	if dir == "" || archive.IsArchiveDir(dir) {
		return "archive"
	}
	return "dataset"
}

// writeReport prints the report of subject to w: in text, one line per
// problem ("FILE: POINTER: message", warnings marked "warning:") and a
// summary line on summary.
func writeReport(w, summary io.Writer, format string, subject checkedSubject, r *dataset.Report, valid bool) error {
	if format == "json" {
		return writeJSONReport(w, r, valid)
	}
	t := newTextReport(w)
	for _, p := range r.Errors {
		t.problem(p)
	}
	for _, p := range r.Warnings {
		t.warn(p)
	}
	count, _ := dataset.CountProblems(r.Errors)
	return t.finish(summary, subject, count, valid)
}

// textReport writes a report in text, problem by problem, each line
// appended into one buffer (a dataset may have a problem for each of a
// million records, and a write and a string each took most of the run).
type textReport struct {
	w        *bufio.Writer
	line     []byte
	warnings int   // how many were written, or counted in a note
	err      error // the first write that failed; nothing is written after it
}

func newTextReport(w io.Writer) *textReport {
	return &textReport{w: bufio.NewWriterSize(w, 64<<10)}
}

// problem writes the line of p: the one way a problem, of a dataset or
// of a sheet, is printed.
func (t *textReport) problem(p dataset.Problem) {
	if t.err == nil {
		t.line = append(p.AppendLine(t.line[:0]), '\n')
		_, t.err = t.w.Write(t.line)
	}
}

// warn writes the line of the warning p, which a Report holds apart from
// its errors, unmarked.
func (t *textReport) warn(p dataset.Problem) {
	t.warnings += max(p.More, 1)
	p.Warning = true
	t.problem(p)
}

// flush writes what is buffered.
func (t *textReport) flush() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// finish writes what is buffered, then the summary line on summary:
// "ballot: dataset valid: 0 errors, 2 warnings", or for an archive
// "ballot: archive valid: 2 elections, 0 errors, 1 warning".
func (t *textReport) finish(summary io.Writer, subject checkedSubject, errors int, valid bool) error {
	if err := t.flush(); err != nil {
		return err
	}
	verdict := "valid"
	if !valid {
		verdict = "invalid"
	}
	elections := ""
	if subject.elections > 0 {
		elections = dataset.Quantity(subject.elections, "election") + ", "
	}
	_, err := fmt.Fprintf(summary, "ballot: %s %s: %s%s, %s\n", subject.what, verdict, elections, dataset.Quantity(errors, "error"), dataset.Quantity(t.warnings, "warning"))
	return err
}

// writeJSONReport writes the report, indented as encoding/json indents
// it, problem by problem: the whole document at once, with a copy of every
// problem, took more memory than the check of a dataset with a warning for
// each of its records. The notes of the problems counted and not kept go
// last, in "unlisted", written only when there are some.
func writeJSONReport(w io.Writer, r *dataset.Report, valid bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	var unlisted []reportUnlisted
	list := func(ps []dataset.Problem, warnings bool) error {
		bw.WriteString("[")
		n := 0
		for _, p := range ps {
			if p.More > 0 {
				unlisted = append(unlisted, reportUnlisted{File: p.File, Rule: p.Rule, Warning: warnings, Count: p.More})
				continue
			}
			item.Reset()
			if err := enc.Encode(toReportProblem(p)); err != nil {
				return err
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			bw.WriteString("\n    ")
			if _, err := bw.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n"))); err != nil {
				return err
			}
		}
		if n > 0 {
			bw.WriteString("\n  ")
		}
		_, err := bw.WriteString("]")
		return err
	}
	fmt.Fprintf(bw, "{\n  \"valid\": %t,\n  \"errors\": ", valid)
	if err := list(r.Errors, false); err != nil {
		return err
	}
	bw.WriteString(",\n  \"warnings\": ")
	if err := list(r.Warnings, true); err != nil {
		return err
	}
	if len(unlisted) > 0 {
		bw.WriteString(",\n  \"unlisted\": [")
		for i, u := range unlisted {
			item.Reset()
			if err := enc.Encode(u); err != nil {
				return err
			}
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n    ")
			bw.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// checkDataset applies the rules of a load to the dataset or archive in
// dir (the embedded one when dir is ""), without preparing the answers a
// server gives, and returns its warnings and, for a valid archive, how
// many elections it holds, or a *dataset.Report. With warn set, each
// warning is given to it instead, in order, and none is returned. The
// garbage collector runs at gcpace.LoadPercent meanwhile.
func checkDataset(ctx context.Context, dir string, maxBytes int, warn func(dataset.Problem)) ([]dataset.Problem, int, error) {
	if dir == "" {
		arch, err := archive.Default()
		if err != nil {
			return nil, 0, err
		}
		if warn == nil {
			return arch.Warnings, len(arch.Elections()), nil
		}
		for _, p := range arch.Warnings {
			warn(p)
		}
		return nil, len(arch.Elections()), nil
	}
	defer gcpace.Load()()
	warnings, err := archive.CheckDirContext(ctx, dir, dataset.Options{MaxFileBytes: int64(maxBytes), Warn: warn})
	elections := 0
	if err == nil && archive.IsArchiveDir(dir) {
		// Valid, every election's directory resolves.
		elections = len(archive.ElectionDirs(dir))
	}
	return warnings, elections, err
}
