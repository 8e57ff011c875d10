package ratelimit

import (
	"bytes"
	"errors"
	"testing"
)

// TestReplyScanner: what Redis sends passes, however it is cut into reads;
// what declares past the bounds, or is no RESP, fails.
func TestReplyScanner(t *testing.T) {
	evalReply := []byte("*1024\r\n" + string(bytes.Repeat([]byte(":7\r\n:59000\r\n"), 512)))
	hello := []byte("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:12\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n")
	tests := []struct {
		name  string
		in    []byte
		error string // "" passes
	}{
		{"PONG", []byte("+PONG\r\n"), ""},
		{"error", []byte("-NOSCRIPT No matching script. Please use EVAL.\r\n"), ""},
		{"addScript's largest reply", evalReply, ""},
		{"HELLO's map", hello, ""},
		{"null string and array", []byte("$-1\r\n*-1\r\n_\r\n"), ""},
		{"RESP3 scalars", []byte(",1.5\r\n#t\r\n(3492890328409238509324850943850943825024385\r\n"), ""},
		{"attribute then value", []byte("|1\r\n+key\r\n:1\r\n:42\r\n"), ""},
		{"many replies in one read", bytes.Repeat([]byte("+PONG\r\n"), 10_000), ""},
		{"one string at its bound", append(append([]byte("$65536\r\n"), bytes.Repeat([]byte("x"), 65536)...), "\r\n"...), ""},
		{"huge array", []byte("*1099511627776\r\n"), "redis sent a reply this server does not accept: a length of more than 12 digits"},
		{"array past the bound", []byte("*2049\r\n"), "redis sent a reply this server does not accept: an aggregate of 2049 elements (at most 2048)"},
		{"string past the bound", []byte("$65537\r\n"), "redis sent a reply this server does not accept: a string of 65537 bytes (at most 65536)"},
		{"huge string", []byte("$9999999999\r\n"), "redis sent a reply this server does not accept: a string of 9999999999 bytes (at most 65536)"},
		{"elements of one reply", []byte("*2\r\n*2048\r\n" + string(bytes.Repeat([]byte(":1\r\n"), 2048)) + "*2048\r\n"), ""},
		{"nested past the total", []byte("*2048\r\n" + string(bytes.Repeat([]byte("*2048\r\n"), 8))), "redis sent a reply this server does not accept: more than 8192 elements in one reply"},
		{"too deep", bytes.Repeat([]byte("*1\r\n"), 9), "redis sent a reply this server does not accept: aggregates nested more than 8 deep"},
		{"strings past the reply's bytes", []byte("*20\r\n" + string(bytes.Repeat([]byte("$60000\r\n"+string(bytes.Repeat([]byte("y"), 60000))+"\r\n"), 18))), "redis sent a reply this server does not accept: strings of more than 1048576 bytes in one reply"},
		{"a line with no end", bytes.Repeat([]byte("+"), 70_000), "redis sent a reply this server does not accept: a line of more than 65536 bytes"},
		{"not RESP", []byte("HTTP/1.1 200 OK\r\n"), `redis sent a reply this server does not accept: a reply begins with 'H', which is no RESP type`},
		{"CR without LF", []byte("+OK\rX"), "redis sent a reply this server does not accept: a CR not followed by LF"},
		{"letters in a length", []byte("$12a\r\n"), `redis sent a reply this server does not accept: a length holds 'a', which is no digit`},
		{"empty length", []byte("*\r\n"), "redis sent a reply this server does not accept: a length with no digits"},
		{"negative length", []byte("$-2\r\n"), "redis sent a reply this server does not accept: a negative length other than -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{len(tt.in), 1, 3, 4096} {
				var s replyScanner
				var err error
				for b := tt.in; len(b) > 0 && err == nil; b = b[min(size, len(b)):] {
					err = s.feed(b[:min(size, len(b))])
				}
				got := ""
				if err != nil {
					got = err.Error()
					if !errors.Is(err, errReply) {
						t.Errorf("reads of %d: error %v is not errReply", size, err)
					}
				}
				if got != tt.error {
					t.Errorf("reads of %d: error %q, want %q", size, got, tt.error)
				}
			}
		})
	}
}

// FuzzReplyScanner: any bytes, cut anywhere into reads, give the same
// verdict as in one read, and never a panic.
func FuzzReplyScanner(f *testing.F) {
	for _, seed := range []string{
		"+PONG\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*2\r\n:1\r\n:2\r\n", "*-1\r\n",
		"%1\r\n+a\r\n:1\r\n", "|1\r\n+a\r\n:1\r\n:2\r\n", "~1\r\n_\r\n", ">2\r\n+a\r\n+b\r\n", "=7\r\ntxt:abc\r\n",
		"!3\r\nerr\r\n", ",1.5\r\n", "#f\r\n", "(12345\r\n", "*1099511627776\r\n", "$9999999999\r\n",
		"*3\r\n*1\r\n*0\r\n$0\r\n\r\n:5\r\n", "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", "+OK\rX", "$1x\r\n", "GET / HTTP/1.1\r\n",
	} {
		f.Add([]byte(seed), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		var whole replyScanner
		werr := whole.feed(in)
		var parts replyScanner
		var perr error
		size := int(cut%16) + 1
		for b := in; len(b) > 0 && perr == nil; b = b[min(size, len(b)):] {
			perr = parts.feed(b[:min(size, len(b))])
		}
		if (werr == nil) != (perr == nil) || werr != nil && werr.Error() != perr.Error() {
			t.Fatalf("one read: %v; reads of %d: %v", werr, size, perr)
		}
		if werr == nil && (len(whole.open) > replyMaxDepth || whole.elements > replyMaxTotal || whole.bytes > replyMaxBytes) {
			t.Fatalf("accepted past the bounds: %+v", whole)
		}
	})
}
