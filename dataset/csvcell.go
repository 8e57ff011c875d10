package dataset

import "strings"

// formulaPrefixes are the first characters that make a spreadsheet read a
// CSV cell as a formula, as OWASP lists them for CSV injection: "=", "+",
// "-", "@", a tab and a carriage return.
const formulaPrefixes = "=+-@\t\r"

// SafeCSVCell returns s as a CSV cell that a spreadsheet shows as text: a
// value beginning with "=", "+", "-", "@", a tab or a carriage return gets
// a leading "'", the rest kept as it was; any other value is returned
// unchanged. Every CSV the project writes passes its cells through it, so
// a dataset cannot plant a live formula (=HYPERLINK(...)) in a reader's
// spreadsheet.
//
// A negative number is prefixed too ("-3" becomes "'-3"). No column ballot
// writes holds one, and a number that must stay a number would need its own
// check, so the rule is kept as OWASP states it, with no exception.
func SafeCSVCell(s string) string {
	if FormulaPrefixed(s) {
		return "'" + s
	}
	return s
}

// FormulaPrefixed reports whether s begins with a character that makes a
// spreadsheet read it as a formula: the values SafeCSVCell neutralises and
// validate warns about.
func FormulaPrefixed(s string) bool {
	return s != "" && strings.IndexByte(formulaPrefixes, s[0]) >= 0
}
