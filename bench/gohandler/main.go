// Command gohandler is the ceiling a Go server on net/http can reach for
// ballot's answers: it serves response bodies saved from ballot, from memory,
// patching a fresh meta.generatedAt into each (same length), with
// Content-Type and Content-Length and nothing else. Each body is copied into
// one reused buffer and written with a single Write.
//
//	gohandler -listen 127.0.0.1:8083 -dir bench/out/static/malta
//
// DIR holds urls.tsv, one "REQUEST-URI<TAB>FILE" per line, and the files.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"log"
	"net/http"
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
	flag.Parse()
	answers := load(*dir)
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
		_, _ = w.Write(b)
		*bp = b
		buffers.Put(bp)
	})
	log.Printf("serving %d answers on http://%s/", len(answers), *listen)
	log.Fatal(http.ListenAndServe(*listen, h))
}

func load(dir string) map[string]*answer {
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
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return answers
}
