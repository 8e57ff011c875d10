package server

import (
	"net/http"
	"strings"

	"ballot/dataset"
)

// record answers GET and HEAD for one record of a collection, named by the
// last segment of the path. Its answer was prepared when the dataset
// loaded, as a collection's is; query parameters are ignored.
func record(c dataset.Collection) func(*Server, http.ResponseWriter, *http.Request, *request) {
	return func(s *Server, w http.ResponseWriter, r *http.Request, q *request) {
		key := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		res, err := s.data.Load().Record(c, key)
		if err != nil {
			writeError(w, err)
			return
		}
		etag := res.ETag() // prepared at load
		s.writeAnswer(w, r, &answer{contentType: jsonValue, etag: etag, gzipETag: etag, result: res}, q.now)
	}
}
