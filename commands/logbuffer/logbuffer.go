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
//
// It has two buffers: the one being filled, and the one being written
// out. The writer that fills one hands it to the destination after it has
// let go of the buffers, so the others go on appending lines to the other
// one, rather than wait for a write to a file or a journal; only when a
// buffer fills before the write of the one before has ended does a writer
// wait for it.
type Writer struct {
	mu     sync.Mutex // guards buf and closed
	buf    []byte     // being filled; cap is the size
	closed bool       // then writes go straight to dst

	// out is held while a buffer is written to dst, one write at a
	// time, in the order the buffers were filled: it is taken with mu
	// held, and released after the write, without it. spare, guarded by
	// out, is the buffer not being filled, empty between writes.
	out   sync.Mutex
	dst   io.Writer
	spare []byte

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
		dst:   dst,
		buf:   make([]byte, 0, size),
		spare: make([]byte, 0, size),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
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

// Write buffers p, first handing what is buffered to the destination if p
// would not fit. A p larger than the whole buffer is written straight
// through, after what was buffered before it. An error writing what was
// buffered before p is returned with p counted as buffered: it goes out
// with the next write.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.out.Lock()
		w.mu.Unlock()
		defer w.out.Unlock()
		return w.dst.Write(p)
	}
	if len(w.buf)+len(p) <= cap(w.buf) {
		w.buf = append(w.buf, p...)
		w.mu.Unlock()
		return len(p), nil
	}
	full := w.swapLocked()
	var through []byte
	if len(p) > cap(w.buf) {
		through = p
	} else {
		w.buf = append(w.buf, p...)
	}
	w.mu.Unlock()
	if err := w.writeOut(full, through); err != nil {
		if through != nil {
			return 0, err
		}
		return len(p), err
	}
	return len(p), nil
}

// Flush writes out what is buffered, after any write of a buffer filled
// before it: when it returns, everything written before it has reached
// the destination.
func (w *Writer) Flush() error {
	w.mu.Lock()
	full := w.swapLocked()
	w.mu.Unlock()
	return w.writeOut(full, nil)
}

// swapLocked, with mu held, waits for the write out of the buffer filled
// before, takes out, and swaps the buffers: it returns the full one, to
// write with writeOut, which releases out.
func (w *Writer) swapLocked() []byte {
	w.out.Lock()
	full := w.buf
	w.buf, w.spare = w.spare, nil
	return full
}

// writeOut writes full, then through, to the destination, each in one
// Write (none for an empty one), and makes full the spare buffer again.
// On an error the bytes are dropped all the same, so a broken destination
// does not make every later write fail on the same bytes. It releases out.
func (w *Writer) writeOut(full, through []byte) error {
	defer w.out.Unlock()
	var err error
	if len(full) > 0 {
		_, err = w.dst.Write(full)
	}
	w.spare = full[:0]
	if len(through) > 0 && err == nil {
		_, err = w.dst.Write(through)
	}
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
		full := w.swapLocked()
		w.closed = true
		w.mu.Unlock()
		err = w.writeOut(full, nil)
	})
	return err
}
