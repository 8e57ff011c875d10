package answers_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"ballot/answers"
)

func TestAppendTimeMatchesAppendFormat(t *testing.T) {
	cases := []time.Time{
		time.Date(2026, 11, 21, 7, 49, 35, 999_999_999, time.UTC),
		time.Date(2022, 3, 26, 0, 0, 0, 0, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 1_000_000, time.FixedZone("CET", 3600)),
		time.Date(2024, 2, 29, 12, 0, 0, 5_000_000, time.FixedZone("", -9*3600-30*60)),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), // past four digits: AppendFormat's own answer
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Now(),
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 100_000 {
		cases = append(cases, time.Unix(rng.Int64N(400*365*86400)-100*365*86400, rng.Int64N(1e9)))
	}
	// Times one after the other, as answers come: within a second (its
	// text kept from the time before), across its turn, in another zone,
	// and back to a second seen before.
	at := time.Date(2026, 11, 27, 14, 59, 59, 0, time.UTC)
	for _, d := range []time.Duration{0, time.Millisecond, 998 * time.Millisecond, 999*time.Millisecond + 999_999,
		time.Second, time.Second + time.Millisecond, 61 * time.Second, 3600 * time.Second, 0, 5 * time.Millisecond} {
		cases = append(cases, at.Add(d), at.Add(d).In(time.FixedZone("CET", 3600)))
	}
	for _, tc := range cases {
		want := tc.UTC().AppendFormat([]byte("x"), answers.TimeFormat)
		if got := answers.AppendTime([]byte("x"), tc); string(got) != string(want) {
			t.Fatalf("AppendTime(%v) = %q, want %q", tc, got, want)
		}
	}
}

func BenchmarkAppendTime(b *testing.B) {
	now := time.Now()
	buf := make([]byte, 0, 64)
	b.Run("AppendTime", func(b *testing.B) {
		for b.Loop() {
			buf = answers.AppendTime(buf[:0], now)
		}
	})
	b.Run("AppendFormat", func(b *testing.B) {
		for b.Loop() {
			buf = now.UTC().AppendFormat(buf[:0], answers.TimeFormat)
		}
	})
}
