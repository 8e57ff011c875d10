package commands

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// maxDatasetBytesFlag is import's limit on each input file: serve's
// max_dataset_bytes, from the same flag name and environment variable.
func maxDatasetBytesFlag() cli.Flag {
	return &cli.IntFlag{
		Name:    flagName("max_dataset_bytes"),
		EnvVars: []string{envName("max_dataset_bytes")},
		Value:   dataset.DefaultMaxFileBytes,
		Usage:   "largest input file, in bytes, as serve's max_dataset_bytes; a larger one is refused",
	}
}

// readSheets imports the sheets of directory src, each file opened as
// serve opens a dataset's (dataset.InputDir: regular files only, no link
// out of src, none over maxBytes, nothing of a refused file read). It
// returns as soon as ctx ends, SIGINT or SIGTERM, whatever the import is
// doing.
func readSheets(ctx context.Context, src string, maxBytes int) (map[string][]byte, error) {
	if maxBytes < 1024 || maxBytes > maxDatasetBytes {
		return nil, usagef("max_dataset_bytes must be a number of bytes from 1024 to %d (1 GiB)", maxDatasetBytes)
	}
	dir, err := dataset.OpenInputDir(ctx, src, dataset.Options{MaxFileBytes: int64(maxBytes)})
	if err != nil {
		return nil, usagef("%s is not a directory", src)
	}
	type result struct {
		files map[string][]byte
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer dir.Close()
		files, err := sheet.Import(dir)
		done <- result{files, err}
	}()
	select {
	case r := <-done:
		if ctx.Err() == nil {
			return r.files, r.err
		}
	case <-ctx.Done():
	}
	return nil, stopped(ctx)
}

// stopped is import's error once ctx has ended.
func stopped(ctx context.Context) error {
	return fmt.Errorf("import stopped: %v; nothing written", context.Cause(ctx))
}
