package sheet

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"

	"ballot/dataset"
	"ballot/suggest"
)

// districts is what districts.csv gives, indexed by number from 1 to the
// election's number of districts, and the names candidates.csv may give a
// district by.
type districts struct {
	byNumber []*dataset.District
	lines    []districtLines
	names    []districtName
	read     bool // districts.csv was read, so a name it lacks is an error
}

// count is how many districts the election has, numbered 1 to count.
func (ds *districts) count() int { return len(ds.byNumber) - 1 }

// districtLines is where a district's record comes from: its first row,
// the row of each of its localities, and the row that gives each of its
// own columns (district_name, seats, note, source_url, id), by column.
type districtLines struct {
	first      int
	localities []int
	own        map[string]int
}

// districtName is a name of a district, or of one of its localities.
type districtName struct {
	name, key string
	number    int
}

// find returns the number of the district a part of a candidate's
// districts cell gives: the number, or a name of the district or of a
// locality in it (districts.csv's district_name, "District N", locality,
// locality_name_en or locality_slug, matched as party names are) when
// that name is of one district alone. Otherwise it returns 0 and what to
// say, or "" when districts.csv could not be read (which is reported).
func (ds *districts) find(part string) (int, string) {
	if n, err := strconv.Atoi(part); err == nil {
		if n >= 1 && n <= ds.count() {
			return n, ""
		}
		return 0, fmt.Sprintf("district %s is not a number from 1 to %d", echo(part), ds.count())
	}
	if !ds.read {
		return 0, ""
	}
	k := key(part)
	var numbers []int
	var keys []nameKey
	for i, dn := range ds.names {
		if dn.key == k && !slices.Contains(numbers, dn.number) {
			numbers = append(numbers, dn.number)
		}
		keys = append(keys, nameKey{dn.key, i})
	}
	switch len(numbers) {
	case 1:
		return numbers[0], ""
	case 0:
	default:
		slices.Sort(numbers)
		var list []string
		for _, n := range numbers {
			list = append(list, strconv.Itoa(n))
		}
		return 0, fmt.Sprintf("%s is in %d districts in %s, %s: write the number of the one meant", echo(part), len(numbers), DistrictsFile, suggest.List(list, "and"))
	}
	msg := fmt.Sprintf("district %s is not a number from 1 to %d, nor the name of a district or locality in %s", echo(part), ds.count(), DistrictsFile)
	var near []string
	for _, i := range nearest(k, keys) {
		near = append(near, fmt.Sprintf("%d for %s", ds.names[i].number, bare(ds.names[i].name)))
	}
	return 0, msg + suggest.Offer(near...)
}

// name records a name of district n, unless it has one that matches it.
func (ds *districts) name(s string, n int) {
	k := key(s)
	if s == "" || slices.ContainsFunc(ds.names, func(dn districtName) bool { return dn.number == n && dn.key == k }) {
		return
	}
	ds.names = append(ds.names, districtName{s, k, n})
}

func (ds *districts) records() []dataset.District {
	out := []dataset.District{}
	for _, d := range ds.byNumber[1:] {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

func (im *importer) districts(src fs.FS) *districts {
	ds := &districts{byNumber: make([]*dataset.District, im.districtCount+1), lines: make([]districtLines, im.districtCount+1)}
	t, _ := im.readCSV(src, DistrictsFile, districtColumns, nil)
	if t == nil {
		return ds
	}
	ds.read = true
	seen := make([]districtSeen, im.districtCount+1)
	written := im.writtenSlugs(t)
	for _, r := range t.rows {
		n, ok := im.districtNumber(t, r, "number", t.get(r, "number"))
		if !ok {
			continue
		}
		d := ds.byNumber[n]
		if d == nil {
			d = &dataset.District{Number: n, Name: fmt.Sprintf("District %d", n), Localities: []dataset.Locality{}}
			// An id given on this row or another is read below, once.
			d.ID = im.derived("district/" + strconv.Itoa(n))
			ds.byNumber[n] = d
			seen[n] = districtSeen{names: map[string]int{}, slugs: maps.Clone(written[n]), own: map[string]given{}}
			if seen[n].slugs == nil {
				seen[n].slugs = map[string]int{}
			}
			ds.lines[n] = districtLines{first: r.line, own: map[string]int{}}
		}
		// A row without a locality gives its district's own columns
		// alone: a district whose localities are not given has one.
		own := t.get(r, "locality") == ""
		if own && seen[n].ownRow > 0 {
			im.add(t.file, r.line, "locality", "is empty, and district %d has a row without a locality already, on line %d: give its own columns on one row", n, seen[n].ownRow)
			continue
		}
		im.districtColumns(t, r, d, &seen[n], own)
		if own {
			seen[n].ownRow = r.line
			im.noLocality(t, r)
		} else if loc, ok := im.locality(t, r, n, &seen[n]); ok {
			d.Localities = append(d.Localities, loc)
			ds.lines[n].localities = append(ds.lines[n].localities, r.line)
		}
	}
	for n := range seen {
		for col, g := range seen[n].own {
			ds.lines[n].own[col] = g.line
		}
		// A district lists its localities, a row each, or has one row
		// without: an empty cell among its localities is a slip.
		if seen[n].ownRow > 0 && len(ds.lines[n].localities) > 0 {
			im.add(t.file, seen[n].ownRow, "locality", "must not be empty")
		}
	}
	ds.nameAll()
	for n := 1; n <= ds.count(); n++ {
		if ds.byNumber[n] == nil && !im.districtsRefused {
			im.add(t.file, 0, "number", "district %d has no rows: each of the %d districts needs a row for each of its localities (or one row with the locality empty, where they are not given)", n, ds.count())
		}
	}
	return ds
}

// districtSeen is what the rows of one district have given so far.
type districtSeen struct {
	names, slugs map[string]int   // folded name, slug -> line
	own          map[string]given // district_name, seats, note, source_url, id
	ownRow       int              // the line of its row without a locality; 0 for none
}

// given is a value a row gives, and the row's line.
type given struct {
	value string
	line  int
}

// writtenSlugs returns the locality slugs written in the sheet, in each
// district, with their lines, reporting a repeat: they are reserved
// first, so a derived slug never takes one a later row gives.
func (im *importer) writtenSlugs(t *table) []map[string]int {
	written := make([]map[string]int, im.districtCount+1)
	for _, r := range t.rows {
		n, err := strconv.Atoi(t.get(r, "number"))
		slug := t.get(r, "locality_slug")
		if err != nil || n < 1 || n > im.districtCount || slug == "" || t.get(r, "locality") == "" {
			continue // reported by districts
		}
		if written[n] == nil {
			written[n] = map[string]int{}
		}
		if first, dup := written[n][slug]; dup {
			im.add(t.file, r.line, "locality_slug", "%s is already used in district %d on line %d", echo(slug), n, first)
			continue
		}
		written[n][slug] = r.line
	}
	return written
}

// districtColumns reads the district's own columns of a row into d: they
// may be given on any one of its rows, or repeated alike on several. The
// note is the district's on a row without a locality (own), and the
// locality's on a row with one.
func (im *importer) districtColumns(t *table, r row, d *dataset.District, s *districtSeen, own bool) {
	for _, col := range []string{"district_name", "seats", "note", "source_url", "id"} {
		v := t.get(r, col)
		if v == "" || col == "note" && !own {
			continue
		}
		if g, ok := s.own[col]; ok {
			if g.value != v {
				im.add(t.file, r.line, col, "district %d is given %s here but %s on line %d", d.Number, echo(v), echo(g.value), g.line)
			}
			continue
		}
		s.own[col] = given{v, r.line}
		switch col {
		case "district_name":
			d.Name = v
		case "seats":
			// 0 is kept, for the dataset's rule to refuse at the cell.
			if seats, ok := im.votes(t, r, col, ""); ok {
				d.Seats = &seats
			}
		case "note":
			d.Note = &v
		case "source_url":
			d.SourceURL = im.url(t, r, col)
		case "id":
			d.ID = im.id(t, r, "")
		}
	}
}

// noLocality refuses the columns of a locality on a row that names none:
// such a row gives its district's own columns alone.
func (im *importer) noLocality(t *table, r row) {
	for _, col := range []string{"locality_slug", "locality_name_en", "split"} {
		if t.get(r, col) != "" {
			im.add(t.file, r.line, col, "is a locality's, and the row names no locality: a row with the locality empty gives its district's own columns alone (district_name, seats, note, source_url, id)")
		}
	}
}

// locality reads the locality a row of district n gives; ok is false when
// it gives none, or one the district already lists.
func (im *importer) locality(t *table, r row, n int, s *districtSeen) (loc dataset.Locality, ok bool) {
	name := im.required(t, r, "locality")
	if name == "" {
		return loc, false
	}
	loc = dataset.Locality{Name: name, NameEN: dataset.Optional(t.get(r, "locality_name_en")), Note: dataset.Optional(t.get(r, "note"))}
	if split := im.boolean(t, r, "split"); split != nil {
		loc.Split = *split
	}
	if first, dup := s.names[dataset.Fold(name)]; dup {
		im.add(t.file, r.line, "locality", "%s is already listed in district %d on line %d", echo(name), n, first)
		return loc, false
	}
	s.names[dataset.Fold(name)] = r.line
	slug, derived := im.slug(t, r, "locality_slug", name)
	if derived {
		slug = numbered(slug, s.slugs)
		s.slugs[slug] = r.line
	}
	if slug == "" {
		im.add(t.file, r.line, "locality", "%s makes no slug: give one in locality_slug", echo(name))
	}
	loc.Slug = slug
	return loc, true
}

// nameAll records the names candidates.csv may give each district by:
// its name, "District N", and the names and slugs of its localities.
func (ds *districts) nameAll() {
	for n := 1; n <= ds.count(); n++ {
		if d := ds.byNumber[n]; d != nil {
			ds.name(d.Name, n)
			ds.name(fmt.Sprintf("District %d", n), n)
			for _, l := range d.Localities {
				ds.name(l.Name, n)
				ds.name(dataset.Text(l.NameEN), n)
				ds.name(l.Slug, n)
			}
		}
	}
}

// districtNumber reads a district number from 1 to the election's number
// of districts.
func (im *importer) districtNumber(t *table, r row, col, s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > im.districtCount {
		if s == "" {
			im.add(t.file, r.line, col, "must not be empty")
		} else {
			im.add(t.file, r.line, col, "district %s is not a number from 1 to %d", echo(s), im.districtCount)
		}
		return 0, false
	}
	return n, true
}
