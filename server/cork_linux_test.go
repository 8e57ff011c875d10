package server

import (
	"syscall"
	"unsafe"
)

// corkState reads a TCP socket's TCP_CORK, and the bytes in its send
// queue, written and not yet acknowledged (SIOCOUTQ, tcp(7)); -1 for
// either it could not read.
func corkState(fd uintptr) (corked, queued int) {
	corked, err := syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK)
	if err != nil {
		corked = -1
	}
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return corked, -1
	}
	return corked, int(n)
}
