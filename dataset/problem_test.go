package dataset_test

import (
	"testing"

	"ballot/dataset"
)

// TestProblemString: a problem, of a dataset or of a sheet, is one line:
// FILE, then :LINE:CHAR (the character left out when 0), or : POINTER
// when there is no line; : COLUMN for a sheet's column; then the message,
// with "warning: " before that of a warning.
func TestProblemString(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    dataset.Problem
		want string
	}{
		{"pointer", dataset.Problem{File: "parties.json", Pointer: "/0/slug", Rule: "slug", Message: "m"}, "parties.json: /0/slug: m"},
		{"manifest key", dataset.Problem{File: "dataset.toml", Pointer: "ids.namespace", Message: "m"}, "dataset.toml: ids.namespace: m"},
		{"syntax error", dataset.Problem{File: "parties.json", Line: 2, Char: 10, Rule: "json-syntax", Message: "m"}, "parties.json:2:10: m"},
		{"a line before a pointer", dataset.Problem{File: "dataset.toml", Pointer: "title", Line: 2, Char: 1, Message: "m"}, "dataset.toml:2:1: m"},
		{"sheet cell", dataset.Problem{File: "parties.csv", Line: 3, Column: "slug", Message: "m"}, "parties.csv:3: slug: m"},
		{"sheet column", dataset.Problem{File: "districts.csv", Column: "number", Message: "m"}, "districts.csv: number: m"},
		{"line only", dataset.Problem{File: "parties.csv", Line: 2, Message: "m"}, "parties.csv:2: m"},
		{"file only", dataset.Problem{File: "parties.csv", Message: "m"}, "parties.csv: m"},
		{"character", dataset.Problem{File: "parties.csv", Line: 2, Char: 7, Message: "m"}, "parties.csv:2:7: m"},
		{"character without a line", dataset.Problem{File: "parties.csv", Char: 7, Message: "m"}, "parties.csv: m"},
		{"warning", dataset.Problem{File: "parties.csv", Line: 2, Column: "name", Message: "m", Warning: true}, "parties.csv:2: name: warning: m"},
		{"dataset warning", dataset.Problem{File: "parties.json", Pointer: "/1", Message: "m", Warning: true}, "parties.json: /1: warning: m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := string(tt.p.AppendLine([]byte("> "))); got != "> "+tt.want {
				t.Errorf("AppendLine = %q, want %q", got, "> "+tt.want)
			}
		})
	}
}
