package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The files of a dataset directory.
const (
	ManifestFile   = "dataset.toml"
	PartiesFile    = "parties.json"
	DistrictsFile  = "districts.json"
	CandidatesFile = "candidates.json"
)

// decodeManifest decodes dataset.toml strictly: unknown keys are errors that
// name the key.
func decodeManifest(b []byte, r *Report) (Manifest, bool) {
	var m Manifest
	md, err := toml.Decode(string(b), &m)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			r.Errors = append(r.Errors, Problem{File: ManifestFile, Line: perr.Position.Line, Column: perr.Position.Col, Rule: "toml-syntax", Message: perr.Message})
		} else {
			r.errorf(ManifestFile, "", "type", "%v", err)
		}
		return m, false
	}
	for _, key := range md.Undecoded() {
		r.errorf(ManifestFile, key.String(), "unknown-field", "unknown key %q", key.String())
	}
	return m, true
}

// file holds the records decoded from one JSON file. A record with a
// defect is left out of the rules that span records, so each defect is
// reported once, by the rule it breaks.
type file[T any] struct {
	recs     []T
	valid    []bool // valid[i]: record i decoded
	complete bool   // the file was read and every record decoded
}

// each yields the index and value of every record that decoded.
func (f *file[T]) each(yield func(int, T) bool) {
	for i, rec := range f.recs {
		if f.valid[i] && !yield(i, rec) {
			return
		}
	}
}

// decodeArray decodes a JSON file that must hold an array of records of
// type T. Each record is checked for unknown, missing and null fields and
// for wrong types before it is decoded, so every defect is reported with the
// pointer of the field.
func decodeArray[T any](name string, b []byte, r *Report) file[T] {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		var serr *json.SyntaxError
		var terr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &serr):
			// Offset counts the bytes read, the offending one included.
			line, col := position(b, max(serr.Offset-1, 0))
			r.Errors = append(r.Errors, Problem{File: name, Line: line, Column: col, Rule: "json-syntax", Message: serr.Error()})
		case errors.As(err, &terr):
			r.errorf(name, "", "type", "must be a JSON array of records, not %s", terr.Value)
		default:
			r.errorf(name, "", "json-syntax", "%v", err)
		}
		return file[T]{}
	}
	if raws == nil {
		r.errorf(name, "", "type", "must be a JSON array of records, not null")
		return file[T]{}
	}
	f := file[T]{recs: make([]T, len(raws)), valid: make([]bool, len(raws)), complete: true}
	typ := reflect.TypeFor[T]()
	for i, raw := range raws {
		if checkFields(name, pointer(i), raw, typ, r) && json.Unmarshal(raw, &f.recs[i]) == nil {
			f.valid[i] = true
		} else {
			f.complete = false
		}
	}
	return f
}

// checkFields compares a JSON object with the fields of a record type:
// unknown keys, missing keys, null where null is not allowed, and values of
// the wrong type, each at the pointer of the field, down into arrays and
// nested records. It returns whether the object decodes into the type.
func checkFields(file, ptr string, raw json.RawMessage, typ reflect.Type, r *Report) bool {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		r.errorf(file, ptr, "type", "must be an object, not %s", jsonKind(raw))
		return false
	}
	ok := true
	names := make([]string, typ.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(typ.Field(i).Tag.Get("json"), ",")
	}
	misspelt := map[string]bool{} // fields whose name an unknown key misspells
	for key := range sortedKeys(obj) {
		if slices.Contains(names, key) {
			continue
		}
		ok = false
		msg := fmt.Sprintf("unknown field %q", key)
		if near := nearest(key, names); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
			misspelt[near] = true
		}
		r.errorf(file, ptr+pointer(key), "unknown-field", "%s", msg)
	}
	for i, name := range names {
		v, present := obj[name]
		switch {
		case present:
			ok = checkValue(file, ptr+pointer(name), v, typ.Field(i).Type, r) && ok
		case !misspelt[name]: // a misspelling is reported once, as such
			r.errorf(file, ptr+pointer(name), "required", "required field %q is missing (use null if the value is unknown)", name)
			ok = false
		}
	}
	return ok
}

// checkValue checks that one JSON value decodes into typ.
func checkValue(file, ptr string, v json.RawMessage, typ reflect.Type, r *Report) bool {
	isNull := bytes.Equal(bytes.TrimSpace(v), []byte("null"))
	switch {
	case isNull && typ.Kind() == reflect.Pointer:
		return true
	case isNull:
		r.errorf(file, ptr, "type", "must be %s, not null", describeType(typ))
		return false
	case typ.Kind() == reflect.Pointer:
		return checkValue(file, ptr, v, typ.Elem(), r)
	case typ.Kind() == reflect.Struct:
		return checkFields(file, ptr, v, typ, r)
	case typ.Kind() == reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			r.errorf(file, ptr, "type", "must be an array, not %s", jsonKind(v))
			return false
		}
		ok := true
		for i, item := range items {
			ok = checkValue(file, ptr+pointer(i), item, typ.Elem(), r) && ok
		}
		return ok
	}
	if !scalarFits(bytes.TrimSpace(v), typ.Kind()) {
		r.errorf(file, ptr, "type", "must be %s, not %s", describeType(typ), jsonKind(v))
		return false
	}
	return true
}

// scalarFits reports whether a JSON value, already known to be well formed,
// decodes into a scalar of kind k. Looking at the value's first byte is
// enough for strings and booleans; an integer must have no fraction or
// exponent and fit.
func scalarFits(v []byte, k reflect.Kind) bool {
	if len(v) == 0 {
		return false
	}
	switch k {
	case reflect.String:
		return v[0] == '"'
	case reflect.Bool:
		return v[0] == 't' || v[0] == 'f'
	case reflect.Int, reflect.Int64, reflect.Int32:
		_, err := strconv.ParseInt(string(v), 10, 64)
		return err == nil
	}
	return false
}

func describeType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return describeType(t.Elem()) + " or null"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case '{':
		return "object"
	}
	return "number"
}

// position converts a byte offset into a 1-based line and column.
func position(b []byte, offset int64) (line, col int) {
	if offset > int64(len(b)) {
		offset = int64(len(b))
	}
	prefix := b[:offset]
	line = bytes.Count(prefix, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(prefix, '\n')
	return line, col
}

// nearest returns the candidate one edit away from s (an insertion, a
// deletion, a substitution or a swap of neighbours), or "".
func nearest(s string, candidates []string) string {
	for _, c := range candidates {
		if oneEdit(s, c) {
			return c
		}
	}
	return ""
}

func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		diff := []int{}
		for i := range len(a) {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		return len(diff) == 1 || (len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]])
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}
