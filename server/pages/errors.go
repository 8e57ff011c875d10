package pages

import (
	"strings"
	"time"

	"ballot/dataset"
)

// Kind is the page a request asked for, as far as its error page depends
// on it: a refused query is shown in the form of the page that asked it,
// and a key that names no party or candidate gets its collection's 404.
type Kind uint8

// The kinds of page. Every page not named here, and every path that is no
// page's, is OtherPage.
const (
	OtherPage      Kind = iota
	PartyPage           // a party's, /parties/{slug_or_id}
	CandidatePage       // a candidate's, /candidates/{slug_or_id}
	CandidatesPage      // the candidates listing and its filters
	DistrictsPage       // the districts listing and its locality lookup
	SearchPage          // the search form and its results
	PeoplePage          // the people's search form and its results
	PersonPage          // a person's, /people/{slug_or_id}
)

// Refusal is what an error page needs, beside its status and its kind, to
// say why the request was refused.
type Refusal struct {
	// Params and RawQuery are the query of a refused page (400), read as
	// the API reads it and as sent; Err is what dataset.Query refused in it.
	Params   dataset.Params
	RawQuery string
	Err      *dataset.ParamError
	// Wait and At say when a client past the rate limit (429) may try
	// again: in seconds from now, and the time.
	Wait int64
	At   time.Time
	// NoElection is set on a 404 of a path under an election's
	// (ElectionPrefix) that names no election of the archive.
	NoElection bool
}

// ErrorPage is the page of a request for a page of kind refused with
// status (an HTTP status code), or nil when no page says it: a refused
// query has a page only where a form shows it, and a wrong method (405)
// or a failure of the server's own (500) none at all. Those are answered
// with the problem document, as the API's errors are. A page never echoes
// what a client wrote outside a form's values.
func (s *Site) ErrorPage(status int, kind Kind, why Refusal) []byte {
	t := s.lang.T
	switch {
	case status == 400 && kind == CandidatesPage:
		return s.candidatesRefused(why.Params, why.Err, why.RawQuery)
	case status == 400 && kind == DistrictsPage:
		return s.districtsRefused(why.Params, why.Err, why.RawQuery)
	case status == 400 && kind == SearchPage:
		return s.searchRefused(SearchText(why.Params), why.Err)
	case status == 400 && kind == PeoplePage:
		return s.peopleRefused(SearchText(why.Params), why.Err)
	case status == 404 && why.NoElection:
		return s.noElectionPage()
	case status == 404 && kind == PersonPage:
		return s.errorPage(t("person_not_found"), t("person_not_found_detail"))
	case status == 404 && kind == PartyPage:
		return s.errorPage(t("party_not_found"), t("party_not_found_detail"))
	case status == 404 && kind == CandidatePage:
		return s.errorPage(t("candidate_not_found"), t("candidate_not_found_detail"))
	case status == 404:
		return s.notFound
	case status == 429:
		return s.errorPage(t("too_many"), t("too_many_detail", why.Wait, why.At.UTC().Format("15:04:05")))
	}
	return nil
}

// errorPage renders an error page: its heading and one sentence.
func (s *Site) errorPage(heading, detail string) []byte {
	return s.render("error", heading, "", "", "", errorView{Heading: heading, Detail: detail})
}

// SearchText is the text a search query asks for, as the search page
// reads it: the first q, trimmed.
func SearchText(params dataset.Params) string {
	if vs := params["q"]; len(vs) > 0 {
		return strings.TrimSpace(vs[0])
	}
	return ""
}
