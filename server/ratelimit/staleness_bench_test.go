package ratelimit_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"ballot/internal/redistest"
	"ballot/server/ratelimit"
)

// BenchmarkStaleness measures how old the other replicas' requests are in
// a replica's view when it decides: three replicas share one client's
// counts through a real redis-server, each syncing every 100 ms
// (DefaultSyncInterval) as serve does, while the client sends its requests
// round robin at a steady rate. For each request, its replica's view before
// it is compared with every request made so far: the oldest request missing
// from the view gives the view's age. Reported: the median, the 99th
// percentile and the largest age, in milliseconds, for each rate. Run with
// go test -run '^$' -bench Staleness -benchtime 1x ./server/ratelimit/.
func BenchmarkStaleness(b *testing.B) {
	srv := redistest.Start(b)
	for _, rate := range []int{10, 100, 300} {
		b.Run(itoaRate(rate), func(b *testing.B) {
			for b.Loop() {
				ages := staleness(b, srv.URL(), rate, 4*time.Second, rate)
				slices.Sort(ages)
				ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
				b.ReportMetric(ms(ages[len(ages)/2]), "p50-ms")
				b.ReportMetric(ms(ages[len(ages)*99/100]), "p99-ms")
				b.ReportMetric(ms(ages[len(ages)-1]), "max-ms")
			}
		})
	}
}

func itoaRate(r int) string {
	return "rate=" + string(rune('0'+r/100%10)) + string(rune('0'+r/10%10)) + string(rune('0'+r%10)) + "/s"
}

// staleness runs the three replicas for d with one client (its address
// chosen by seed, so runs do not share Redis keys) at rate requests a
// second, and returns the view's age at each request.
func staleness(b *testing.B, url string, rate int, d time.Duration, seed int) []time.Duration {
	const replicas = 3
	const big = 1_000_000_000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ls []*ratelimit.Limiter
	var wg sync.WaitGroup
	for range replicas {
		store, err := ratelimit.NewRedisStore(url, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		l := ratelimit.New(big, time.Hour, 10_000, nil)
		s := ratelimit.NewSync(l, store, ratelimit.SyncOptions{})
		if err := s.Start(ctx); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); s.Run(ctx) }()
		ls = append(ls, l)
	}
	defer wg.Wait()
	defer cancel()
	k := ratelimit.KeyFor(addrN(100_000+seed*1000+int(time.Now().UnixNano()%1000)), 64, 0)
	var sent []time.Time // when each request was made, in order
	var ages []time.Duration
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		l := ls[i%replicas]
		seen := big - l.Peek(k).Remaining // requests in this replica's view
		now := time.Now()
		if seen < len(sent) {
			ages = append(ages, now.Sub(sent[seen]))
		} else {
			ages = append(ages, 0)
		}
		l.Take(k)
		sent = append(sent, now)
	}
	return ages
}
