package server

import (
	"net/http"
	"slices"

	"ballot/answers"
	"ballot/dataset"
	"ballot/server/pages"
)

// The results collection is served by the collections' handlers (its list
// and one sheet by its district's key); besides them it has the national
// totals, an endpoint of its own, and each sheet's CSV download beside
// the district's page.

// SheetCSVPath is a district's count sheet as CSV, beside the district's
// page (pages.DistrictPath), in one language as the other downloads: the
// key is the district's number or UUID.
const SheetCSVPath = pages.SheetCSV

// nationalEndpoint is /results/national: its own route name in metrics and
// logs, counted on the results' counter, as each collection's list and
// record share theirs.
func (s *Server) nationalEndpoint() endpoint {
	counter := slices.IndexFunc(dataset.Table[:], func(c dataset.CollectionInfo) bool { return c.Name == dataset.Results })
	return endpoint{"/" + string(dataset.Results) + "/" + dataset.NationalKey, "national", counter, http.HandlerFunc(s.national),
		"application/json", "The national totals of the count sheets: the valid votes, the registered voters, the sheets, " +
			"the seats filled at the count, and each party's first preferences, share and seats, at the count and in parliament (one record).", nil, true}
}

// national answers GET and HEAD for the national totals of the election
// the path names (the current one without), prepared at load as a
// collection's answer is.
func (s *Server) national(w http.ResponseWriter, r *http.Request) {
	es, err := s.snap.Load().election(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeResult(w, r, es.answers.Of(es.ds.National()), nil)
}

// sheetDownload answers GET and HEAD for a district's count sheet as CSV
// (answers.SheetDownload), or the 404 problem of a district without one,
// as /results/{number} answers it.
func (s *Server) sheetDownload(w http.ResponseWriter, r *http.Request) {
	es, _, err := s.snap.Load().pageElection(r.URL.Path)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ds := es.ds
	key := pathKey(r, "number")
	res, err := ds.Record(dataset.Results, key)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	csv := answers.NewSheetDownload(ds, &ds.Sheets()[res.Index(0)])
	a := csvAnswer(csv.ETag(), csv.WriteCSV)
	w.Header()["Content-Disposition"] = []string{`attachment; filename="` + csv.Filename() + `"`}
	s.writeAnswer(w, r, a)
}
