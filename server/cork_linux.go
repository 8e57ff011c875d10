package server

import "syscall"

// corks reports whether this system's TCP sockets can be corked.
const corks = true

// setCork corks (on) or uncorks a TCP socket (TCP_CORK, tcp(7)): while
// corked, the kernel sends only full packets; uncorking sends the rest. A
// failure leaves the socket as it was, which costs packets, not bytes.
var setCork = func(raw syscall.RawConn, on bool) {
	// Two functions of their own, which capture nothing: a closure over
	// on would be allocated at each call.
	if on {
		_ = raw.Control(corkFD)
	} else {
		_ = raw.Control(uncorkFD)
	}
}

func corkFD(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, 1) }

func uncorkFD(fd uintptr) {
	_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, 0)
}
