// Package diff holds what changed between two editions of a dataset, for
// a reviewer to read before publishing: the manifest's changed keys, the
// records added, removed and changed in each collection (parties,
// districts, candidates, and the count sheets as results), matched by id,
// and the changes that break what clients rely on.
//
// It imports dataset, for the records and the one JSON encoder the API
// serves them through, and nothing of HTTP, the command line or the
// server. dataset must not import it.
package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"ballot/dataset"
)

// Diff is what a reviewer reads before publishing a new version of a
// dataset: the manifest's changes, and for each collection the records
// added, removed and changed, matched by id. Records are compared through
// their JSON encoding, field by field, so a field added to a record type
// shows in a diff without any change here.
type Diff struct {
	// Manifest lists the changed keys of dataset.toml.
	Manifest []Change `json:"manifest"`
	// Collections holds parties, districts, candidates and results (the
	// count sheets), in that order, changed or not.
	Collections []Collection `json:"collections"`
	// Warnings are changes that break what clients rely on.
	Warnings []Warning `json:"warnings"`
}

// Collection is the difference between one collection of two datasets.
// Added and changed records come in the new dataset's published order,
// removed ones in the old dataset's.
type Collection struct {
	// Name is the collection's name in the API: "parties", "districts",
	// "candidates" or "results".
	Name string `json:"name"`
	// Key is the field that identifies a record to people (its natural
	// key): "slug", "number" for districts, "district_number" for a
	// district's count sheet.
	Key     string         `json:"key"`
	Added   []RecordRef    `json:"added"`
	Removed []RecordRef    `json:"removed"`
	Changed []RecordChange `json:"changed"`
}

// RecordRef names one record and holds it whole, as the API serves it. A
// count sheet's id is its district's id, and its name its district's.
type RecordRef struct {
	ID     string          `json:"id"`
	Key    json.RawMessage `json:"key"`
	Name   string          `json:"name"`
	Record json.RawMessage `json:"record"`
}

// RecordChange is one record present in both datasets under the same id,
// with the fields that changed.
type RecordChange struct {
	ID      string          `json:"id"`
	Key     json.RawMessage `json:"key"`
	Name    string          `json:"name"`
	Changes []Change        `json:"changes"`
}

// Change is one changed value. Field is a path of keys and array indexes
// joined by "/" ("name", "localities/3/note", "publisher/url"): objects and
// arrays of the same length are compared element by element, anything else
// whole. Old or New is left out when the field is absent on that side.
type Change struct {
	Field string          `json:"field"`
	Old   json.RawMessage `json:"old,omitempty"`
	New   json.RawMessage `json:"new,omitempty"`
}

// Warning is a change that breaks what clients rely on.
type Warning struct {
	Collection string `json:"collection"`
	// Rule is "identity-break" (a record's natural key now has another id)
	// or "elected-removed" (a removed record had elected: true).
	Rule    string          `json:"rule"`
	ID      string          `json:"id"`
	NewID   string          `json:"new_id,omitempty"`
	Key     json.RawMessage `json:"key"`
	Message string          `json:"message"`
}

// Equal reports whether the two datasets hold the same manifest and the
// same records. Their versions may still differ, when only the files'
// layout (spacing, record order) did.
func (d *Diff) Equal() bool {
	if len(d.Manifest) > 0 {
		return false
	}
	for _, c := range d.Collections {
		if len(c.Added)+len(c.Removed)+len(c.Changed) > 0 {
			return false
		}
	}
	return true
}

// Edition is what a diff compares of a dataset: its manifest and its
// records encoded as the API serves them, in published order. It holds
// about the dataset's files' size, so that a diff of two large editions
// need not hold both datasets loaded.
type Edition struct {
	// Version is the dataset's version (dataset.Dataset.Version).
	Version     string
	manifest    json.RawMessage
	collections [4]collection
}

// NewEdition encodes the dataset ds for Compare.
func NewEdition(ds *dataset.Dataset) *Edition {
	return &Edition{
		Version:  ds.Version,
		manifest: manifestJSON(ds.Manifest),
		collections: [4]collection{
			{"parties", "slug", encodeRecords(ds.Parties(), "slug"), compareRecords, false},
			{"districts", "number", encodeRecords(ds.Districts(), "number"), compareRecords, false},
			{"candidates", "slug", encodeRecords(ds.Candidates(), "slug"), compareRecords, false},
			{"results", "district_number", encodeSheets(ds), compareSheet, true},
		},
	}
}

// Compare returns what changed from before to after.
func Compare(before, after *Edition) *Diff {
	d := &Diff{Manifest: []Change{}, Warnings: []Warning{}}
	compareValues("", before.manifest, after.manifest, &d.Manifest)
	for i := range before.collections {
		c, w := compareCollection(before.collections[i], after.collections[i])
		d.Collections = append(d.Collections, c)
		d.Warnings = append(d.Warnings, w...)
	}
	return d
}

// manifestJSON writes a manifest for comparison, as dataset.toml holds it:
// a key left out (an empty string, a zero date, no notes array) is left
// out, so that a diff shows it as absent rather than as "", and a date
// without a time of day is a date ("2026-01-15").
func manifestJSON(m dataset.Manifest) json.RawMessage {
	type publisher struct {
		Name     string `json:"name,omitempty"`
		URL      string `json:"url,omitempty"`
		AboutURL string `json:"about_url,omitempty"`
	}
	type election struct {
		Slug      string `json:"slug,omitempty"`
		Name      string `json:"name,omitempty"`
		NameEN    string `json:"name_en,omitempty"`
		Kind      string `json:"kind,omitempty"`
		Date      string `json:"date,omitempty"`
		ID        string `json:"id,omitempty"`
		Districts *int   `json:"districts,omitempty"`
	}
	type coverage struct {
		Summary string    `json:"summary,omitempty"`
		Notes   *[]string `json:"notes,omitempty"`
	}
	v := struct {
		Title       string    `json:"title,omitempty"`
		Description string    `json:"description,omitempty"`
		License     string    `json:"license,omitempty"`
		LicenseURL  string    `json:"license_url,omitempty"`
		PublishedAt string    `json:"published_at,omitempty"`
		Publisher   publisher `json:"publisher"`
		Coverage    coverage  `json:"coverage"`
		Election    *election `json:"election,omitempty"`
	}{
		Title: m.Title, Description: m.Description, License: m.License, LicenseURL: m.LicenseURL,
		PublishedAt: manifestDate(m.PublishedAt),
		Publisher:   publisher(m.Publisher),
		Coverage:    coverage{Summary: m.Coverage.Summary},
	}
	if e := m.Election; !e.IsZero() {
		v.Election = &election{Slug: e.Slug, Name: e.Name, NameEN: e.NameEN, Kind: e.Kind, ID: e.ID, Districts: e.Districts}
		if !e.Date.IsZero() {
			v.Election.Date = e.Date.String()
		}
	}
	if m.Coverage.Notes != nil {
		v.Coverage.Notes = &m.Coverage.Notes
	}
	return dataset.EncodeJSON(v)
}

// manifestDate writes published_at as dataset.toml gives it: "" when it is
// absent, a date when it has no time of day, else the whole timestamp.
func manifestDate(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0:
		return t.Format(time.DateOnly)
	default:
		return t.Format(time.RFC3339Nano)
	}
}

// collection is one collection's records encoded as the API serves them.
type collection struct {
	name, key string
	records   []record
	// compare appends the changes from one record to the other: the
	// records' JSON compared field by field (compareValues), or a count
	// sheet's (compareSheet).
	compare func(a, b json.RawMessage, out *[]Change)
	// byKey pairs a record with its counterpart in the other edition by
	// its key rather than its id: a count sheet by its district's number.
	byKey bool
}

// match is what pairs r with its counterpart in the other edition.
func (c collection) match(r record) string {
	if c.byKey {
		return string(r.key)
	}
	return r.id
}

// record is one encoded record with the fields a diff names it by.
type record struct {
	id   string
	key  json.RawMessage
	name string
	json json.RawMessage
}

// compareRecords compares two records' JSON field by field.
func compareRecords(a, b json.RawMessage, out *[]Change) { compareValues("", a, b, out) }

func encodeRecords[T any](recs []T, key string) []record {
	out := make([]record, len(recs))
	for i, r := range recs {
		b := json.RawMessage(dataset.EncodeRecord(r))
		fields := pickFields(b, "id", "name", key)
		var id, name string
		_ = json.Unmarshal(fields["id"], &id)
		_ = json.Unmarshal(fields["name"], &name)
		out[i] = record{id: id, key: fields[key], name: name, json: b}
	}
	return out
}

// encodeSheets encodes the count sheets as the API serves them
// (/results/{number}). A sheet has no id nor name of its own: it is
// named by its district's, and matched by its district's number, as
// clients ask for it, so that a district's new id shows as the sheet's
// district_id changed (and as the districts' identity break).
func encodeSheets(ds *dataset.Dataset) []record {
	names := make(map[string]string, len(ds.Districts()))
	for _, d := range ds.Districts() {
		names[d.ID] = d.Name
	}
	sheets := ds.Sheets()
	out := make([]record, len(sheets))
	var e dataset.Encoder
	for i := range sheets {
		sh := &sheets[i]
		out[i] = record{
			id:   sh.DistrictID,
			key:  json.RawMessage(strconv.Itoa(sh.DistrictNumber)),
			name: names[sh.DistrictID],
			json: encodeSheet(&e, sh),
		}
	}
	return out
}

// sheetNullLists is where a sheet without its counts and rows holds them,
// as dataset.EncodeRecord writes it.
var sheetNullLists = []byte(`"counts":null,"candidacies":null`)

// encodeSheet returns the bytes dataset.EncodeRecord(sh) returns, made a
// count and a row at a time into one buffer of their length: a sheet of
// many rows over many counts is megabytes, which one encoding of the whole
// would build in buffers doubled as they grow, several times its size at
// once beside the edition held before it.
func encodeSheet(e *dataset.Encoder, sh *dataset.CountSheet) json.RawMessage {
	head := *sh
	head.Counts, head.Candidacies = nil, nil
	h := bytes.Clone(e.Record(&head)) // e's buffer is written again below
	at := bytes.Index(h, sheetNullLists)
	if at < 0 || sh.Counts == nil || sh.Candidacies == nil { // a nil list is null: the sheet is written whole
		return bytes.Clone(e.Record(sh))
	}
	each := func(write func(b []byte)) {
		for i := range sh.Counts {
			write(e.Record(&sh.Counts[i]))
		}
		for i := range sh.Candidacies {
			write(e.Record(&sh.Candidacies[i]))
		}
	}
	size := len(h) - len(sheetNullLists) + len(`"counts":[],"candidacies":[]`) + max(0, len(sh.Counts)-1) + max(0, len(sh.Candidacies)-1)
	each(func(b []byte) { size += len(b) })
	out := make([]byte, 0, size)
	out = append(out, h[:at]...)
	out = append(out, `"counts":[`...)
	n := 0
	each(func(b []byte) {
		switch {
		case n == len(sh.Counts):
			out = append(out, `],"candidacies":[`...)
		case n > 0:
			out = append(out, ',')
		}
		out = append(out, b...)
		n++
	})
	if n == len(sh.Counts) { // no rows: the counts' list is still open
		out = append(out, `],"candidacies":[`...)
	}
	out = append(out, ']')
	return append(out, h[at+len(sheetNullLists):]...)
}

// sheetLists are the lists of a count sheet compared item by item. A
// sheet's rows are published in the order the count left them, which
// changes from count to count, so rows compared by place would pair
// different candidates: a count is compared with the count of the same
// number ("counts/13"), and a row with the same candidate's row, named by
// the candidate's name ("candidacies/Robert Abela/totals").
var sheetLists = map[string]keyedList{
	"counts":      {key: "number"},
	"candidacies": {key: "candidate_id", name: "name"},
}

// compareSheet compares two count sheets as compareValues compares two
// records, but for their lists (sheetLists).
func compareSheet(a, b json.RawMessage, out *[]Change) { compareWith(sheetLists, "", a, b, out) }

// keyedList is how the items of a list are paired: by their field key,
// and named in a change by their field name, or by their key when name is
// "". A name is followed by the item's key when two items share it in
// either edition, and written with "~" as "~0" and "/" as "~1", as a JSON
// pointer writes a key.
type keyedList struct{ key, name string }

// compareByKey compares the lists a and b item by item, each paired with
// the item of the other holding the same l.key: those of a first, in a's
// order, then those only b holds.
func compareByKey(lists map[string]keyedList, path string, a, b []json.RawMessage, l keyedList, out *[]Change) {
	type item struct {
		key, name string
		v         json.RawMessage
	}
	read := func(items []json.RawMessage) ([]item, map[string]int) {
		out := make([]item, len(items))
		at := make(map[string]int, len(items))
		for i, v := range items {
			f := pickFields(v, l.key, l.name)
			out[i] = item{key: string(f[l.key]), v: v}
			_ = json.Unmarshal(f[l.name], &out[i].name)
			at[out[i].key] = i
		}
		return out, at
	}
	olds, oldAt := read(a)
	news, newAt := read(b)
	shared := map[string]int{} // a name's most items in one edition
	for _, side := range [][]item{olds, news} {
		seen := map[string]int{}
		for _, it := range side {
			seen[it.name]++
		}
		for n, c := range seen {
			shared[n] = max(shared[n], c)
		}
	}
	label := func(it item) string {
		if l.name == "" {
			return keyText(json.RawMessage(it.key))
		}
		if i, ok := newAt[it.key]; ok { // as the new edition names it
			it.name = news[i].name
		}
		name := it.name
		if shared[name] > 1 || name == "" {
			name += " (" + keyText(json.RawMessage(it.key)) + ")"
		}
		return pointerEscape.Replace(name)
	}
	for _, o := range olds {
		if i, ok := newAt[o.key]; ok {
			compareWith(lists, join(path, label(o)), o.v, news[i].v, out)
		} else {
			*out = append(*out, Change{Field: join(path, label(o)), Old: o.v})
		}
	}
	for _, n := range news {
		if _, ok := oldAt[n.key]; !ok {
			*out = append(*out, Change{Field: join(path, label(n)), New: n.v})
		}
	}
}

// pointerEscape writes a name as a segment of a change's path, as a JSON
// pointer writes a key (RFC 6901): "~" as "~0", "/" as "~1".
var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// arrayItems returns the items of a JSON array, as slices of v rather than
// copies; nil when v is not an array.
func arrayItems(v json.RawMessage) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	items := []json.RawMessage{}
	var skip json.RawMessage // reused: only its extent is wanted
	for dec.More() {
		start := dec.InputOffset()
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
		end := dec.InputOffset()
		items = append(items, bytes.TrimLeft(v[start:end:end], " \t\r\n,"))
	}
	return items
}

// pickFields returns the named top-level fields of a JSON object.
func pickFields(v json.RawMessage, names ...string) map[string]json.RawMessage {
	_, fields := objectFields(v)
	out := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if f, ok := fields[n]; ok {
			out[n] = f
		}
	}
	return out
}

func compareCollection(before, after collection) (Collection, []Warning) {
	c := Collection{Name: before.name, Key: before.key, Added: []RecordRef{}, Removed: []RecordRef{}, Changed: []RecordChange{}}
	var warnings []Warning
	oldByID := make(map[string]record, len(before.records))
	oldByKey := make(map[string]record, len(before.records))
	for _, r := range before.records {
		oldByID[before.match(r)] = r
		oldByKey[string(r.key)] = r
	}
	newIDs := make(map[string]bool, len(after.records))
	for _, r := range after.records {
		newIDs[after.match(r)] = true
		o, ok := oldByID[after.match(r)]
		if !ok {
			c.Added = append(c.Added, r.ref())
			if prev, ok := oldByKey[string(r.key)]; ok {
				warnings = append(warnings, Warning{
					Collection: after.name, Rule: "identity-break", ID: prev.id, NewID: r.id, Key: r.key,
					Message: fmt.Sprintf("%s %s now has id %s instead of %s: clients that kept the old id lose it", after.key, keyText(r.key), r.id, prev.id),
				})
			}
			continue
		}
		var changes []Change
		after.compare(o.json, r.json, &changes)
		if len(changes) > 0 {
			c.Changed = append(c.Changed, RecordChange{ID: r.id, Key: r.key, Name: r.name, Changes: changes})
		}
	}
	for _, r := range before.records {
		if newIDs[before.match(r)] {
			continue
		}
		c.Removed = append(c.Removed, r.ref())
		if string(pickFields(r.json, "elected")["elected"]) == "true" {
			warnings = append(warnings, Warning{
				Collection: before.name, Rule: "elected-removed", ID: r.id, Key: r.key,
				Message: fmt.Sprintf("%s %s (id %s, %q) had elected: true and is removed", before.key, keyText(r.key), r.id, r.name),
			})
		}
	}
	// A key under a new id breaks identity only when its old id is gone:
	// two records that swapped keys are two changes, not two breaks.
	kept := warnings[:0]
	for _, w := range warnings {
		if w.Rule != "identity-break" || !newIDs[w.ID] {
			kept = append(kept, w)
		}
	}
	return c, kept
}

func (r record) ref() RecordRef {
	return RecordRef{ID: r.id, Key: r.key, Name: r.name, Record: r.json}
}

// keyText writes a natural key for people: a string without its quotes.
func keyText(key json.RawMessage) string {
	var s string
	if json.Unmarshal(key, &s) == nil {
		return s
	}
	return string(key)
}

// compareValues appends to out the changes from a to b, two JSON values as
// dataset.EncodeJSON writes them, under path.
func compareValues(path string, a, b json.RawMessage, out *[]Change) {
	compareWith(nil, path, a, b, out)
}

// compareWith is compareValues with the lists at the paths lists names
// compared item by item, as compareByKey pairs them, rather than by place.
func compareWith(lists map[string]keyedList, path string, a, b json.RawMessage, out *[]Change) {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return
	}
	if isObject(a) && isObject(b) {
		aKeys, aFields := objectFields(a)
		bKeys, bFields := objectFields(b)
		for _, k := range aKeys {
			if _, ok := bFields[k]; !ok {
				*out = append(*out, Change{Field: join(path, k), Old: aFields[k]})
				continue
			}
			compareWith(lists, join(path, k), aFields[k], bFields[k], out)
		}
		for _, k := range bKeys {
			if _, ok := aFields[k]; !ok {
				*out = append(*out, Change{Field: join(path, k), New: bFields[k]})
			}
		}
		return
	}
	if l, ok := lists[path]; ok {
		// A sheet's lists are megabytes: their items are slices of them.
		if aItems, bItems := arrayItems(a), arrayItems(b); aItems != nil && bItems != nil {
			compareByKey(lists, path, aItems, bItems, l, out)
			return
		}
	}
	var aItems, bItems []json.RawMessage
	if json.Unmarshal(a, &aItems) == nil && json.Unmarshal(b, &bItems) == nil && aItems != nil && bItems != nil && len(aItems) == len(bItems) {
		for i := range aItems {
			compareWith(lists, join(path, strconv.Itoa(i)), aItems[i], bItems[i], out)
		}
		return
	}
	*out = append(*out, Change{Field: path, Old: a, New: b})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "/" + key
}

func isObject(v json.RawMessage) bool { return len(v) > 0 && v[0] == '{' }

// objectFields returns the keys of a JSON object in the order they are
// written, and its values by key. The values are slices of v, not copies:
// a diff of two large editions holds each changed value once.
func objectFields(v json.RawMessage) ([]string, map[string]json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(v))
	fields := map[string]json.RawMessage{}
	var keys []string
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fields
	}
	var skip json.RawMessage // reused: only its extent is wanted
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		start := dec.InputOffset()
		if err := dec.Decode(&skip); err != nil {
			break
		}
		end := dec.InputOffset()
		val := bytes.TrimLeft(v[start:end:end], " \t\r\n:")
		keys = append(keys, k)
		fields[k] = val
	}
	return keys, fields
}

// String writes a change as "field: old → new", values as JSON, an absent
// side as "(absent)".
func (c Change) String() string {
	show := func(v json.RawMessage) string {
		if v == nil {
			return "(absent)"
		}
		return string(v)
	}
	return strings.Join([]string{c.Field, ": ", show(c.Old), " → ", show(c.New)}, "")
}
