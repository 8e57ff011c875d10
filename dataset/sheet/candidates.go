package sheet

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// pendingSlug is a candidate whose slug is derived from the name, which
// waits for the end of candidates.csv.
type pendingSlug struct {
	record int    // in the records
	slug   string // the one the name makes
	line   int
	at     int  // where, among the rows' problems, one about it goes
	id     bool // the row gives its id, which is not derived
}

// candidateRows is where each candidate of candidates.csv comes from: the
// line of its row, and whether the row gives a name (else the name is the
// given and family names); elected says the sheet has an elected column.
type candidateRows struct {
	lines   []int
	named   []bool
	elected bool
}

func (im *importer) candidates(src fs.FS, ps parties, ds *districts) ([]dataset.Candidate, candidateRows) {
	out := []dataset.Candidate{}
	var rows candidateRows
	// Records are built as the rows are read. Slugs written in the sheet
	// are reserved as they come; a slug derived from a name waits for the
	// end of the file, so that it never takes one a later row gives.
	used := map[string]int{}
	var derived []pendingSlug
	rowsSeen := map[string]int{} // name, party and districts -> line
	persons := map[string]personAt{}
	t, problems := im.readCSV(src, CandidatesFile, candidateColumns, func(t *table, r row) {
		if s := t.get(r, "slug"); s != "" {
			if first, dup := used[s]; dup {
				im.add(t.file, r.line, "slug", "%s is already used on line %d", echo(s), first)
			} else {
				used[s] = r.line
			}
		}
		c := dataset.Candidate{
			GivenName:   im.required(t, r, "given_name"),
			FamilyName:  im.required(t, r, "family_name"),
			Name:        t.get(r, "name"),
			Elected:     im.boolean(t, r, "elected"),
			IsIncumbent: im.boolean(t, r, "is_incumbent"),
			Website:     im.url(t, r, "website"),
			PhotoURL:    im.url(t, r, "photo_url"),
			PersonID:    im.person(t, r),
		}
		if c.Name == "" {
			c.Name = strings.TrimSpace(c.GivenName + " " + c.FamilyName)
		}
		im.repeatedPerson(t, r, &c, persons)
		if slug, isDerived := im.slug(t, r, "slug", c.Name); isDerived {
			derived = append(derived, pendingSlug{record: len(out), slug: slug, line: r.line, at: len(im.problems), id: t.get(r, "id") != ""})
			if t.get(r, "id") != "" {
				c.ID = im.id(t, r, "")
			}
		} else {
			c.Slug = slug
			c.ID = im.id(t, r, "candidate/"+slug)
		}
		party := im.candidateParty(t, r, ps, &c)
		numbers := im.candidateDistricts(t, r, ds, &c)
		im.repeatedRow(t, r, c.Name, party, numbers, rowsSeen)
		out = append(out, c)
		rows.lines = append(rows.lines, r.line)
		rows.named = append(rows.named, t.get(r, "name") != "")
	})
	if t == nil {
		return []dataset.Candidate{}, candidateRows{}
	}
	rows.elected = t.has("elected")
	im.problems = append(im.problems, im.deriveSlugs(out, derived, used, problems)...)
	return out, rows
}

// candidateParty sets c's party from the row's party cell and returns the
// party's slug, to tell a repeated row; a party when parties.csv could
// not be read is not checked: that file is reported.
func (im *importer) candidateParty(t *table, r row, ps parties, c *dataset.Candidate) (party string) {
	if p := t.get(r, "party"); p != "" && ps.read {
		if i, msg := ps.find(p); i < 0 {
			im.add(t.file, r.line, "party", "%s", msg)
		} else {
			id := ps.records[i].ID
			c.PartyID = &id
			party = ps.records[i].Slug
		}
	}
	return party
}

// candidateDistricts sets c's districts, the primary first, from the
// row's districts cell, and returns their numbers.
func (im *importer) candidateDistricts(t *table, r row, ds *districts, c *dataset.Candidate) (numbers []int) {
	list := t.get(r, "districts")
	if list == "" {
		im.add(t.file, r.line, "districts", "must not be empty: give the district numbers separated by ;, the primary first")
	}
	c.DistrictIDs = []string{}
	for part := range strings.SplitSeq(list, ";") {
		if list == "" {
			break
		}
		part = strings.TrimSpace(part)
		if part == "" {
			im.add(t.file, r.line, "districts", "must not be empty")
			continue
		}
		n, msg := ds.find(part)
		if n == 0 {
			if msg != "" {
				im.add(t.file, r.line, "districts", "%s", msg)
			}
			continue
		}
		if slices.Contains(numbers, n) {
			im.add(t.file, r.line, "districts", "district %d is listed twice", n)
			continue
		}
		numbers = append(numbers, n)
		if d := ds.byNumber[n]; d != nil { // else reported by districts.csv
			c.DistrictIDs = append(c.DistrictIDs, d.ID)
		}
	}
	if len(c.DistrictIDs) > 0 {
		c.PrimaryDistrictID = c.DistrictIDs[0]
	}
	return numbers
}

// repeatedRow reports the same candidate twice: the same name, party and
// districts, neither row pinned apart by a slug or an id. rowsSeen holds
// the line of each seen.
func (im *importer) repeatedRow(t *table, r row, name, party string, numbers []int, rowsSeen map[string]int) {
	if t.get(r, "slug") != "" || t.get(r, "id") != "" || name == "" || party == "" && t.get(r, "party") != "" {
		return
	}
	set := slices.Sorted(slices.Values(numbers))
	k := fmt.Sprint(key(name), "|", party, "|", set)
	first, dup := rowsSeen[k]
	if !dup {
		rowsSeen[k] = r.line
		return
	}
	what := "an independent"
	if party != "" {
		what = "of " + bare(t.get(r, "party"))
	}
	in := "district"
	if len(set) > 1 {
		in += "s"
	}
	im.add(t.file, r.line, "", "repeats line %d: %s, %s, in %s %s; delete one of the two rows, or, for two people of the same name, give each a slug", first, bare(name), what, in, suggest.List(strings.Fields(strings.Trim(fmt.Sprint(set), "[]")), "and"))
}

// personAt is the first row with a person: its line and its name.
type personAt struct {
	line int
	name string
}

// repeatedPerson reports a person given to two rows, at the later: as
// the dataset's rule has it, a person is one candidate in an election,
// with every district they contest. persons holds the first row of each
// person id.
func (im *importer) repeatedPerson(t *table, r row, c *dataset.Candidate, persons map[string]personAt) {
	if c.PersonID == nil {
		return
	}
	first, dup := persons[*c.PersonID]
	if !dup {
		persons[*c.PersonID] = personAt{r.line, c.Name}
		return
	}
	col := "person"
	if t.get(r, "person") == "" {
		col = "person_id"
	}
	if key(first.name) != key(c.Name) {
		im.add(t.file, r.line, col, "%s has the person of %s on line %d: two candidates with different names are two people; give each a person of their own", c.Name, first.name, first.line)
		return
	}
	im.add(t.file, r.line, col, "%s has the person of another %s on line %d: a person is one row in an election, with every district they contest; list them once, or give each of two people of that name a person of their own", c.Name, first.name, first.line)
}

// deriveSlugs gives the candidates in derived their slugs, in the order
// of the rows, now that every written one is in used, and returns the
// rows' problems with, for a name that makes none, a problem where the
// row's other problems put it, after those of its cells before the slug.
func (im *importer) deriveSlugs(out []dataset.Candidate, derived []pendingSlug, used map[string]int, problems Problems) Problems {
	var merged Problems
	next := 0
	for _, p := range derived {
		c := &out[p.record]
		c.Slug = numbered(p.slug, used)
		used[c.Slug] = p.line
		if !p.id {
			c.ID = im.derived("candidate/" + c.Slug)
		}
		if c.Slug == "" {
			merged = append(merged, problems[next:p.at]...)
			merged = append(merged, dataset.Problem{File: CandidatesFile, Line: p.line, Column: "name", Message: fmt.Sprintf("%s makes no slug: give one in a slug column", echo(c.Name))})
			next = p.at
		}
	}
	return append(merged, problems[next:]...)
}
