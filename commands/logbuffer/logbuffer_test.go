package logbuffer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ballot/commands/logbuffer"
)

// destination records each Write it receives as one chunk and announces it.
type destination struct {
	mu     sync.Mutex
	chunks []string
	wrote  chan struct{}
}

func newDestination() *destination { return &destination{wrote: make(chan struct{}, 1000)} }

func (d *destination) Write(p []byte) (int, error) {
	d.mu.Lock()
	d.chunks = append(d.chunks, string(p))
	d.mu.Unlock()
	select {
	case d.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (d *destination) written() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.chunks)
}

// waitWrite waits for the destination's next Write, with a bound generous
// enough for a loaded machine.
func (d *destination) waitWrite(t *testing.T) {
	t.Helper()
	select {
	case <-d.wrote:
	case <-time.After(10 * time.Second):
		t.Fatalf("no write reached the destination within 10 s; so far %q", d.written())
	}
}

func write(t *testing.T, w *logbuffer.Writer, s string) {
	t.Helper()
	if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}

func check(t *testing.T, d *destination, want ...string) {
	t.Helper()
	if got := d.written(); !slices.Equal(got, want) {
		t.Errorf("destination got writes %q, want %q", got, want)
	}
}

func TestFlushesOnTick(t *testing.T) {
	d := newDestination()
	ticks := make(chan time.Time)
	w := logbuffer.NewTicking(d, 1024, ticks)
	defer w.Close()

	write(t, w, "a=1\n")
	write(t, w, "b=2\n")
	check(t, d) // nothing before the tick
	ticks <- time.Time{}
	d.waitWrite(t)
	check(t, d, "a=1\nb=2\n") // both lines, in one write

	// A tick with nothing buffered writes nothing: the next write out is
	// the next line's, alone.
	ticks <- time.Time{}
	write(t, w, "c=3\n")
	ticks <- time.Time{}
	d.waitWrite(t)
	check(t, d, "a=1\nb=2\n", "c=3\n")
}

func TestFlushesWhenFull(t *testing.T) {
	d := newDestination()
	w := logbuffer.NewTicking(d, 10, nil) // no ticks at all
	defer w.Close()

	write(t, w, "1234\n")
	write(t, w, "5678\n") // exactly full: still buffered
	check(t, d)
	write(t, w, "9\n") // would overflow: the first two go out first
	check(t, d, "1234\n5678\n")
	write(t, w, "a line longer than the buffer\n") // out after the one before it
	check(t, d, "1234\n5678\n", "9\n", "a line longer than the buffer\n")
	write(t, w, "b\n")
	check(t, d, "1234\n5678\n", "9\n", "a line longer than the buffer\n")
}

func TestCloseFlushesAndPassesLaterWritesThrough(t *testing.T) {
	d := newDestination()
	w := logbuffer.NewTicking(d, 1024, make(chan time.Time))

	write(t, w, "last=1\n")
	write(t, w, "last=2\n")
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	check(t, d, "last=1\nlast=2\n")
	write(t, w, "late=1\n") // after Close: not lost in a buffer nobody flushes
	check(t, d, "last=1\nlast=2\n", "late=1\n")
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	check(t, d, "last=1\nlast=2\n", "late=1\n")
}

func TestFlush(t *testing.T) {
	d := newDestination()
	w := logbuffer.NewTicking(d, 1024, nil)
	defer w.Close()
	write(t, w, "serving\n")
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	check(t, d, "serving\n")
}

// slowDestination holds each Write until the test releases it.
type slowDestination struct {
	*destination
	entered, release chan struct{}
}

func (d slowDestination) Write(p []byte) (int, error) {
	d.entered <- struct{}{}
	<-d.release
	return d.destination.Write(p)
}

// TestWritersGoOnWhileABufferIsWritten: while the writer that filled the
// buffer waits on a slow destination, the others append their lines to
// the other buffer without waiting; the next flush writes them after the
// first buffer, in order.
func TestWritersGoOnWhileABufferIsWritten(t *testing.T) {
	d := slowDestination{newDestination(), make(chan struct{}), make(chan struct{})}
	w := logbuffer.NewTicking(d, 8, nil)
	write(t, w, "a=1\n")
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte("b=22\n")) // does not fit: a=1 goes out
		wrote <- err
	}()
	select {
	case <-d.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the full buffer was not written within 10 s")
	}
	// The destination holds "a=1": this goes to the other buffer, after
	// "b=22", without waiting for it.
	appended := make(chan struct{})
	go func() {
		defer close(appended)
		_, _ = w.Write([]byte("c\n"))
	}()
	select {
	case <-appended:
	case <-time.After(10 * time.Second):
		close(d.release)
		t.Fatal("a line waited 10 s for the write of the buffer before it")
	}
	select {
	case err := <-wrote:
		t.Fatalf("the write that filled the buffer returned (%v) before its destination did", err)
	default:
	}
	close(d.release)
	if err := <-wrote; err != nil {
		t.Fatalf("Write: %v", err)
	}
	go func() {
		for range d.entered {
		}
	}()
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	close(d.entered)
	check(t, d.destination, "a=1\n", "b=22\nc\n")
}

// failingDestination fails its first Write.
type failingDestination struct {
	*destination
	failed bool
}

func (d *failingDestination) Write(p []byte) (int, error) {
	if !d.failed {
		d.failed = true
		return 0, errors.New("disk full")
	}
	return d.destination.Write(p)
}

// TestAFailedWriteDropsItsBytesOnly: the write that meets the error
// reports it; its own line, buffered, goes out with the next write.
func TestAFailedWriteDropsItsBytesOnly(t *testing.T) {
	d := &failingDestination{destination: newDestination()}
	w := logbuffer.NewTicking(d, 8, nil)
	write(t, w, "a=1\n")
	if n, err := w.Write([]byte("b=2\n\n")); n != 5 || err == nil || err.Error() != "disk full" {
		t.Fatalf("Write after a failed flush = %d, %v; want 5, disk full", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	check(t, d.destination, "b=2\n\n")
}

func TestConcurrentLinesStayWhole(t *testing.T) {
	// Writers of lines of different lengths, a buffer small enough to
	// overflow every few lines, and ticks at the same time: every line
	// must come out whole, once, and each writer's lines in its order.
	d := newDestination()
	ticks := make(chan time.Time)
	w := logbuffer.NewTicking(d, 256, ticks)
	const writers, each = 8, 500
	stopTicks := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		for {
			select {
			case ticks <- time.Time{}:
			case <-stopTicks:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf("writer=%d line=%d pad=%s\n", g, i, strings.Repeat("x", (g*7+i)%40))
				if _, err := w.Write([]byte(line)); err != nil {
					t.Errorf("Write: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stopTicks)
	<-ticked
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	var all bytes.Buffer
	for _, c := range d.written() {
		if !strings.HasSuffix(c, "\n") {
			t.Errorf("a write ends inside a line: %q", c)
		}
		all.WriteString(c)
	}
	next := make([]int, writers)
	lines := strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n")
	for _, line := range lines {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(line, "writer=%d line=%d pad=%s", &g, &i, &pad); err != nil && !strings.HasSuffix(line, "pad=") {
			t.Fatalf("mangled line %q: %v", line, err)
		}
		if g < 0 || g >= writers || i != next[g] {
			t.Fatalf("line %q out of order: want line %d of writer %d", line, next[g], g)
		}
		if want := fmt.Sprintf("writer=%d line=%d pad=%s", g, i, strings.Repeat("x", (g*7+i)%40)); line != want {
			t.Fatalf("line %q, want %q", line, want)
		}
		next[g]++
	}
	if len(lines) != writers*each {
		t.Errorf("%d lines out, want %d", len(lines), writers*each)
	}
}

// BenchmarkAccessLogLine writes serve's access-log line through log/slog's
// text handler to a file: straight, one write per line, and through a
// Writer; and to nowhere, for what formatting alone costs.
func BenchmarkAccessLogLine(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buffered := logbuffer.New(f, 64<<10, 100*time.Millisecond)
	defer buffered.Close()
	for _, dst := range []struct {
		name string
		w    io.Writer
	}{{"discard", io.Discard}, {"file", f}, {"buffered-file", buffered}} {
		b.Run(dst.name, func(b *testing.B) {
			logger := slog.New(slog.NewTextHandler(dst.w, nil))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				logger.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("client_ip", "198.51.100.7"),
					slog.String("method", "GET"),
					slog.String("route", "candidates"),
					slog.String("uri", "/api/public/v1/candidates?district=5"),
					slog.Int("status", 200),
					slog.Int("bytes", 4554),
					slog.Duration("duration", 17135*time.Nanosecond),
				)
			}
		})
	}
}
