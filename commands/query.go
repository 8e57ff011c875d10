package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ballot/answers"
	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
	"ballot/server"
	"ballot/suggest"
)

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "print what the API answers, without a server",
		ArgsUsage: dataset.CollectionNames("|") + "|" + strings.Join(archiveQueries, "|") + " [KEY]",
		Description: "Prints the body GET /api/public/v1/COLLECTION returns for the same parameters\n" +
			"(byte for byte, but for meta.generatedAt), or the records as CSV, NDJSON or a\n" +
			"table. Parameters are checked as the API checks them; a refused one prints\n" +
			"the API's message on stderr and exits 2. Of an archive of elections, it prints\n" +
			"what the API answers for the current election, or for the one --election names.\n\n" +
			"With a KEY, prints the one record GET /api/public/v1/COLLECTION/KEY returns: a\n" +
			"party or candidate by slug or id, a district, or a district's count sheet\n" +
			"(results), by number or id. A key that names no record prints the API's\n" +
			"message on stderr and exits 1. \"results national\" prints the national totals,\n" +
			"GET /api/public/v1/results/national, as JSON or NDJSON.\n\n" +
			"\"elections\" prints the archive's elections, GET /api/public/v1/elections, or\n" +
			"with a KEY (a slug or id) one of them; \"people --q TEXT\" the people whose names\n" +
			"hold TEXT, GET /api/public/v1/people?q=TEXT, and \"people KEY\" one person by\n" +
			"slug or id, every candidacy newest first: as JSON or NDJSON.\n\n" +
			"CSV puts party short names and district numbers beside the ids\n" +
			"(party_short_name, primary_district_number, district_numbers). A table is for\n" +
			"people: it shows those names and numbers (party, district, districts) instead\n" +
			"of the ids, leaves out id, given_name and family_name, and fits the width of\n" +
			"the terminal (COLUMNS when set, else 100 when stdout is not a terminal),\n" +
			"cutting the longest values with \"…\"; --ids adds the id columns, whole.",
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "district", Value: &everyValue{}, Usage: "candidates in district `N` (1 to the election's number of districts, 13 in today's) or with this district UUID; the count sheet of that district"},
			&cli.GenericFlag{Name: "party", Value: &everyValue{}, Usage: "candidates of the party with this `SLUG` or UUID"},
			&cli.GenericFlag{Name: "stood-in", Value: &everyValue{}, Usage: "candidates who stood in district `N` (1 to the election's number of districts) or this district UUID, primary or not"},
			&cli.GenericFlag{Name: "elected", Value: &everyValue{}, Usage: "candidates elected (`true`) or not (false)"},
			&cli.GenericFlag{Name: "q", Value: &everyValue{}, Usage: "candidates, or people, whose name holds this `TEXT` (2 to 100 characters; case, accents and Maltese letters folded)"},
			&cli.GenericFlag{Name: "limit", Value: &everyValue{}, Usage: "at most `N` candidates, 1 to 500 (default 100)"},
			&cli.GenericFlag{Name: "offset", Value: &everyValue{}, Usage: "skip the first `N` matching candidates (default 0)"},
			&cli.GenericFlag{Name: "locality", Value: &everyValue{}, Usage: "districts holding the locality with this `NAME`, English name or slug"},
			&cli.StringFlag{Name: "data", Usage: "dataset or archive `DIR` (default: the embedded archive)", EnvVars: []string{"BALLOT_DATA"}},
			&cli.StringFlag{Name: "election", Usage: "the election of the archive with this `SLUG` (or id), in any letter case (default: the current one)"},
			&cli.StringFlag{Name: "format", Value: "json", Usage: "json (the API's body), ndjson, csv or table"},
			&cli.BoolFlag{Name: "pretty", Usage: "indent the JSON body"},
			&cli.BoolFlag{Name: "ids", Usage: "with --format table, add the id columns"},
		},
		OnUsageError: onUsageError,
		Action:       query,
	}
}

// everyValue is the value of a query flag: every value it was given, in
// order, as the API's parameters hold every value of a query string's, so
// that a flag given twice is refused as the API refuses a parameter given
// twice ("--district must be given at most once"), rather than the last
// one silently winning.
type everyValue struct{ values []string }

func (v *everyValue) Set(s string) error {
	v.values = append(v.values, s)
	return nil
}

func (v *everyValue) String() string { return strings.Join(v.values, ", ") }

// queryFlags are the flags that carry the API's query parameters, each
// named as its parameter with "-" for "_".
var queryFlags = []string{"district", "party", "stood-in", "elected", "q", "limit", "offset", "locality"}

// archiveQueries are what query prints of an archive's own endpoints,
// beside the collections of an election: its elections, and the people
// who stood in them.
var archiveQueries = []string{"elections", "people"}

func query(c *cli.Context) error {
	choice := suggest.List(append(strings.Split(dataset.CollectionNames(","), ","), archiveQueries...), "or")
	if c.NArg() < 1 || c.NArg() > 2 {
		return usagef("query takes one collection: %s, and at most one record's key", choice)
	}
	if slices.Contains(archiveQueries, c.Args().First()) {
		return queryArchive(c)
	}
	collection, err := dataset.ParseCollection(c.Args().First())
	if err != nil {
		return usagef("unknown collection %q: use %s", c.Args().First(), choice)
	}
	format := c.String("format")
	switch format {
	case "json", "ndjson", "csv", "table":
	default:
		return usagef("--format must be json, ndjson, csv or table, got %q", format)
	}
	if c.Bool("pretty") && format != "json" {
		return usagef("--pretty applies only to --format json")
	}
	if c.Bool("ids") && format != "table" {
		return usagef("--ids applies only to --format table")
	}
	params := queryParams(c)
	key := c.Args().Get(1)
	if c.NArg() == 2 && len(params) > 0 {
		// The API ignores parameters on a record; here they can only be
		// a mistake.
		return usagef("a record's key takes no --district, --party, --stood-in, --elected, --q, --limit, --offset or --locality")
	}
	arch, err := openArchive(c, c.String("data"), 0)
	if err != nil {
		return err
	}
	ds, err := electionOf(c, arch)
	if err != nil {
		return err
	}
	var res dataset.Result
	if collection == dataset.Results && key == dataset.NationalKey {
		if format == "csv" || format == "table" {
			return usagef("the national totals print as json or ndjson")
		}
		res = ds.National()
	} else if c.NArg() == 2 {
		res, err = ds.Record(collection, key)
	} else {
		res, err = ds.Query(collection, params)
	}
	var perr *dataset.ParamError
	if errors.As(err, &perr) {
		return usageError{asFlags(perr)}
	} else if err != nil {
		return err // a *dataset.NotFoundError among them: the API's 404
	}
	if err := noteLeftOut(c.App.ErrWriter, collection, res); err != nil {
		return err
	}

	return writeAnswer(c, ds, collection, res, format)
}

// queryParams are the API's query parameters the flags of c give.
func queryParams(c *cli.Context) dataset.Params {
	params := dataset.Params{}
	for _, flag := range queryFlags {
		if c.IsSet(flag) {
			params[strings.ReplaceAll(flag, "-", "_")] = c.Generic(flag).(*everyValue).values
		}
	}
	return params
}

// queryArchive prints what the API answers of the archive's own
// endpoints: the elections (GET /api/public/v1/elections) or one by its
// key, the people a search by --q finds (GET /api/public/v1/people?q=) or
// one person by their key, prepared as serve prepares them (package
// answers), in JSON or NDJSON. The people's search takes --q alone, as
// the API reads q alone; --election names an election's collections, and
// is refused here.
func queryArchive(c *cli.Context) error {
	what, key := c.Args().First(), c.Args().Get(1)
	format := c.String("format")
	switch {
	case format != "json" && format != "ndjson":
		return usagef("%s print as json or ndjson", what)
	case c.Bool("pretty") && format != "json":
		return usagef("--pretty applies only to --format json")
	case c.Bool("ids"):
		return usagef("--ids applies only to --format table")
	case c.IsSet("election"):
		return usagef("--election names the election of a collection; query elections KEY prints one election")
	}
	params := queryParams(c)
	if key != "" && len(params) > 0 {
		return usagef("a record's key takes no --district, --party, --stood-in, --elected, --q, --limit, --offset or --locality")
	}
	arch, err := openArchive(c, c.String("data"), 0)
	if err != nil {
		return err
	}
	restore := gcpace.Load() // preparing allocates as a load does
	ans := answers.PrepareArchiveJSON(arch, server.ElectionsPath)
	restore()
	var rec answers.Records
	var i int
	var found []int32
	switch {
	case what == "elections" && key == "":
		rec = ans.Elections()
	case what == "elections":
		if i, err = arch.ElectionIndex(key); err == nil {
			rec = ans.Election(i)
		}
	case key == "":
		if found, err = arch.QueryPeople(params); err == nil {
			rec = ans.People(found)
		}
	default:
		if i, err = arch.PersonIndex(key); err == nil {
			rec = ans.Person(i)
		}
	}
	var perr *dataset.ParamError
	if errors.As(err, &perr) {
		return usageError{asFlags(perr)}
	} else if err != nil {
		return err // a *archive.NotFoundError: the API's 404
	}
	w := c.App.Writer
	if format == "ndjson" {
		for i := range rec.Count() {
			if _, err := fmt.Fprintf(w, "%s\n", rec.Record(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return writeBody(c, rec.AppendJSON(nil, time.Now()))
}

// writeBody writes an answer's body, indented with --pretty.
func writeBody(c *cli.Context, body []byte) error {
	if c.Bool("pretty") {
		var b bytes.Buffer
		if err := json.Indent(&b, body, "", "  "); err != nil {
			return err
		}
		body = b.Bytes()
	}
	_, err := c.App.Writer.Write(body)
	return err
}

// electionOf is the dataset of the election --election names, or of the
// current one; an election the archive does not hold is a usage error
// that names those it holds.
func electionOf(c *cli.Context, arch *archive.Archive) (*dataset.Dataset, error) {
	if !c.IsSet("election") {
		return arch.Current().Dataset(), nil
	}
	e, err := arch.Election(c.String("election"))
	var nf *archive.NotFoundError
	if errors.As(err, &nf) {
		return nil, usagef("--election %s names no election%s: the elections are %s", dataset.QuoteKey(nf.Key), suggest.Offer(suggest.Quoted(nf.Near)...), archive.SlugList(nf.Slugs, func(s string) string { return s }))
	}
	if err != nil {
		return nil, err
	}
	return e.Dataset(), nil
}

// writeAnswer writes the answer res of collection c in format: the API's
// body or its records as the API encodes them, prepared as serve prepares
// them (package answers), or its records as CSV or a table.
func writeAnswer(c *cli.Context, ds *dataset.Dataset, collection dataset.Collection, res dataset.Result, format string) error {
	w := c.App.Writer
	switch format {
	case "csv":
		return answers.WriteCSV(w, columnRows(ds, collection, res))
	case "table":
		return writeTable(w, ds, collection, res, c.Bool("ids"), tableWidth(w))
	}
	restore := gcpace.Load() // preparing allocates as a load does
	ans := answers.PrepareJSON(ds).Of(res)
	restore()
	if format == "ndjson" {
		for i := range res.Count() {
			if _, err := fmt.Fprintf(w, "%s\n", ans.Record(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return writeBody(c, ans.AppendJSON(nil, time.Now()))
}

// noteLeftOut says on stderr, in one line, when records remain after the
// answer, so that a person counting lines of CSV is not misled; stdout
// stays the answer alone.
func noteLeftOut(w io.Writer, c dataset.Collection, res dataset.Result) error {
	next, more := res.Next()
	if !more {
		return nil
	}
	shown := fmt.Sprintf("%d of %d %s", res.Count(), res.Total(), c)
	if res.Offset() > 0 {
		shown = fmt.Sprintf("%s %d to %d of %d", c, res.Offset()+1, next, res.Total())
	}
	_, err := fmt.Fprintf(w, "note: %s; use --limit or --offset for the rest\n", shown)
	return err
}

// columnRows returns the records as rows of cells under a header, in
// query's columns (answers.FieldColumns).
func columnRows(ds *dataset.Dataset, c dataset.Collection, res dataset.Result) [][]string {
	return answers.CSVRows(ds, c, res, answers.FieldColumns)
}

// asFlags is a refusal of the API's parameters as the command line
// names them: "--stood-in must be …", not the parameter "stood_in".
func asFlags(perr *dataset.ParamError) error {
	named := &dataset.ParamError{Params: slices.Clone(perr.Params)}
	for i, p := range named.Params {
		named.Params[i].Name = "--" + strings.ReplaceAll(p.Name, "_", "-")
	}
	return named
}
