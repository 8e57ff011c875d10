package testprograms

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// goStderr is where Main's line goes: the standard error of the go command
// that runs this test binary (go test shows nothing of a package that
// passes, -v aside), else this binary's own standard error. The go
// command's descriptor is taken with pidfd_getfd, so that a file it writes
// to is written at its own offset; where that is not allowed, a terminal or
// a pipe is opened again through /proc, but not a regular file: a second
// opening would not share the offset, and the go command's next line would
// overwrite this one.
func goStderr() (io.Writer, func()) {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return os.Stderr, func() {}
	}
	if pidfd, err := unix.PidfdOpen(ppid, 0); err == nil {
		fd, err := unix.PidfdGetfd(pidfd, 2, 0)
		_ = unix.Close(pidfd)
		if err == nil {
			f := os.NewFile(uintptr(fd), "the go command's standard error")
			return f, func() { _ = f.Close() }
		}
	}
	path := fmt.Sprintf("/proc/%d/fd/2", ppid)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return os.Stderr, func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return os.Stderr, func() {}
	}
	return f, func() { _ = f.Close() }
}
