package dataset

import (
	"regexp"
	"strings"
)

// The number of electoral districts: Malta elects its parliament from 13.
const DistrictCount = 13

var (
	uuidPattern  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	slugPattern  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	colorPattern = regexp.MustCompile(`^#[0-9a-f]{6}$`)
)

// records holds the decoded files of a dataset while they are checked.
type records struct {
	manifest   Manifest
	manifestOK bool
	parties    file[Party]
	districts  file[District]
	candidates file[Candidate]
}

// release lets go of what only the checks needed, once they are done:
// the records themselves go on into a Dataset.
func (d *records) release() {
	for _, f := range []interface{ release() }{&d.parties, &d.districts, &d.candidates} {
		f.release()
	}
}

// check applies the dataset rules that span fields, records and files to
// every record that decoded. Every problem is added to r; nothing stops at
// the first. A rule that needs a whole file (references into it, the count
// of districts) runs only when that file decoded completely, so a defect is
// not reported again as the many problems it causes.
func (d *records) check(r *Report) {
	ids := map[string]string{} // id -> pointer of its first use, across files
	// claimID checks an id's form and, for a record that decoded whole
	// (compare), that no other record has it.
	claimID := func(file, ptr, id string, compare bool) {
		if !uuidPattern.MatchString(id) {
			r.errorf(file, ptr, "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", id)
			return
		}
		if !compare {
			return
		}
		if first, dup := ids[id]; dup {
			r.errorf(file, ptr, "uuid-unique", "id %s is already used at %s", id, first)
			return
		}
		ids[id] = file + "#" + ptr
	}
	checkSlug := func(file, ptr, slug string, seen map[string]string) {
		ref := file + "#" + ptr
		if !slugPattern.MatchString(slug) {
			r.errorf(file, ptr, "slug", "%q is not a slug (lower-case ASCII letters and digits joined by single hyphens)", slug)
			return
		}
		if seen == nil {
			return
		}
		if first, dup := seen[slug]; dup {
			r.errorf(file, ptr, "slug-unique", "slug %q is already used at %s", slug, first)
			return
		}
		seen[slug] = ref
	}
	checkURL := func(file, ptr string, u *string) {
		if u == nil {
			return
		}
		if why := URLProblem(*u); why != "" {
			r.errorf(file, ptr, "url", "%q is not an absolute http or https URL: %s", *u, why)
		}
	}
	checkText := func(file, ptr, s string) {
		if strings.TrimSpace(s) == "" {
			r.errorf(file, ptr, "required", "must not be empty")
		}
	}
	checkOptionalText := func(file, ptr string, s *string) {
		if s != nil && strings.TrimSpace(*s) == "" {
			r.errorf(file, ptr, "required", "must not be empty (use null, or leave the field out, when it is unknown)")
		}
	}
	// unless returns seen for a record that decoded whole and nil for a
	// defective one, which the rules comparing records leave out.
	unless := func(defective bool, seen map[string]string) map[string]string {
		if defective {
			return nil
		}
		return seen
	}

	if d.manifestOK {
		d.checkManifest(r)
	}

	partyIDs := map[string]bool{}
	partySlugs := map[string]string{}
	for i, p := range d.parties.objects {
		whole := d.parties.valid[i]
		has := func(ptr string) bool { return d.parties.has(i, ptr) }
		ptr := func(field string) string { return pointer(i, field) }
		if has(ptr("id")) {
			claimID(PartiesFile, ptr("id"), p.ID, whole)
			partyIDs[p.ID] = true
		}
		if has(ptr("slug")) {
			checkSlug(PartiesFile, ptr("slug"), p.Slug, unless(!whole, partySlugs))
		}
		if has(ptr("name")) {
			checkText(PartiesFile, ptr("name"), p.Name)
		}
		if has(ptr("short_name")) {
			checkText(PartiesFile, ptr("short_name"), p.ShortName)
		}
		if p.Color != nil && has(ptr("color")) && !colorPattern.MatchString(*p.Color) {
			r.errorf(PartiesFile, ptr("color"), "color", "%q is not a colour of the form #rrggbb (lower-case hex)", *p.Color)
		}
		for _, f := range []struct {
			name string
			text *string
		}{{"name_en", p.NameEN}, {"leader_name", p.LeaderName}} {
			if has(ptr(f.name)) {
				checkOptionalText(PartiesFile, ptr(f.name), f.text)
			}
		}
		for _, f := range []struct {
			name string
			url  *string
		}{{"website", p.Website}, {"logo_url", p.LogoURL}, {"wikipedia_url", p.WikipediaURL}} {
			if has(ptr(f.name)) {
				checkURL(PartiesFile, ptr(f.name), f.url)
			}
		}
	}

	if d.districts.complete && len(d.districts.recs) != DistrictCount {
		r.errorf(DistrictsFile, "", "district-count", "must hold exactly %d districts, found %d", DistrictCount, len(d.districts.recs))
	}
	districtIDs := map[string]bool{}
	numbers := map[int]string{}
	for i, dist := range d.districts.objects {
		whole := d.districts.valid[i]
		has := func(ptr string) bool { return d.districts.has(i, ptr) }
		if has(pointer(i, "id")) {
			claimID(DistrictsFile, pointer(i, "id"), dist.ID, whole)
			districtIDs[dist.ID] = true
		}
		if has(pointer(i, "number")) {
			switch first, dup := numbers[dist.Number]; {
			case dist.Number < 1 || dist.Number > DistrictCount:
				r.errorf(DistrictsFile, pointer(i, "number"), "district-number", "district number %d is outside 1 to %d", dist.Number, DistrictCount)
			case !whole:
			case dup:
				r.errorf(DistrictsFile, pointer(i, "number"), "district-number", "district number %d is already used at %s", dist.Number, first)
			default:
				numbers[dist.Number] = DistrictsFile + "#" + pointer(i, "number")
			}
		}
		if has(pointer(i, "name")) {
			checkText(DistrictsFile, pointer(i, "name"), dist.Name)
		}
		if has(pointer(i, "source_url")) {
			checkURL(DistrictsFile, pointer(i, "source_url"), dist.SourceURL)
		}
		localitySlugs := map[string]string{}
		localityNames := map[string]string{}
		for j, loc := range dist.Localities {
			ptr := pointer(i, "localities", j)
			if has(ptr + "/name") {
				checkText(DistrictsFile, ptr+"/name", loc.Name)
			}
			switch first, dup := localityNames[Fold(loc.Name)]; {
			case !whole:
				if has(ptr + "/slug") {
					checkSlug(DistrictsFile, ptr+"/slug", loc.Slug, nil)
				}
			case dup:
				r.errorf(DistrictsFile, ptr+"/name", "locality-repeated", "locality %q is already listed in this district at %s", loc.Name, first)
			default:
				localityNames[Fold(loc.Name)] = DistrictsFile + "#" + ptr + "/name"
				checkSlug(DistrictsFile, ptr+"/slug", loc.Slug, localitySlugs)
			}
			if loc.NameEN != nil && has(ptr+"/name_en") && strings.TrimSpace(*loc.NameEN) == "" {
				r.errorf(DistrictsFile, ptr+"/name_en", "required", "must not be empty (use null, or leave the field out, when there is no English name)")
			}
		}
	}
	if d.districts.complete && len(d.districts.recs) == DistrictCount {
		for n := 1; n <= DistrictCount; n++ {
			if _, ok := numbers[n]; !ok {
				r.errorf(DistrictsFile, "", "district-number", "district number %d is missing", n)
			}
		}
	}

	candidateSlugs := map[string]string{}
	for i, c := range d.candidates.objects {
		whole := d.candidates.valid[i]
		has := func(ptr string) bool { return d.candidates.has(i, ptr) }
		ptr := func(field string) string { return pointer(i, field) }
		if has(ptr("id")) {
			claimID(CandidatesFile, ptr("id"), c.ID, whole)
		}
		if has(ptr("slug")) {
			checkSlug(CandidatesFile, ptr("slug"), c.Slug, unless(!whole, candidateSlugs))
		}
		for _, f := range []struct{ name, text string }{{"name", c.Name}, {"given_name", c.GivenName}, {"family_name", c.FamilyName}} {
			if has(ptr(f.name)) {
				checkText(CandidatesFile, ptr(f.name), f.text)
			}
		}
		for _, f := range []struct {
			name string
			url  *string
		}{{"website", c.Website}, {"photo_url", c.PhotoURL}} {
			if has(ptr(f.name)) {
				checkURL(CandidatesFile, ptr(f.name), f.url)
			}
		}
		if has(ptr("primary_district_id")) && has(ptr("district_ids")) {
			if len(c.DistrictIDs) == 0 {
				r.errorf(CandidatesFile, ptr("district_ids"), "primary-first", "must list at least the primary district")
			} else if c.DistrictIDs[0] != c.PrimaryDistrictID {
				r.errorf(CandidatesFile, pointer(i, "district_ids", 0), "primary-first", "must be the primary district %s", c.PrimaryDistrictID)
			}
		}
		if !whole {
			continue // references and repeats are checked on whole records
		}
		if c.PartyID != nil && d.parties.complete && !partyIDs[*c.PartyID] {
			r.errorf(CandidatesFile, ptr("party_id"), "reference", "no party has id %s", *c.PartyID)
		}
		if d.districts.complete && !districtIDs[c.PrimaryDistrictID] {
			r.errorf(CandidatesFile, ptr("primary_district_id"), "reference", "no district has id %s", c.PrimaryDistrictID)
		}
		seen := map[string]bool{}
		for j, id := range c.DistrictIDs {
			switch {
			case d.districts.complete && !districtIDs[id]:
				r.errorf(CandidatesFile, pointer(i, "district_ids", j), "reference", "no district has id %s", id)
			case seen[id]:
				r.errorf(CandidatesFile, pointer(i, "district_ids", j), "district-repeated", "district %s is listed twice", id)
			}
			seen[id] = true
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
	// A locality listed under two districts must say it is split.
	type place struct {
		ptr   string
		split bool
	}
	byName := map[string][]place{}
	for i, dist := range d.districts.each {
		for j, loc := range dist.Localities {
			byName[loc.Slug] = append(byName[loc.Slug], place{pointer(i, "localities", j), loc.Split})
		}
	}
	for slug := range sortedKeys(byName) {
		places := byName[slug]
		if len(places) < 2 {
			continue
		}
		for _, p := range places {
			if !p.split {
				r.warnf(DistrictsFile, p.ptr+"/split", "split-unmarked", "locality %q appears in %d districts but is not marked as split (a different place of the same name needs a different slug)", slug, len(places))
			}
		}
	}

	partyUsed := map[string]bool{}
	districtUsed := map[string]bool{}
	seen := map[string]int{}
	for i, c := range d.candidates.each {
		party := ""
		if c.PartyID != nil {
			party = *c.PartyID
			partyUsed[party] = true
		}
		for _, id := range c.DistrictIDs {
			districtUsed[id] = true
		}
		key := Fold(c.Name) + "\x00" + party
		if first, dup := seen[key]; dup {
			r.warnf(CandidatesFile, pointer(i, "name"), "candidate-duplicate", "%q of the same party is also at %s: the same person twice?", c.Name, CandidatesFile+"#"+pointer(first))
		} else {
			seen[key] = i
		}
		if len(c.DistrictIDs) > MaxDistrictsPerCandidate {
			r.warnf(CandidatesFile, pointer(i, "district_ids"), "districts-over-two", "contests %d districts; Maltese law allows %d", len(c.DistrictIDs), MaxDistrictsPerCandidate)
		}
	}
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
	d.warnFormulas(r)
}

// warnFormulas warns of a name or text that begins with a character a
// spreadsheet reads as a formula: allowed, since query's CSV neutralises
// it, but more likely a slip or a planted =HYPERLINK(...) than a real name.
func (d *records) warnFormulas(r *Report) {
	check := func(file, ptr string, s *string) {
		if s != nil && FormulaPrefixed(*s) {
			r.warnf(file, ptr, "formula-prefix", "%q begins with %q, which a spreadsheet may run as a formula", *s, (*s)[:1])
		}
	}
	for i, p := range d.parties.each {
		check(PartiesFile, pointer(i, "name"), &p.Name)
		check(PartiesFile, pointer(i, "short_name"), &p.ShortName)
		check(PartiesFile, pointer(i, "name_en"), p.NameEN)
		check(PartiesFile, pointer(i, "leader_name"), p.LeaderName)
	}
	for i, dist := range d.districts.each {
		check(DistrictsFile, pointer(i, "name"), &dist.Name)
		for j, loc := range dist.Localities {
			check(DistrictsFile, pointer(i, "localities", j, "name"), &loc.Name)
			check(DistrictsFile, pointer(i, "localities", j, "name_en"), loc.NameEN)
			check(DistrictsFile, pointer(i, "localities", j, "note"), loc.Note)
		}
	}
	for i, c := range d.candidates.each {
		check(CandidatesFile, pointer(i, "name"), &c.Name)
		check(CandidatesFile, pointer(i, "given_name"), &c.GivenName)
		check(CandidatesFile, pointer(i, "family_name"), &c.FamilyName)
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
	if ns := m.IDs.Namespace; ns != "" && !uuidPattern.MatchString(ns) {
		r.errorf(ManifestFile, "ids.namespace", "uuid", "%q is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)", ns)
	}
}
