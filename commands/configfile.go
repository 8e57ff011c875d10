package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxConfigBytes bounds the configuration file: it holds a screenful of keys.
const maxConfigBytes = 1 << 20

// readConfigFile reads the configuration file if it is a regular file. It
// opens without blocking and checks the opened file, so a FIFO or a device
// named by --config (or swapped in) is refused at once instead of holding
// serve before it can even see a signal.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", maxConfigBytes)}
	}
	return b, nil
}
