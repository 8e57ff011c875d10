package server

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"ballot/answers"
)

// answer is a successful answer: a document's or a page's bytes, prepared
// at load, or a collection's result, whose body is made with the request's
// time.
type answer struct {
	contentType []string
	// etag names the plain body and gzipETag the gzip one. A document's
	// tags are strong, so each encoding has its own; a collection's are
	// weak (generatedAt differs between equal bodies) and name the content,
	// the same in both encodings.
	etag, gzipETag string
	// body and gzipBody are a document's bytes. A page rendered for the
	// request has a body alone, sent as it is (nil when a 304 answers it).
	body, gzipBody []byte
	// result is a collection's records, whose body, plain or gzip, is
	// made with the request's time; the zero Result for any other answer.
	result answers.Result
	// stream, when set, writes a download's body, made as it is written
	// (writeStream); gzip, when the client takes it, as it is written too.
	stream func(io.Writer) error
	// records are the archive's records (its elections, its people),
	// whose body is made with the request's time as a collection's is;
	// the zero Records for any other answer.
	records answers.Records
	// link is the Link header's value, when prepared with result; nil
	// for nextLink to work out.
	link []string
	// cacheControl, when set, replaces the server's Cache-Control: the
	// pages' fingerprinted stylesheet and icon are cached for a year.
	cacheControl []string
}

// bodies recycles response buffers: a request appends into one and writes
// it in a single call.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// writeAnswer writes a successful answer: its validators, 304 when the
// client holds it already, gzip when the client accepts it and the answer
// has it, the length, and the body in one write (none to HEAD). Every
// successful answer of the public listener, API and pages, goes through it.
// Home-made: gorilla/handlers' CompressHandler compresses every body as it
// is written, and these are compressed when the dataset loads.
func (s *Server) writeAnswer(w http.ResponseWriter, r *http.Request, a *answer) {
	gz := (!a.result.IsZero() || !a.records.IsZero() || a.gzipBody != nil) && acceptsGzip(r.Header["Accept-Encoding"])
	etag := a.etag
	if gz {
		etag = a.gzipETag
	}
	// The values made per request are the response's fieldValues; a
	// header value that never changes is a shared slice (see
	// middleware.go).
	f := valuesOf(w)
	h := w.Header()
	h["Etag"] = f.value(etag)
	cache := s.cacheControlValue
	if a.cacheControl != nil {
		cache = a.cacheControl
	}
	if noneMatch(r.Header["If-None-Match"], etag) {
		writeHead(w, http.StatusNotModified, nil, cache, nil)
		return
	}
	var bp *[]byte
	body := a.body
	if gz {
		body = a.gzipBody
		h["Content-Encoding"] = gzipValue
	}
	if a.stream != nil {
		writeStream(w, r, a.contentType, a.stream, gz, cache)
		return
	}
	// A large body whose records are prepared at load as one run is
	// written from those bytes in place, before and after the parts made
	// for it: copied, a 26 MB sheet took 26 MB for each client reading
	// it, as long as it read. A small one is copied whole, one write.
	var head, prepared []byte
	switch {
	case !a.result.IsZero():
		bp = bodies.Get().(*[]byte)
		now := stateOf(w).now
		switch {
		case gz:
			if head, prepared = a.result.PreparedGzip(); len(prepared) >= inPlaceAt {
				body = a.result.AppendGzipRest((*bp)[:0], now)
			} else {
				// Prepared at load: only the tail is compressed here.
				head, prepared, body = nil, nil, a.result.AppendGzip((*bp)[:0], now)
			}
		default:
			if head, prepared = a.result.PreparedRun(); len(prepared) >= inPlaceAt {
				body = a.result.AppendTail((*bp)[:0], now)
			} else {
				head, prepared, body = nil, nil, a.result.AppendJSON((*bp)[:0], now)
			}
		}
	case !a.records.IsZero():
		bp = bodies.Get().(*[]byte)
		if gz {
			body = a.records.AppendGzip((*bp)[:0], stateOf(w).now)
		} else {
			body = a.records.AppendJSON((*bp)[:0], stateOf(w).now)
		}
	}
	if a.link != nil {
		h["Link"] = a.link
	} else if link := s.nextLink(r.URL.Path, a.result); link != "" {
		h["Link"] = f.value(link)
	}
	length := len(head) + len(prepared) + len(body)
	writeHead(w, http.StatusOK, a.contentType, cache, f.text(strconv.AppendInt(f.buffer(), int64(length), 10)))
	if r.Method != http.MethodHead {
		writeCorked(w, r, length, head, prepared, body)
	}
	if bp != nil {
		*bp = body
		bodies.Put(bp)
	}
}

// inPlaceAt is the least run of prepared records written in place rather
// than copied into the answer's buffer: below it, the copy costs less than
// the writes of its own the parts take.
const inPlaceAt = 64 << 10

// streamAt is the most of a download writeStream holds before it sends
// it: one that ends within it is sent whole, with its length.
const streamAt = 64 << 10

// writeStream writes an answer whose body stream makes as it is
// written, a download: into a buffer of up to streamAt bytes, sent with
// its length when the body ends within it, as every other answer is;
// past it, the head is sent without a length and the body as it is made
// (chunked), a download of any size holding no more than the buffer. For
// HEAD, the body is made only as far as the buffer: past it, the head
// says no length, as GET's does.
func writeStream(w http.ResponseWriter, r *http.Request, contentType []string, stream func(io.Writer) error, gz bool, cache []string) {
	bp := bodies.Get().(*[]byte)
	sw := &spill{w: w, buf: (*bp)[:0], head: r.Method == http.MethodHead, send: func(length []string) {
		writeHead(w, http.StatusOK, contentType, cache, length)
	}}
	var err error
	if gz {
		err = answers.WriteGzip(sw, stream)
	} else {
		err = stream(sw)
	}
	if !sw.sent && err == nil {
		f := valuesOf(w)
		sw.send(f.text(strconv.AppendInt(f.buffer(), int64(len(sw.buf)), 10)))
		if !sw.head {
			writeCorked(w, r, len(sw.buf), sw.buf)
		}
	}
	// A client gone, or a HEAD past the buffer: the rest is not made,
	// and the answer ends short, as a client that left ends it.
	*bp = sw.buf
	bodies.Put(bp)
}

// spill is writeStream's writer: it holds what it is given up to
// streamAt bytes, then sends the head, what it holds, and the rest as it
// comes.
type spill struct {
	w    http.ResponseWriter
	buf  []byte
	send func(length []string) // writes the head, with the length when known
	sent bool
	head bool // a HEAD request: nothing of the body is sent
}

// errHeadSent stops the body of a HEAD answer once its head is sent.
var errHeadSent = errors.New("the head of a HEAD answer is sent")

func (s *spill) Write(p []byte) (int, error) {
	if !s.sent {
		if len(s.buf)+len(p) <= streamAt {
			s.buf = append(s.buf, p...)
			return len(p), nil
		}
		s.sent = true
		s.send(nil)
		if s.head {
			return 0, errHeadSent
		}
		if _, err := s.w.Write(s.buf); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}

// valuesOf returns the fieldValues of w's response: the exchange's on
// the public listener, one of its own on the admin listener's.
func valuesOf(w http.ResponseWriter) *fieldValues {
	if q := findState(w); q != nil {
		return q.fieldValues()
	}
	return new(fieldValues)
}

// writeHead sets the fields that describe an answer, its type, caching and
// length, and sends the status. Every answer goes through it, so each of
// those fields is set in this one place. An answer with no body (a 304)
// has a nil contentType, and no type or length.
func writeHead(w http.ResponseWriter, status int, contentType, cacheControl, length []string) {
	h := w.Header()
	h["Cache-Control"] = cacheControl
	if contentType != nil {
		h["Content-Type"] = contentType
		h["Content-Length"] = length
		if length == nil { // a download sent as it is made
			delete(h, "Content-Length")
		}
	}
	w.WriteHeader(status)
}

// noneMatch reports whether an If-None-Match header matches etag, using the
// weak comparison RFC 9110 prescribes for it.
func noneMatch(headers []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding allows gzip: gzip or x-gzip
// listed with a q-value above 0, or else * with one. It runs on every
// request, so it walks the header without splitting it into new strings.
func acceptsGzip(values []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			coding, params, _ := strings.Cut(item, ";")
			q := 1.0
			for params != "" {
				var p string
				p, params, _ = strings.Cut(params, ";")
				name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(name, "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
						q = f
					}
				}
			}
			switch coding = strings.TrimSpace(coding); {
			case strings.EqualFold(coding, "gzip"), strings.EqualFold(coding, "x-gzip"):
				gzipQ = max(gzipQ, q)
			case coding == "*":
				starQ = max(starQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
