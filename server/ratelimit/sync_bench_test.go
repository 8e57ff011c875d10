package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"ballot/internal/redistest"
	"ballot/server/ratelimit"
)

// BenchmarkSyncRedis measures one sync of 10,000 clients' counts with a real
// redis-server: what a replica spends, off the request path, every 100 ms
// when 10,000 clients made requests since the last one.
func BenchmarkSyncRedis(b *testing.B) {
	srv := redistest.Start(b)
	store, err := ratelimit.NewRedisStore(srv.URL(), 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	l := ratelimit.New(1_000_000_000, time.Minute, 100_000, nil)
	s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{Timeout: 5 * time.Second})
	const clients = 10_000
	keys := make([]ratelimit.Key, clients)
	for i := range keys {
		keys[i] = ratelimit.KeyFor(addrN(i), 64, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			l.Take(k)
		}
		if err := s.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*clients), "ns/client")
}
