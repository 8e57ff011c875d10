// Package commands is ballot's command line: the serve, validate, import,
// diff, query and version commands, their flags, and the configuration
// they read.
//
// It is the top of the house: it owns the process (signals, exit codes,
// the garbage collector's pace, the memory limit) and wires server, answers,
// diff and dataset together; nothing of the project imports it.
package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"ballot/suggest"
)

// Exit codes of the ballot binary.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // the work failed: an invalid dataset, a busy port, a refused query
	ExitUsage   = 2 // the command line was wrong
)

// usageError marks an error in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// quietError is a failure whose explanation was already printed.
type quietError struct{ code int }

func (e quietError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// NewApp builds the ballot command-line application writing to stdout and
// stderr.
func NewApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "ballot",
		Usage:     "publish election data as a public, read-only JSON API",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			serveCommand(),
			validateCommand(),
			importCommand(),
			queryCommand(),
			diffCommand(),
			versionCommand(),
		},
		// Not cli.App.Version, whose flag is printed by a package-level
		// cli.VersionPrinter: --version runs what the version command runs.
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "version", Usage: "print what 'ballot version' prints", DisableDefaultText: true},
		},
		OnUsageError: onUsageError,
		// Errors are printed and turned into exit codes by Run, once.
		ExitErrHandler: func(*cli.Context, error) {},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				name := c.Args().First()
				return usagef("unknown command %q%s; run 'ballot help'", name, suggest.Offer(suggest.Quoted(nearest(name, commandNames(c.App)))...))
			}
			if c.Bool("version") {
				return writeVersion(c.App.Writer, "text")
			}
			return cli.ShowAppHelp(c)
		},
	}
}

// onUsageError marks a flag error as a usage error, with the flag that an
// unknown one probably misspells. urfave/cli's own suggestion (App.Suggest)
// is printed only without an OnUsageError, with the help after it, and
// names the closest flag however far it is.
func onUsageError(c *cli.Context, err error, _ bool) error {
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok {
		if near := nearest(name, flagNames(c)); near != "" {
			err = fmt.Errorf("%w%s", err, suggest.Offer(suggest.Quoted("--"+near)...))
		}
	}
	return usageError{err}
}

// nearest returns the name that s misspells by one letter, or "". Names of
// one letter are left out: any other letter is one edit from them.
func nearest(s string, names []string) string {
	names = slices.DeleteFunc(names, func(n string) bool { return len(n) < 2 })
	return suggest.Best(s, slices.Values(names), 1)
}

func commandNames(app *cli.App) []string {
	var names []string
	for _, cmd := range app.Commands {
		names = append(names, cmd.Names()...)
	}
	return names
}

// flagNames returns the names of the flags of the command being parsed,
// or of the app's own.
func flagNames(c *cli.Context) []string {
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return names
}

// Run runs the command line in args (args[0] is the program name) and
// returns the process's exit code. Any error is printed once, to stderr.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := NewApp(stdout, stderr)
	if len(args) == 3 && (args[1] == "help" || args[1] == "h") && app.Command(args[2]) == nil {
		// urfave/cli would say only "No help topic for 'serv'".
		name := args[2]
		msg := fmt.Sprintf("no help for %q, which is no command", name) + suggest.Offer(suggest.Quoted(nearest(name, commandNames(app)))...)
		_, _ = fmt.Fprintf(stderr, "ballot: %s; run 'ballot help'\n", msg)
		return ExitUsage
	}
	args, err := flagsFirst(app, args)
	if err == nil {
		err = runParsed(ctx, app, args)
	}
	var quiet quietError
	var usage usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &quiet):
		return quiet.code
	case errors.As(err, &usage):
		_, _ = fmt.Fprintf(stderr, "ballot: %v\n", err)
		return ExitUsage
	default:
		_, _ = fmt.Fprintf(stderr, "ballot: %v\n", err)
		return ExitFailure
	}
}

// flagsFirst moves a command's flags before its arguments, so that
// "ballot query candidates --limit 5" works: urfave/cli v2 stops reading
// flags at the first argument.
func flagsFirst(app *cli.App, args []string) ([]string, error) {
	if len(args) < 3 {
		return args, nil
	}
	cmd := app.Command(args[1])
	if cmd == nil {
		return args, nil
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			takesValue[name] = !isBool
		}
	}
	var flags, rest []string
	tail := args[2:]
	for i := 0; i < len(tail); i++ {
		a := tail[i]
		switch {
		case a == "--":
			rest = append(rest, tail[i:]...)
			i = len(tail)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				if i+1 == len(tail) {
					return nil, usagef("flag needs an argument: %s", a)
				}
				i++
				flags = append(flags, tail[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(append(append([]string{}, args[:2]...), flags...), rest...), nil
}

// parsing is held while urfave/cli parses a command line: it applies the
// package-level cli.HelpFlag to every flag set it makes, writing into that
// one flag (urfave/cli#1242, #1699), so two runs in one process, as the
// tests make, must not parse at once. A process that serves runs once,
// and a run holds it only until its command's action begins.
var parsing sync.Mutex

// runParsed runs app with args, parsing them under parsing.
func runParsed(ctx context.Context, app *cli.App, args []string) error {
	parsing.Lock()
	var once sync.Once
	parsed := func(*cli.Context) error {
		once.Do(parsing.Unlock)
		return nil
	}
	defer once.Do(parsing.Unlock)
	for _, cmd := range app.Commands {
		if cmd.Before == nil {
			cmd.Before = parsed
		}
	}
	return app.RunContext(ctx, args)
}
