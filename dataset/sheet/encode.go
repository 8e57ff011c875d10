package sheet

import (
	"bytes"
	"encoding/json"
)

// encode writes records as a JSON array indented by two spaces, with a
// final newline, leaving "&", "<", ">" and non-ASCII letters as they are:
// the bytes a json.Encoder with SetIndent("", "  ") writes. It encodes
// each record twice, first to measure, so that the output is allocated
// once at its size rather than grown through copies of itself.
func encode[T any](records []T) []byte {
	if len(records) == 0 {
		return []byte("[]\n")
	}
	var rec bytes.Buffer
	enc := json.NewEncoder(&rec)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ") // a record is indented as an element of the array
	// record returns records[i] as the array's element, without its
	// newline, in rec's buffer, which the next call reuses.
	record := func(i int) []byte {
		rec.Reset()
		if err := enc.Encode(records[i]); err != nil {
			// Records hold only strings, numbers, booleans and slices of them.
			panic("sheet: encoding JSON: " + err.Error())
		}
		return bytes.TrimSuffix(rec.Bytes(), []byte("\n"))
	}
	// Each record is two spaces, the record, and ",\n" or, after the
	// last, "\n".
	size := len("[\n]\n") + len(records)*len("  ,\n") - 1
	for i := range records {
		size += len(record(i))
	}
	out := make([]byte, 0, size)
	out = append(out, "[\n"...)
	for i := range records {
		out = append(out, "  "...)
		out = append(out, record(i)...)
		if i < len(records)-1 {
			out = append(out, ',')
		}
		out = append(out, '\n')
	}
	return append(out, "]\n"...)
}
