// Command loadgen is an HTTP/1.1 load generator that spreads its requests
// over many distinct clients, to measure a per-client rate limiter. Client i
// is the loopback address 127.x.y.z numbered i (Linux routes all of
// 127.0.0.0/8 to lo, so every such address can be bound without setup).
//
// Each of -c workers repeatedly takes the next client in turn (round robin
// over -clients) and makes -per-conn requests for it on one keep-alive
// connection bound to that client's address, then closes the connection
// (with RST, so no TIME_WAIT piles up) and moves on. With -xff the workers
// keep one connection each from 127.0.0.1 and name the client in
// X-Forwarded-For instead: the server must trust 127.0.0.1 as a proxy
// (ballot serve --trusted-proxies 127.0.0.1/32). That reaches a million
// distinct clients much faster than a million connections.
//
//	loadgen -url http://127.0.0.1:8081/api/public/v1/parties -clients 10000 -c 32 -d 10s
//
// It stops at -d or after -n requests, whichever comes first, and prints
// req/s, latency percentiles and the count of each status, ending with one
// machine-readable line starting with RESULT.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// clientAddr is the loopback address of client i: 127.x.y.z with x from 1,
// z from 1 to 254, about 16.5 million in all.
func clientAddr(i int) net.IP {
	return net.IPv4(127, byte(1+i/(254*256)), byte(i/254%256), byte(1+i%254))
}

type worker struct {
	lat      []time.Duration
	status   [600]int
	dialErrs int
	ioErrs   int
	conns    int
	bytes    int64
}

// options are the command's flags, checked.
type options struct {
	target  string // host:port
	request string // the request line and header fields, without the final CRLF
	clients int
	conc    int
	dur     time.Duration
	total   int64
	perConn int
	xff     bool
	quiet   bool
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("loadgen: ")
	o := parseFlags()
	start := time.Now()
	workers, sessions := run(o, start.Add(o.dur))
	all := merge(workers)
	if !report(o, all, time.Since(start), sessions) {
		os.Exit(1)
	}
}

// parseFlags reads and checks the flags; a bad one ends the program.
func parseFlags() options {
	rawURL := flag.String("url", "", "URL to GET (http only)")
	clients := flag.Int("clients", 10000, "distinct client addresses")
	conc := flag.Int("c", 32, "concurrent connections (workers)")
	dur := flag.Duration("d", 10*time.Second, "duration")
	total := flag.Int64("n", 0, "stop after this many requests (0: no limit)")
	perConn := flag.Int("per-conn", 10, "requests for one client before moving to the next")
	xff := flag.Bool("xff", false, "name the client in X-Forwarded-For instead of binding its address")
	quiet := flag.Bool("q", false, "print only the RESULT line")
	flag.Parse()
	u, err := url.Parse(*rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		log.Fatalf("-url %q: need an http:// URL", *rawURL)
	}
	if *clients < 1 || *clients > 254*256*254 || *conc < 1 || *perConn < 1 {
		log.Fatal("-clients must be 1 to 16516096; -c and -per-conn at least 1")
	}
	return options{
		target:  u.Host,
		request: "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: ballot-loadgen\r\n",
		clients: *clients, conc: *conc, dur: *dur, total: *total,
		perConn: *perConn, xff: *xff, quiet: *quiet,
	}
}

// run starts o.conc workers and waits for them to end at deadline or when
// the request budget is spent; it returns each worker's figures and how
// many client sessions were begun.
func run(o options, deadline time.Time) ([]*worker, int64) {
	var (
		next    atomic.Int64 // next client session
		budget  atomic.Int64 // requests left when -n is set
		workers = make([]*worker, o.conc)
		wg      sync.WaitGroup
	)
	budget.Store(o.total)
	take := func() bool { return o.total == 0 || budget.Add(-1) >= 0 }
	for w := range o.conc {
		wk := &worker{lat: make([]time.Duration, 0, 1<<16)}
		workers[w] = wk
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk.loop(o, deadline, func() int { return int(next.Add(1)-1) % o.clients }, take)
		}()
	}
	wg.Wait()
	return workers, next.Load()
}

// loop is one worker: it takes the next client, makes o.perConn requests
// for it, and moves on, until deadline or until take refuses.
func (wk *worker) loop(o options, deadline time.Time, nextClient func() int, take func() bool) {
	var c *conn
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	for time.Now().Before(deadline) {
		client := nextClient()
		req := o.request + "\r\n"
		if o.xff {
			req = o.request + "X-Forwarded-For: " + clientAddr(client).String() + "\r\n\r\n"
		} else if c != nil {
			c.close()
			c = nil
		}
		for range o.perConn {
			if !time.Now().Before(deadline) || !take() {
				return
			}
			if c == nil {
				var local net.IP
				if !o.xff {
					local = clientAddr(client)
				}
				var err error
				if c, err = dial(o.target, local); err != nil {
					wk.dialErrs++
					time.Sleep(time.Millisecond)
					break
				}
				wk.conns++
			}
			keep, ok := wk.request(c, req)
			if !keep { // an error, or the server closes: a new connection
				c.close()
				c = nil
			}
			if !ok {
				break
			}
		}
	}
}

// request makes one request on c and counts it; it reports whether c may
// be used again, and whether the request was answered (after an error,
// the worker moves on to the next client).
func (wk *worker) request(c *conn, req string) (keep, ok bool) {
	t0 := time.Now()
	status, n, keep, err := c.do(req)
	if err != nil {
		wk.ioErrs++
		return false, false
	}
	wk.lat = append(wk.lat, time.Since(t0))
	wk.status[status]++
	wk.bytes += n
	return keep, true
}

// merge adds up the workers' figures, latencies sorted.
func merge(workers []*worker) worker {
	var all worker
	for _, w := range workers {
		all.lat = append(all.lat, w.lat...)
		for s, n := range w.status {
			all.status[s] += n
		}
		all.dialErrs += w.dialErrs
		all.ioErrs += w.ioErrs
		all.conns += w.conns
		all.bytes += w.bytes
	}
	slices.Sort(all.lat)
	return all
}

// report prints the figures and the RESULT line; it reports whether any
// request was answered.
func report(o options, all worker, elapsed time.Duration, sessions int64) bool {
	pct := func(p float64) time.Duration {
		if len(all.lat) == 0 {
			return 0
		}
		return all.lat[min(len(all.lat)-1, int(p*float64(len(all.lat))))]
	}
	n := len(all.lat)
	rps := float64(n) / elapsed.Seconds()
	var statuses []string
	ok := 0
	for s, c := range all.status {
		if c > 0 {
			statuses = append(statuses, fmt.Sprintf("%d=%d", s, c))
			if s >= 200 && s < 400 {
				ok += c
			}
		}
	}
	mode := "bound source addresses"
	if o.xff {
		mode = "X-Forwarded-For"
	}
	if !o.quiet {
		fmt.Printf("%d requests in %.2fs: %.0f req/s, %.1f KB/request\n", n, elapsed.Seconds(), rps, float64(all.bytes)/float64(max(n, 1))/1024)
		fmt.Printf("latency p50 %v  p90 %v  p99 %v  max %v\n", pct(0.50), pct(0.90), pct(0.99), pct(1))
		fmt.Printf("status %s\n", strings.Join(statuses, " "))
		fmt.Printf("clients %d (%s), %d connections, %d concurrent; errors: dial %d, i/o %d\n",
			min(o.clients, int(sessions)), mode, all.conns, o.conc, all.dialErrs, all.ioErrs)
	}
	fmt.Printf("RESULT rps=%.1f p50_us=%.1f p99_us=%.1f requests=%d ok=%d other=%d conns=%d dial_errors=%d io_errors=%d\n",
		rps, us(pct(0.50)), us(pct(0.99)), n, ok, n-ok, all.conns, all.dialErrs, all.ioErrs)
	return n > 0
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// conn is one keep-alive HTTP/1.1 connection.
type conn struct {
	c *net.TCPConn
	r *bufio.Reader
}

func dial(addr string, local net.IP) (*conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	tc := c.(*net.TCPConn)
	return &conn{c: tc, r: bufio.NewReaderSize(tc, 32<<10)}, nil
}

// close resets the connection: a load generator must not fill the port
// space with TIME_WAIT sockets.
func (c *conn) close() {
	_ = c.c.SetLinger(0)
	_ = c.c.Close()
}

var errProtocol = errors.New("malformed response")

// do sends req and reads the whole response, returning its status and the
// number of body bytes, and whether the connection stays open.
func (c *conn) do(req string) (int, int64, bool, error) {
	_ = c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c.c, req); err != nil {
		return 0, 0, false, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, 0, false, err
	}
	if len(line) < 12 || string(line[:5]) != "HTTP/" {
		return 0, 0, false, errProtocol
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 || status >= 600 {
		return 0, 0, false, errProtocol
	}
	length, chunked, closing := int64(-1), false, false
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, 0, false, err
		}
		if len(h) <= 2 {
			break
		}
		name, value, _ := strings.Cut(string(h), ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			if length, err = strconv.ParseInt(value, 10, 64); err != nil {
				return 0, 0, false, errProtocol
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		case "connection":
			closing = strings.EqualFold(value, "close")
		}
	}
	var n int64
	switch {
	case status == 204 || status == 304:
	case chunked:
		for {
			h, err := c.r.ReadSlice('\n')
			if err != nil {
				return 0, 0, false, err
			}
			size, err := strconv.ParseInt(strings.TrimSpace(string(h)), 16, 64)
			if err != nil {
				return 0, 0, false, errProtocol
			}
			if _, err := c.r.Discard(int(size) + 2); err != nil {
				return 0, 0, false, err
			}
			n += size
			if size == 0 {
				break
			}
		}
	case length >= 0:
		if _, err := c.r.Discard(int(length)); err != nil {
			return 0, 0, false, err
		}
		n = length
	default:
		return 0, 0, false, errProtocol // read-to-close bodies are not supported
	}
	return status, n, !closing, nil
}
