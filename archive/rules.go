package archive

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ballot/dataset"
	"ballot/suggest"
)

// The rules of an archive, beyond each election's own: every election
// named by a slug and a name, no two with one slug or one id, the current
// one named by its slug (checkElections); and, as warnings, the same name
// and party in two elections under two persons, or none (warnPeople). A
// person_id of two elections may go with two names (names change); that
// two candidates of one election are never one person is the dataset's
// rule.

// checkElections applies the rules that compare the elections of
// entries, in archive.toml's order, and those of archive.toml's current.
func checkElections(m Manifest, entries []entry, r *dataset.Report) {
	manifestOf := func(e entry) string { return e.dir + "/" + dataset.ManifestFile }
	slugs := map[string]entry{}
	ids := map[string]entry{}
	var known []string // the slugs, in archive.toml's order
	allRead := true
	for _, e := range entries {
		if !e.read {
			allRead = false
			continue
		}
		el := e.manifest.Election
		if el.Slug == "" {
			r.Errors = append(r.Errors, dataset.Problem{File: manifestOf(e), Pointer: "election.slug", Rule: "required", Message: `key "election.slug" is missing: an archive names each election by a slug, in [election] (slug = "2022")`})
		}
		if strings.TrimSpace(el.Name) == "" {
			r.Errors = append(r.Errors, dataset.Problem{File: manifestOf(e), Pointer: "election.name", Rule: "required", Message: `key "election.name" is missing: an archive gives each election a name, in [election]`})
		}
		if el.Slug == "" {
			continue
		}
		if first, dup := slugs[el.Slug]; dup {
			r.Errors = append(r.Errors, dataset.Problem{File: manifestOf(e), Pointer: "election.slug", Rule: "slug-unique", Message: fmt.Sprintf(
				"slug %q is already the slug of the election in %s: each election of an archive has a slug of its own", el.Slug, manifestOf(first))})
			continue
		}
		slugs[el.Slug] = e
		known = append(known, el.Slug)
		id := e.id
		if id == "" {
			id = el.ID
			if id == "" {
				id = electionID(e.manifest.IDs.Namespace, el.Slug)
			}
		}
		if first, dup := ids[id]; dup {
			r.Errors = append(r.Errors, dataset.Problem{File: manifestOf(e), Pointer: "election.id", Rule: "uuid-unique", Message: fmt.Sprintf(
				"election %q has the id %s, which is already the id of election %q in %s", el.Slug, id, first.manifest.Election.Slug, manifestOf(first))})
			continue
		}
		ids[id] = e
	}
	quoted := make([]string, len(known))
	for i, s := range known {
		quoted[i] = strconv.Quote(s)
	}
	switch _, found := slugs[m.Current]; {
	case m.Current == "":
		r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "current", Rule: "required", Message: fmt.Sprintf(
			`key "current" is missing: name the current election by its slug (%s)`, orNone(suggest.List(quoted, "or")))})
	case !found && allRead:
		r.Errors = append(r.Errors, dataset.Problem{File: File, Pointer: "current", Rule: "reference", Message: fmt.Sprintf(
			"no election has the slug %q%s; the slugs are %s", m.Current, suggest.Offer(suggest.Quoted(suggestSlug(m.Current, known))...), orNone(suggest.List(quoted, "and")))})
	}
}

// orNone is list, or "none" for an empty one.
func orNone(list string) string {
	if list == "" {
		return "none"
	}
	return list
}

// suggestSlug is the slug of slugs that key misspells by one slip, or "".
func suggestSlug(key string, slugs []string) string {
	return suggest.Best(key, slices.Values(slugs), 1)
}

// stand is a candidacy of a name and party, for warnPeople: the election
// (its index, newest first), the candidate's person and name.
type stand struct {
	election int
	person   *string
	name     string
}

// warnPeople warns of a name and party that stand in two elections, one
// right after the other in the archive, as two persons, or without a person in either: the same
// person, most likely, whom a person key would follow from one to the
// next. The warnings go to warn, or, without one, to a.Warnings; each is
// a problem of the newer election's candidates.json.
func (a *Archive) warnPeople(warn func(dataset.Problem)) {
	// Each name and party's candidacies, newest election first.
	type key struct{ name, party string }
	stands := map[key][]stand{}
	var order []key // in the order first met, for warnings in a stable order
	for ei, e := range a.elections {
		ds := e.Dataset()
		for i := range ds.Candidates() {
			c := &ds.Candidates()[i]
			k := key{dataset.Fold(c.Name), partySlug(ds, c)}
			if _, seen := stands[k]; !seen {
				order = append(order, k)
			}
			stands[k] = append(stands[k], stand{ei, c.PersonID, c.Name})
		}
	}
	for _, k := range order {
		// The stands of each election, newest first.
		var groups [][]stand
		for _, st := range stands[k] {
			if n := len(groups); n > 0 && groups[n-1][0].election == st.election {
				groups[n-1] = append(groups[n-1], st)
			} else {
				groups = append(groups, []stand{st})
			}
		}
		for g := 0; g+1 < len(groups); g++ {
			newer, older := groups[g], groups[g+1]
			if older[0].election != newer[0].election+1 {
				// An election between them without the name: whether the
				// two are one person the name alone tells less surely,
				// and the archive does not guess it.
				continue
			}
			unlinkedNew, unlinkedOld := unlinked(newer, older), unlinked(older, newer)
			if len(unlinkedNew) == 0 || len(unlinkedOld) == 0 {
				continue
			}
			en, eo := a.elections[newer[0].election], a.elections[older[0].election]
			p := dataset.Problem{File: en.Dir + "/" + dataset.CandidatesFile, Rule: "person-unlinked", Message: fmt.Sprintf(
				"%s, %s, in %s and %s (%s): give both the same person key if they are one person",
				unlinkedNew[0].name, partyName(en.Dataset(), k.party), eo.Record.Slug, en.Record.Slug, howUnlinked(unlinkedNew, unlinkedOld, en, eo))}
			if warn != nil {
				warn(p)
			} else {
				a.Warnings = append(a.Warnings, p)
			}
		}
	}
}

// unlinked returns the stands of these whose person none of those has.
func unlinked(these, those []stand) []stand {
	var out []stand
	for _, st := range these {
		linked := st.person != nil && slices.ContainsFunc(those, func(o stand) bool { return o.person != nil && *o.person == *st.person })
		if !linked {
			out = append(out, st)
		}
	}
	return out
}

// howUnlinked says how the unlinked stands of a newer and an older
// election differ: neither has a person, one has, or both have others.
func howUnlinked(newer, older []stand, en, eo *Election) string {
	has := func(ss []stand) bool {
		return slices.ContainsFunc(ss, func(s stand) bool { return s.person != nil })
	}
	switch {
	case !has(newer) && !has(older):
		return "no person_id in either"
	case !has(newer):
		return "a person_id in " + eo.Record.Slug + " only"
	case !has(older):
		return "a person_id in " + en.Record.Slug + " only"
	}
	return "two different person_ids"
}

// partySlug is the slug of c's party in ds, or "" for an independent.
func partySlug(ds *dataset.Dataset, c *dataset.Candidate) string {
	if c.PartyID == nil {
		return ""
	}
	i, _ := ds.PartyByID(*c.PartyID) // every party_id names a party, as the load checks
	return ds.Parties()[i].Slug
}

// partyName is the short name of the party with the slug in ds, or
// "independent" for "".
func partyName(ds *dataset.Dataset, slug string) string {
	if i, ok := ds.Lookup(dataset.Parties, slug); ok && slug != "" {
		return ds.Parties()[i].ShortName
	}
	return "independent"
}
