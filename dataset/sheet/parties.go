package sheet

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// parties is what parties.csv gives: the records and how candidates.csv
// may name each party.
type parties struct {
	records []dataset.Party
	lines   []int            // the line of each record
	byCode  map[string]int   // key of a slug or short name -> record
	byName  map[string][]int // key of a name or English name -> records
	read    bool             // parties.csv was read, so a party it lacks is an error
}

// find returns the record a candidate's party cell names: by slug or short
// name first, then by name or English name when one party alone has it.
// Otherwise it returns -1 and what to say.
func (ps *parties) find(cell string) (int, string) {
	k := key(cell)
	if i, ok := ps.byCode[k]; ok {
		return i, ""
	}
	switch found := ps.byName[k]; len(found) {
	case 1:
		return found[0], ""
	case 0:
	default:
		var names []string
		for _, i := range found {
			names = append(names, fmt.Sprintf("%s (line %d)", echo(ps.records[i].Slug), ps.lines[i]))
		}
		return -1, fmt.Sprintf("%s is the name of %d parties in %s, %s: write the slug of the one meant", echo(cell), len(found), PartiesFile, suggest.List(names, "and"))
	}
	var keys []nameKey
	for i, p := range ps.records {
		for _, n := range []string{p.Slug, p.ShortName, p.Name, dataset.Text(p.NameEN)} {
			if n != "" {
				keys = append(keys, nameKey{key(n), i})
			}
		}
	}
	msg := fmt.Sprintf("no party in %s has the slug, short name, name or English name %s", PartiesFile, echo(cell))
	var near []string
	for _, i := range nearest(k, keys) {
		near = append(near, fmt.Sprintf("%s for %s", echo(ps.records[i].Slug), bare(ps.records[i].Name)))
	}
	return -1, msg + suggest.Offer(near...) + "; leave it empty for an independent"
}

func (im *importer) parties(src fs.FS) parties {
	ps := parties{records: []dataset.Party{}, byCode: map[string]int{}, byName: map[string][]int{}}
	t, _ := im.readCSV(src, PartiesFile, partyColumns, nil)
	if t == nil {
		return ps
	}
	ps.read = true
	seen := map[string]int{} // slug -> line
	for _, r := range t.rows {
		p := dataset.Party{
			Name:         im.required(t, r, "name"),
			ShortName:    im.required(t, r, "short_name"),
			NameEN:       dataset.Optional(t.get(r, "name_en")),
			Color:        dataset.Optional(strings.ToLower(t.get(r, "color"))),
			Website:      im.url(t, r, "website"),
			LeaderName:   dataset.Optional(t.get(r, "leader_name")),
			LogoURL:      im.url(t, r, "logo_url"),
			WikipediaURL: im.url(t, r, "wikipedia_url"),
		}
		if p.Color != nil && !validColor(*p.Color) {
			im.add(t.file, r.line, "color", "%s is not a colour of the form #rrggbb", echo(t.get(r, "color")))
		}
		p.Slug = im.required(t, r, "slug")
		if p.Slug != "" {
			if dataset.Slugify(p.Slug) != p.Slug {
				im.add(t.file, r.line, "slug", "%s", notSlug(p.Slug))
			}
			if first, dup := seen[p.Slug]; dup {
				im.add(t.file, r.line, "slug", "%s is already used on line %d", echo(p.Slug), first)
			}
			seen[p.Slug] = r.line
		}
		p.ID = im.id(t, r, "party/"+p.Slug)
		i := len(ps.records)
		for _, c := range [...]struct{ col, n string }{{"slug", p.Slug}, {"short_name", p.ShortName}} {
			col, n := c.col, c.n
			if n == "" {
				continue
			}
			if other, dup := ps.byCode[key(n)]; dup && other != i {
				// A row given twice is reported once, at its slug.
				if ps.records[other].Slug != p.Slug {
					im.add(t.file, r.line, col, "%s also names the party on line %d, so candidates.csv could not tell them apart", echo(n), ps.lines[other])
				}
				continue
			}
			ps.byCode[key(n)] = i
		}
		for _, n := range []string{p.Name, dataset.Text(p.NameEN)} {
			if k := key(n); n != "" && !slices.Contains(ps.byName[k], i) {
				ps.byName[k] = append(ps.byName[k], i)
			}
		}
		ps.records = append(ps.records, p)
		ps.lines = append(ps.lines, r.line)
	}
	return ps
}

func validColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
