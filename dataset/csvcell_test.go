package dataset_test

import (
	"testing"

	"ballot/dataset"
)

func TestSafeCSVCell(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"equals", `=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`},
		{"plus", "+356 2122 0000", "'+356 2122 0000"},
		{"minus", "-3", "'-3"},
		{"at", "@SUM(A1)", "'@SUM(A1)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"plain name", "Partit Laburista", "Partit Laburista"},
		{"formula later", "a=1", "a=1"},
		{"quote already", "'=1", "'=1"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dataset.SafeCSVCell(tt.in); got != tt.want {
				t.Errorf("SafeCSVCell(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
