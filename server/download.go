package server

import (
	"net/http"

	"ballot/answers"
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
// row its filters keep (dataset.Rows, written by answers.Download), or the API's 400 problem for a
// refused filter.
func (s *Server) download(c dataset.Collection) http.Handler {
	disposition := []string{`attachment; filename="` + string(c) + `.csv"`}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := queries.Get().(*query)
		defer q.release()
		ds := s.snap.Load().ds
		rows, err := ds.Rows(c, q.parse(r.URL.RawQuery))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		csv := answers.NewDownload(ds, rows)
		a := csvAnswer(r, csv.ETag(), csv.AppendCSV)
		w.Header()["Content-Disposition"] = disposition
		s.writeAnswer(w, r, a)
	})
}

// csvAnswer is a download's answer, of strong ETag etag and bytes
// appendCSV appends. Only the body that is sent is made: none for a 304,
// and the gzip one alone for a client that takes it. A body and a gzip
// body both set (empty when unsent) make writeAnswer choose by
// Accept-Encoding, as it does for a document.
func csvAnswer(r *http.Request, etag string, appendCSV func([]byte) []byte) *answer {
	a := &answer{contentType: csvValue, etag: etag, gzipETag: answers.GzipETag(etag)}
	gz := acceptsGzip(r.Header["Accept-Encoding"])
	tag := a.etag
	if gz {
		tag = a.gzipETag
	}
	switch {
	case noneMatch(r.Header["If-None-Match"], tag):
		a.body, a.gzipBody = []byte{}, []byte{}
	case gz:
		a.body, a.gzipBody = []byte{}, gzipCSV(appendCSV(nil))
	default:
		a.body = appendCSV(nil)
	}
	return a
}

// gzipCSV compresses a download for a client that accepts gzip: made on
// request like the rows themselves, at the fastest level, which still
// takes a CSV to about a sixth of its size.
func gzipCSV(body []byte) []byte {
	return answers.GzipOnRequest(make([]byte, 0, len(body)/4+64), body)
}
