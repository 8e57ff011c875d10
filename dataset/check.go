package dataset

import (
	"slices"
	"strings"
)

// records holds the decoded files of a dataset while they are checked.
type records struct {
	manifest   Manifest
	manifestOK bool
	parties    file[Party]
	districts  file[District]
	candidates file[Candidate]
	counts     file[sheetFile]
	hasCounts  bool         // the dataset has a counts.json
	sheets     []CountSheet // the sheets as served, once every rule passed
	current    bool         // the current election (Options.Current): every district lists its localities
}

// release lets go of what only the checks needed, once they are done:
// the records themselves go on into a Dataset.
func (d *records) release() {
	for _, f := range []interface{ release() }{&d.parties, &d.districts, &d.candidates, &d.counts} {
		f.release()
	}
}

// check applies the dataset rules that span fields, records and files to
// every record that decoded, file by file. Every problem is added to r;
// nothing stops at the first. A rule that needs a whole file (references
// into it, the count of districts) runs only when that file decoded
// completely, so a defect is not reported again as the many problems it
// causes.
func (d *records) check(r *Report) {
	c := &checker{r: r, ids: map[string]seenAt{}}
	if d.manifestOK {
		d.checkManifest(r)
	}
	partyIDs := d.checkParties(c)
	districtIDs := d.checkDistricts(c)
	d.checkCandidates(c, partyIDs, districtIDs)
	d.checkCounts(c)
}

// checker applies the rules of one field, and the rules comparing records
// across files, for check. The rules comparing records keep, for each
// value, where it was first seen as the index of its record (and of its
// locality), and write out that pointer only for a repeat: a pointer
// string for each record was most of what the checks held.
type checker struct {
	r   *Report
	ids map[string]seenAt // id -> where it was first used, across files
}

// seenAt is where a value was first seen: record i of file.
type seenAt struct {
	file string
	i    int
}

// claimID checks the id of record i of file and, for a record that
// decoded whole (compare), that no other record has it.
func (c *checker) claimID(file string, i int, id string, compare bool) {
	if !isCanonicalUUID(id) {
		c.r.errorf(file, pointer(i, "id"), "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", id)
		return
	}
	if !compare {
		return
	}
	if first, dup := c.ids[id]; dup {
		c.r.errorf(file, pointer(i, "id"), "uuid-unique", "id %s is already used at %s", id, first.file+"#"+pointer(first.i, "id"))
		return
	}
	c.ids[id] = seenAt{file, i}
}

// slugAt is the pointer of the slug of record i, or of its locality j
// when j >= 0.
func slugAt(i, j int) string {
	if j < 0 {
		return pointer(i, "slug")
	}
	return pointer(i, "localities", j, "slug")
}

// checkSlug checks the slug at slugAt(i, j) and, unless seen is nil, that
// it is not in seen, which maps a slug to the record (or, for a locality,
// the locality of record i) it was first seen in.
func (c *checker) checkSlug(file string, i, j int, slug string, seen map[string]int) {
	if !isSlug(slug) {
		c.r.errorf(file, slugAt(i, j), "slug", "%q is not a slug (lower-case ASCII letters and digits joined by single hyphens)", slug)
		return
	}
	if seen == nil {
		return
	}
	if first, dup := seen[slug]; dup {
		firstAt := slugAt(first, -1)
		if j >= 0 {
			firstAt = slugAt(i, first)
		}
		c.r.errorf(file, slugAt(i, j), "slug-unique", "slug %q is already used at %s", slug, file+"#"+firstAt)
		return
	}
	if j >= 0 {
		seen[slug] = j
	} else {
		seen[slug] = i
	}
}

func (c *checker) checkURL(file string, i int, field string, u *string) {
	if u == nil {
		return
	}
	if why := URLProblem(*u); why != "" {
		c.r.errorf(file, pointer(i, field), "url", "%q is not an absolute http or https URL: %s", *u, why)
	}
}

func (c *checker) checkText(file string, i int, field, s string) {
	if strings.TrimSpace(s) == "" {
		c.r.errorf(file, pointer(i, field), "required", "must not be empty")
	}
}

func (c *checker) checkOptionalText(file string, i int, field string, s *string) {
	if s != nil && strings.TrimSpace(*s) == "" {
		c.r.errorf(file, pointer(i, field), "required", "must not be empty (use null, or leave the field out, when it is unknown)")
	}
}

// unless returns seen for a record that decoded whole and nil for a
// defective one, which the rules comparing records leave out.
func unless(defective bool, seen map[string]int) map[string]int {
	if defective {
		return nil
	}
	return seen
}

// checkParties checks each party, and returns the ids they have.
func (d *records) checkParties(c *checker) (partyIDs map[string]bool) {
	partyIDs = map[string]bool{}
	partySlugs := map[string]int{}
	for i, p := range d.parties.objects {
		whole := d.parties.valid[i]
		has := func(field string) bool { return d.parties.has(i, field) }
		if has("id") {
			c.claimID(PartiesFile, i, p.ID, whole)
			partyIDs[p.ID] = true
		}
		if has("slug") {
			c.checkSlug(PartiesFile, i, -1, p.Slug, unless(!whole, partySlugs))
		}
		if has("name") {
			c.checkText(PartiesFile, i, "name", p.Name)
		}
		if has("short_name") {
			c.checkText(PartiesFile, i, "short_name", p.ShortName)
		}
		if p.Color != nil && has("color") && !IsColor(*p.Color) {
			c.r.errorf(PartiesFile, pointer(i, "color"), "color", "%q is not a colour of the form #rrggbb (lower-case hex)", *p.Color)
		}
		for _, f := range []struct {
			name string
			text *string
		}{{"name_en", p.NameEN}, {"leader_name", p.LeaderName}} {
			if has(f.name) {
				c.checkOptionalText(PartiesFile, i, f.name, f.text)
			}
		}
		for _, f := range []struct {
			name string
			url  *string
		}{{"website", p.Website}, {"logo_url", p.LogoURL}, {"wikipedia_url", p.WikipediaURL}} {
			if has(f.name) {
				c.checkURL(PartiesFile, i, f.name, f.url)
			}
		}
	}
	return partyIDs
}

// districtCount is how many districts the dataset must hold, as its
// manifest says; 0 when the manifest did not decode or its number is
// refused, so that the rules reading it do not report its defect again.
func (d *records) districtCount() int {
	if !d.manifestOK || !districtsInRange(d.manifest.Election) {
		return 0
	}
	return d.manifest.Election.DistrictCount()
}

// checkDistricts checks the districts: their count, each district and its
// localities, and that no number is missing. It returns the ids they
// have.
func (d *records) checkDistricts(c *checker) (districtIDs map[string]bool) {
	want := d.districtCount()
	if d.districts.complete && want > 0 && len(d.districts.recs) != want {
		if d.manifest.Election.Districts != nil {
			c.r.errorf(DistrictsFile, "", "district-count", "must hold exactly %d districts, as [election] districts says, found %d", want, len(d.districts.recs))
		} else {
			c.r.errorf(DistrictsFile, "", "district-count", "must hold exactly %d districts, found %d", want, len(d.districts.recs))
		}
	}
	districtIDs = map[string]bool{}
	numbers := map[int]int{} // district number -> the district's index
	for i, dist := range d.districts.objects {
		whole := d.districts.valid[i]
		has := func(field string) bool { return d.districts.has(i, field) }
		if has("id") {
			c.claimID(DistrictsFile, i, dist.ID, whole)
			districtIDs[dist.ID] = true
		}
		if has("number") {
			switch first, dup := numbers[dist.Number]; {
			case want > 0 && (dist.Number < 1 || dist.Number > want):
				c.r.errorf(DistrictsFile, pointer(i, "number"), "district-number", "district number %d is outside 1 to %d", dist.Number, want)
			case !whole:
			case dup:
				c.r.errorf(DistrictsFile, pointer(i, "number"), "district-number", "district number %d is already used at %s", dist.Number, DistrictsFile+"#"+pointer(first, "number"))
			default:
				numbers[dist.Number] = i
			}
		}
		if has("name") {
			c.checkText(DistrictsFile, i, "name", dist.Name)
		}
		if has("source_url") {
			c.checkURL(DistrictsFile, i, "source_url", dist.SourceURL)
		}
		if has("seats") && dist.Seats != nil {
			switch n := *dist.Seats; {
			case n < 1:
				c.r.errorf(DistrictsFile, pointer(i, "seats"), "range", "is %d; must be 1 or more", n)
			case n > MaxVotes:
				c.r.errorf(DistrictsFile, pointer(i, "seats"), "range", "is %s; must be at most %s, the largest integer every JSON reader keeps exact", Thousands(n), Thousands(MaxVotes))
			}
		}
		if has("note") {
			c.checkOptionalText(DistrictsFile, i, "note", dist.Note)
		}
		if d.current && has("localities") && len(dist.Localities) == 0 {
			c.r.errorf(DistrictsFile, pointer(i, "localities"), "district-localities", "district %d has no localities: every district of the current election (and of a dataset served alone) lists its localities; only a past election of an archive may leave them out, saying why in the district's note", dist.Number)
		}
		d.checkLocalities(c, i, dist.Localities, whole)
	}
	if d.districts.complete && want > 0 && len(d.districts.recs) == want {
		for n := 1; n <= want; n++ {
			if _, ok := numbers[n]; !ok {
				c.r.errorf(DistrictsFile, "", "district-number", "district number %d is missing", n)
			}
		}
	}
	return districtIDs
}

// checkLocalities checks the localities of district i; whole says the
// district decoded whole, so its localities are compared with each other.
func (d *records) checkLocalities(c *checker, i int, localities []Locality, whole bool) {
	localitySlugs := make(map[string]int, len(localities))
	localityNames := make(map[string]int, len(localities)) // folded name -> the locality's index
	hasIn := func(j int, field string) bool { return d.districts.hasIn(i, "localities", j, field) }
	for j, loc := range localities {
		if hasIn(j, "name") && strings.TrimSpace(loc.Name) == "" {
			c.r.errorf(DistrictsFile, pointer(i, "localities", j, "name"), "required", "must not be empty")
		}
		if !whole {
			if hasIn(j, "slug") {
				c.checkSlug(DistrictsFile, i, j, loc.Slug, nil)
			}
		} else {
			name := Fold(loc.Name)
			if first, dup := localityNames[name]; dup {
				c.r.errorf(DistrictsFile, pointer(i, "localities", j, "name"), "locality-repeated", "locality %q is already listed in this district at %s", loc.Name, DistrictsFile+"#"+pointer(i, "localities", first, "name"))
			} else {
				localityNames[name] = j
				c.checkSlug(DistrictsFile, i, j, loc.Slug, localitySlugs)
			}
		}
		if loc.NameEN != nil && hasIn(j, "name_en") && strings.TrimSpace(*loc.NameEN) == "" {
			c.r.errorf(DistrictsFile, pointer(i, "localities", j, "name_en"), "required", "must not be empty (use null, or leave the field out, when there is no English name)")
		}
	}
}

// checkCandidates checks each candidate, and, for one that decoded whole,
// its references to the parties and districts with the given ids.
func (d *records) checkCandidates(c *checker, partyIDs, districtIDs map[string]bool) {
	candidateSlugs := map[string]int{}
	persons := map[string]int{} // person_id -> the first candidate that has it
	for i, cand := range d.candidates.objects {
		whole := d.candidates.valid[i]
		has := func(field string) bool { return d.candidates.has(i, field) }
		if has("id") {
			c.claimID(CandidatesFile, i, cand.ID, whole)
		}
		if has("slug") {
			c.checkSlug(CandidatesFile, i, -1, cand.Slug, unless(!whole, candidateSlugs))
		}
		for _, f := range []struct{ name, text string }{{"name", cand.Name}, {"given_name", cand.GivenName}, {"family_name", cand.FamilyName}} {
			if has(f.name) {
				c.checkText(CandidatesFile, i, f.name, f.text)
			}
		}
		for _, f := range []struct {
			name string
			url  *string
		}{{"website", cand.Website}, {"photo_url", cand.PhotoURL}} {
			if has(f.name) {
				c.checkURL(CandidatesFile, i, f.name, f.url)
			}
		}
		if has("primary_district_id") && has("district_ids") {
			if len(cand.DistrictIDs) == 0 {
				c.r.errorf(CandidatesFile, pointer(i, "district_ids"), "primary-first", "must list at least the primary district")
			} else if cand.DistrictIDs[0] != cand.PrimaryDistrictID {
				c.r.errorf(CandidatesFile, pointer(i, "district_ids", 0), "primary-first", "must be the primary district %s", cand.PrimaryDistrictID)
			}
		}
		if cand.PersonID != nil && has("person_id") && !isCanonicalUUID(*cand.PersonID) {
			c.r.errorf(CandidatesFile, pointer(i, "person_id"), "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", *cand.PersonID)
		} else if cand.PersonID != nil && whole {
			d.checkPerson(c.r, i, &cand, persons)
		}
		if whole { // references and repeats are checked on whole records
			d.checkReferences(c.r, i, &cand, partyIDs, districtIDs)
		}
	}
}

// checkPerson checks that no earlier candidate has the person_id of
// candidate i, which persons maps to the first candidate that has it: a
// person stands once in an election, as one candidate however many
// districts they contest, so two candidates are two people whatever their
// names. The message says which of the two slips it most likely is.
func (d *records) checkPerson(r *Report, i int, c *Candidate, persons map[string]int) {
	first, dup := persons[*c.PersonID]
	if !dup {
		persons[*c.PersonID] = i
		return
	}
	other := d.candidates.recs[first].Name
	at := CandidatesFile + "#" + pointer(first, "person_id")
	if Fold(other) != Fold(c.Name) {
		r.errorf(CandidatesFile, pointer(i, "person_id"), "person-repeated", "%q has the person_id of %q at %s: two candidates with different names are two people; give each a person of their own", c.Name, other, at)
		return
	}
	r.errorf(CandidatesFile, pointer(i, "person_id"), "person-repeated", "%q has the person_id of another %q at %s: a person is one candidate in an election, whatever districts they contest; list them once, or give each of two people of that name a person of their own", c.Name, other, at)
}

// checkReferences checks that candidate i names parties and districts
// that exist, when their files decoded whole, and no district twice.
func (d *records) checkReferences(r *Report, i int, c *Candidate, partyIDs, districtIDs map[string]bool) {
	if c.PartyID != nil && d.parties.complete && !partyIDs[*c.PartyID] {
		r.errorf(CandidatesFile, pointer(i, "party_id"), "reference", "no party has id %s", *c.PartyID)
	}
	if d.districts.complete && !districtIDs[c.PrimaryDistrictID] {
		r.errorf(CandidatesFile, pointer(i, "primary_district_id"), "reference", "no district has id %s", c.PrimaryDistrictID)
	}
	for j, id := range c.DistrictIDs {
		switch {
		case d.districts.complete && !districtIDs[id]:
			r.errorf(CandidatesFile, pointer(i, "district_ids", j), "reference", "no district has id %s", id)
		case slices.Contains(c.DistrictIDs[:j], id):
			r.errorf(CandidatesFile, pointer(i, "district_ids", j), "district-repeated", "district %s is listed twice", id)
		}
	}
}

// MaxDistrictsPerCandidate is how many districts Maltese law lets one
// candidate contest.
const MaxDistrictsPerCandidate = 2

// warn reports what is allowed but probably a mistake. It runs only on a
// dataset without errors, so every record decoded and every reference
// resolves.
func (d *records) warn(r *Report) {
	d.warnNoLocalities(r)
	d.warnSplit(r)
	partyUsed, districtUsed := d.warnCandidates(r)
	d.warnUnused(r, partyUsed, districtUsed)
	d.warnFormulas(r)
}

// warnNoLocalities warns of a district of a past election (see
// Options.Current) that lists no localities: allowed, since the record of
// an old election may not have them, but its note should say so.
func (d *records) warnNoLocalities(r *Report) {
	for i, dist := range d.districts.each {
		switch {
		case len(dist.Localities) > 0:
		case dist.Note != nil:
			r.warnf(DistrictsFile, pointer(i, "localities"), "district-localities", "district %d has no localities: its record says so in its note", dist.Number)
		default:
			r.warnf(DistrictsFile, pointer(i, "localities"), "district-localities", "district %d has no localities, and no note: say in its note why they are not given (%q)", dist.Number, "No locality list is given for the districts of 1950")
		}
	}
}

// warnSplit warns of a locality listed under two districts that does not
// say it is split. The localities sorted by slug, in the order of the
// file within a slug, put those of one slug side by side.
func (d *records) warnSplit(r *Report) {
	type place struct {
		slug  string
		i, j  int32
		split bool
	}
	n := 0
	for _, dist := range d.districts.each {
		n += len(dist.Localities)
	}
	places := make([]place, 0, n)
	for i, dist := range d.districts.each {
		for j, loc := range dist.Localities {
			places = append(places, place{loc.Slug, int32(i), int32(j), loc.Split})
		}
	}
	slices.SortStableFunc(places, func(a, b place) int { return strings.Compare(a.slug, b.slug) })
	for len(places) > 0 {
		n := 1
		for n < len(places) && places[n].slug == places[0].slug {
			n++
		}
		if n >= 2 {
			for _, p := range places[:n] {
				if !p.split {
					r.warnf(DistrictsFile, pointer(int(p.i), "localities", int(p.j), "split"), "split-unmarked", "locality %q appears in %d districts but is not marked as split (a different place of the same name needs a different slug)", p.slug, n)
				}
			}
		}
		places = places[n:]
	}
}

// warnCandidates warns of a candidate who seems listed twice (the same
// name and party, in no more districts together than one candidate may
// contest) and of one who contests more districts than the law allows.
// It returns the ids of the parties and districts candidates stand for
// and in.
func (d *records) warnCandidates(r *Report) (partyUsed, districtUsed map[string]bool) {
	partyUsed = map[string]bool{}
	districtUsed = map[string]bool{}
	type person struct{ name, party string }
	seen := map[person]int{}
	for i, c := range d.candidates.each {
		party := ""
		if c.PartyID != nil {
			party = *c.PartyID
			partyUsed[party] = true
		}
		for _, id := range c.DistrictIDs {
			districtUsed[id] = true
		}
		key := person{Fold(c.Name), party}
		switch first, dup := seen[key]; {
		case !dup:
			seen[key] = i
		case !twoPeople(d.candidates.recs[first], c):
			r.warnf(CandidatesFile, pointer(i, "name"), "candidate-duplicate", "%q of the same party is also at %s: the same person twice?", c.Name, CandidatesFile+"#"+pointer(first))
		}
		if len(c.DistrictIDs) > MaxDistrictsPerCandidate {
			r.warnf(CandidatesFile, pointer(i, "district_ids"), "districts-over-two", "contests %d districts; Maltese law allows %d", len(c.DistrictIDs), MaxDistrictsPerCandidate)
		}
	}
	return partyUsed, districtUsed
}

// twoPeople tells two candidates of the same name and party apart when,
// together, they stand in more districts than one candidate may: as one
// person they would break the law, so they are two (the 2022 data has two
// Nationalist Ivan Bartolos, one in district 11 and one in 4 and 7).
func twoPeople(a, b Candidate) bool {
	together := len(a.DistrictIDs)
	for _, id := range b.DistrictIDs {
		if !slices.Contains(a.DistrictIDs, id) {
			together++
		}
	}
	return together > MaxDistrictsPerCandidate
}

// warnUnused warns of a party or a district no candidate is in.
func (d *records) warnUnused(r *Report, partyUsed, districtUsed map[string]bool) {
	for i, p := range d.parties.each {
		if !partyUsed[p.ID] {
			r.warnf(PartiesFile, pointer(i), "party-unused", "party %q has no candidates", p.Slug)
		}
	}
	for i, dist := range d.districts.each {
		if !districtUsed[dist.ID] {
			r.warnf(DistrictsFile, pointer(i), "district-unused", "district %d has no candidates", dist.Number)
		}
	}
}

// warnFormulas warns of a name or text that begins with a character a
// spreadsheet reads as a formula: allowed, since query's CSV neutralises
// it, but more likely a slip or a planted =HYPERLINK(...) than a real name.
func (d *records) warnFormulas(r *Report) {
	type text struct {
		field string
		s     *string
	}
	// check warns of each text of record i (of item j of its list, a
	// district's locality or a sheet's candidacy, when j >= 0) that
	// begins so; the pointer is written only for a warning.
	check := func(file string, i int, list string, j int, texts []text) {
		for _, t := range texts {
			if t.s == nil || !FormulaPrefixed(*t.s) {
				continue
			}
			ptr := pointer(i, t.field)
			if j >= 0 {
				ptr = pointer(i, list, j, t.field)
			}
			r.warnf(file, ptr, "formula-prefix", "%q begins with %q, which a spreadsheet may run as a formula", *t.s, (*t.s)[:1])
		}
	}
	// The records are taken by their index, not copied: the address of
	// a copy would put each on the heap.
	for i := range d.parties.each {
		p := &d.parties.recs[i]
		check(PartiesFile, i, "", -1, []text{{"name", &p.Name}, {"short_name", &p.ShortName}, {"name_en", p.NameEN}, {"leader_name", p.LeaderName}})
	}
	for i := range d.districts.each {
		dist := &d.districts.recs[i]
		check(DistrictsFile, i, "", -1, []text{{"name", &dist.Name}, {"note", dist.Note}})
		for j := range dist.Localities {
			loc := &dist.Localities[j]
			check(DistrictsFile, i, "localities", j, []text{{"name", &loc.Name}, {"name_en", loc.NameEN}, {"note", loc.Note}})
		}
	}
	for i := range d.candidates.each {
		c := &d.candidates.recs[i]
		check(CandidatesFile, i, "", -1, []text{{"name", &c.Name}, {"given_name", &c.GivenName}, {"family_name", &c.FamilyName}})
	}
	for i := range d.counts.each {
		s := &d.counts.recs[i]
		for j := range s.Candidacies {
			check(CountsFile, i, "candidacies", j, []text{{"name", &s.Candidacies[j].Name}})
		}
	}
}

func (d *records) checkManifest(r *Report) {
	m := d.manifest
	required := []struct{ key, value string }{
		{"title", m.Title},
		{"license", m.License},
		{"publisher.name", m.Publisher.Name},
		{"publisher.url", m.Publisher.URL},
	}
	for _, f := range required {
		if strings.TrimSpace(f.value) == "" {
			r.errorf(ManifestFile, f.key, "required", "key %q is missing or empty", f.key)
		}
	}
	for _, f := range []struct{ key, value string }{
		{"license_url", m.LicenseURL},
		{"publisher.url", m.Publisher.URL},
		{"publisher.about_url", m.Publisher.AboutURL},
	} {
		if f.value == "" {
			continue
		}
		if why := URLProblem(f.value); why != "" {
			r.errorf(ManifestFile, f.key, "url", "%q is not an absolute http or https URL: %s", f.value, why)
		}
	}
	if ns := m.IDs.Namespace; ns != "" && !isCanonicalUUID(ns) {
		r.errorf(ManifestFile, "ids.namespace", "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", ns)
	}
	checkElection(m.Election, r)
}

// checkElection checks what [election] gives; what an archive requires of
// it (a slug and a name) is the archive's rule.
func checkElection(e Election, r *Report) {
	if e.Slug != "" && !isSlug(e.Slug) {
		r.errorf(ManifestFile, "election.slug", "slug", "%q is not a slug (lower-case ASCII letters and digits joined by single hyphens)", e.Slug)
	}
	if e.Kind != "" && !isSlug(e.Kind) {
		r.errorf(ManifestFile, "election.kind", "slug", "%q is not a kind: a word of lower-case ASCII letters and digits, joined by single hyphens (%q, %q)", e.Kind, DefaultKind, "by-election")
	}
	for _, f := range []struct{ key, value string }{{"election.name", e.Name}, {"election.name_en", e.NameEN}} {
		if f.value != "" && strings.TrimSpace(f.value) == "" {
			r.errorf(ManifestFile, f.key, "required", "key %q is blank: give the name, or leave the key out", f.key)
		}
	}
	if e.ID != "" && !isCanonicalUUID(e.ID) {
		r.errorf(ManifestFile, "election.id", "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", e.ID)
	}
	if !districtsInRange(e) {
		r.errorf(ManifestFile, "election.districts", "range", "is %d; must be a number of districts from 1 to %d", *e.Districts, MaxDistricts)
	}
}

// districtsInRange reports whether [election] districts, when given, is
// a number of districts ballot takes.
func districtsInRange(e Election) bool {
	return e.Districts == nil || *e.Districts >= 1 && *e.Districts <= MaxDistricts
}
