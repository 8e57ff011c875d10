// Package bench holds ballot's benchmark kit (see README.md); this file is
// its in-process part: the public API's handler with the whole middleware
// stack, driven without a network, for allocations per request and CPU
// profiles.
//
//	go test ./bench -run '^$' -bench . -benchmem
//	go test ./bench -run '^$' -bench Candidates -cpuprofile bench/out/cpu.pprof
//	go tool pprof -top bench/out/cpu.pprof
//
// With BALLOT_BENCH_SYNTH=DIR (a dataset written by bench/synth) the
// Synth* benchmarks run on it too.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ballot/answers"
	"ballot/archive"
	"ballot/dataset"
	"ballot/internal/datasettest"
	"ballot/internal/redistest"
	"ballot/internal/testprograms"
	"ballot/server"
	"ballot/server/ratelimit"
)

// TestMain ends the run with a line naming the benchmarks skipped for want
// of redis-server, if any (see package testprograms).
func TestMain(m *testing.M) {
	os.Exit(testprograms.Main(m, "ballot/bench"))
}

// discard is a ResponseWriter that keeps nothing but its header map, which
// it empties for the next request, so the benchmark counts the handler's
// allocations and not a recorder's.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(status int)      { d.status = status }
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

func benchServe(b *testing.B, ds *dataset.Dataset, target string, header map[string]string) {
	benchServeWith(b, ds, target, header, func(*server.Options) {})
}

// benchServeWith is benchServe with the options as set changes them.
func benchServeWith(b *testing.B, ds *dataset.Dataset, target string, header map[string]string, set func(*server.Options)) {
	benchServeArchive(b, archive.Of(ds), target, header, set)
}

// benchServeArchive is benchServeWith of an archive of elections.
func benchServeArchive(b *testing.B, a *archive.Archive, target string, header map[string]string, set func(*server.Options)) {
	opts := server.DefaultOptions()
	opts.RateLimit, opts.MaxClients = 1_000_000_000, 1_000_000
	set(&opts)
	srv := server.New(a, opts)
	req := httptest.NewRequest(http.MethodGet, target, nil)
	// As on a connection that server.Serve accepted.
	peer := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 40000}
	req.RemoteAddr = peer.String()
	req = req.WithContext(server.ConnContext(req.Context(), peerConn{peer: peer}))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := &discard{h: http.Header{}}
	srv.ServeHTTP(w, req)
	if w.status != http.StatusOK || w.n == 0 {
		b.Fatalf("GET %s: status %d, %d bytes", target, w.status, w.n)
	}
	b.SetBytes(int64(w.n))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		w.n = 0
		srv.ServeHTTP(w, req)
	}
}

// peerConn is a connection from a peer, as far as server.ConnContext
// asks.
type peerConn struct {
	net.Conn
	peer net.Addr
}

func (c peerConn) RemoteAddr() net.Addr { return c.peer }

func malta(b *testing.B) *dataset.Dataset {
	ds, err := dataset.Default()
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func synth(b *testing.B) *dataset.Dataset {
	dir := os.Getenv("BALLOT_BENCH_SYNTH")
	if dir == "" {
		b.Skip("BALLOT_BENCH_SYNTH is not set to a bench/synth dataset directory")
	}
	ds, err := dataset.LoadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

const api = "/api/public/v1"

// embedded is the embedded archive: 2022, current, and 2017.
func embedded(b *testing.B) *archive.Archive {
	a, err := archive.Default()
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// The embedded archive's paths: today's for the current election, an
// election's collections under its path, the elections and the people.
func BenchmarkArchiveCandidates(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/candidates", nil, func(*server.Options) {})
}
func BenchmarkElectionCandidates(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/elections/2017/candidates", nil, func(*server.Options) {})
}
func BenchmarkElectionCandidatesDistrict5(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/elections/2017/candidates?district=5", nil, func(*server.Options) {})
}
func BenchmarkElections(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/elections", nil, func(*server.Options) {})
}
func BenchmarkPerson(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/people/robert-abela", nil, func(*server.Options) {})
}
func BenchmarkPeopleQ(b *testing.B) {
	benchServeArchive(b, embedded(b), api+"/people?q=abela", nil, func(*server.Options) {})
}

var gzipped = map[string]string{"Accept-Encoding": "gzip"}

func BenchmarkParties(b *testing.B)    { benchServe(b, malta(b), api+"/parties", nil) }
func BenchmarkCandidates(b *testing.B) { benchServe(b, malta(b), api+"/candidates", nil) }
func BenchmarkCandidatesDistrict5(b *testing.B) {
	benchServe(b, malta(b), api+"/candidates?district=5", nil)
}

// The access log as serve keeps it by default: text lines through a
// buffer of whole lines (commands/logbuffer's role) to a file, here one
// that keeps nothing. BenchmarkPartiesLogSlog writes the same lines through
// log/slog's text handler, as the access log did before it wrote them by
// hand.
func BenchmarkPartiesLog(b *testing.B) {
	benchServeWith(b, malta(b), api+"/parties", nil, accessLog(false))
}
func BenchmarkPartiesLogSlog(b *testing.B) {
	benchServeWith(b, malta(b), api+"/parties", nil, accessLog(true))
}
func BenchmarkCandidatesLog(b *testing.B) {
	benchServeWith(b, malta(b), api+"/candidates", nil, accessLog(false))
}
func BenchmarkCandidatesDistrict5Log(b *testing.B) {
	benchServeWith(b, malta(b), api+"/candidates?district=5", nil, accessLog(false))
}

// lockedWriter is a writer safe for concurrent use that keeps nothing, as
// serve's log buffer is one with a lock.
type lockedWriter struct{ mu sync.Mutex }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(p), nil
}

func accessLog(viaSlog bool) func(*server.Options) {
	return func(o *server.Options) {
		w := &lockedWriter{}
		o.AccessLog = true
		o.Logger = slog.New(slog.NewTextHandler(w, nil))
		if !viaSlog {
			o.AccessLogText = w
		}
	}
}

func BenchmarkCandidatesGzip(b *testing.B) { benchServe(b, malta(b), api+"/candidates", gzipped) }
func BenchmarkCandidateRecord(b *testing.B) {
	benchServe(b, malta(b), api+"/candidates/toni-bezzina", nil)
}
func BenchmarkCandidateRecordGzip(b *testing.B) {
	benchServe(b, malta(b), api+"/candidates/toni-bezzina", gzipped)
}
func BenchmarkDistrictsLocality(b *testing.B) {
	benchServe(b, malta(b), api+"/districts?locality=Bir%C5%BCebbu%C4%A1a", nil)
}
func BenchmarkDistrictsLocalityGzip(b *testing.B) {
	benchServe(b, malta(b), api+"/districts?locality=Bir%C5%BCebbu%C4%A1a", gzipped)
}
func BenchmarkPartyRecordGzip(b *testing.B) {
	benchServe(b, malta(b), api+"/parties/pn", gzipped)
}
func BenchmarkDistrictRecordGzip(b *testing.B) {
	benchServe(b, malta(b), api+"/districts/5", gzipped)
}

// A district's count sheet and the national totals, on the 2022 sheets:
// prepared at load, as every list, so a request writes the prepared bytes
// (and, with gzip, the prepared stream) and its tail.
func BenchmarkResultRecord(b *testing.B) {
	benchServe(b, counts(b), api+"/results/5", nil)
}
func BenchmarkResultRecordGzip(b *testing.B) {
	benchServe(b, counts(b), api+"/results/5", gzipped)
}
func BenchmarkResultsNational(b *testing.B) {
	benchServe(b, counts(b), api+"/results/national", nil)
}

func counts(b *testing.B) *dataset.Dataset { return datasettest.Counts(b, true) }

// A page past the first: its records are a slice of the prepared list, and
// its ETag and, with gzip, its compression are made on request.
func BenchmarkCandidatesOffset(b *testing.B) {
	benchServe(b, malta(b), api+"/candidates?offset=100", nil)
}
func BenchmarkCandidatesOffsetGzip(b *testing.B) {
	benchServe(b, malta(b), api+"/candidates?offset=100", gzipped)
}
func BenchmarkSynthCandidates(b *testing.B) {
	benchServe(b, synth(b), api+"/candidates", nil)
}
func BenchmarkSynthCandidatesDistrict5(b *testing.B) {
	benchServe(b, synth(b), api+"/candidates?district=5", nil)
}

// The readers' filters on 20,000 candidates, through the whole handler:
// q scans every folded name (zammit matches about 400 candidates, gh the
// Għ names, qq none), stood_in and elected walk a prepared list.
func BenchmarkSynthCandidatesQ(b *testing.B) {
	ds := synth(b)
	for _, q := range []string{"zammit", "%C5%BCAMMIT", "gh", "qq", "zammit&stood_in=5&elected=false"} {
		b.Run(q, func(b *testing.B) { benchServe(b, ds, api+"/candidates?q="+q, nil) })
	}
}
func BenchmarkSynthCandidatesStoodIn(b *testing.B) {
	benchServe(b, synth(b), api+"/candidates?stood_in=5&elected=true", nil)
}

// BenchmarkCeiling is bench/gohandler's handler on ballot's own bytes for
// /candidates: the least a Go handler must do for this answer (copy the
// prepared body with a fresh timestamp into one buffer, set two headers),
// for comparison with BenchmarkCandidates.
func BenchmarkCeiling(b *testing.B) {
	ds := malta(b)
	res, err := ds.Query(dataset.Candidates, nil)
	if err != nil {
		b.Fatal(err)
	}
	body := answers.Prepare(ds).Of(res).AppendJSON(nil, time.Now())
	i := bytes.LastIndex(body, []byte(`"generatedAt":"`)) + len(`"generatedAt":"`)
	head, tail := body[:i], body[i+len(answers.TimeFormat):]
	contentType := []string{"application/json; charset=utf-8"}
	length := []string{strconv.Itoa(len(body))}
	buf := make([]byte, 0, 64<<10)
	w := &discard{h: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		out := append(buf[:0], head...)
		out = time.Now().UTC().AppendFormat(out, answers.TimeFormat)
		out = append(out, tail...)
		w.h["Content-Type"] = contentType
		w.h["Content-Length"] = length
		_, _ = w.Write(out)
	}
}

// BenchmarkLoadSynth is the load, check and preparation of the synthetic
// dataset: what serve does before it answers.
func BenchmarkLoadSynth(b *testing.B) {
	dir := os.Getenv("BALLOT_BENCH_SYNTH")
	if dir == "" {
		b.Skip("BALLOT_BENCH_SYNTH is not set to a bench/synth dataset directory")
	}
	b.ReportAllocs()
	for b.Loop() {
		ds, err := dataset.LoadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		answers.Prepare(ds)
	}
}

// BenchmarkHeaderBlock is what net/http does per response with a handler's
// header fields, apart from the handler: a fresh header map filled in, the
// copy it takes when the header is written (Header.Clone), and the sorted
// header block written out (Header.WriteSubset). "go-handler" has the two
// fields bench/gohandler sets; "ballot" has the fields of ballot's /parties
// answer (CORS, rate limit, ETag, Cache-Control, Vary and the rest), read
// from a real answer. The difference is net/http's own cost for the header
// fields the contract requires.
func BenchmarkHeaderBlock(b *testing.B) {
	opts := server.DefaultOptions()
	opts.RateLimit = 1_000_000_000
	srv := server.New(archive.Of(malta(b)), opts)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, api+"/parties", nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET /parties: status %d", rec.Code)
	}
	for _, tc := range []struct {
		name   string
		fields http.Header
	}{
		{"go-handler", http.Header{"Content-Type": rec.Header()["Content-Type"], "Content-Length": rec.Header()["Content-Length"]}},
		{"ballot", rec.Header()},
	} {
		b.Run(fmt.Sprintf("%s-%d-fields", tc.name, len(tc.fields)), func(b *testing.B) {
			names := make([]string, 0, len(tc.fields))
			for name := range tc.fields {
				names = append(names, name)
			}
			bw := bufio.NewWriterSize(io.Discard, 4096)
			b.ReportAllocs()
			for b.Loop() {
				h := make(http.Header)
				for _, name := range names {
					h[name] = tc.fields[name]
				}
				_ = h.Clone().WriteSubset(bw, nil)
				_ = bw.Flush()
			}
		})
	}
}

// benchStore serves /parties to 10,000 distinct clients (one request each
// before the next, as many goroutines as GOMAXPROCS), with the rate-limit
// counts in this process (redisURL "") or shared through the Redis at
// redisURL, synced every 100 ms meanwhile: the cost of sharing on the
// request path and of the sync beside it.
//
// Besides the time per request, it reports the CPU per request, of this
// process and of redis-server together (cpu-ns/op): on a machine others
// share, that is the figure to compare, since the time per request depends
// on what else runs, while the CPU spent per request is what bounds the
// throughput of a machine of one's own.
func benchStore(b *testing.B, redisURL string, redisPID int) {
	opts := server.DefaultOptions()
	opts.RateLimit, opts.MaxClients = 1_000_000_000, 1_000_000
	if redisURL != "" {
		store, err := ratelimit.NewRedisStore(redisURL, ratelimit.DefaultSyncTimeout)
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		opts.RateLimitStore = store
	}
	srv := server.New(archive.Of(malta(b)), opts)
	ctx, cancel := context.WithCancel(context.Background())
	synced := make(chan struct{})
	go func() {
		defer close(synced)
		srv.RunLimitSync(ctx)
	}()
	defer func() { cancel(); <-synced }()
	const clients = 10_000
	reqs := make([]*http.Request, clients)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/api/public/v1/parties", nil)
		reqs[i].RemoteAddr = fmt.Sprintf("10.%d.%d.%d:40000", i>>16, (i>>8)&255, i&255)
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b, redisPID)
	b.ResetTimer()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			w.n = 0
			srv.ServeHTTP(w, reqs[next.Add(1)%clients])
			if w.status != http.StatusOK {
				b.Errorf("status %d", w.status)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b, redisPID)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time this process and the process pid (0: none) have
// used, in nanoseconds.
func cpuTime(b *testing.B, pid int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	t := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if pid == 0 {
		return t
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th, in clock ticks (100 a second on
	// Linux).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return t + time.Duration(utime+stime)*10*time.Millisecond
}

// BenchmarkPartiesMemoryStore and BenchmarkPartiesRedisStore run side by
// side (-bench 'Parties.*Store'): the goal is a Redis store at 0.8 of the
// memory store or better. The Redis one starts a redis-server.
func BenchmarkPartiesMemoryStore(b *testing.B) { benchStore(b, "", 0) }

func BenchmarkPartiesRedisStore(b *testing.B) {
	srv := redistest.Start(b)
	benchStore(b, srv.URL(), srv.PID())
}
