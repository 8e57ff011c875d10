package sheet

import (
	"fmt"
	"strconv"
	"strings"

	"ballot/dataset"
)

// boolean reads a yes/no cell; an empty cell is null. Only the words the
// README lists are taken: a tick mark such as "x" is refused, since the
// empty cells beside it would read as unknown, not as no.
func (im *importer) boolean(t *table, r row, col string) *bool {
	var v bool
	switch strings.ToLower(t.get(r, col)) {
	case "":
		return nil
	case "yes", "true", "1", "y", "iva":
		v = true
	case "no", "false", "0", "n", "le":
		v = false
	default:
		im.add(t.file, r.line, col, "%s is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown", echo(t.get(r, col)))
		return nil
	}
	return &v
}

// url reads a cell that must be empty or an absolute http(s) URL.
func (im *importer) url(t *table, r row, col string) *string {
	s := dataset.Optional(t.get(r, col))
	if s == nil {
		return nil
	}
	if why := dataset.URLProblem(*s); why != "" {
		im.add(t.file, r.line, col, "%s is not an absolute http or https URL: %s", echo(*s), why)
	}
	return s
}

// required reads a cell that must not be empty.
func (im *importer) required(t *table, r row, col string) string {
	s := t.get(r, col)
	if s == "" {
		im.add(t.file, r.line, col, "must not be empty")
	}
	return s
}

// slug reads a cell that must be a slug, or derives one from a name when
// the cell is empty (or the file has no such column).
func (im *importer) slug(t *table, r row, col, name string) (slug string, derived bool) {
	if s := t.get(r, col); s != "" {
		if dataset.Slugify(s) != s {
			im.add(t.file, r.line, col, "%s", notSlug(s))
		}
		return s, false
	}
	return dataset.Slugify(name), true
}

// notSlug says that s is not a slug, and which would do when s makes one.
func notSlug(s string) string {
	if slug := dataset.Slugify(s); slug != "" {
		return fmt.Sprintf("%s is not a slug (lower-case ASCII letters and digits joined by single hyphens; %s would do)", echo(s), echo(slug))
	}
	return fmt.Sprintf("%s is not a slug (lower-case ASCII letters and digits joined by single hyphens)", echo(s))
}

// numbered returns slug, or slug-2, slug-3, … : the first not yet in
// used. Rows are taken in file order, so the first row keeps the plain
// slug and a later namesake gets the next free number.
func numbered(slug string, used map[string]int) string {
	if _, dup := used[slug]; !dup || slug == "" {
		return slug
	}
	for i := 2; ; i++ {
		s := slug + "-" + strconv.Itoa(i)
		if _, dup := used[s]; !dup {
			return s
		}
	}
}
