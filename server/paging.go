package server

import "ballot/answers"

// nextLink returns, while records remain after the page res is, the Link
// field to the next page (RFC 8288), as GitHub paginates: the endpoint's
// URL at public_url, or a path-absolute reference without one, with the
// filters in canonical form and limit and offset set; "" on the last page.
// path is the endpoint's path, which routing matched exactly.
func (s *Server) nextLink(path string, res answers.Result) string {
	if _, ok := res.Query().Next(); !ok {
		return ""
	}
	var text [512]byte
	b := append(text[:0], '<')
	b = append(b, s.publicURL...)
	b = append(b, path...)
	b = append(b, '?')
	b = res.AppendNextQuery(b)
	b = append(b, `>; rel="next"`...)
	return string(b)
}
