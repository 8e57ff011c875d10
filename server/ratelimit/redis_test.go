package ratelimit_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"ballot/internal/redistest"
	"ballot/internal/testprograms"
	"ballot/server/ratelimit"
)

// TestMain ends the run with a line naming the tests skipped for want of
// redis-server, if any (see package testprograms).
func TestMain(m *testing.M) {
	os.Exit(testprograms.Main(m, "ballot/server/ratelimit"))
}

func TestParseRedisURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"redis://127.0.0.1:6379/0", true},
		{"redis://:s3cret@redis.internal:6379/2", true},
		{"rediss://redis.example.org:6380", true},
		{"http://127.0.0.1:6379", false},
		{"redis://127.0.0.1:6379/notadb", false},
		{"redis://:s3cret@[::1", false},
		{"unix:///run/redis.sock", false},
		{"memory", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := ratelimit.ParseRedisURL(tc.url)
			if (err == nil) != tc.ok {
				t.Fatalf("ParseRedisURL(%q) error %v, want ok=%v", tc.url, err, tc.ok)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error %q repeats the password", err)
			}
		})
	}
}

func TestRedisKey(t *testing.T) {
	for _, tc := range []struct {
		key  ratelimit.Key
		want string
	}{
		{key("192.0.2.7", 1), "ballot:ratelimit:1:192.0.2.7"},
		{key("2001:db8:1:2:3:4:5:6", 0), "ballot:ratelimit:0:2001:db8:1:2::"},
	} {
		if got := ratelimit.RedisKey(tc.key); got != tc.want {
			t.Errorf("RedisKey = %q, want %q", got, tc.want)
		}
	}
}

// TestRedisStore runs the store's script on a real redis-server: totals
// add up, the first creator's lifetime holds, and a restarted server (which
// has forgotten the script) is used again at the next call.
func TestRedisStore(t *testing.T) {
	srv := redistest.Start(t)
	store, err := ratelimit.NewRedisStore(srv.URL(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	a, b := key("192.0.2.10", 0), key("192.0.2.10", 1)

	got, err := store.Add(ctx, []ratelimit.Delta{{Key: a, N: 3, Left: 40 * time.Second}, {Key: b, N: 1, Left: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].N != 3 || got[1].N != 1 || got[0].Left <= 10*time.Second || got[0].Left > 40*time.Second || got[1].Left > 10*time.Second {
		t.Fatalf("first Add: %+v", got)
	}
	got, err = store.Add(ctx, []ratelimit.Delta{{Key: a, N: 2, Left: 60 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].N != 5 || got[0].Left > 40*time.Second {
		t.Errorf("second Add: %+v, want 5 with the first lifetime (at most 40 s) kept", got[0])
	}
	// A caller that knows the lifetime is not told it again, unless the
	// key is new.
	c := key("192.0.2.11", 0)
	got, err = store.Add(ctx, []ratelimit.Delta{{Key: a, N: 1, Left: time.Second, Known: true}, {Key: c, N: 2, Left: 20 * time.Second, Known: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != (ratelimit.Total{N: 6}) || got[1] != (ratelimit.Total{N: 2, Left: 20 * time.Second}) {
		t.Errorf("Add with known lifetimes: %+v, want 6 with no lifetime and 2 with its own", got)
	}
	if n := srv.Keys(t); n != 3 {
		t.Errorf("DBSIZE %d, want 3", n)
	}

	srv.Stop(t, syscall.SIGKILL)
	if err := store.Ping(ctx); err == nil {
		t.Fatal("Ping with redis-server stopped: no error")
	}
	if _, err := store.Add(ctx, []ratelimit.Delta{{Key: a, N: 1, Left: time.Second}}); err == nil {
		t.Fatal("Add with redis-server stopped: no error")
	}
	srv.Restart(t)
	// The client probes a server it could not reach once a second.
	deadline := time.Now().Add(20 * time.Second)
	for store.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not reach the restarted redis-server within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, err = store.Add(ctx, []ratelimit.Delta{{Key: a, N: 4, Left: 30 * time.Second}})
	if err != nil {
		t.Fatalf("Add after a restart: %v", err)
	}
	if got[0].N != 4 {
		t.Errorf("after a restart (empty): total %d, want 4", got[0].N)
	}
}

// TestSyncOnRedis: two replicas share one client's counts through a real
// redis-server, in batches larger than one store call.
func TestSyncOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	var rs []replica
	for range 2 {
		store, err := ratelimit.NewRedisStore(srv.URL(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		l := ratelimit.New(limit, window, 10_000, nil)
		s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{Timeout: 5 * time.Second})
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, replica{l, s})
	}
	const clients = 1500 // three store calls
	for i := range clients {
		take(t, rs[0], ratelimit.KeyFor(addrN(i), 64, 0), 2)
		take(t, rs[1], ratelimit.KeyFor(addrN(i), 64, 0), 3)
	}
	syncNow(t, rs[0])
	syncNow(t, rs[1])
	take(t, rs[0], ratelimit.KeyFor(addrN(0), 64, 0), 1)
	syncNow(t, rs[0])
	for i := range clients {
		k := ratelimit.KeyFor(addrN(i), 64, 0)
		want := limit - 5
		r := rs[1]
		if i == 0 {
			want, r = limit-6, rs[0]
		}
		if d := r.l.Peek(k); d.Remaining != want {
			t.Fatalf("client %d: Remaining %d, want %d", i, d.Remaining, want)
		}
	}
	if got := rs[0].s.Keys() + rs[1].s.Keys(); got != 2*clients+1 {
		t.Errorf("keys sent %d, want %d", got, 2*clients+1)
	}
	if n := srv.Keys(t); n != clients {
		t.Errorf("DBSIZE %d, want %d", n, clients)
	}
}
