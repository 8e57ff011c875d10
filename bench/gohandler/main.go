// Command gohandler is the ceiling a Go server on net/http can reach for
// ballot's answers: it serves response bodies saved from ballot, from memory,
// patching a fresh meta.generatedAt into each (same length), with
// Content-Type and Content-Length and nothing else. Each body is copied into
// one reused buffer and written with a single Write.
//
//	gohandler -listen 127.0.0.1:8083 -dir bench/out/static/malta
//	gohandler -listen 127.0.0.1:8087 -dir bench/out/static/malta -ballot-headers
//
// DIR holds urls.tsv, one "REQUEST-URI<TAB>FILE[<TAB>HEADER-FILE]" per line,
// and the files. With -ballot-headers it also sends the header fields saved
// from ballot's answer in HEADER-FILE ("Name: value" lines; their values as
// saved, so the rate-limit numbers do not change) and uses ballot's server
// timeouts: what net/http itself costs a server that sends the contract's
// header fields, with none of ballot's work behind them.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"log"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

const timeFormat = "2006-01-02T15:04:05.000Z" // ballot's meta.generatedAt

type answer struct {
	head, tail []byte   // the body before and after the timestamp
	length     []string // the Content-Length header value, pre-built
	header     []field  // with -ballot-headers: the fields saved from ballot
}

type field struct {
	name  string // canonical
	value []string
}

var (
	contentType = []string{"application/json; charset=utf-8"}
	buffers     = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("gohandler: ")
	listen := flag.String("listen", "127.0.0.1:8083", "address to listen on")
	dir := flag.String("dir", "", "directory holding urls.tsv and the saved bodies")
	ballotHeaders := flag.Bool("ballot-headers", false, "also send the header fields saved from ballot, with ballot's server timeouts")
	flag.Parse()
	answers := load(*dir, *ballotHeaders)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.RequestURI]
		if !ok {
			http.NotFound(w, r)
			return
		}
		bp := buffers.Get().(*[]byte)
		b := append((*bp)[:0], a.head...)
		b = time.Now().UTC().AppendFormat(b, timeFormat)
		b = append(b, a.tail...)
		hdr := w.Header()
		hdr["Content-Type"] = contentType
		hdr["Content-Length"] = a.length
		for _, f := range a.header {
			hdr[f.name] = f.value
		}
		_, _ = w.Write(b)
		*bp = b
		buffers.Put(bp)
	})
	srv := &http.Server{Addr: *listen, Handler: h}
	if *ballotHeaders {
		// ballot's defaults (server.Timeouts): each one sets a deadline
		// on the connection for every request.
		srv.ReadHeaderTimeout = 5 * time.Second
		srv.ReadTimeout = 10 * time.Second
		srv.WriteTimeout = 30 * time.Second
		srv.IdleTimeout = 120 * time.Second
	}
	log.Printf("serving %d answers on http://%s/", len(answers), *listen)
	log.Fatal(srv.ListenAndServe())
}

func load(dir string, ballotHeaders bool) map[string]*answer {
	f, err := os.Open(filepath.Join(dir, "urls.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	answers := map[string]*answer{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		uri, file, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		file, headerFile, _ := strings.Cut(file, "\t")
		var header []field
		if ballotHeaders {
			if headerFile == "" {
				log.Fatalf("%s: no header file for %s", dir, uri)
			}
			header = loadHeader(filepath.Join(dir, headerFile))
		}
		body, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			log.Fatal(err)
		}
		i := bytes.LastIndex(body, []byte(`"generatedAt":"`))
		if i < 0 || len(body) < i+15+len(timeFormat) {
			log.Fatalf("%s: no generatedAt", file)
		}
		i += len(`"generatedAt":"`)
		answers[uri] = &answer{
			head:   body[:i],
			tail:   body[i+len(timeFormat):],
			length: []string{strconv.Itoa(len(body))},
			header: header,
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return answers
}

// loadHeader reads "Name: value" lines, as curl -D saves them, leaving out
// the status line and the fields net/http writes itself.
func loadHeader(path string) []field {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var fields []field
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok || strings.HasPrefix(name, "HTTP/") {
			continue
		}
		name = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
		switch name {
		case "Date", "Content-Type", "Content-Length", "Connection", "Transfer-Encoding":
			continue
		}
		fields = append(fields, field{name, []string{strings.TrimSpace(value)}})
	}
	if len(fields) == 0 {
		log.Fatalf("%s: no header fields", path)
	}
	return fields
}
