package sheet

import (
	"io/fs"

	"github.com/google/uuid"

	"ballot/dataset"
)

// id returns the id a row gives, or the one derived from its natural key.
func (im *importer) id(t *table, r row, key string) string {
	if t.get(r, "id") != "" {
		return im.uuid(t, r, "id")
	}
	return im.derived(key)
}

// uuid reads a cell that must hold a UUID, in any letter case, and
// returns it in lower case; "" when it is not one.
func (im *importer) uuid(t *table, r row, col string) string {
	given := t.get(r, col)
	u, err := uuid.Parse(given)
	if err != nil || len(given) != 36 {
		im.add(t.file, r.line, col, "%s is not a UUID (8-4-4-4-12 hex digits)", echo(given))
		return ""
	}
	return u.String()
}

// PersonKey is the natural key of the person whose key is key: a person's
// id is derived from it in ids.namespace without ids.key_prefix, so that
// every election imported with the namespace gives a person one id.
func PersonKey(key string) string { return "person/" + key }

// person reads a candidate's person from the row: a key in the person
// column, from which the id is derived (PersonKey), or the id itself in
// person_id; nil when the row gives neither.
func (im *importer) person(t *table, r row) *string {
	key, given := t.get(r, "person"), t.get(r, "person_id")
	var id string
	switch {
	case key != "" && given != "":
		im.add(t.file, r.line, "person_id", "the row gives both a person key (%s) and a person_id: give one of the two", echo(key))
		return nil
	case given != "":
		id = im.uuid(t, r, "person_id")
	case key != "" && im.hasNS:
		id = uuid.NewSHA1(im.namespace, []byte(PersonKey(key))).String()
	}
	if id == "" {
		return nil
	}
	return &id
}

// derived returns the id derived from a natural key.
func (im *importer) derived(key string) string {
	if !im.hasNS {
		return "" // reported once, by manifest
	}
	return uuid.NewSHA1(im.namespace, []byte(im.keyPrefix+key)).String()
}

// manifest reads dataset.toml for the id namespace and the number of
// districts; the rest of it is checked with the dataset's own rules once
// the records are built.
func (im *importer) manifest(src fs.FS) []byte {
	b, ok := im.read(src, dataset.ManifestFile)
	if !ok {
		return nil
	}
	m, problems := dataset.CheckManifest(b)
	im.problems = append(im.problems, problems...)
	switch n := m.Election.Districts; {
	case n == nil:
	case *n >= 1 && *n <= dataset.MaxDistricts:
		im.districtCount = *n
	default: // reported by CheckManifest
		im.districtCount, im.districtsRefused = dataset.MaxDistricts, true
	}
	if len(problems) > 0 {
		return b
	}
	switch ns, err := uuid.Parse(m.IDs.Namespace); {
	case m.IDs.Namespace == "":
		im.problems = append(im.problems, dataset.Problem{File: dataset.ManifestFile, Pointer: "ids.namespace", Message: "missing: ids are derived from it; add [ids] with namespace = a UUID of your own (uuidgen makes one) and never change it"})
	case err == nil:
		im.namespace, im.keyPrefix, im.hasNS = ns, m.IDs.KeyPrefix, true
	}
	return b
}
