package ratelimit

import (
	"errors"
	"fmt"
	"net"
)

// The most one reply from Redis may declare. The store's largest reply is
// addScript's: two integers for each of a batch's keys (1,024 values); the
// others are a PONG, an OK, an error line and HELLO's map of a few short
// strings. Anything past these is no Redis this server talks to, and its
// declared lengths must not become allocations: the client library makes a
// slice or a buffer of the length a reply declares before reading it.
const (
	replyMaxLine     = 64 << 10 // bytes of a status, error or number line
	replyMaxBulk     = 64 << 10 // bytes of one string
	replyMaxElements = 4 * batch
	replyMaxTotal    = 16 * batch // elements of all aggregates of one reply
	replyMaxBytes    = 1 << 20    // bytes of all strings of one reply
	replyMaxDepth    = 8          // aggregates inside aggregates
)

// errReply is the error of a reply past those bounds, or not RESP at all.
var errReply = errors.New("redis sent a reply this server does not accept")

// replyGuard is a connection to Redis whose replies are checked, as they
// are read and before the client library sees them, against the bounds
// above: a declared length past them, or bytes that are not RESP2 or RESP3,
// end the read with an error, so the client drops the connection, the sync
// fails (and is logged and counted as an outage) and the next sync dials
// again. What Redis legitimately sends passes through untouched.
type replyGuard struct {
	net.Conn
	scan replyScanner
}

func (g *replyGuard) Read(p []byte) (int, error) {
	n, err := g.Conn.Read(p)
	if n > 0 {
		if serr := g.scan.feed(p[:n]); serr != nil {
			return 0, serr
		}
	}
	return n, err
}

// replyScanner follows the framing of a stream of RESP replies, a chunk at
// a time, keeping only counts: where a line or a string ends, and how many
// elements each open aggregate still has to come.
type replyScanner struct {
	state    byte // scanType, scanLine, scanLF, scanBulk, or scanBad
	kind     byte // the type byte of the line being read
	line     int  // bytes of the line so far
	num      int64
	neg      bool
	digits   int
	bulkLeft int64   // bytes (with the final CRLF) of the string being read
	open     []int64 // elements still to come in each open aggregate
	elements int64   // of the reply being read
	bytes    int64
}

const (
	scanType = iota
	scanLine
	scanLF
	scanBulk
	scanBad
)

// feed checks the next bytes of the stream.
func (s *replyScanner) feed(b []byte) error {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case scanBad:
			return errReply
		case scanType:
			if !isReplyType(c) {
				return s.fail("a reply begins with %q, which is no RESP type", c)
			}
			s.kind, s.line, s.num, s.neg, s.digits = c, 0, 0, false, 0
			s.state = scanLine
		case scanLine:
			if c == '\r' {
				s.state = scanLF
				continue
			}
			if s.line++; s.line > replyMaxLine {
				return s.fail("a line of more than %d bytes", replyMaxLine)
			}
			if isLengthType(s.kind) {
				switch {
				case c == '-' && s.digits == 0 && !s.neg:
					s.neg = true
				case c >= '0' && c <= '9' && s.digits == 12:
					return s.fail("a length of more than 12 digits")
				case c >= '0' && c <= '9':
					s.num = s.num*10 + int64(c-'0')
					s.digits++
				default:
					return s.fail("a length holds %q, which is no digit", c)
				}
			}
		case scanLF:
			if c != '\n' {
				return s.fail("a CR not followed by LF")
			}
			if err := s.endLine(); err != nil {
				return err
			}
		case scanBulk:
			// Skip the string's bytes without looking at them; its
			// CRLF is the client library's to check.
			skip := min(int64(len(b)-i), s.bulkLeft)
			s.bulkLeft -= skip
			i += int(skip) - 1
			if s.bulkLeft == 0 {
				s.state = scanType
				s.done()
			}
		}
	}
	return nil
}

// endLine acts on a line just read: a length or a count opens a string or
// an aggregate; any other line is a whole value.
func (s *replyScanner) endLine() error {
	s.state = scanType
	if !isLengthType(s.kind) {
		s.done()
		return nil
	}
	if s.digits == 0 {
		return s.fail("a length with no digits")
	}
	n := s.num
	if s.neg {
		if n != 1 {
			return s.fail("a negative length other than -1")
		}
		s.done() // RESP2's null string or array
		return nil
	}
	switch s.kind {
	case '$', '=', '!': // string, verbatim string, error string
		if n > replyMaxBulk {
			return s.fail("a string of %d bytes (at most %d)", n, replyMaxBulk)
		}
		if s.bytes += n; s.bytes > replyMaxBytes {
			return s.fail("strings of more than %d bytes in one reply", replyMaxBytes)
		}
		s.bulkLeft = n + 2
		s.state = scanBulk
		return nil
	}
	// An aggregate: array, set, push, map or attribute (two elements for
	// each of a map's entries; an attribute is followed by the value it
	// describes).
	if n > replyMaxElements {
		return s.fail("an aggregate of %d elements (at most %d)", n, replyMaxElements)
	}
	if s.kind == '%' || s.kind == '|' {
		n *= 2
	}
	if s.kind == '|' {
		n++
	}
	if s.elements += n; s.elements > replyMaxTotal {
		return s.fail("more than %d elements in one reply", replyMaxTotal)
	}
	if n == 0 {
		s.done()
		return nil
	}
	if len(s.open) == replyMaxDepth {
		return s.fail("aggregates nested more than %d deep", replyMaxDepth)
	}
	s.open = append(s.open, n)
	return nil
}

// done counts a whole value: it closes the aggregates it completes, and
// after the last one a reply ends, and the next has its own budget.
func (s *replyScanner) done() {
	for len(s.open) > 0 {
		top := len(s.open) - 1
		if s.open[top]--; s.open[top] > 0 {
			return
		}
		s.open = s.open[:top]
	}
	s.elements, s.bytes = 0, 0
}

func (s *replyScanner) fail(format string, args ...any) error {
	s.state = scanBad
	return fmt.Errorf("%w: %s", errReply, fmt.Sprintf(format, args...))
}

// isReplyType reports whether c begins a RESP2 or RESP3 value.
func isReplyType(c byte) bool {
	switch c {
	case '+', '-', ':', '$', '*', '_', ',', '#', '!', '=', '(', '%', '~', '|', '>':
		return true
	}
	return false
}

// isLengthType reports whether the line of a value of type c is a length
// or a count.
func isLengthType(c byte) bool {
	switch c {
	case '$', '=', '!', '*', '%', '~', '|', '>':
		return true
	}
	return false
}
