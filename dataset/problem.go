package dataset

import (
	"fmt"
	"slices"
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
// More makes the problem a note that stands for More problems counted
// and not kept (see KeptOfAKind): it follows the last kept of their kind,
// at its line, and has their file, their rule (for a dataset's) and
// whether they are warnings.
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
	More    int

	kind string // what makes problems of the same kind, when not Rule (Bound)
}

// String formats the problem as one line: FILE, then ":LINE:CHAR"
// (":LINE" when the character is not known), or ": POINTER" when there is
// no line; ": COLUMN" for a sheet's column; then ": ", "warning: " for a
// warning, and the message. A note is FILE, then ": … and 8,319,000 more
// problems of the same kind" (or warnings).
func (p Problem) String() string { return string(p.AppendLine(nil)) }

// AppendLine appends the problem's line, as String formats it, to b: a
// report of a million problems is written without a string for each.
func (p Problem) AppendLine(b []byte) []byte {
	b = append(b, p.File...)
	if p.More > 0 {
		b = append(b, ": … and "...)
		b = append(b, Thousands(p.More)...)
		noun := " more problem"
		if p.Warning {
			noun = " more warning"
		}
		b = append(b, noun...)
		if p.More > 1 {
			b = append(b, 's')
		}
		return append(b, " of the same kind"...)
	}
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
// found in one pass, never just the first, each kind's first kept and the
// rest counted in a note (KeptOfAKind).
type Report struct {
	Errors   []Problem     `json:"errors"`
	Warnings []Problem     `json:"warnings"`
	warn     func(Problem) // Options.Warn: given each warning instead

	errorBound, warningBound Bound
	found                    int  // the errors found, kept or counted
	quiet                    bool // neither kept nor counted: a check again of what was reported
}

// Valid reports whether the dataset has no errors; warnings do not make it
// invalid.
func (r *Report) Valid() bool { return len(r.Errors) == 0 }

// Error makes an invalid report usable as an error: one line per problem
// kept, and a note for those counted.
func (r *Report) Error() string { return r.Brief(len(r.Errors)) }

// Brief is Error with at most n problems listed, then how many more there
// are: a log line that stays readable however broken the dataset is.
func (r *Report) Brief(n int) string {
	var b strings.Builder
	b.WriteString("dataset is invalid: ")
	errors, _ := CountProblems(r.Errors)
	b.WriteString(Quantity(errors, "error"))
	listed := r.Errors[:min(n, len(r.Errors))]
	for _, p := range listed {
		b.WriteString("\n")
		b.WriteString(p.String())
	}
	if shown, _ := CountProblems(listed); errors > shown {
		b.WriteString("\n… and ")
		b.WriteString(Thousands(errors - shown))
		b.WriteString(" more (ballot validate lists up to " + Thousands(KeptOfAKind) + " of each kind)")
	}
	return b.String()
}

func (r *Report) errorf(file, pointer, rule, format string, args ...any) {
	if r.quiet {
		return
	}
	r.found++
	r.Errors = r.errorBound.Add(r.Errors, Problem{File: file, Pointer: pointer, Rule: rule}, rule, format, args...)
}

// add adds the error p, whose message is written already.
func (r *Report) add(p Problem) {
	r.found++
	r.Errors = r.errorBound.Add(r.Errors, p, p.Rule, "")
}

func (r *Report) warnf(file, pointer, rule, format string, args ...any) {
	r.Warnings = r.warningBound.Add(r.Warnings, Problem{File: file, Pointer: pointer, Rule: rule}, rule, format, args...)
}

// finish puts each note after the last problem kept of its kind, once
// every problem is found, and gives the warnings to Options.Warn when it
// is set.
func (r *Report) finish() {
	r.Errors, r.Warnings = Settle(r.Errors), Settle(r.Warnings)
	if r.warn != nil {
		for _, p := range r.Warnings {
			r.warn(p)
		}
		r.Warnings = nil
	}
}

// The bound on the problems a report keeps: a counts.json of eight
// million wrong totals has eight million problems, and a report that kept
// each took gigabytes. Of each kind of problem (the same rule in the same
// file, for a dataset's; the same message in the same file, for a sheet's),
// a report keeps the first KeptOfAKind while fewer than KeptInAll are kept
// in all, and its first KeptAtLeast however many are; the rest it counts
// in a note after them ("… and 8,319,000 more problems of the same kind").
// The count stays exact.
const (
	KeptOfAKind = 1000
	KeptInAll   = 5000
	KeptAtLeast = 10
)

// Bound keeps a list of problems within KeptOfAKind of each kind,
// counting the rest in notes in the list itself, so that a list cut back
// to before a kind's first problem, or set apart and added to another,
// keeps its count exact (an import does both: it drops what a sheet gave
// when the sheet turns out not to be UTF-8, and sets a sheet's rows'
// problems apart until it knows they are used).
type Bound struct {
	kinds map[boundKind]*kindCount
	kept  int
}

type boundKind struct {
	file, kind string
	warning    bool
}

type kindCount struct {
	kept int
	line int // the line of the last kept: a sheet's note sorts after it
	note int // where its note is in the list, while the list is the same
}

// Add adds to list the problem at (its file, pointer or line, column,
// rule and whether it is a warning), its message made of format and args
// (or at's own when format is ""), and returns list; or, when as many of
// its kind are kept already, counts it in the note of its kind in list,
// added at its end the first time, and makes no message. kind is the
// problem's rule, or, for a sheet's, its message's format.
func (b *Bound) Add(list []Problem, at Problem, kind, format string, args ...any) []Problem {
	if b.kinds == nil {
		b.kinds = map[boundKind]*kindCount{}
	}
	k := boundKind{at.File, kind, at.Warning}
	c := b.kinds[k]
	if c == nil {
		c = &kindCount{note: -1}
		b.kinds[k] = c
	}
	if c.kept < KeptAtLeast || c.kept < KeptOfAKind && b.kept < KeptInAll {
		c.kept++
		b.kept++
		c.line = at.Line
		if kind != at.Rule {
			at.kind = kind
		}
		if format != "" {
			at.Message = fmt.Sprintf(format, args...)
		}
		return append(list, at)
	}
	isNote := func(p Problem) bool {
		return p.More > 0 && p.kindOf() == kind && p.File == at.File && p.Warning == at.Warning
	}
	if c.note < 0 || c.note >= len(list) || !isNote(list[c.note]) {
		// The list is another, or was cut back, since the note was
		// added: find it again, or add one.
		c.note = slices.IndexFunc(list, isNote)
		if c.note < 0 {
			note := Problem{File: at.File, Line: c.line, Rule: at.Rule, Warning: at.Warning}
			if kind != at.Rule {
				note.kind = kind
			}
			list = append(list, note)
			c.note = len(list) - 1
		}
	}
	list[c.note].More++
	return list
}

// kindOf is what makes problems of the same kind as p: its rule, or what
// Bound.Add was told when that was another.
func (p Problem) kindOf() string {
	if p.kind != "" {
		return p.kind
	}
	return p.Rule
}

// Settle moves each note of a list of problems, added where the first of
// its kind was counted, to just after the last kept of its kind, which it
// speaks of ("… and 20 more of the same kind"), at its line.
func Settle(ps []Problem) []Problem {
	type kind struct {
		file, kind string
		warning    bool
	}
	notes := map[kind]Problem{}
	last := map[kind]int{}
	for i, p := range ps {
		k := kind{p.File, p.kindOf(), p.Warning}
		if p.More > 0 {
			if n, ok := notes[k]; ok { // a list added to another: one note
				p.More += n.More
			}
			notes[k] = p
		} else {
			last[k] = i
		}
	}
	if len(notes) == 0 {
		return ps
	}
	out := make([]Problem, 0, len(ps))
	for i, p := range ps {
		k := kind{p.File, p.kindOf(), p.Warning}
		if p.More > 0 {
			if _, ok := last[k]; !ok && notes[k].More > 0 { // its kept were cut: it stays, once
				out = append(out, notes[k])
				notes[k] = Problem{}
			}
			continue
		}
		out = append(out, p)
		if note, ok := notes[k]; ok && last[k] == i {
			note.Line = p.Line
			out = append(out, note)
		}
	}
	return out
}

// CountProblems counts the errors and the warnings of a list of problems, each
// note as the problems it stands for. A Report's Warnings are unmarked:
// count them as its errors are.
func CountProblems(ps []Problem) (errors, warnings int) {
	for _, p := range ps {
		n := max(p.More, 1)
		if p.Warning {
			warnings += n
		} else {
			errors += n
		}
	}
	return errors, warnings
}

// pointer builds an RFC 6901 JSON pointer from reference tokens, escaping
// "~" and "/" inside them.
func pointer(tokens ...any) string {
	return string(appendPointer(nil, tokens...))
}

// appendPointer appends the pointer of tokens to b: a look-up by it in a
// map of pointers needs no string made.
func appendPointer(b []byte, tokens ...any) []byte {
	for _, t := range tokens {
		b = append(b, '/')
		switch v := t.(type) {
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case string:
			if strings.ContainsAny(v, "~/") {
				v = pointerEscaper.Replace(v)
			}
			b = append(b, v...)
		default:
			b = fmt.Append(b, v)
		}
	}
	return b
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
