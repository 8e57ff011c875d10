package commands_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ballot/internal/testprograms"
)

// TestE2EGracefulShutdown sends SIGTERM while requests are running: every
// request that got an answer got a complete 200, and the process exits 0.
// (A request whose header is still arriving when SIGTERM comes may be
// dropped: net/http closes such a connection without an answer, which a
// client sees as a connection closed before any response.)
func TestE2EGracefulShutdown(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary")
	t.Parallel()
	p := startServer(t)

	// Workers, each on its own loopback address (so with its own quota),
	// requesting in a loop until the server goes away.
	type result struct {
		worker int
		status int
		err    error // no answer at all
		early  bool  // err came before SIGTERM was sent
		detail string
	}
	var stopping atomic.Bool
	const workers = 8
	results := make(chan result, workers*(3*e2eLimit+1))
	var answered sync.WaitGroup
	answered.Add(workers)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		c := p.client(t, fmt.Sprintf("127.0.0.%d", 10+w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			paths := []string{e2eBase + "/candidates?limit=500", e2eBase + "/districts", e2eBase + "/parties"}
			for i := 0; i < 3*(e2eLimit-2); i++ {
				path := paths[i%3]
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.url(path), nil)
				resp, err := c.hc.Do(req)
				if err != nil {
					// No answer: allowed only once the server is stopping.
					results <- result{worker: w, err: err, early: !stopping.Load()}
					break
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				res := result{worker: w, status: resp.StatusCode}
				if err != nil {
					res.detail = fmt.Sprintf("%s: answer cut short after %d body bytes: %v", path, len(body), err)
				} else {
					var env envelope
					switch {
					case resp.StatusCode != http.StatusOK:
						res.detail = string(body)
					case resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength:
						res.detail = fmt.Sprintf("%s: %d body bytes, Content-Length %d", path, len(body), resp.ContentLength)
					case json.Unmarshal(body, &env) != nil || env.Meta.Count != len(env.Data) || env.Meta.Count == 0:
						res.detail = fmt.Sprintf("%s: incomplete body %.100q…%.100q", path, body, body[max(0, len(body)-100):])
					}
				}
				results <- res
				if first {
					first = false
					answered.Done()
				}
				if res.detail != "" {
					break
				}
			}
			if first {
				answered.Done()
			}
		}()
	}
	answered.Wait() // every worker has had at least one answer: traffic is flowing

	stopping.Store(true)
	p.terminate(t)

	wg.Wait()
	close(results)
	ok, failed := 0, 0
	for r := range results {
		switch {
		case r.err != nil && r.early:
			t.Errorf("worker %d: no answer before SIGTERM was sent: %v", r.worker, r.err)
		case r.err != nil:
			failed++ // refused or closed before any answer: allowed once stopping
		case r.status != http.StatusOK || r.detail != "":
			t.Errorf("worker %d got an answer that is not a complete 200: status %d, %s", r.worker, r.status, r.detail)
		default:
			ok++
		}
	}
	t.Logf("%d complete answers, %d requests refused after SIGTERM", ok, failed)
	if ok < workers {
		t.Errorf("only %d complete answers", ok)
	}
	p.stop(t)
}

// TestProdShutdownCompletesInFlight sends SIGTERM while requests are in
// flight, and checks what each gets:
//
//   - answers not yet delivered: a large answer (48 kB) to clients with a
//     small receive buffer that read only the status line before SIGTERM
//     and the body slowly after it. Each must arrive whole. (The socket
//     buffers hold the whole answer, so the handler has returned; an
//     answer whose handler is still writing at SIGTERM needs more than the
//     buffers hold, hence pipelining: see TestProdShutdownPipelined.)
//   - keep-alive clients requesting in a loop. Any answer that began must
//     be a complete 200 with its whole body.
//   - what is not in flight gets no answer, cleanly: a request that got no
//     answer at all is allowed only after SIGTERM was sent, and only as a
//     connection-level failure (refused, or closed before any byte of an
//     answer), never a 5xx, a truncated body or a reset mid-answer. That is
//     the decision for a request the server had not begun to handle when
//     it stopped: one on an idle keep-alive connection, in the accept
//     queue, or whose header was still arriving. net/http's Shutdown closes
//     idle connections, and drops a request whose header completes after
//     Shutdown began (it waits for it, then closes the connection without
//     an answer); HTTP/1.1 (RFC 9112, section 9.3.1) lets a client retry
//     such a request, which Go's client does for an idle connection,
//     meeting the closed port. Half-sent requests are sent here to check
//     that they get either a complete 200 or a clean close, and do not
//     hold the shutdown up.
//
// Meanwhile a new connection is refused (the listener is closed while the
// answers are still being sent), and the process exits 0 well within
// shutdown_timeout.
func TestProdShutdownCompletesInFlight(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary")
	t.Parallel()
	const shutdownTimeout = 5 * time.Second
	p := startServerWith(t, "--rate-limit", "1000000", "--admin-listen", "", "--shutdown-timeout", shutdownTimeout.String())
	big := e2eBase + "/candidates?limit=500" // the embedded dataset: 177 candidates

	// The size of the big answer, for the slow readers' check.
	ref := p.client(t, "127.0.0.50").send(t, http.MethodGet, big, nil)
	bigEnv := checkOK(t, ref)
	refBody := e2eGenerated.ReplaceAll(ref.body, nil) // the answer but for its time
	if len(bigEnv.Data) < 100 || len(ref.body) < 30000 {
		t.Fatalf("%s: %d records, %d bytes; want the embedded dataset's large answer", big, len(bigEnv.Data), len(ref.body))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	const workers = 8
	loop := startKeepAliveLoops(ctx, t, p, workers, []string{big, e2eBase + "/districts", e2eBase + "/parties"})
	const begun = 6
	partial := dialHalfSent(t, p, big, begun)
	const slowReaders = 4
	slow := dialSlowReaders(t, p, big, slowReaders)
	// handled counts the answers to ip whose handler has returned: the
	// access-log line is written then.
	handled := func(ip string) int {
		return strings.Count(p.stderr.String(), "msg=request client_ip="+ip+" method=GET route=candidates")
	}

	// Every keep-alive client has had an answer. The half-sent connections
	// have been accepted: the server takes connections in the order they
	// came, and the slow readers, which came after them, have their
	// answers begun.
	loop.flowing.Wait()
	sigAt := time.Now()
	p.terminate(t)

	// The listener closes at once: a new connection is refused while the
	// requests in flight are still open.
	prodEventually(t, 3*time.Second, "a new connection refused after SIGTERM", func() (bool, string) {
		conn, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			conn.Close()
			return false, "accepted"
		}
		return errors.Is(err, syscall.ECONNREFUSED), err.Error()
	})
	refusedAfter := time.Since(sigAt)
	select {
	case <-p.done:
		t.Fatalf("ballot serve exited %v after SIGTERM with requests in flight: %v", time.Since(sigAt), p.err)
	default:
	}

	// The half-sent requests are finished now, the shutdown under way (the
	// listener is closed): a complete 200 or a clean close, nothing in
	// between.
	var done sync.WaitGroup
	errs := make(chan string, begun+slowReaders)
	half := finishHalfSent(&done, errs, partial, len(bigEnv.Data))
	received := readSlowly(&done, errs, slow, refBody)
	done.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// The process exits, well within shutdown_timeout, with status 0.
	select {
	case <-p.done:
	case <-time.After(shutdownTimeout + 2*time.Second):
		t.Errorf("ballot serve still running %v after SIGTERM (shutdown_timeout %v)", time.Since(sigAt), shutdownTimeout)
	}
	exitAfter := time.Since(sigAt)
	p.stop(t) // exit status 0, "ballot: stopped"
	cancel()
	loop.wg.Wait()

	completed, refused, droppedAfterWrite := checkKeepAliveResults(t, loop.results, sigAt)
	t.Logf("SIGTERM: new connections refused after %v, exit after %v; slow readers: answers received whole %v; half-sent requests: %d answered, %d closed unanswered; keep-alive clients: %d complete answers, %d requests refused or closed unanswered after SIGTERM (%d of them written before it)",
		refusedAfter.Round(time.Millisecond), exitAfter.Round(time.Millisecond), received,
		half.answered.Load(), half.closed.Load(), completed, refused, droppedAfterWrite)
	for i, s := range slow {
		if got := handled(s.ip); got != 1 || received[i] != 1 {
			t.Errorf("slow reader %d: %d answers handled, %d received whole; want 1, 1", i, got, received[i])
		}
	}
	if completed < workers {
		t.Errorf("only %d complete answers to the keep-alive clients", completed)
	}
}

// keepAliveResult is what one request of a keep-alive loop got.
type keepAliveResult struct {
	worker     int
	path       string
	err        error
	errAt      time.Time
	wroteAt    time.Time // when the request was written, if it was
	status     int
	problem    string
	answerSeen bool
}

// keepAliveLoops are clients requesting in a loop on keep-alive
// connections, each from its own address, until ctx ends or a request
// fails. flowing is done once each has had an answer (or given up); wg once
// all have stopped, when results may be read.
type keepAliveLoops struct {
	wg, flowing sync.WaitGroup
	mu          sync.Mutex
	results     []keepAliveResult
}

func startKeepAliveLoops(ctx context.Context, t *testing.T, p *e2eProc, workers int, paths []string) *keepAliveLoops {
	t.Helper()
	l := &keepAliveLoops{}
	l.flowing.Add(workers)
	for w := range workers {
		hc := p.client(t, fmt.Sprintf("127.0.0.%d", 60+w)).hc
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			answered := false
			defer func() {
				if !answered {
					l.flowing.Done()
				}
			}()
			for i := 0; i < 20000 && ctx.Err() == nil; i++ {
				res := keepAliveResult{worker: w, path: paths[i%len(paths)]}
				// WroteRequest runs on the transport's goroutine.
				var wrote atomic.Int64
				trace := &httptrace.ClientTrace{
					WroteRequest: func(info httptrace.WroteRequestInfo) {
						if info.Err == nil {
							wrote.CompareAndSwap(0, time.Now().UnixNano())
						}
					},
				}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, p.url(res.path), nil)
				resp, err := hc.Do(req)
				if err != nil {
					res.err, res.errAt = err, time.Now()
				} else {
					res.answerSeen, res.status = true, resp.StatusCode
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					var env envelope
					switch {
					case err != nil:
						res.problem = fmt.Sprintf("answer cut short after %d bytes: %v", len(body), err)
					case resp.StatusCode != http.StatusOK:
						res.problem = fmt.Sprintf("status %d: %.200s", resp.StatusCode, body)
					case resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength:
						res.problem = fmt.Sprintf("%d body bytes, Content-Length %d", len(body), resp.ContentLength)
					case json.Unmarshal(body, &env) != nil || env.Meta.Count != len(env.Data) || env.Meta.Count == 0:
						res.problem = fmt.Sprintf("incomplete body %.80q…%.80q", body, body[max(0, len(body)-80):])
					}
				}
				if n := wrote.Load(); n != 0 {
					res.wroteAt = time.Unix(0, n)
				}
				l.mu.Lock()
				l.results = append(l.results, res)
				l.mu.Unlock()
				if !answered {
					answered = true
					l.flowing.Done()
				}
				if res.err != nil || res.problem != "" {
					break
				}
			}
		}()
	}
	return l
}

// dialHalfSent opens n connections to p, each from its own address, and
// sends on each the request line and Host of GET target, holding the rest
// back.
func dialHalfSent(t *testing.T, p *e2eProc, target string, n int) []net.Conn {
	t.Helper()
	partial := make([]net.Conn, n)
	for i := range partial {
		d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(70+i))}}
		conn, err := d.Dial("tcp", p.addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { conn.Close() })
		if _, err := conn.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: " + p.addr + "\r\n")); err != nil {
			t.Fatal(err)
		}
		partial[i] = conn
	}
	return partial
}

// slowReader is a connection with a small receive buffer that has read the
// status line and header of its answer, and not the body.
type slowReader struct {
	conn net.Conn
	br   *bufio.Reader
	resp *http.Response
	ip   string
}

// dialSlowReaders opens n slow readers of GET target, each from its own
// address.
func dialSlowReaders(t *testing.T, p *e2eProc, target string, n int) []slowReader {
	t.Helper()
	slow := make([]slowReader, n)
	for i := range slow {
		conn, err := smallBufferDialer(net.IPv4(127, 0, 0, byte(80+i))).Dial("tcp", p.addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { conn.Close() })
		_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
		if _, err := conn.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: " + p.addr + "\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(conn, 512)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("slow reader %d: reading the status line: %v", i, err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("slow reader %d: status %d", i, resp.StatusCode)
		}
		slow[i] = slowReader{conn, br, resp, fmt.Sprintf("127.0.0.%d", 80+i)}
	}
	return slow
}

// halfSentOutcome counts how the half-sent requests ended.
type halfSentOutcome struct{ answered, closed atomic.Int64 }

// finishHalfSent sends the rest of each half-sent request, one goroutine
// each (done counts them), and sends to errs what is neither a complete
// 200 of wantRecords records followed by a close, nor a close without a
// byte of answer.
func finishHalfSent(done *sync.WaitGroup, errs chan<- string, partial []net.Conn, wantRecords int) *halfSentOutcome {
	out := &halfSentOutcome{}
	halfAnswered, halfClosed := &out.answered, &out.closed
	for i, conn := range partial {
		done.Add(1)
		go func() {
			defer done.Done()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write([]byte("Accept: application/json\r\n\r\n")); err != nil {
				errs <- fmt.Sprintf("half-sent request %d: sending the rest after SIGTERM: %v", i, err)
				return
			}
			br := bufio.NewReader(conn)
			if _, err := br.Peek(1); errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
				halfClosed.Add(1) // closed without a byte of answer
				return
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				errs <- fmt.Sprintf("half-sent request %d: after SIGTERM, an answer that is not HTTP: %v", i, err)
				return
			}
			halfAnswered.Add(1)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var env envelope
			switch {
			case err != nil:
				errs <- fmt.Sprintf("half-sent request %d: body cut short after %d bytes: %v", i, len(body), err)
			case resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil || len(env.Data) != wantRecords:
				errs <- fmt.Sprintf("half-sent request %d: status %d, %d bytes: not the complete 200", i, resp.StatusCode, len(body))
			case !resp.Close:
				errs <- fmt.Sprintf("half-sent request %d: answered during shutdown without Connection: close", i)
			}
			// Then the server closes the connection.
			if n, err := br.Read(make([]byte, 1)); n != 0 || err == nil {
				errs <- fmt.Sprintf("half-sent request %d: the connection stays open after the answer", i)
			}
		}()
	}
	return out
}

// readSlowly reads each slow reader's answer a little at a time, one
// goroutine each (done counts them), and sends to errs any answer that is
// not refBody whole (but for its time) followed by a close. received[i] is
// 1 when reader i got its answer whole.
func readSlowly(done *sync.WaitGroup, errs chan<- string, slow []slowReader, refBody []byte) []int {
	received := make([]int, len(slow))
	for i, s := range slow {
		done.Add(1)
		go func() {
			defer done.Done()
			var body []byte
			buf := make([]byte, 4096)
			for range 1000 { // 48 kB, read slowly
				n, err := s.resp.Body.Read(buf)
				body = append(body, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- fmt.Sprintf("slow reader %d: answer cut short after %d of %d bytes: %v", i, len(body), s.resp.ContentLength, err)
					return
				}
				time.Sleep(time.Millisecond)
			}
			if int64(len(body)) != s.resp.ContentLength || !bytes.Equal(e2eGenerated.ReplaceAll(body, nil), refBody) {
				errs <- fmt.Sprintf("slow reader %d: %d bytes of %d: not the complete answer", i, len(body), s.resp.ContentLength)
				return
			}
			received[i] = 1
			// Then the server has closed the connection.
			if _, err := s.br.Peek(1); !errors.Is(err, io.EOF) {
				errs <- fmt.Sprintf("slow reader %d: after the answer, %v; want the connection closed", i, err)
			}
		}()
	}
	return received
}

// checkKeepAliveResults checks each keep-alive request: a complete 200, or,
// only after SIGTERM, a clean connection-level failure. It returns the
// number of complete answers, of requests refused or closed unanswered, and
// of those written before SIGTERM.
func checkKeepAliveResults(t *testing.T, results []keepAliveResult, sigAt time.Time) (completed, refused, droppedAfterWrite int) {
	t.Helper()
	for _, r := range results {
		switch {
		case r.answerSeen && r.problem != "":
			t.Errorf("keep-alive worker %d: %s: an answer that is not a complete 200: %s", r.worker, r.path, r.problem)
		case r.answerSeen:
			completed++
		case r.errAt.Before(sigAt):
			t.Errorf("keep-alive worker %d: %s: no answer, before SIGTERM: %v", r.worker, r.path, r.err)
		case errors.Is(r.err, syscall.ECONNREFUSED) || errors.Is(r.err, syscall.ECONNRESET) || errors.Is(r.err, io.EOF) ||
			strings.Contains(r.err.Error(), "server closed idle connection"):
			refused++
			if !r.wroteAt.IsZero() && r.wroteAt.Before(sigAt) {
				droppedAfterWrite++
			}
		default:
			t.Errorf("keep-alive worker %d: %s: after SIGTERM, not a clean connection-level failure: %v", r.worker, r.path, r.err)
		}
	}
	return completed, refused, droppedAfterWrite
}

// TestProdShutdownPipelined sends SIGTERM while the server is writing an
// answer: an HTTP/1.1 client pipelines 120 requests for a 48 kB answer
// (about 6 MB, more than the socket buffers hold, the sender's growing to
// 4 MB) and reads nothing but the first status line until SIGTERM, so the
// server is blocked writing. Every answer the server handled (its
// access-log line says status=200 bytes=48141) must then reach the client
// whole, the one being written at SIGTERM included; the requests not yet
// begun may go unanswered, the connection closing after the last answer.
//
// A server that closes a connection with requests it has not read must
// close it in stages (RFC 9112, section 9.6): an immediate close makes the
// TCP stack answer with a reset that can erase answers already sent.
func TestProdShutdownPipelined(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary")
	t.Parallel()
	p := startServerWith(t, "--rate-limit", "1000000", "--admin-listen", "", "--shutdown-timeout", "5s")
	big := e2eBase + "/candidates?limit=500"
	ref := p.client(t, "127.0.0.50").send(t, http.MethodGet, big, nil)
	checkOK(t, ref)
	refBody := e2eGenerated.ReplaceAll(ref.body, nil)

	const pipelined = 120
	conn, err := smallBufferDialer(net.IPv4(127, 0, 0, 90)).Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	req := "GET " + big + " HTTP/1.1\r\nHost: " + p.addr + "\r\n\r\n"
	if _, err := conn.Write([]byte(strings.Repeat(req, pipelined))); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(conn, 512)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the first answer: %v, %v", resp, err)
	}
	// Wait until the server is blocked: no new access-log line for 300 ms
	// (the access log is written within 100 ms).
	handled := func() int { return strings.Count(p.stderr.String(), "msg=request client_ip=127.0.0.90 ") }
	last, since := handled(), time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Since(since) < 300*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("the server kept answering for 20 s: %d answers", handled())
		}
		time.Sleep(20 * time.Millisecond)
		if n := handled(); n != last {
			last, since = n, time.Now()
		}
	}
	atSIGTERM := handled()
	if atSIGTERM >= pipelined {
		t.Fatalf("all %d answers handled before SIGTERM: none in flight", pipelined)
	}
	p.terminate(t)
	// The client reads on once the shutdown is under way: the listener is
	// closed.
	prodEventually(t, 20*time.Second, "a new connection refused after SIGTERM", func() (bool, string) {
		conn, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			conn.Close()
			return false, "accepted"
		}
		return errors.Is(err, syscall.ECONNREFUSED), err.Error()
	})

	received := 0
	var cut error
	for n := 1; n <= pipelined; n++ {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			cut = fmt.Errorf("answer %d cut short after %d of %d bytes: %w", n, len(body), resp.ContentLength, err)
			break
		}
		if resp.StatusCode != http.StatusOK || int64(len(body)) != resp.ContentLength || !bytes.Equal(e2eGenerated.ReplaceAll(body, nil), refBody) {
			t.Fatalf("answer %d: status %d, %d bytes of %d: not the complete 200", n, resp.StatusCode, len(body), resp.ContentLength)
		}
		received = n
		if _, err := br.Peek(1); errors.Is(err, io.EOF) {
			break // closed after the last answer
		}
		if resp, err = http.ReadResponse(br, nil); err != nil {
			cut = fmt.Errorf("after %d complete answers: %w", n, err)
			break
		}
	}
	select {
	case <-p.done:
	case <-time.After(7 * time.Second):
		t.Errorf("ballot serve still running 7 s after SIGTERM")
	}
	total := handled()
	t.Logf("answers handled: %d at SIGTERM, %d in all; received whole: %d", atSIGTERM, total, received)
	if received < total || cut != nil {
		t.Errorf("PRODUCT BUG: SIGTERM lost answers the server had handled: it logged %d answers of status 200 (%d of them before SIGTERM), the client received %d whole, then: %v", total, atSIGTERM, received, cut)
	}
}

// TestProdShutdownDeadline holds a request in flight past shutdown_timeout:
// the server must stop at the deadline, and, as the README and the issue
// say ("let requests in flight finish (up to shutdown_timeout), exit 0"),
// exit 0.
func TestProdShutdownDeadline(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGTERM to the binary")
	t.Parallel()
	p := startServerWith(t, "--admin-listen", "", "--shutdown-timeout", "1s", "--read-header-timeout", "10s")
	conn, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A request begun and never finished.
	if _, err := conn.Write([]byte("GET " + e2eBase + "/parties HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	// Its connection has been accepted once a request on a connection
	// dialed after it is answered: the server takes them in order.
	c := p.client(t, "127.0.0.91")
	c.hc.Transport.(*http.Transport).DisableKeepAlives = true
	checkOK(t, c.send(t, http.MethodGet, e2eBase+"/parties", nil))
	sigAt := time.Now()
	p.terminate(t)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("ballot serve still running 5 s after SIGTERM with shutdown_timeout 1s")
	}
	took := time.Since(sigAt)
	if took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("ballot serve exited %v after SIGTERM, want about shutdown_timeout (1s)", took)
	}
	// The exit status is checked here rather than by e2eProc.stop, to say
	// what is wrong.
	p.waited.Do(func() {})
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
		t.Errorf("PRODUCT BUG: after SIGTERM with a request still in flight at shutdown_timeout, exit status %d (want 0, per README \"Operating it\" and issue 4); last stderr line: %q",
			code, lines[len(lines)-1])
	}
	if !strings.Contains(p.stderr.String(), "ballot: stopped") {
		t.Errorf("stderr does not say \"ballot: stopped\"")
	}
}

// smallBufferDialer dials from ip with a 2 KiB receive buffer, so that an
// answer larger than the socket buffers stays in flight until it is read.
func smallBufferDialer(ip net.IP) *net.Dialer {
	return &net.Dialer{
		Timeout:   5 * time.Second,
		LocalAddr: &net.TCPAddr{IP: ip},
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
			return errors.Join(err, serr)
		},
	}
}
