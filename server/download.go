package server

import (
	"io"
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
		es, _, err := s.snap.Load().pageElection(r.URL.Path)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ds := es.ds
		rows, err := ds.Rows(c, q.parse(r.URL.RawQuery))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		csv := answers.NewDownload(ds, rows)
		a := csvAnswer(csv.ETag(), csv.WriteCSV)
		w.Header()["Content-Disposition"] = disposition
		s.writeAnswer(w, r, a)
	})
}

// csvAnswer is a download's answer, of strong ETag etag and bytes
// writeCSV writes, made as they are sent (writeStream): none for a 304,
// and compressed as they are made for a client that takes gzip, at the
// fastest level, which still takes a CSV to about a sixth of its size. A
// gzip body set (empty: it is streamed) makes writeAnswer choose by
// Accept-Encoding, as it does for a document.
func csvAnswer(etag string, writeCSV func(io.Writer) error) *answer {
	return &answer{contentType: csvValue, etag: etag, gzipETag: answers.GzipETag(etag), body: []byte{}, gzipBody: []byte{}, stream: writeCSV}
}
