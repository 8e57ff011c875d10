package sheet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"ballot/dataset"
)

// encode writes records as a JSON array indented by two spaces, with a
// final newline, leaving "&", "<", ">" and non-ASCII letters as they are:
// the bytes a json.Encoder with SetIndent("", "  ") writes. It encodes
// each record twice, first to measure, so that the output is allocated
// once at its size rather than grown through copies of itself.
func encode[T any](records []T) []byte {
	return encodeAs(records, func(r *T) any { return r })
}

// encodeAs is encode of what as makes of each record.
func encodeAs[T any](records []T, as func(*T) any) []byte {
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
		if err := enc.Encode(as(&records[i])); err != nil {
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

// FileCandidate is a candidate as import writes it in candidates.json:
// person_id is left out when the sheet gives none, so that a sheet made
// before the column existed imports to the same bytes as it did (absent,
// in a dataset file, is null).
type FileCandidate struct {
	dataset.Candidate
	PersonID *string `json:"person_id,omitempty"`
}

// FileDistrict is a district as import writes it in districts.json: seats
// and note are left out when the sheet gives none, so that a sheet made
// before the columns existed imports to the same bytes as it did.
type FileDistrict struct {
	dataset.District
	Seats *int    `json:"seats,omitempty"`
	Note  *string `json:"note,omitempty"`
}

// encodeDistricts writes districts as encode does, each as a
// FileDistrict.
func encodeDistricts(districts []dataset.District) []byte {
	return encodeAs(districts, func(d *dataset.District) any { return FileDistrict{District: *d, Seats: d.Seats, Note: d.Note} })
}

// encodeCandidates writes candidates as encode does, each as a
// FileCandidate.
func encodeCandidates(candidates []dataset.Candidate) []byte {
	return encodeAs(candidates, func(c *dataset.Candidate) any { return FileCandidate{Candidate: *c, PersonID: c.PersonID} })
}

// encodeSheets writes count sheets as encode writes records, except that
// each item of a sheet's lists (a count, a candidacy with its totals) is
// one line of compact JSON: a sheet reads as the Commission prints it, one
// row a line, a change shows in a diff as the rows it changes, and a sheet
// of 10,000 candidacies over 500 counts takes a few bytes a total rather
// than a line each. Of a sheet's ties it writes those the sheets state
// (ties.csv), and no ties field when they state none: the others follow
// from the totals; nor a corrections or defects field when the sheets
// state none (corrections.csv, defects.csv).
func encodeSheets(sheets []dataset.CountSheet) []byte {
	// The lists a sheet may leave out, when it has none.
	optionalList := map[string]bool{"ties": true, "corrections": true, "defects": true}
	if len(sheets) == 0 {
		return []byte("[]\n")
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	// compact appends v as compact JSON, without the encoder's newline.
	compact := func(v any) {
		if err := enc.Encode(v); err != nil {
			panic("sheet: encoding JSON: " + err.Error()) // numbers, strings and lists of them
		}
		out.Truncate(out.Len() - 1)
	}
	out.WriteString("[\n")
	for i := range sheets {
		s := sheets[i]
		s.Ties = slices.DeleteFunc(slices.Clone(s.Ties), func(t dataset.Tie) bool { return !t.Stated })
		out.WriteString("  {\n")
		v := reflect.ValueOf(s)
		var fields []int
		for f := range v.NumField() {
			if name := v.Type().Field(f).Tag.Get("json"); name != "-" && (v.Field(f).Kind() != reflect.Slice || v.Field(f).Len() > 0 || !optionalList[name]) {
				fields = append(fields, f)
			}
		}
		for n, f := range fields {
			name, _, _ := strings.Cut(v.Type().Field(f).Tag.Get("json"), ",")
			fmt.Fprintf(&out, "    %q: ", name)
			field := v.Field(f)
			if field.Kind() == reflect.Slice && field.Type().Elem().Kind() == reflect.Struct && field.Len() > 0 {
				out.WriteString("[\n")
				for j := range field.Len() {
					out.WriteString("      ")
					compact(field.Index(j).Interface())
					if j < field.Len()-1 {
						out.WriteByte(',')
					}
					out.WriteByte('\n')
				}
				out.WriteString("    ]")
			} else {
				compact(field.Interface())
			}
			if n < len(fields)-1 {
				out.WriteByte(',')
			}
			out.WriteByte('\n')
		}
		out.WriteString("  }")
		if i < len(sheets)-1 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
	}
	out.WriteString("]\n")
	return out.Bytes()
}
