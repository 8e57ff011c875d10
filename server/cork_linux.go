package server

import "syscall"

// corks reports whether this system's TCP sockets can be corked.
const corks = true

// setCork corks (on) or uncorks a TCP socket (TCP_CORK, tcp(7)): while
// corked, the kernel sends only full packets; uncorking sends the rest. A
// failure leaves the socket as it was, which costs packets, not bytes.
var setCork = func(raw syscall.RawConn, on bool) {
	v := 0
	if on {
		v = 1
	}
	_ = raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, v)
	})
}
