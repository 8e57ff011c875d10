package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// Problem is one defect found in a dataset, or in the sheets `ballot
// import` reads: the file it is in; where in that file, as an RFC 6901
// JSON pointer or a key of dataset.toml (Pointer), or as a line and the
// character on it (Line, and Char from 1; 0 when not known); for a sheet,
// the column by its header name (Column); the rule it breaks (a dataset's
// rules have names, a sheet's do not) and a message for a person.
//
// Warning marks a warning in a list that holds errors too (an import's);
// a Report keeps its warnings apart, in Warnings, unmarked.
//
// It has no JSON form of its own: validate's report writes its own
// (commands), where the character on the line is "column", as CI
// pipelines read it.
type Problem struct {
	File    string
	Pointer string
	Line    int
	Char    int
	Column  string
	Rule    string
	Message string
	Warning bool
}

// String formats the problem as one line: FILE, then ":LINE:CHAR"
// (":LINE" when the character is not known), or ": POINTER" when there is
// no line; ": COLUMN" for a sheet's column; then ": ", "warning: " for a
// warning, and the message.
func (p Problem) String() string { return string(p.AppendLine(nil)) }

// AppendLine appends the problem's line, as String formats it, to b: a
// report of a million problems is written without a string for each.
func (p Problem) AppendLine(b []byte) []byte {
	b = append(b, p.File...)
	switch {
	case p.Line > 0:
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(p.Line), 10)
		if p.Char > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(p.Char), 10)
		}
	case p.Pointer != "":
		b = append(b, ": "...)
		b = append(b, p.Pointer...)
	}
	if p.Column != "" {
		b = append(b, ": "...)
		b = append(b, p.Column...)
	}
	b = append(b, ": "...)
	if p.Warning {
		b = append(b, "warning: "...)
	}
	return append(b, p.Message...)
}

// Report is the outcome of checking a dataset: every error and warning
// found in one pass, never just the first.
type Report struct {
	Errors   []Problem     `json:"errors"`
	Warnings []Problem     `json:"warnings"`
	warn     func(Problem) // Options.Warn: given each warning instead
}

// Valid reports whether the dataset has no errors; warnings do not make it
// invalid.
func (r *Report) Valid() bool { return len(r.Errors) == 0 }

// Error makes an invalid report usable as an error: one line per problem.
func (r *Report) Error() string { return r.Brief(len(r.Errors)) }

// Brief is Error with at most n problems listed, then how many more there
// are: a log line that stays readable however broken the dataset is.
func (r *Report) Brief(n int) string {
	var b strings.Builder
	b.WriteString("dataset is invalid: ")
	b.WriteString(Quantity(len(r.Errors), "error"))
	for _, p := range r.Errors[:min(n, len(r.Errors))] {
		b.WriteString("\n")
		b.WriteString(p.String())
	}
	if more := len(r.Errors) - n; more > 0 {
		b.WriteString("\n… and ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more (ballot validate lists every one)")
	}
	return b.String()
}

func (r *Report) errorf(file, pointer, rule, format string, args ...any) {
	r.Errors = append(r.Errors, Problem{File: file, Pointer: pointer, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (r *Report) warnf(file, pointer, rule, format string, args ...any) {
	p := Problem{File: file, Pointer: pointer, Rule: rule, Message: fmt.Sprintf(format, args...)}
	if r.warn != nil {
		r.warn(p)
		return
	}
	r.Warnings = append(r.Warnings, p)
}

// pointer builds an RFC 6901 JSON pointer from reference tokens, escaping
// "~" and "/" inside them.
func pointer(tokens ...any) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		switch v := t.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case string:
			if strings.ContainsAny(v, "~/") {
				v = pointerEscaper.Replace(v)
			}
			b.WriteString(v)
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Quantity writes n and a noun, plural but for one, as a report counts what
// it found: "1 error", "3 errors", "0 warnings".
func Quantity(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
