package server

import (
	"net/http"

	"ballot/dataset"
)

// The CSV downloads live beside the pages, outside the API, which stays
// JSON: each listing page's selection as a spreadsheet opens it. They are
// rate limited and cached as pages are.
const (
	PartiesCSVPath    = "/parties.csv"
	DistrictsCSVPath  = "/districts.csv"
	CandidatesCSVPath = "/candidates.csv"
)

var csvValue = []string{"text/csv; charset=utf-8"}

// download answers GET and HEAD for a collection's CSV download: every
// row its filters keep (dataset.Rows), or the API's 400 problem for a
// refused filter.
func (s *Server) download(c dataset.Collection) http.Handler {
	disposition := []string{`attachment; filename="` + string(c) + `.csv"`}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := queries.Get().(*query)
		defer q.release()
		rows, err := s.snap.Load().ds.Rows(c, q.parse(r.URL.RawQuery))
		if err != nil {
			writeError(w, r, err, nil)
			return
		}
		etag := rows.ETag()
		w.Header()["Content-Disposition"] = disposition
		s.writeAnswer(w, r, &answer{contentType: csvValue, etag: etag, gzipETag: etag, body: rows.AppendCSV(nil)})
	})
}
