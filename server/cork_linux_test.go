package server

import (
	"encoding/binary"
	"syscall"
	"unsafe"
)

// corkState reads a TCP socket's TCP_CORK, and the bytes written to it
// so far: those the peer acknowledged (tcpi_bytes_acked of TCP_INFO,
// Linux 4.1 and later) and those in its send queue, not yet acknowledged
// (SIOCOUTQ, tcp(7)). Either is -1 when it could not be read. A corked
// socket's kernel sends what it holds after 200 ms all the same, so the
// bytes written are counted whether sent or not.
func corkState(fd uintptr) (corked, written int) {
	corked, err := syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK)
	if err != nil {
		corked = -1
	}
	var queued int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&queued))); errno != 0 {
		return corked, -1
	}
	const bytesAcked = 120 // the offset of tcpi_bytes_acked in struct tcp_info
	var info [256]byte
	size := uint32(len(info))
	if _, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
		uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&size)), 0); errno != 0 || size < bytesAcked+8 {
		return corked, -1
	}
	return corked, int(binary.NativeEndian.Uint64(info[bytesAcked:])) + int(queued)
}
