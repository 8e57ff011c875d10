// Package logbuffer batches log lines into few writes. serve's access log
// writes a line per request, and a write to stderr per line cost 10 to 15%
// of the server's throughput; through a Writer the lines of many requests
// go out in one write, at most a tick later.
//
// It imports nothing of the project, and knows nothing of what the lines
// say.
package logbuffer

import (
	"io"
	"sync"
	"time"
)

// Writer buffers what is written to it and writes it to its destination in
// one Write: when the next write would overflow the buffer, on every tick
// (with New, every interval), on Flush and on Close. Each Write is kept
// whole and in order, so the lines of concurrent writers (log/slog's
// handlers write each record in one call) never interleave. A Writer is
// safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	dst    io.Writer
	buf    []byte // cap is the size
	closed bool   // then writes go straight to dst

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New returns a Writer to dst that holds up to size bytes and flushes them
// at least every interval.
func New(dst io.Writer, size int, interval time.Duration) *Writer {
	t := time.NewTicker(interval)
	w := NewTicking(dst, size, t.C)
	go func() {
		<-w.done
		t.Stop()
	}()
	return w
}

// NewTicking is New with the flushes in time driven by ticks rather than a
// ticker of its own, for callers (and tests) that keep the clock.
func NewTicking(dst io.Writer, size int, ticks <-chan time.Time) *Writer {
	w := &Writer{
		dst:  dst,
		buf:  make([]byte, 0, size),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go w.run(ticks)
	return w
}

func (w *Writer) run(ticks <-chan time.Time) {
	defer close(w.done)
	for {
		select {
		case <-ticks:
			// A failed write to the log has nowhere to be reported;
			// the next flush tries again with newer lines.
			_ = w.Flush()
		case <-w.stop:
			return
		}
	}
}

// Write buffers p, first writing out what is buffered if p would not fit.
// A p larger than the whole buffer is written straight through, after what
// was buffered before it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.dst.Write(p)
	}
	if len(w.buf)+len(p) > cap(w.buf) {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > cap(w.buf) {
			return w.dst.Write(p)
		}
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// flushLocked writes the buffer out in one Write. On an error the buffered
// bytes are dropped all the same, so a broken destination does not make
// every later write fail on the same bytes.
func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.dst.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Close stops the ticks, writes out what is buffered, and lets later writes
// (a request finishing after the shutdown's deadline, say) go straight to
// the destination, so that no line is lost. It does not close the
// destination. Calling it again does nothing.
func (w *Writer) Close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.done
		w.mu.Lock()
		defer w.mu.Unlock()
		err = w.flushLocked()
		w.closed = true
	})
	return err
}
