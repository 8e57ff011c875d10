package dataset

import (
	"bytes"
	"encoding/json"
	"iter"
	"reflect"
	"strings"
)

// The load reads each JSON file once with encoding/json's validator, then
// walks the bytes it has found valid with the few functions here: a walk
// need not check the syntax again, so it skips a value by counting brackets
// outside strings, and allocates nothing for what it only looks at. The
// token reader and the reflecting decoder of encoding/json were most of
// the time a load took (docs/PERFORMANCE.md).

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the offset just past the string literal that starts
// (with its quote) at i.
func stringEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexAny(b[i:], "\"\\")
		if j < 0 {
			return len(b)
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes
	}
}

// valueEnd returns the offset just past the valid JSON value that starts
// at i (no white space before it).
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// keyString returns the text of the key literal lit (quotes included):
// without escapes, its bytes as they are. The few keys records have are
// made strings once, not once for each record (see keyNames).
func keyString(lit []byte) string {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if k, ok := keyNames[string(body)]; ok {
			return k
		}
		return string(body)
	}
	var s string
	_ = json.Unmarshal(lit, &s) // valid: the file was checked
	return s
}

// keyNames holds the keys of the record types' fields, each once.
var keyNames = func() map[string]string {
	m := map[string]string{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			m[name] = name
			add(t.Field(i).Type)
		}
	}
	for _, t := range []reflect.Type{reflect.TypeFor[Party](), reflect.TypeFor[District](), reflect.TypeFor[Candidate]()} {
		add(t)
	}
	return m
}()

// member is one key and value of a JSON object, as found in the file.
type member struct {
	key   string
	value []byte
}

// objectMembers splits the valid JSON object v into its members, in the
// order written; a repeated key appears each time.
func objectMembers(v []byte, dst []member) []member {
	i := skipSpace(v, 1)
	if v[i] == '}' {
		return dst
	}
	for {
		end := stringEnd(v, i)
		key := keyString(v[i:end])
		i = skipSpace(v, end)
		i = skipSpace(v, i+1) // the colon
		end = valueEnd(v, i)
		dst = append(dst, member{key, v[i:end]})
		i = skipSpace(v, end)
		if v[i] == '}' {
			return dst
		}
		i = skipSpace(v, i+1) // the comma
	}
}

// items yields the index and the bytes of each item of the valid JSON
// array v.
func items(v []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		i := skipSpace(v, 1)
		for n := 0; v[i] != ']'; n++ {
			end := valueEnd(v, i)
			if !yield(n, v[i:end]) {
				return
			}
			i = skipSpace(v, end)
			if v[i] == ',' {
				i = skipSpace(v, i+1)
			}
		}
	}
}
