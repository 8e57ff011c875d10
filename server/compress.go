package server

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipWriters recycles compressors: allocating one costs more than the
// small bodies it compresses.
var gzipWriters = sync.Pool{New: func() any {
	gz, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return gz
}}

// compressGzip gzips successful answers when the request accepts gzip,
// unless the handler has already encoded them (the collections are
// compressed at load; see dataset.Result.AppendGzip).
// gorilla/handlers' CompressHandler is not used: it ignores q-values, sends
// raw deflate labelled "deflate" (HTTP's deflate is zlib), and labels 304s
// and HEADs as compressed after writing a gzip stream to them.
func compressGzip(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipResponseWriter{ResponseWriter: w, head: r.Method == http.MethodHead}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

type gzipResponseWriter struct {
	http.ResponseWriter
	head        bool
	wroteHeader bool
	compressing bool
	gz          *gzip.Writer
}

// WriteHeader compresses only a 200: errors are short and 304s, 204s and
// HEADs carry no body.
func (g *gzipResponseWriter) WriteHeader(status int) {
	if g.wroteHeader {
		return
	}
	g.wroteHeader = true
	// An answer the handler encoded itself is passed through as it is.
	if status == http.StatusOK && g.Header().Get("Content-Encoding") == "" {
		h := g.Header()
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		g.compressing = true
		if !g.head {
			g.gz = gzipWriters.Get().(*gzip.Writer)
			g.gz.Reset(g.ResponseWriter)
		}
	}
	g.ResponseWriter.WriteHeader(status)
}

func (g *gzipResponseWriter) Write(b []byte) (int, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	switch {
	case g.gz != nil:
		return g.gz.Write(b)
	case g.compressing: // HEAD: the headers say gzip, and there is no body
		return len(b), nil
	}
	return g.ResponseWriter.Write(b)
}

func (g *gzipResponseWriter) close() {
	if g.gz != nil {
		_ = g.gz.Close()
		g.gz.Reset(nil)
		gzipWriters.Put(g.gz)
		g.gz = nil
	}
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
