package server

import (
	"net/http"

	"ballot/answers"
)

// The archive's own endpoints: its elections, and the people who stood in
// them. Their answers were prepared when the archive loaded (package
// answers, ArchiveAnswers); each spends the rate limit shared by the
// paths that are no collection's.

// archiveEndpoints are the rows of the endpoint table of the elections and
// the people.
func (s *Server) archiveEndpoints() []endpoint {
	return []endpoint{
		{"/elections", "elections", sharedCounter, http.HandlerFunc(s.elections), "application/json",
			"The elections of the archive, newest first: each election's id, slug, names, kind, date, whether it is the current one, " +
				"its districts and seats, how many records each of its collections holds, and the paths of its collections.", nil, false},
		{electionPrefix, "election", sharedCounter, http.HandlerFunc(s.election), "application/json",
			"One election by its slug or id (one record).", []parameter{electionParameter}, false},
		{"/people", "people", sharedCounter, http.HandlerFunc(s.people), "application/json",
			"The people who stood in the elections, followed across them by their candidates' person_id, whose names hold q " +
				"(case, accents and Maltese letters folded), in the order of their names: each with every candidacy, newest first.",
			[]parameter{{"q", "Required: text to look for in the names, 2 to 100 characters, as the candidates' q.", nil}}, false},
		{"/people/{slug_or_id}", "person", sharedCounter, http.HandlerFunc(s.person), "application/json",
			"One person by their slug or id: every candidacy, newest first, with their first preferences and the count that elected or excluded them in each district that has a count sheet (one record).",
			[]parameter{{"slug_or_id", "The person's slug or id, in any letter case.", nil}}, false},
	}
}

// electionParameter is the path parameter that names an election.
var electionParameter = parameter{electionVar, "The election's slug (the year, for Malta's general elections) or id, in any letter case.", nil}

// elections answers GET and HEAD for the archive's elections.
func (s *Server) elections(w http.ResponseWriter, r *http.Request) {
	s.writeRecords(w, r, s.snap.Load().archive.Elections())
}

// election answers GET and HEAD for one election, by the path's slug or
// id; the 404 of an election the archive does not hold names every
// election's slug.
func (s *Server) election(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	key, _ := electionKey(r.URL.Path) // the route's path is under ElectionsPath
	i, err := snap.arch.ElectionIndex(key)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeRecords(w, r, snap.archive.Election(i))
}

// people answers GET and HEAD for a search of the people by name: q
// required, read as the candidates' q; a q missing or refused gets the
// 400 problem naming it.
func (s *Server) people(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	q := queries.Get().(*query)
	defer q.release()
	found, err := snap.arch.QueryPeople(q.parse(r.URL.RawQuery))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeRecords(w, r, snap.archive.People(found))
}

// person answers GET and HEAD for one person, by the path's slug or id.
func (s *Server) person(w http.ResponseWriter, r *http.Request) {
	snap := s.snap.Load()
	i, err := snap.arch.PersonIndex(pathKey(r, "slug_or_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeRecords(w, r, snap.archive.Person(i))
}

// writeRecords writes an answer of the archive's records, in a
// collection's envelope, with its weak ETag in both encodings.
func (s *Server) writeRecords(w http.ResponseWriter, r *http.Request, rec answers.Records) {
	etag := rec.ETag()
	s.writeAnswer(w, r, &answer{contentType: jsonValue, etag: etag, gzipETag: etag, records: rec})
}
