package answers

import (
	"ballot/dataset"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// appendJSONString writes what the encoder writes, for the slugs and UUIDs
// it passes as they are and for anything else.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "pn", "alternattiva-demokratika", "0f8fad5b-d9cb-469f-a165-70867728950e",
		`a"b`, `a\b`, "tab\there", "ħamrun", "<&>", "line\u2028sep", "\x7f",
	} {
		want := string(dataset.EncodeRecord(s))
		if got := string(appendJSONString([]byte("x"), s)); got != "x"+want {
			t.Errorf("appendJSONString(%q) = %s, want x%s", s, got, want)
		}
	}
}

// A list sized from its first records reserves no more than it is allowed
// when those records are large and the rest small, and holds every record.
func TestNewListReservesAtMost(t *testing.T) {
	records := make([]string, 100_000)
	for i := range records {
		records[i] = "x"
		if i < 256 {
			records[i] = strings.Repeat("x", 1000)
		}
	}
	const most = 1 << 20
	l := newList("t", records, most)
	if c := cap(l.data); c > 2*most {
		t.Errorf("the list reserved %d bytes, want at most about %d", c, most)
	}
	if got, want := len(l.data), len(envelopeStart)+256*1003+(len(records)-256)*4-1; got != want {
		t.Errorf("the list holds %d bytes, want %d", got, want)
	}
	if got := string(l.record(len(records) - 1)); got != `"x"` {
		t.Errorf("the last record is %s, want \"x\"", got)
	}
}

// TestGzipMemberAsCompressGzip: a body compressed whole from the pool is
// byte for byte what compress/gzip writes at the same level, so the
// documents' and downloads' gzip bodies are those they were.
func TestGzipMemberAsCompressGzip(t *testing.T) {
	body := []byte(strings.Repeat(`{"name":"Ħal Għaxaq","slug":"ghaxaq"},`, 500))
	for _, level := range []int{requestLevel, documentLevel, listLevel} {
		var want bytes.Buffer
		zw, err := gzip.NewWriterLevel(&want, level)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = zw.Write(body)
		_ = zw.Close()
		for range 2 { // a fresh writer, then one from the pool
			if got := gzipMember([]byte("x"), body, level); !bytes.Equal(got[1:], want.Bytes()) || got[0] != 'x' {
				t.Errorf("level %d: %d bytes, compress/gzip writes %d", level, len(got)-1, want.Len())
			}
		}
	}
}
