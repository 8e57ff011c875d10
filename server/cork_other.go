//go:build !linux

package server

import "syscall"

// corks reports whether this system's TCP sockets can be corked: on
// Linux alone (TCP_CORK); elsewhere an answer goes out as net/http
// writes it.
const corks = false

var setCork = func(syscall.RawConn, bool) {}
