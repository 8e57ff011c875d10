package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"ballot/dataset"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the build's version, commit and Go version, and the embedded dataset's",
		Description: "Prints what the binary was built from, as the Go toolchain recorded it: the\n" +
			"module version, the VCS commit and its time, whether the tree had changes\n" +
			"not committed; the Go version; and the embedded dataset's title and version.\n" +
			"A build without that record (go run, go test, -buildvcs=false) says devel or\n" +
			"unknown.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json"},
		},
		OnUsageError: onUsageError,
		Action:       version,
	}
}

// buildVersion is what `ballot version` prints; its JSON form is part of
// the command's contract.
type buildVersion struct {
	// Version is the main module's version, or "devel".
	Version string `json:"version"`
	// Commit is the VCS revision built, or "unknown".
	Commit string `json:"commit"`
	// CommitTime is that revision's time (RFC 3339), or "unknown": Go
	// records no build time, and the commit's time is reproducible.
	CommitTime string `json:"commit_time"`
	// Modified is true when the tree had changes not committed.
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	Dataset  struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"dataset"`
}

// readBuildVersion reads what the toolchain recorded in the binary.
func readBuildVersion() buildVersion {
	v := buildVersion{Version: "devel", Commit: "unknown", CommitTime: "unknown", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if m := bi.Main.Version; m != "" && m != "(devel)" {
		v.Version = m
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func version(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	if c.NArg() > 0 {
		return usagef("version takes no arguments, got %q", c.Args().First())
	}
	return writeVersion(c.App.Writer, format)
}

// writeVersion writes what `ballot version` prints, in format text or
// json; `ballot --version` prints it too.
func writeVersion(w io.Writer, format string) error {
	v := readBuildVersion()
	ds, err := dataset.Default()
	if err != nil {
		return fmt.Errorf("the embedded dataset: %w", err)
	}
	v.Dataset.Title, v.Dataset.Version = ds.Manifest.Title, ds.Version
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	modified := ""
	if v.Modified {
		modified = " (with changes not committed)"
	}
	_, err = fmt.Fprintf(w, "ballot %s\ncommit:      %s%s\ncommit time: %s\ngo:          %s\ndataset:     %s (version %s)\n",
		v.Version, v.Commit, modified, v.CommitTime, v.Go, v.Dataset.Title, v.Dataset.Version)
	return err
}
