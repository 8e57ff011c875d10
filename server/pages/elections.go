package pages

import (
	"strconv"
	"strings"

	"ballot/archive"
	"ballot/dataset"
)

// The elections of an archive on the pages: every page of an election
// says which election it is, when it is not the current one, and links
// to the same page of the elections just before and after it (the bar
// above its content); a candidate's page links to the same person's
// candidacies in the other elections; a district's page to the district
// of the same number in the election before, saying how far the two can
// be compared; and the elections page lists them all with their results.

// electionsBar is what the top of every page of an election of an
// archive of several shows: the election, when it is not the current
// one, and the same page of the elections before and after it.
type electionsBar struct {
	Past                bool   // the election is not the current one
	Name, NameLang      string // its name, in the page's language where the data gives it
	Current, CurrentURL string // the current election's slug, and the same page of it
	Older, Newer        *electionLink
	All                 string // the link to the elections page: "All 25 elections"
}

// electionLink is another election's page: its slug, and the page.
type electionLink struct{ Slug, URL string }

// archivePages are the pages of the archive, and the API's reference,
// rather than of one election: they carry no bar.
var archivePages = map[string]bool{"elections": true, "history": true, "person": true, "people": true, "reference": true}

// electionsBar is the bar of the page of template name, whose path is
// here (after the language's prefix and the election's base); nil for an
// archive of one election, an error page and an archive's page.
func (s *Site) electionsBar(name, here string) *electionsBar {
	es := s.arch.Elections()
	if len(es) < 2 || here == "" || archivePages[name] {
		return nil
	}
	e := es[s.ei]
	b := &electionsBar{Past: !e.Record.Current, All: s.lang.T("elections_all", len(es))}
	b.Name, b.NameLang = s.electionName(e)
	cur := s.currentIndex()
	b.Current, b.CurrentURL = es[cur].Record.Slug, s.pageIn(cur, here)
	if s.ei+1 < len(es) {
		b.Older = &electionLink{es[s.ei+1].Record.Slug, s.pageIn(s.ei+1, here)}
	}
	if s.ei > 0 {
		b.Newer = &electionLink{es[s.ei-1].Record.Slug, s.pageIn(s.ei-1, here)}
	}
	return b
}

// electionName is e's name as a page in s's language shows it, and the
// language of the name: name_en on an English page where the data gives
// one, its name otherwise, in Maltese.
func (s *Site) electionName(e *archive.Election) (string, string) {
	if s.lang == English && e.Record.NameEN != nil && *e.Record.NameEN != "" {
		return clip(*e.Record.NameEN), "en"
	}
	return clip(e.Record.Name), "mt"
}

// currentIndex is the current election's place in the archive's
// elections.
func (s *Site) currentIndex() int {
	for j, e := range s.arch.Elections() {
		if e.Record.Current {
			return j
		}
	}
	return 0
}

// baseOf is where the pages of the archive's j-th election are, after
// the language's prefix: today's paths for the current election, which
// the pages of the others link to, and its own path for another.
func (s *Site) baseOf(j int) string {
	if j == s.ei {
		return s.base
	}
	e := s.arch.Elections()[j]
	if e.Record.Current {
		return ""
	}
	return ElectionBase(e.Record.Slug)
}

// prefix is the prefix of the election's pages: the language's, then the
// election's base.
func (s *Site) prefix() string { return s.lang.Prefix + s.base }

// home is the election's home page in the language.
func (s *Site) home() string {
	if s.base == "" {
		return s.lang.Home
	}
	return s.prefix() + HomePath
}

// homeOf is the home page of the archive's j-th election in the language,
// made from its path alone: a link reads no election's dataset, which a
// past election's may have to be loaded for (archive.Election.Held).
func (s *Site) homeOf(j int) string {
	if base := s.baseOf(j); base != "" {
		return s.lang.Prefix + base + HomePath
	}
	return s.lang.Home
}

// pageIn is the page of the archive's j-th election that stands for the
// page here of this one (pathIn), with its language's prefix.
func (s *Site) pageIn(j int, here string) string {
	return s.lang.Prefix + s.baseOf(j) + s.pathIn(j, here)
}

// pathIn is the path, in the archive's j-th election, of the page here of
// this one: the same page where the election has it (the same district
// number, party slug or search; the same person's candidacy), else the
// listing it would be in (the districts, the parties, the candidates). A
// query of this election's records, a filter, is left out: it may name
// what the other election does not have.
func (s *Site) pathIn(j int, here string) string {
	path, _, _ := strings.Cut(here, "?")
	if path == SearchPath {
		return here
	}
	// The other election's dataset is read only for a record's page: a
	// listing's path is the same there, and needs it not held.
	if key, ok := strings.CutPrefix(path, "/parties/"); ok {
		if _, ok := s.arch.Elections()[j].Dataset().Lookup(dataset.Parties, key); ok {
			return path
		}
		return PartiesPath
	}
	if key, ok := strings.CutPrefix(path, "/districts/"); ok {
		if _, ok := s.arch.Elections()[j].Dataset().Lookup(dataset.Districts, key); ok {
			return path
		}
		return DistrictsPath
	}
	if key, ok := strings.CutPrefix(path, "/candidates/"); ok {
		if i, ok := s.ds.Lookup(dataset.Candidates, key); ok {
			if slug := s.candidacyIn(&s.ds.Candidates()[i], j); slug != "" {
				return "/candidates/" + slug
			}
		}
		return CandidatesPath
	}
	return path
}

// candidacyIn is the slug of the candidate who is c's person in the
// archive's j-th election, or "" when c is no person's or the person did
// not stand in it.
func (s *Site) candidacyIn(c *dataset.Candidate, j int) string {
	p := s.personOf(c)
	if p == nil {
		return ""
	}
	e := s.arch.Elections()[j]
	for _, cy := range p.Candidacies {
		if cy.ElectionSlug != e.Record.Slug {
			continue
		}
		if i, ok := e.Dataset().Lookup(dataset.Candidates, cy.CandidateID); ok {
			return e.Dataset().Candidates()[i].Slug
		}
	}
	return ""
}

// personOf is the person c is, or nil when nobody has said.
func (s *Site) personOf(c *dataset.Candidate) *archive.Person {
	if c.PersonID == nil {
		return nil
	}
	p, err := s.arch.Person(*c.PersonID)
	if err != nil {
		return nil
	}
	return p
}

// in is a Site of the archive's j-th election in s's language, enough to
// name its records and sum its results (partyRef, resultsView), with its
// links where s's pages link to it (baseOf); it renders no page.
func (s *Site) in(j int) *Site {
	if j == s.ei {
		return s
	}
	e := s.arch.Elections()[j]
	o := &Site{ds: e.Dataset(), lang: s.lang, arch: s.arch, ei: j, api: s.api[:len(s.api)-len(s.base)], csv: s.csv}
	o.base = s.baseOf(j)
	o.api += o.base
	o.seats = o.ds.SeatsWon()
	return o
}

// electionIndex is the place in the archive of the election of slug.
func (s *Site) electionIndex(slug string) (int, bool) {
	j, err := s.arch.ElectionIndex(slug)
	return j, err == nil
}

// otherCandidacies are the other elections c's person stood in, newest
// first, each linking to their candidate's page there.
func (s *Site) otherCandidacies(c *dataset.Candidate) []electionLink {
	p := s.personOf(c)
	if p == nil {
		return nil
	}
	here := s.arch.Elections()[s.ei].Record.Slug
	var out []electionLink
	for _, cy := range p.Candidacies {
		j, ok := s.electionIndex(cy.ElectionSlug)
		if !ok || cy.ElectionSlug == here {
			continue
		}
		ds := s.arch.Elections()[j].Dataset()
		if i, ok := ds.Lookup(dataset.Candidates, cy.CandidateID); ok {
			out = append(out, electionLink{cy.ElectionSlug, s.lang.Prefix + s.baseOf(j) + "/candidates/" + ds.Candidates()[i].Slug})
		}
	}
	return out
}

// previousView is, on a district's page, the district of the same number
// in the election before, and how far the two can be compared.
type previousView struct {
	URL, Label string
	Caution    string
}

// previousDistrict is the district of d's number in the election before
// this one, and the sentence saying how far the two can be compared: the
// numbers of elections of other shapes are each election's own, and of
// two elections of the same shape the localities each lists, where the
// data lists them, say how the boundaries moved. nil for the archive's
// oldest election.
func (s *Site) previousDistrict(d dataset.District) *previousView {
	es := s.arch.Elections()
	j := s.ei + 1
	if j >= len(es) {
		return nil
	}
	t := s.lang.T
	prev, before, this := es[j].Dataset(), es[j].Record.Slug, es[s.ei].Record.Slug
	prefix := s.lang.Prefix + s.baseOf(j)
	pi, ok := prev.Lookup(dataset.Districts, strconv.Itoa(d.Number))
	if !ok {
		return &previousView{URL: prefix + DistrictsPath, Label: t("district_prev_all", before),
			Caution: t("district_prev_none", before, len(prev.Districts()), d.Number)}
	}
	pd := prev.Districts()[pi]
	v := &previousView{URL: prefix + "/districts/" + strconv.Itoa(d.Number), Label: t("district_prev", d.Number, before)}
	var missing []string // the elections whose district lists no locality
	if len(d.Localities) == 0 {
		missing = append(missing, this)
	}
	if len(pd.Localities) == 0 {
		missing = append(missing, before)
	}
	switch {
	case len(prev.Districts()) != len(s.ds.Districts()):
		v.Caution = t("district_prev_shape", before, len(prev.Districts()), this, len(s.ds.Districts()), d.Number)
	case len(missing) > 0:
		v.Caution = t("district_prev_unknown", d.Number, s.joinNames(missing))
	default:
		here, there, whole, parts := compareLocalities(d.Localities, pd.Localities)
		if len(here) == 0 && len(there) == 0 && len(whole) == 0 {
			if len(parts) > 0 {
				v.Caution = t("district_prev_same_parts", d.Number, this, before, s.joinNames(s.plainNames(parts)))
			} else {
				v.Caution = t("district_prev_same", d.Number, this, before)
			}
			break
		}
		var clauses []string
		if len(here) > 0 {
			clauses = append(clauses, t("district_prev_only", s.joinNames(s.localityNames(here)), this, before))
		}
		if len(there) > 0 {
			clauses = append(clauses, t("district_prev_only", s.joinNames(s.localityNames(there)), before, this))
		}
		for _, l := range whole {
			if l.Split {
				clauses = append(clauses, t("district_prev_whole", clip(l.Name), before, this))
			} else {
				clauses = append(clauses, t("district_prev_whole", clip(l.Name), this, before))
			}
		}
		if len(parts) > 0 {
			clauses = append(clauses, t("district_prev_parts", s.joinNames(s.plainNames(parts))))
		}
		v.Caution = t("district_prev_diff", d.Number, strings.Join(clauses, "; "))
	}
	return v
}

// compareLocalities compares the localities a district lists in this
// election (a) with those of the district of its number in the one before
// (b), each known by its slug (Gozo's Żebbuġ is not Malta's): those only
// in a, those only in b, those of a whole in one and split in the other,
// and those of a split in both, whose parts the data does not compare.
func compareLocalities(a, b []dataset.Locality) (onlyA, onlyB, whole, parts []dataset.Locality) {
	find := func(ls []dataset.Locality, slug string) (dataset.Locality, bool) {
		for _, l := range ls {
			if l.Slug == slug {
				return l, true
			}
		}
		return dataset.Locality{}, false
	}
	for _, l := range a {
		m, ok := find(b, l.Slug)
		switch {
		case !ok:
			onlyA = append(onlyA, l)
		case l.Split != m.Split:
			whole = append(whole, l)
		case l.Split:
			parts = append(parts, l)
		}
	}
	for _, l := range b {
		if _, ok := find(a, l.Slug); !ok {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB, whole, parts
}

// plainNames are the names of ls.
func (s *Site) plainNames(ls []dataset.Locality) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = clip(l.Name)
	}
	return out
}

// localityNames are the names of ls, a split one marked as a part.
func (s *Site) localityNames(ls []dataset.Locality) []string {
	out := s.plainNames(ls)
	for i, l := range ls {
		if l.Split {
			out[i] = s.lang.T("locality_part", out[i])
		}
	}
	return out
}

// electionsView is the elections page: every election of the archive,
// newest first, with its results.
type electionsView struct {
	Elections []electionView
}

// electionView is one election on the elections page.
type electionView struct {
	Slug, Name, NameLang string
	URL                  string // its home page
	P                    string // the prefix of its pages, for its parties' links
	Current              bool
	Date                 string
	Districts            int
	Seats                int    // filled at the count
	Turnout              string // valid votes over registered, or "" where not known
	Caption              string
	Results              resultsView
}

// electionsPage makes the elections page.
func (s *Site) electionsPage() electionsView {
	t, num := s.lang.T, s.lang.Num
	var v electionsView
	for j, e := range s.arch.Elections() {
		o := s.in(j)
		ev := electionView{Slug: e.Record.Slug, Current: e.Record.Current, Districts: len(o.ds.Districts()),
			URL: o.home(), P: o.prefix(), Date: dataset.Text(e.Record.Date), Results: o.resultsView()}
		ev.Name, ev.NameLang = s.electionName(e)
		nt := o.ds.NationalTotals()
		ev.Seats = nt.Seats
		if nt.Registered != nil && *nt.Registered > 0 {
			ev.Turnout = t("turnout", percent(nt.ValidVotes, *nt.Registered), num(nt.ValidVotes), num(*nt.Registered))
		}
		ev.Caption = t("elections_caption", ev.Slug)
		if ev.Results.KnownParliament {
			ev.Caption = t("elections_caption_parliament", ev.Slug)
		}
		v.Elections = append(v.Elections, ev)
	}
	return v
}

// percent is n over of as a percentage to a tenth: "83.2%".
func percent(n, of int) string {
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// Elections is the elections page: every election of the archive, newest
// first, each with its turnout, each party's first preferences and seats,
// and a link to its pages. It depends on the archive alone.
func (s *Site) Elections() []byte {
	return s.render("elections", s.lang.T("elections_heading"), "elections", s.api+ElectionsPath, ElectionsPath, s.electionsPage())
}

// noElectionPage is the 404 page of a path under an election's that names
// no election of the archive: every election it holds, newest first, each
// linking to its home page, and the elections page.
func (s *Site) noElectionPage() []byte {
	t := s.lang.T
	v := errorView{Heading: t("election_not_found"), Detail: t("election_not_found_detail", len(s.arch.Elections()))}
	for j, e := range s.arch.Elections()[:min(len(s.arch.Elections()), Listed)] {
		v.Elections = append(v.Elections, electionLink{e.Record.Slug, s.homeOf(j)})
	}
	return s.render("error", v.Heading, "", "", "", v)
}
