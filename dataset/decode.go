package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"ballot/suggest"
)

// The files of a dataset directory.
const (
	ManifestFile   = "dataset.toml"
	PartiesFile    = "parties.json"
	DistrictsFile  = "districts.json"
	CandidatesFile = "candidates.json"
)

// FileNames returns the files of a dataset directory, in the order a load
// reads them; the last, CountsFile, may be missing.
func FileNames() [5]string {
	return [...]string{ManifestFile, PartiesFile, DistrictsFile, CandidatesFile, CountsFile}
}

// decodeManifest decodes dataset.toml strictly: unknown keys are errors that
// name the key.
func decodeManifest(b []byte, r *Report) (Manifest, bool) {
	var m Manifest
	problems, ok := DecodeTOML(ManifestFile, b, &m)
	for _, p := range problems {
		r.add(p)
	}
	return m, ok
}

// DecodeTOML decodes b, the TOML file named file, into v, a pointer to a
// struct, strictly, as dataset.toml is decoded: a syntax error, or a
// value of the wrong type, is a problem at its line and column; every key
// v has no field for is a problem at the key, with the nearest v has. It
// reports whether v decoded (unknown keys aside).
func DecodeTOML(file string, b []byte, v any) ([]Problem, bool) {
	r := &Report{}
	md, err := toml.Decode(string(b), v)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			r.add(Problem{File: file, Line: perr.Position.Line, Char: perr.Position.Col, Rule: "toml-syntax", Message: perr.Message})
		} else {
			r.errorf(file, "", "type", "%v", err)
		}
		return r.Errors, false
	}
	known := tomlKeys(reflect.TypeOf(v).Elem(), "")
	for _, key := range md.Undecoded() {
		near := suggest.Best(key.String(), slices.Values(known), 1)
		r.errorf(file, key.String(), "unknown-field", "unknown key %q%s", key.String(), suggest.Offer(suggest.Quoted(near)...))
	}
	return r.Errors, true
}

// CheckManifest decodes and checks a dataset.toml on its own, with the
// rules Load applies to it, and returns every problem found.
func CheckManifest(b []byte) (Manifest, []Problem) {
	r := &Report{}
	var d records
	d.manifest, d.manifestOK = decodeManifest(b, r)
	if d.manifestOK {
		d.checkManifest(r)
	}
	r.finish()
	return d.manifest, r.Errors
}

// tomlKeys lists the dotted keys a TOML document decoded into typ may
// have, tables and their keys alike.
func tomlKeys(typ reflect.Type, prefix string) []string {
	var keys []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys = append(keys, prefix+name)
		if ft := typ.Field(i).Type; ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]() {
			keys = append(keys, tomlKeys(ft, prefix+name+".")...)
		}
	}
	return keys
}

// file holds the records decoded from one JSON file. A record with a
// defect is left out of the rules that span records, so each defect is
// reported once, by the rule it breaks; its fields that decoded are still
// checked on their own, so every problem is reported in one run.
//
// Only the records that decoded whole are held, in recs: a file of a
// million defective records ({} each, three bytes) held as a million
// records took fifty times the file. A defective record is decoded again
// from the file's bytes, held while there is one, each time objects
// yields it.
type file[T any] struct {
	recs     []T    // the records that decoded whole, in order: every record when complete
	valid    []bool // valid[i]: record i decoded whole
	object   []bool // object[i]: record i is an object, so some fields may have decoded
	complete bool   // the file was read and every record decoded

	array []byte          // the file's array, while a record is defective
	at    int             // the defective record objects yields, whose fields good holds
	good  map[string]bool // pointers, within record at, of its fields that decoded
}

// release drops the bookkeeping of the checks; recs stays.
func (f *file[T]) release() { f.valid, f.object, f.array, f.good = nil, nil, nil, nil }

// each yields the index and value of every record that decoded.
func (f *file[T]) each(yield func(int, T) bool) {
	k := 0
	for i, ok := range f.valid {
		if !ok {
			continue
		}
		if !yield(i, f.recs[k]) {
			return
		}
		k++
	}
}

// objects yields every record that is an object, defective or not: the
// rules that look at one record alone run on each of its fields that
// decoded (see has). A defective record is decoded again for it.
func (f *file[T]) objects(yield func(int, T) bool) {
	if f.array == nil { // every record whole, or none read
		for i, rec := range f.recs {
			if !yield(i, rec) {
				return
			}
		}
		return
	}
	k := 0
	for i, raw := range items(f.array) {
		var rec T
		switch {
		case f.valid[i]:
			rec = f.recs[k]
			k++
		case f.object[i]:
			rec = f.decodeAgain(i, raw)
		default:
			continue
		}
		if !yield(i, rec) {
			return
		}
	}
}

// decodeAgain decodes the defective record i, raw, as decodeArray first
// did, and notes its fields that decoded.
func (f *file[T]) decodeAgain(i int, raw []byte) T {
	var rec T
	if p, ok := any(&rec).(presizer); ok {
		p.presize(raw)
	}
	_ = json.Unmarshal(raw, &rec) // a value of the wrong type is skipped, the rest decoded
	if f.good == nil {
		f.good = map[string]bool{}
	}
	clear(f.good)
	c := fieldCheck{r: &Report{quiet: true}, good: f.good} // its problems are reported already
	c.fields(raw, reflect.TypeFor[T]())
	f.at = i
	return rec
}

// has reports whether field of record i decoded, for a record objects
// yields.
func (f *file[T]) has(i int, field string) bool {
	if f.valid[i] {
		return true
	}
	var b [64]byte
	return f.at == i && f.good[string(appendPointer(b[:0], field))]
}

// hasIn reports whether field of item j of the array list of record i
// decoded, for a record objects yields.
func (f *file[T]) hasIn(i int, list string, j int, field string) bool {
	if f.valid[i] {
		return true
	}
	var b [64]byte
	return f.at == i && f.good[string(appendPointer(b[:0], list, j, field))]
}

// decodeArray decodes a JSON file that must hold an array of records of
// type T. Each record is checked for unknown, missing and null fields and
// for wrong types before it is decoded, so every defect is reported with the
// pointer of the field.
func decodeArray[T any](name string, b []byte, r *Report) file[T] {
	// The file was found valid JSON by scanJSON: its top value is split
	// into records without checking its syntax again.
	v := bytes.TrimSpace(b)
	switch kind := jsonKind(v); kind {
	case "array":
	case "null":
		r.errorf(name, "", "type", "must be a JSON array of records, not null")
		return file[T]{}
	default:
		r.errorf(name, "", "type", "must be a JSON array of records, not %s", kind)
		return file[T]{}
	}
	n := countItems(v)
	f := file[T]{valid: make([]bool, n), object: make([]bool, n), complete: true, at: -1}
	typ := reflect.TypeFor[T]()
	c := fieldCheck{file: name, r: r}
	whole := 0
	for i, raw := range items(v) {
		c.at = append(c.at[:0], token{index: i})
		f.valid[i] = c.fields(raw, typ)
		f.object[i] = raw[0] == '{'
		if f.valid[i] {
			whole++
		}
	}
	// Then the records found whole are decoded, and no other: a record
	// is as large as its fields, and a defective one may be "{}".
	f.recs = make([]T, 0, whole)
	for i, raw := range items(v) {
		if !f.valid[i] {
			continue
		}
		f.recs = append(f.recs, *new(T))
		rec := &f.recs[len(f.recs)-1]
		if p, ok := any(rec).(presizer); ok {
			p.presize(raw)
		}
		if err := json.Unmarshal(raw, rec); err != nil {
			f.valid[i] = false
			f.recs = f.recs[:len(f.recs)-1]
		}
	}
	if len(f.recs) < n {
		f.complete, f.array = false, v
	}
	return f
}

// presizer is a record with a list that may be long, made at its length
// before the record is decoded: decoding appends to the list as it finds,
// and a list grown by doubling held up to twice its size, and as much
// again in the copies left behind.
type presizer interface{ presize(raw []byte) }

// presize makes a district's localities at their number in the object raw.
func (d *District) presize(raw []byte) {
	if raw[0] != '{' {
		return
	}
	var buf [8]member
	members := objectMembers(raw, buf[:0])
	for j := len(members) - 1; j >= 0; j-- { // the last, as decoding takes
		if m := members[j]; m.key == "localities" {
			if m.value[0] == '[' {
				d.Localities = make([]Locality, 0, countItems(m.value))
			}
			return
		}
	}
}

// countItems counts the items of the valid JSON array v.
func countItems(v []byte) int {
	n := 0
	i := skipSpace(v, 1)
	for v[i] != ']' {
		n++
		i = skipSpace(v, valueEnd(v, i))
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
	return n
}

// fieldCheck compares JSON values with the record types, reporting every
// defect to r and noting in good the pointer of every field that is right.
type fieldCheck struct {
	file string
	r    *Report
	good map[string]bool
	at   []token // the pointer of the value being checked
}

// token is a reference token of the pointer of the value being checked:
// a member's key, or an item's (or a record's) index when key is "".
type token struct {
	key   string
	index int
}

// ptr is the JSON pointer of the value being checked, written out only
// for a problem or a mark: a record has tens of values.
func (c *fieldCheck) ptr() string {
	var b strings.Builder
	for _, t := range c.at {
		if t.key != "" {
			b.WriteString(pointer(t.key))
		} else {
			b.WriteByte('/')
			b.WriteString(strconv.Itoa(t.index))
		}
	}
	return b.String()
}

// enter makes the value at t, in the value being checked, the one checked;
// leave goes back up.
func (c *fieldCheck) enter(t token) { c.at = append(c.at, t) }
func (c *fieldCheck) leave()        { c.at = c.at[:len(c.at)-1] }

// fields compares a JSON object with the fields of a record type: unknown
// keys, missing required keys, null where null is not allowed, and values of
// the wrong type, each at the pointer of the field, down into arrays and
// nested records. It returns whether the object decodes into the type.
func (c *fieldCheck) fields(raw json.RawMessage, typ reflect.Type) bool {
	if raw[0] != '{' {
		c.r.errorf(c.file, c.ptr(), "type", "must be an object, not %s", jsonKind(raw))
		return false
	}
	var buf [16]member
	members := objectMembers(raw, buf[:0])
	// get returns the value of key: the last, when it is repeated, as
	// decoding takes it (scanJSON has reported the repeat).
	get := func(key string) (json.RawMessage, bool) {
		for j := len(members) - 1; j >= 0; j-- {
			if members[j].key == key {
				return members[j].value, true
			}
		}
		return nil, false
	}
	ok := true
	known := fieldNamesOf(typ)
	var unknown []string
	for _, m := range members {
		if !slices.Contains(known, m.key) && !slices.Contains(unknown, m.key) {
			unknown = append(unknown, m.key)
		}
	}
	slices.Sort(unknown)
	misspelt := map[string]bool{} // fields whose name an unknown key misspells
	for _, key := range unknown {
		ok = false
		near := suggest.Best(key, slices.Values(known), 1)
		if near != "" {
			misspelt[near] = true
		}
		c.r.errorf(c.file, c.ptr()+pointer(key), "unknown-field", "unknown field %q%s", key, suggest.Offer(suggest.Quoted(near)...))
	}
	for i, name := range known {
		field := typ.Field(i)
		v, present := get(name)
		c.enter(token{key: name})
		switch {
		case present:
			if c.value(v, field.Type) {
				c.mark()
			} else {
				ok = false
			}
		case field.Tag.Get("dataset") == "optional":
			c.mark() // absent means null, or false
		case misspelt[name]: // a misspelling is reported once, as such
			ok = false
		default:
			msg := fmt.Sprintf("required field %q is missing", name)
			if meaning := field.Tag.Get("null"); meaning != "" {
				msg += fmt.Sprintf(" (use null %s)", meaning)
			}
			c.r.errorf(c.file, c.ptr(), "required", "%s", msg)
			ok = false
		}
		c.leave()
	}
	return ok
}

// mark notes that the field being checked is right, when the check notes
// them.
func (c *fieldCheck) mark() {
	if c.good != nil {
		c.good[c.ptr()] = true
	}
}

// fieldNames caches the JSON names of the record types' fields.
var fieldNames sync.Map // reflect.Type -> []string

// fieldNamesOf returns the JSON names of the fields of the struct type
// typ, in order.
func fieldNamesOf(typ reflect.Type) []string {
	if names, ok := fieldNames.Load(typ); ok {
		return names.([]string)
	}
	names := make([]string, typ.NumField())
	for j := range names {
		names[j], _, _ = strings.Cut(typ.Field(j).Tag.Get("json"), ",")
	}
	fieldNames.Store(typ, names)
	return names
}

// checkValue checks that one JSON value decodes into typ.
func (c *fieldCheck) value(v json.RawMessage, typ reflect.Type) bool {
	if typ == cellType {
		return c.cell(bytes.TrimSpace(v))
	}
	isNull := bytes.Equal(bytes.TrimSpace(v), []byte("null"))
	switch {
	case isNull && typ.Kind() == reflect.Pointer:
		return true
	case isNull:
		c.r.errorf(c.file, c.ptr(), "type", "must be %s, not null", describeType(typ))
		return false
	case typ.Kind() == reflect.Pointer:
		return c.value(v, typ.Elem())
	case typ.Kind() == reflect.Struct:
		return c.fields(v, typ)
	case typ.Kind() == reflect.Slice:
		if v[0] != '[' {
			c.r.errorf(c.file, c.ptr(), "type", "must be an array, not %s", jsonKind(v))
			return false
		}
		// Item by item, not split first: a district's localities may
		// be a million.
		ok := true
		i := skipSpace(v, 1)
		for n := 0; v[i] != ']'; n++ {
			end := valueEnd(v, i)
			c.enter(token{index: n})
			ok = c.value(v[i:end], typ.Elem()) && ok
			c.leave()
			i = skipSpace(v, end)
			if v[i] == ',' {
				i = skipSpace(v, i+1)
			}
		}
		return ok
	}
	if t := bytes.TrimSpace(v); !scalarFits(t, typ.Kind()) {
		what := jsonKind(v)
		if what == "number" && len(t) <= 40 { // a fraction, or past 64 bits: say which
			what = string(t)
		}
		if describeType(typ) == "an integer" && isInteger(t) {
			// An integer, but past 64 bits: too large, not of another type.
			c.r.errorf(c.file, c.ptr(), "range", "%s", tooLarge(t))
			return false
		}
		c.r.errorf(c.file, c.ptr(), "type", "must be %s, not %s", describeType(typ), what)
		return false
	}
	return true
}

// cellType is Cell's type, a value of one of three kinds.
var cellType = reflect.TypeFor[Cell]()

// cell checks that the JSON value t decodes into a Cell: a whole number
// (of 64 bits), a string or null.
func (c *fieldCheck) cell(t []byte) bool {
	switch kind := jsonKind(t); {
	case kind == "string", kind == "null":
		return true
	case kind == "number" && isInteger(t):
		if _, ok := wholeNumber(t); ok {
			return true
		}
		c.r.errorf(c.file, c.ptr(), "range", "%s", tooLarge(t))
		return false
	case kind == "number" && len(t) <= 40:
		kind = string(t)
		fallthrough
	default:
		c.r.errorf(c.file, c.ptr(), "type", "must be a whole number, a string or null, not %s", kind)
		return false
	}
}

// isInteger reports whether the JSON number v is written as an integer:
// a minus or not, then digits only.
func isInteger(v []byte) bool {
	digits := bytes.TrimPrefix(v, []byte("-"))
	return len(digits) > 0 && len(bytes.Trim(digits, "0123456789")) == 0
}

// tooLarge says that the integer v, past 64 bits, is too large (or too
// small) for an integer, naming it when it is short enough to read.
func tooLarge(v []byte) string {
	n := string(v)
	switch {
	case len(v) > 40 && v[0] == '-':
		n = "a negative number of " + Thousands(len(v)-1) + " digits"
	case len(v) > 40:
		n = "a number of " + Thousands(len(v)) + " digits"
	}
	if v[0] == '-' {
		return fmt.Sprintf("is %s; must be at least %s", n, Thousands(math.MinInt64))
	}
	return fmt.Sprintf("is %s; must be at most %s", n, Thousands(math.MaxInt64))
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
		_, ok := wholeNumber(v)
		return ok
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
