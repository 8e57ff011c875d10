// Command loadmem loads a dataset directory, or an archive of elections,
// once and prepares its API's answers (every election's, and the
// archive's elections and people), as serve does at start, and prints the
// files' total size, the process's peak resident memory and the ratio of
// the two: the peak memory of a load as a multiple of the data; and the
// time the load and the answers took, in all and per MiB of the files.
//
//	go run ./bench/synth -n 50000 -out bench/out/synth-50000
//	go run ./bench/loadmem bench/out/synth-50000
//	go run ./bench/loadmem dataset   # the embedded archive's directory
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"ballot/answers"
	"ballot/archive"
	"ballot/commands/gcpace"
	"ballot/dataset"
)

func main() {
	maxBytes := flag.Int64("max-dataset-bytes", 1<<30, "largest dataset file, in bytes")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: loadmem [-max-dataset-bytes N] DIR")
	}
	dir := flag.Arg(0)
	size, err := archive.FilesSize(dir)
	if err != nil {
		log.Fatal(err)
	}
	before := status("VmRSS")
	start := time.Now()
	restore := gcpace.Load() // as serve loads
	arch, err := archive.LoadDirContext(context.Background(), dir, dataset.Options{MaxFileBytes: *maxBytes})
	if err != nil {
		log.Fatal(err)
	}
	// The API's answers, which serve prepares next, in its order: the
	// archive's own, then every election's, as once every election has
	// been asked for: a past election, let go once checked, is loaded
	// again for it (archive.Election.Held), the most a load holds.
	own := answers.PrepareArchive(arch, "/api/public/v1/elections")
	var prepared []*answers.Answers
	for _, e := range arch.Elections() {
		prepared = append(prepared, answers.Prepare(e.Dataset()))
	}
	restore()
	took := time.Since(start)
	peak := status("VmHWM")
	candidates := 0
	for _, e := range arch.Elections() {
		candidates += len(e.Dataset().Candidates())
	}
	runtime.KeepAlive(prepared)
	runtime.KeepAlive(own)
	fmt.Printf("elections=%d candidates=%d files_bytes=%d rss_before=%d peak_rss=%d peak_over_files=%.1f load_over_files=%.1f load_ms=%.0f load_ms_per_mib=%.1f\n",
		len(arch.Elections()), candidates, size, before, peak, float64(peak)/float64(size), float64(peak-before)/float64(size),
		float64(took.Microseconds())/1000, float64(took.Microseconds())/1000/(float64(size)/(1<<20)))
}

// status reads a memory figure of this process from /proc/self/status, in
// bytes.
func status(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				log.Fatal(err)
			}
			return kb << 10
		}
	}
	log.Fatalf("no %s in /proc/self/status", key)
	return 0
}
