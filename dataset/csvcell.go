package dataset

import "strings"

// formulaPrefixes are the first characters that make a spreadsheet read a
// CSV cell as a formula, as OWASP lists them for CSV injection: "=", "+",
// "-", "@", a tab and a carriage return.
const formulaPrefixes = "=+-@\t\r"

// FormulaPrefixed reports whether s begins with a character that makes a
// spreadsheet read it as a formula: the values validate warns about, and
// those every CSV the project writes neutralises (answers.SafeCSVCell).
func FormulaPrefixed(s string) bool {
	return s != "" && strings.IndexByte(formulaPrefixes, s[0]) >= 0
}
