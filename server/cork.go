package server

import (
	"net/http"
	"syscall"
)

// corkAt is the least body an answer is corked for: net/http writes a
// response through a buffer of 4 KiB on the connection, so a header and
// a body of this size go out in two writes or more, each of which would
// send a packet of its own.
const corkAt = 4 << 10

// writeCorked writes the body, length bytes in parts written one after
// another, as the answer to r on w. On a plain TCP connection (HTTP/1,
// not TLS) it corks the socket for a body of corkAt bytes or more, writes and flushes it, and uncorks it, so that the header
// and the body leave in full packets rather than one packet a write: for
// `?district=5` (5.6 KB) on loopback, one transmit instead of two, 2 to 3
// µs of the kernel's time a request at the cost of two setsockopt calls
// (docs/PERFORMANCE.md). Nothing is held back: the uncork sends what is
// left, before the handler returns.
func writeCorked(w http.ResponseWriter, r *http.Request, length int, parts ...[]byte) {
	var raw syscall.RawConn
	if length >= corkAt && r.ProtoMajor == 1 {
		if c := connectionOf(r); c != nil {
			raw = c.raw
		}
	}
	if raw == nil {
		write(w, parts)
		return
	}
	setCork(raw, true)
	defer setCork(raw, false)
	write(w, parts)
	// What net/http holds of the response goes to the socket before the
	// uncork (the controller looks through exchange; it allocates nothing).
	_ = http.NewResponseController(w).Flush()
}

// write writes the parts of a body to w, one after another, the empty
// ones left out.
func write(w http.ResponseWriter, parts [][]byte) {
	for _, p := range parts {
		if len(p) > 0 {
			if _, err := w.Write(p); err != nil {
				return
			}
		}
	}
}
