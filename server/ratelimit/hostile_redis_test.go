package ratelimit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ballot/internal/redistest"
	"ballot/server/ratelimit"
)

// hostileProxy stands on a loopback address in front of a real
// redis-server. While its reply is nil it passes everything through; else
// it answers each command with its reply (in place of Redis's), then closes
// the connection or lets it stall, as the reply says.
type hostileProxy struct {
	addr     string
	upstream string
	reply    atomic.Pointer[hostileReply]
	mu       sync.Mutex
	conns    []net.Conn
}

type hostileReply struct {
	name  string
	bytes []byte
	close bool          // close the connection after the bytes
	drip  time.Duration // send the bytes one at a time, this far apart
}

func startHostileProxy(t *testing.T, upstream string) *hostileProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hostileProxy{addr: ln.Addr().String(), upstream: upstream}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
	})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *hostileProxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

func (p *hostileProxy) serve(client net.Conn) {
	p.track(client)
	defer client.Close()
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	p.track(up)
	defer up.Close()
	// Commands go to Redis in every mode, so its replies come back one
	// for one; each is passed on, or replaced by the hostile reply.
	go func() { _, _ = io.Copy(up, client) }()
	buf := make([]byte, 64<<10)
	for {
		n, err := up.Read(buf)
		if err != nil {
			return
		}
		h := p.reply.Load()
		if h == nil {
			if _, err := client.Write(buf[:n]); err != nil {
				return
			}
			continue
		}
		if h.drip > 0 {
			for _, b := range h.bytes {
				if _, err := client.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(h.drip)
			}
		} else if _, err := client.Write(h.bytes); err != nil {
			return
		}
		if h.close {
			return
		}
	}
}

// hostileReplies are what a broken or hostile peer on Redis's address
// sends in place of a reply.
func hostileReplies() []hostileReply {
	nested := []byte("*2048\r\n")
	for range 2048 {
		nested = append(nested, "*2048\r\n"...)
	}
	deep := bytes.Repeat([]byte("*1\r\n"), 100_000)
	return []hostileReply{
		{name: "an array of 2^40 elements", bytes: []byte("*1099511627776\r\n")},
		{name: "a string of 10 GB", bytes: []byte("$9999999999\r\n")},
		{name: "a RESP3 map of 2^40 entries", bytes: []byte("%1099511627776\r\n")},
		{name: "a verbatim string of 10 GB", bytes: []byte("=9999999999\r\ntxt:")},
		{name: "a length past int64", bytes: []byte("*99999999999999999999999\r\n")},
		{name: "arrays of arrays (4 million slots from 14 KB)", bytes: nested},
		{name: "arrays nested 100,000 deep", bytes: deep},
		{name: "a line with no end", bytes: bytes.Repeat([]byte("+"), 200<<10)},
		{name: "garbage", bytes: []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")},
		{name: "binary junk", bytes: []byte("\x00\xff\x16\x03\x01\r\n")},
		{name: "a close in the middle of a reply", bytes: []byte("*2\r\n:1\r\n"), close: true},
		{name: "a reply to another command", bytes: []byte("+OK\r\n")},
		{name: "a slow drip", bytes: []byte("*2\r\n:1\r\n:1\r\n"), drip: 400 * time.Millisecond},
	}
}

// TestHostileRedis: whatever a peer on the Redis address sends in place of
// a reply (huge declared lengths, garbage, a slow drip, a close in the
// middle, a reply to another command), the store's calls fail within the
// timeout and allocate next to nothing; the Sync counts in memory (fails
// open), logs one line for the outage, shows it in Up and Errors, and
// shares counts again once Redis is sane.
func TestHostileRedis(t *testing.T) {
	srv := redistest.Start(t)
	p := startHostileProxy(t, srv.Addr)
	const timeout = 1 * time.Second
	store, err := ratelimit.NewRedisStore("redis://"+p.addr+"/0", timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var log syncBuffer
	l := ratelimit.New(limit, window, 10_000, nil)
	s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{Timeout: timeout, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i, h := range hostileReplies() {
		k := key(fmt.Sprintf("192.0.2.%d", 50+i), 0)
		t.Run(h.name, func(t *testing.T) {
			p.reply.Store(nil)
			// Sane: the store answers, the sync shares counts.
			deadline := time.Now().Add(20 * time.Second)
			for s.Sync(ctx) != nil || !s.Up() {
				if time.Now().After(deadline) {
					t.Fatal("the sync did not reach Redis through the proxy within 20 s")
				}
				time.Sleep(20 * time.Millisecond)
			}
			errsBefore := s.Errors()
			linesBefore := strings.Count(log.String(), "rate-limit store unreachable")

			p.reply.Store(&h)
			remaining := l.Peek(k).Remaining
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range 3 {
				take(t, replica{l: l, s: s}, k, 1)
				start := time.Now()
				if err := s.Sync(ctx); err == nil {
					t.Fatal("a sync through the hostile peer succeeded")
				}
				if d := time.Since(start); d > 10*timeout {
					t.Errorf("a sync took %v, past ten times its timeout", d)
				}
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
				t.Errorf("three failed syncs allocated %d MiB", grew>>20)
			}
			if s.Up() {
				t.Error("Up() is true while the store fails")
			}
			if got := s.Errors() - errsBefore; got != 3 {
				t.Errorf("Errors grew by %d, want 3", got)
			}
			if got := strings.Count(log.String(), "rate-limit store unreachable") - linesBefore; got != 1 {
				t.Errorf("%d lines logged for the outage, want 1:\n%s", got, log.String())
			}
			// Failing open: this process still counts its own requests.
			if d := l.Peek(k); d.Remaining != remaining-3 {
				t.Errorf("Remaining %d in memory after 3 requests, want %d", d.Remaining, remaining-3)
			}
		})
	}
	p.reply.Store(nil)
	deadline := time.Now().Add(20 * time.Second)
	for s.Sync(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the sync did not reach Redis again within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !s.Up() || !strings.Contains(log.String(), "rate-limit store reachable again") {
		t.Errorf("after Redis is sane again: Up %v, log:\n%s", s.Up(), log.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
