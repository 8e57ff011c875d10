package sheet

import (
	"io/fs"

	"github.com/google/uuid"

	"ballot/dataset"
)

// id returns the id a row gives, or the one derived from its natural key.
func (im *importer) id(t *table, r row, key string) string {
	if given := t.get(r, "id"); given != "" {
		u, err := uuid.Parse(given)
		if err != nil || len(given) != 36 {
			im.add(t.file, r.line, "id", "%q is not a UUID (8-4-4-4-12 hex digits)", given)
			return ""
		}
		return u.String()
	}
	return im.derived(key)
}

// derived returns the id derived from a natural key.
func (im *importer) derived(key string) string {
	if !im.hasNS {
		return "" // reported once, by manifest
	}
	return uuid.NewSHA1(im.namespace, []byte(im.keyPrefix+key)).String()
}

// manifest reads dataset.toml for the id namespace; the rest of it is
// checked with the dataset's own rules once the records are built.
func (im *importer) manifest(src fs.FS) []byte {
	b, ok := im.read(src, dataset.ManifestFile)
	if !ok {
		return nil
	}
	m, problems := dataset.CheckManifest(b)
	im.problems = append(im.problems, problems...)
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
