//go:build !linux

package testprograms

import (
	"io"
	"os"
)

// goStderr is where Main's line goes: away from Linux, this binary's own
// standard error, which go test shows with -v or when the package fails.
func goStderr() (io.Writer, func()) { return os.Stderr, func() {} }
