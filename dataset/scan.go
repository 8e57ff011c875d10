package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanJSON reads a JSON file token by token for what decoding it would hide
// or change: keys repeated in an object (decoding keeps the last), and text
// that is not what it seems in any key or string (invalid UTF-8 and lone
// surrogates, which decoding turns into U+FFFD; control characters;
// bidirectional controls, which make text display in another order than it
// is stored). Each is an error at its JSON pointer. It returns false, with
// one syntax error reported, when the file is not JSON, and false when ctx
// ends.
func scanJSON(ctx context.Context, name string, b []byte, r *Report) bool {
	if json.Valid(b) {
		return walkJSON(ctx, name, b, r)
	}
	// Not JSON: the token reader reports what it finds before the
	// syntax error, then the error.
	return scanTokens(ctx, name, b, r)
}

// scanTokens is scanJSON with encoding/json's token reader, for a file that
// is not valid JSON.
func scanTokens(ctx context.Context, name string, b []byte, r *Report) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers are not looked at: no need to parse them
	var stack []*scanFrame
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return false
		}
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			reportSyntax(name, b, r)
			return false
		}
		var top *scanFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			stack = stack[:len(stack)-1]
		} else if s, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
			// A key: its own text, then whether the object has it already.
			if rule, msg := checkText(rawString(b, before, dec.InputOffset()), false); rule != "" {
				r.errorf(name, top.ptr, rule, "a key %s", msg)
			}
			if top.seen(s) {
				r.errorf(name, top.ptr+pointer(s), "duplicate-key", "key %q appears twice in this object; only one may be given", s)
			}
			top.key, top.wantKey = s, false
			continue
		} else {
			// A value: a string is checked, an object or array opens.
			ptr, field := "", ""
			if top != nil {
				ptr, field = top.child()
			}
			switch v := tok.(type) {
			case string:
				if rule, msg := checkText(rawString(b, before, dec.InputOffset()), freeText[field]); rule != "" {
					r.errorf(name, ptr, rule, "%s", msg)
				}
			case json.Delim:
				if len(stack) == maxDepth {
					line, col := position(b, before)
					r.add(Problem{File: name, Line: line, Char: col, Rule: "json-syntax", Message: fmt.Sprintf("arrays and objects nested deeper than %d levels", maxDepth)})
					return false
				}
				stack = append(stack, &scanFrame{ptr: ptr, object: v == '{', wantKey: v == '{'})
			}
		}
		if len(stack) == 0 {
			break
		}
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		reportSyntax(name, b, r)
		return false
	}
	return true
}

// maxDepth is how deep arrays and objects may nest: records nest four deep
// (a file's array, a district, its localities, a locality), and the bound
// keeps the scan's memory, pointers included, small whatever the file.
const maxDepth = 64

// freeText names the fields whose text may run over lines: a tab, a line
// feed or a carriage return is allowed there and nowhere else.
var freeText = map[string]bool{"note": true, "description": true, "summary": true, "notes": true}

// scanFrame is an object or array being scanned.
type scanFrame struct {
	ptr      string
	object   bool
	wantKey  bool   // in an object: the next string is a key
	key      string // in an object: the key of the value that comes next
	index    int    // in an array: the index of the value that comes next
	keysSeen        // in an object: the keys so far
}

// child returns the pointer of the value that comes next in the frame, and
// the name of the field it belongs to (an array's items belong to the
// array's field).
func (f *scanFrame) child() (ptr, field string) {
	if f.object {
		f.wantKey = true
		return f.ptr + pointer(f.key), f.key
	}
	f.index++
	_, field, _ = cutLast(f.ptr)
	return f.ptr + pointer(f.index-1), field
}

// keysSeen are the keys of an object so far. Records have a dozen keys, so
// a slice does; a huge object gets a map.
type keysSeen struct {
	keys   []string
	keySet map[string]bool
}

// seen records key and reports whether the object had it already.
func (f *keysSeen) seen(key string) bool {
	if f.keySet != nil {
		if f.keySet[key] {
			return true
		}
		f.keySet[key] = true
		return false
	}
	if slices.Contains(f.keys, key) {
		return true
	}
	f.keys = append(f.keys, key)
	if len(f.keys) > 32 {
		f.keySet = make(map[string]bool, 2*len(f.keys))
		for _, k := range f.keys {
			f.keySet[k] = true
		}
		f.keys = nil
	}
	return false
}

// cutLast splits a pointer at its last token (left unescaped: field names
// hold neither "~" nor "/").
func cutLast(ptr string) (before, last string, ok bool) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return ptr, "", false
	}
	return ptr[:i], ptr[i+1:], true
}

// rawString returns the bytes between the quotes of the string token that
// the decoder read between offsets from and to: before it come only
// white space, a comma or a colon.
func rawString(b []byte, from, to int64) []byte {
	lit := b[from:to]
	if i := bytes.IndexByte(lit, '"'); i >= 0 && len(lit) >= i+2 {
		return lit[i+1 : len(lit)-1]
	}
	return nil
}

// checkText checks the body of a JSON string literal, escapes as written,
// and returns the rule it breaks and a message, or "" when it is clean. The
// message never quotes the text: it may not display as it is stored.
func checkText(lit []byte, free bool) (rule, msg string) {
	for i := 0; i < len(lit); {
		c := lit[i]
		if c == '\\' && i+1 < len(lit) {
			if lit[i+1] != 'u' {
				if e, ok := escapes[lit[i+1]]; ok {
					if rule, msg := checkRune(e, free); rule != "" {
						return rule, msg
					}
				}
				i += 2
				continue
			}
			cp, ok := hex4(lit[i+2:])
			if !ok { // the decoder has refused the literal already
				return "", ""
			}
			i += 6
			switch {
			case cp >= 0xD800 && cp <= 0xDBFF:
				low, ok := uint32(0), false
				if i+1 < len(lit) && lit[i] == '\\' && lit[i+1] == 'u' {
					low, ok = hex4(lit[i+2:])
				}
				if !ok || low < 0xDC00 || low > 0xDFFF {
					return "lone-surrogate", fmt.Sprintf("holds the lone surrogate escape \\u%04x, which is no character (write the character itself, or a surrogate pair)", cp)
				}
				i += 6
				continue // a pair is a character beyond U+FFFF: neither control nor bidi
			case cp >= 0xDC00 && cp <= 0xDFFF:
				return "lone-surrogate", fmt.Sprintf("holds the lone surrogate escape \\u%04x, which is no character (write the character itself, or a surrogate pair)", cp)
			}
			if rule, msg := checkRune(rune(cp), free); rule != "" {
				return rule, msg
			}
			continue
		}
		if c < utf8.RuneSelf {
			if rule, msg := checkRune(rune(c), free); rule != "" {
				return rule, msg
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(lit[i:])
		if r == utf8.RuneError && size == 1 {
			return "invalid-utf8", fmt.Sprintf("is not valid UTF-8 text (byte %d of the string); save the file as UTF-8", i+1)
		}
		if rule, msg := checkRune(r, free); rule != "" {
			return rule, msg
		}
		i += size
	}
	return "", ""
}

// escapes maps JSON's one-letter escapes to the characters they stand for.
var escapes = map[byte]rune{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func hex4(b []byte) (uint32, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return uint32(v), err == nil
}

// CheckText applies the text rules of dataset files to s: no control
// characters (but a tab and line breaks in free text, such as a note) and
// no bidirectional controls. It returns the rule and a message for the
// first character that breaks them, or empty strings. Importers check
// their cells with it, so that what they write is what a load accepts.
func CheckText(s string, free bool) (rule, msg string) {
	for _, r := range s {
		if rule, msg := checkRune(r, free); rule != "" {
			return rule, msg
		}
	}
	return "", ""
}

// checkRune refuses control characters (C0, DEL, C1), except a tab, line
// feed or carriage return in free text, and the bidirectional controls
// (embeddings, overrides, isolates and marks) everywhere.
func checkRune(r rune, free bool) (rule, msg string) {
	switch {
	case free && (r == '\t' || r == '\n' || r == '\r'):
		return "", ""
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		where := "names, slugs, ids and links"
		if free {
			where = "text, where only a tab and line breaks are allowed"
		}
		return "control-character", fmt.Sprintf("holds the control character U+%04X, not allowed in %s", r, where)
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return "bidi-control", fmt.Sprintf("holds the bidirectional control U+%04X, which can make text display in another order than it is stored", r)
	}
	return "", ""
}

// checkManifestText applies the rules of checkText to every string of
// dataset.toml, which the TOML decoder has already decoded (it refuses
// invalid UTF-8 itself), at the pointer of its key.
func checkManifestText(m Manifest, r *Report) {
	fields := []struct {
		key, value string
		free       bool
	}{
		{"title", m.Title, false},
		{"description", m.Description, true},
		{"license", m.License, false},
		{"license_url", m.LicenseURL, false},
		{"publisher.name", m.Publisher.Name, false},
		{"publisher.url", m.Publisher.URL, false},
		{"publisher.about_url", m.Publisher.AboutURL, false},
		{"coverage.summary", m.Coverage.Summary, true},
	}
	for i, note := range m.Coverage.Notes {
		fields = append(fields, struct {
			key, value string
			free       bool
		}{fmt.Sprintf("coverage.notes[%d]", i), note, true})
	}
	for _, f := range fields {
		if !utf8.ValidString(f.value) {
			r.errorf(ManifestFile, f.key, "invalid-utf8", "is not valid UTF-8 text")
			continue
		}
		for _, c := range f.value {
			if rule, msg := checkRune(c, f.free); rule != "" {
				r.errorf(ManifestFile, f.key, rule, "%s", msg)
				break
			}
		}
	}
}

// reportSyntax reports why a file is not JSON, with its line and column,
// without quoting the file's bytes: a file that is not JSON may be anything,
// and a report must not show it. The decoder's offsets are relative to the
// value it was reading, so the position comes from Unmarshal, which checks
// the whole file first and stops at the first error.
func reportSyntax(name string, b []byte, r *Report) {
	line, col := position(b, int64(len(b)))
	msg := "unexpected end of file"
	var serr *json.SyntaxError
	if err := json.Unmarshal(b, new(json.RawMessage)); errors.As(err, &serr) && serr.Error() != "unexpected end of JSON input" {
		// Offset counts the bytes read, the offending one included.
		line, col = position(b, max(serr.Offset-1, 0))
		msg = unquoteChar(serr.Error())
	}
	r.add(Problem{File: name, Line: line, Char: col, Rule: "json-syntax", Message: "not JSON: " + msg})
}

// unquoteChar removes the quoted byte from encoding/json's "invalid
// character 'x' looking for beginning of value".
func unquoteChar(msg string) string {
	const prefix = "invalid character '"
	if !strings.HasPrefix(msg, prefix) {
		return msg
	}
	if i := strings.Index(msg[len(prefix)+1:], "' "); i >= 0 {
		return "invalid character " + msg[len(prefix)+1+i+2:]
	}
	return "invalid character"
}

// walkFrame is an object or array being walked.
type walkFrame struct {
	object   bool
	key      string // in an object: the key of the value being walked
	index    int    // in an array: the index of the value being walked
	keysSeen        // in an object: the keys so far
}

// walkJSON is scanJSON on a file that is valid JSON: the same rules at the
// same pointers, with the pointers built only for a problem.
func walkJSON(ctx context.Context, name string, b []byte, r *Report) bool {
	w := walker{name: name, b: b, r: r, i: skipSpace(b, 0)}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return false
		}
		// w.i is at a value.
		switch c := b[w.i]; c {
		case '{', '[':
			ok, entered := w.open(c)
			if !ok {
				return false
			}
			if entered {
				continue
			}
		case '"':
			w.text()
		default:
			end := valueEnd(b, w.i)
			w.prevEnd = end
			w.i = skipSpace(b, end)
		}
		if w.next() {
			return true
		}
	}
}

// walker is where walkJSON is in a file: the containers it is in, the
// offset of the next token and the end of the last one.
type walker struct {
	name    string
	b       []byte
	r       *Report
	stack   []walkFrame
	i       int // the next token
	prevEnd int // the end of the last token, where a depth error points
}

// ptrAt is the pointer of the value at depth d: the tokens of the frames
// below it.
func (w *walker) ptrAt(d int) string {
	var sb strings.Builder
	for _, f := range w.stack[:d] {
		if f.object {
			sb.WriteString(pointer(f.key))
		} else {
			sb.WriteString(pointer(f.index))
		}
	}
	return sb.String()
}

// field is the name of the field a value at the top of the stack belongs
// to: its key, or, for an array's item, the array's field.
func (w *walker) field() string {
	n := len(w.stack)
	switch {
	case n == 0:
		return ""
	case w.stack[n-1].object:
		return w.stack[n-1].key
	case n >= 2 && w.stack[n-2].object:
		return w.stack[n-2].key
	case n >= 2:
		return strconv.Itoa(w.stack[n-2].index)
	}
	return ""
}

// open enters the object or array that starts at w.i. It reports false,
// with the problem, when that is one level too deep, and whether it
// entered it: an empty one is passed over as a value.
func (w *walker) open(c byte) (ok, entered bool) {
	b := w.b
	if len(w.stack) == maxDepth {
		line, col := position(b, int64(w.prevEnd))
		w.r.add(Problem{File: w.name, Line: line, Char: col, Rule: "json-syntax", Message: fmt.Sprintf("arrays and objects nested deeper than %d levels", maxDepth)})
		return false, false
	}
	// A frame's keys are kept for the next object at its depth: a file
	// has an object for each record.
	if d := len(w.stack); d < cap(w.stack) {
		w.stack = w.stack[:d+1]
		w.stack[d] = walkFrame{object: c == '{', keysSeen: keysSeen{keys: w.stack[d].keys[:0]}}
	} else {
		w.stack = append(w.stack, walkFrame{object: c == '{'})
	}
	w.prevEnd = w.i + 1
	w.i = skipSpace(b, w.i+1)
	if b[w.i] == '}' || b[w.i] == ']' {
		w.prevEnd = w.i + 1
		w.stack = w.stack[:len(w.stack)-1]
		w.i = skipSpace(b, w.i+1)
		return true, false
	}
	if c == '{' {
		w.key(&w.stack[len(w.stack)-1], len(w.stack)-1)
	}
	return true, true
}

// text checks the string value at w.i by the rules of its field.
func (w *walker) text() {
	end := stringEnd(w.b, w.i)
	if rule, msg := checkText(w.b[w.i+1:end-1], freeText[w.field()]); rule != "" {
		w.r.errorf(w.name, w.ptrAt(len(w.stack)), rule, "%s", msg)
	}
	w.prevEnd = end
	w.i = skipSpace(w.b, end)
}

// next moves past a value: to the comma and the next value (and its key,
// in an object), or out of the containers that end there. It reports
// whether the file's value has ended.
func (w *walker) next() bool {
	b := w.b
	for {
		if len(w.stack) == 0 {
			return true
		}
		top := &w.stack[len(w.stack)-1]
		if b[w.i] == ',' {
			w.i = skipSpace(b, w.i+1)
			if top.object {
				w.key(top, len(w.stack)-1)
			} else {
				top.index++
			}
			return false
		}
		// '}' or ']'
		w.prevEnd = w.i + 1
		w.stack = w.stack[:len(w.stack)-1]
		w.i = skipSpace(b, w.i+1)
	}
}

// key checks the key that starts at w.i in the object f, at depth d of the
// walk, and moves w.i to the key's value.
func (w *walker) key(f *walkFrame, d int) {
	b := w.b
	end := stringEnd(b, w.i)
	if rule, msg := checkText(b[w.i+1:end-1], false); rule != "" {
		w.r.errorf(w.name, w.ptrAt(d), rule, "a key %s", msg)
	}
	key := keyString(b[w.i:end])
	if f.seen(key) {
		w.r.errorf(w.name, w.ptrAt(d)+pointer(key), "duplicate-key", "key %q appears twice in this object; only one may be given", key)
	}
	f.key = key
	w.prevEnd = end
	w.i = skipSpace(b, skipSpace(b, end)+1)
}
