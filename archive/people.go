package archive

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// Person is one person who stood in an archive's elections, followed
// across them by their candidates' person_id, as the API serves it
// (/api/public/v1/people/{slug|id}). A candidate without a person_id is
// no person's: nobody has said who they are.
type Person struct {
	ID string `json:"id"`
	// Slug is the candidate slug of the person's latest candidacy; when
	// another person's latest candidacy has that slug too, the one whose
	// latest election is the newer keeps it, and the other has "-" and
	// its latest election's slug added ("ivan-bartolo-2017"), or, if
	// that is taken too, a number after that ("-2", "-3"). A slug may
	// so change when an election is added; the id never does.
	Slug string `json:"slug"`
	// Name is the name of the latest candidacy.
	Name string `json:"name"`
	// Candidacies are the person's candidacies, newest first.
	Candidacies []Candidacy `json:"candidacies"`

	given, family string // of the latest candidacy, for the published order
}

// Candidacy is one election's candidate who is the person.
type Candidacy struct {
	ElectionID   string `json:"election_id"`
	ElectionSlug string `json:"election_slug"`
	CandidateID  string `json:"candidate_id"`
	// Name is the candidate's name, as that election prints it.
	Name        string   `json:"name"`
	PartyID     *string  `json:"party_id"`
	DistrictIDs []string `json:"district_ids"`
	Elected     *bool    `json:"elected"`
	// Results are the candidate's rows of the election's count sheets:
	// one for each district of the candidacy that has a sheet, in the
	// order of district_ids.
	Results []DistrictResult `json:"results"`
}

// DistrictResult is a candidate's row of one district's count sheet.
type DistrictResult struct {
	DistrictNumber   int  `json:"district_number"`
	FirstPreferences int  `json:"first_preferences"`
	ElectedAtCount   *int `json:"elected_at_count"`
	ExcludedAtCount  *int `json:"excluded_at_count"`
}

// People returns every person in published order: by the family name,
// then the given name, of their latest candidacy, folded, then by id. The
// slice is shared: callers must not modify it.
func (a *Archive) People() []Person { return a.people }

// Person finds a person by their slug or their id, in any letter case.
func (a *Archive) Person(key string) (*Person, error) {
	i, err := a.PersonIndex(key)
	if err != nil {
		return nil, err
	}
	return &a.people[i], nil
}

// PersonIndex finds a person by their slug or their id, in any letter
// case, and returns their position in People, or a *NotFoundError.
func (a *Archive) PersonIndex(key string) (int, error) {
	lower := strings.ToLower(key)
	if i, ok := a.bySlug[lower]; ok {
		return i, nil
	}
	if i, ok := a.byID[lower]; ok {
		return i, nil
	}
	near := suggest.Best(lower, func(yield func(string) bool) {
		for i := range a.people {
			if !yield(a.people[i].Slug) {
				return
			}
		}
	}, 1)
	return -1, &NotFoundError{What: "person", Key: key, Near: near}
}

// SearchPeople returns the positions in People, in published order, of
// the people a name search finds: q is read as the candidates' q filter
// reads it (dataset.ParseQ), and a person is found when one of their
// candidacies' names, given names or family names holds it, with case,
// accents and Maltese letters folded. A q refused is a
// *dataset.ParamError naming the parameter q.
func (a *Archive) SearchPeople(q string) ([]int32, error) {
	q, reason := dataset.ParseQ(q)
	if reason != "" {
		return nil, &dataset.ParamError{Params: []dataset.InvalidParam{{Name: "q", Reason: reason}}}
	}
	found := a.names.Search(q, a.all, nil)
	if found == nil {
		found = []int32{}
	}
	return found, nil
}

// QueryPeople answers a search of the people by name with the parameters
// p: q, required, once (dataset.QParam), read as SearchPeople reads it;
// any other parameter is ignored, as a collection ignores those it does
// not take. A q missing or refused is a *dataset.ParamError naming q.
func (a *Archive) QueryPeople(p dataset.Params) ([]int32, error) {
	q, err := dataset.QParam(p)
	if err != nil {
		return nil, err
	}
	return a.SearchPeople(q)
}

// indexPeople gathers the people of the elections, newest first, with
// their candidacies, puts them in published order, gives them slugs, and
// indexes them by slug, id and name.
func (a *Archive) indexPeople() {
	byID := map[string]int{}
	var first []int // the election of each person's latest candidacy
	var k keeper
	for ei, e := range a.elections {
		ds := e.Dataset()
		// The current election's dataset is held as long as the index:
		// its texts are shared, not copied (a dataset of long names would
		// hold them twice).
		k.copying = e != a.current
		for i := range ds.Candidates() {
			c := &ds.Candidates()[i]
			if c.PersonID == nil {
				continue
			}
			pi, seen := byID[*c.PersonID]
			if !seen {
				pi = len(a.people)
				id := k.text(*c.PersonID)
				byID[id] = pi
				a.people = append(a.people, Person{ID: id, Slug: k.text(c.Slug), Name: k.text(c.Name), given: k.text(c.GivenName), family: k.text(c.FamilyName)})
				first = append(first, ei)
			}
			a.people[pi].Candidacies = append(a.people[pi].Candidacies, k.candidacy(e, c))
		}
	}
	// Published order, the latest election carried along for the slugs.
	type ranked struct {
		p      Person
		latest int
		family string
		given  string
	}
	rs := make([]ranked, len(a.people))
	for i, p := range a.people {
		rs[i] = ranked{p, first[i], dataset.Fold(p.family), dataset.Fold(p.given)}
	}
	slices.SortFunc(rs, func(x, y ranked) int {
		return cmp.Or(strings.Compare(x.family, y.family), strings.Compare(x.given, y.given), strings.Compare(x.p.ID, y.p.ID))
	})
	// Slugs: each person whose latest candidacy is the newest with its
	// candidate slug keeps it; the others, taken in the order of their
	// latest election, newest first, then in published order, have their
	// latest election's slug added, numbered if need be.
	keeper := map[string]int{} // slug -> the person keeping it
	for i, r := range rs {
		if k, ok := keeper[r.p.Slug]; !ok || r.latest < rs[k].latest {
			keeper[r.p.Slug] = i
		}
	}
	used := map[string]bool{}
	for slug := range keeper {
		used[slug] = true
	}
	var others []int
	for i, r := range rs {
		if keeper[r.p.Slug] != i {
			others = append(others, i)
		}
	}
	slices.SortStableFunc(others, func(x, y int) int { return cmp.Compare(rs[x].latest, rs[y].latest) })
	for _, i := range others {
		slug := rs[i].p.Slug + "-" + a.elections[rs[i].latest].Record.Slug
		if used[slug] {
			n := 2
			for used[slug+"-"+strconv.Itoa(n)] {
				n++
			}
			slug += "-" + strconv.Itoa(n)
		}
		used[slug] = true
		rs[i].p.Slug = slug
	}
	a.bySlug = make(map[string]int, len(rs))
	a.byID = make(map[string]int, len(rs))
	a.all = make([]int32, len(rs))
	for i := range rs {
		a.people[i] = rs[i].p
		a.bySlug[rs[i].p.Slug] = i
		a.byID[rs[i].p.ID] = i
		a.all[i] = int32(i)
	}
	a.names = dataset.NewNameIndex(len(a.people), func(i int, add func(string)) {
		for _, c := range a.people[i].Candidacies {
			add(c.Name)
		}
		add(a.people[i].given)
		add(a.people[i].family)
	})
}

// candidacy is the candidacy of c, a candidate of e, in values of its
// own: nothing of e's dataset, which is let go once loaded (Held).
func (k *keeper) candidacy(e *Election, c *dataset.Candidate) Candidacy {
	ds := e.Dataset()
	cd := Candidacy{
		ElectionID: e.Record.ID, ElectionSlug: e.Record.Slug, CandidateID: k.text(c.ID), Name: k.text(c.Name),
		PartyID: k.textOf(c.PartyID), Elected: k.boolOf(c.Elected),
	}
	n := len(c.DistrictIDs)
	if k.ids == nil || cap(k.ids)-len(k.ids) < n {
		k.ids = make([]string, 0, max(keptBlock/16, n))
	}
	start := len(k.ids)
	for _, id := range c.DistrictIDs {
		k.ids = append(k.ids, k.shared(id))
	}
	cd.DistrictIDs = k.ids[start:len(k.ids):len(k.ids)]
	if k.results == nil || cap(k.results)-len(k.results) < n {
		k.results = make([]DistrictResult, 0, max(keptBlock/32, n))
	}
	start = len(k.results)
	for _, id := range c.DistrictIDs {
		n, _ := ds.DistrictByID(id)
		sheet, ok := ds.Sheet(n)
		if !ok {
			continue
		}
		for _, row := range sheet.Candidacies {
			if row.CandidateID == c.ID {
				k.results = append(k.results, DistrictResult{n, row.FirstPreferences, k.intOf(row.ElectedAtCount), k.intOf(row.ExcludedAtCount)})
				break
			}
		}
	}
	cd.Results = k.results[start:len(k.results):len(k.results)]
	return cd
}

// keeper copies what the people index keeps of the past elections'
// candidates into values of its own, few and shared: the texts into blocks of bytes,
// the slices into blocks, a value the candidacies repeat (a district's
// id, a party's, a count's number) once. The index so holds nothing of a
// past election's dataset, which is let go (Held), and is a few hundred
// objects for the collector to mark at each collection rather than ten
// for each candidacy.
type keeper struct {
	copying bool // texts are copied (else shared with the dataset)
	texts   strings.Builder
	ids     []string
	results []DistrictResult
	shares  map[string]string
	ptrs    map[string]*string
	ints    map[int]*int
}

// keptBlock is the size of the blocks the texts are kept in.
const keptBlock = 64 << 10

// text is s copied into the keeper's block of texts, when copying; else s.
func (k *keeper) text(s string) string {
	if !k.copying {
		return s
	}
	if k.texts.Cap()-k.texts.Len() < len(s) {
		// Bytes written to a Builder are never written again, so the
		// strings taken from a block stay valid while the next fills.
		k.texts = strings.Builder{}
		k.texts.Grow(max(keptBlock, len(s)))
	}
	start := k.texts.Len()
	k.texts.WriteString(s)
	return k.texts.String()[start:]
}

// shared is s kept once, however many candidacies have it.
func (k *keeper) shared(s string) string {
	if v, ok := k.shares[s]; ok {
		return v
	}
	if k.shares == nil {
		k.shares = map[string]string{}
	}
	v := k.text(s)
	k.shares[v] = v
	return v
}

// textOf is p's value kept once, behind one pointer for all who have it;
// nil for nil.
func (k *keeper) textOf(p *string) *string {
	if p == nil {
		return nil
	}
	return once(&k.ptrs, k.shared(*p))
}

// intOf is p's value behind one pointer for all who have it; nil for nil.
func (k *keeper) intOf(p *int) *int {
	if p == nil {
		return nil
	}
	return once(&k.ints, *p)
}

// once is the one pointer to v in *kept, made the first time v comes.
func once[T comparable](kept *map[T]*T, v T) *T {
	if p, ok := (*kept)[v]; ok {
		return p
	}
	if *kept == nil {
		*kept = map[T]*T{}
	}
	(*kept)[v] = &v
	return &v
}

var yes, no = true, false

// boolOf is p's value behind one of two pointers; nil for nil.
func (k *keeper) boolOf(p *bool) *bool {
	switch {
	case p == nil:
		return nil
	case *p:
		return &yes
	default:
		return &no
	}
}

// NotFoundError reports a key that names no election, or no person, of an
// archive.
type NotFoundError struct {
	// What is "election" or "person".
	What string
	Key  string
	// Near is the slug the key probably misspells, or "".
	Near string
	// Slugs are, for an election, every election's slug, newest first.
	Slugs []string
}

// Error names what was looked for and the key, for an election every
// election's slug, and offers the slug the key misspells, as the API's
// other 404s do.
func (e *NotFoundError) Error() string {
	msg := "no " + e.What + " has the slug or id " + dataset.QuoteKey(e.Key)
	if e.What == "election" {
		msg += "; the elections are " + SlugList(e.Slugs, strconv.Quote)
	}
	return msg + suggest.OfferClause(suggest.Quoted(e.Near)...)
}

// listedSlugs is the most elections a message names one by one; of more,
// it names the newest few and the oldest, and how many there are.
const listedSlugs = 6

// SlugList names the elections of slugs, newest first, each as quote
// writes it, as a message lists them: "2022" and "2017", or, of an
// archive of a century, "2022", "2017", "2013", "2008", "2003", … "1921"
// (25 in all).
func SlugList(slugs []string, quote func(string) string) string {
	if len(slugs) == 0 {
		return "none"
	}
	if len(slugs) <= listedSlugs {
		quoted := make([]string, len(slugs))
		for i, slug := range slugs {
			quoted[i] = quote(slug)
		}
		return suggest.List(quoted, "and")
	}
	quoted := make([]string, 0, listedSlugs)
	for _, slug := range slugs[:listedSlugs-1] {
		quoted = append(quoted, quote(slug))
	}
	return strings.Join(quoted, ", ") + ", … " + quote(slugs[len(slugs)-1]) + " (" + strconv.Itoa(len(slugs)) + " in all)"
}
