package dataset

import "testing"

// appendJSONString writes what the encoder writes, for the slugs and UUIDs
// it passes as they are and for anything else.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "pn", "alternattiva-demokratika", "0f8fad5b-d9cb-469f-a165-70867728950e",
		`a"b`, `a\b`, "tab\there", "ħamrun", "<&>", "line\u2028sep", "\x7f",
	} {
		want := string(encodeRecord(s))
		if got := string(appendJSONString([]byte("x"), s)); got != "x"+want {
			t.Errorf("appendJSONString(%q) = %s, want x%s", s, got, want)
		}
	}
}
