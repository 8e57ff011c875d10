package server

import (
	"strconv"

	"ballot/answers"
)

// lengthAndLink returns the Content-Length value of a body of length bytes
// and, while records remain after the page res is, the Link field to the
// next page (RFC 8288), as GitHub paginates: the endpoint's URL at
// public_url, or a path-absolute reference without one, with the filters
// in canonical form and limit and offset set. Both are made in one
// allocation, which the length alone cost before. path is the endpoint's
// path, which routing matched exactly.
func (s *Server) lengthAndLink(length int, path string, res answers.Result) (string, string) {
	var text [512]byte
	b := strconv.AppendInt(text[:0], int64(length), 10)
	n := len(b)
	if _, ok := res.Query().Next(); ok {
		b = append(b, '<')
		b = append(b, s.publicURL...)
		b = append(b, path...)
		b = append(b, '?')
		b = res.AppendNextQuery(b)
		b = append(b, `>; rel="next"`...)
	}
	str := string(b)
	return str[:n], str[n:]
}
