// Command loadmem loads a dataset directory, or an archive of elections,
// once and prepares its API's answers (an archive's current election's),
// as serve does at start, and prints the files' total size, the process's
// peak resident memory and the ratio of the two: the peak memory of a load
// as a multiple of the data.
//
//	go run ./bench/synth -n 50000 -out bench/out/synth-50000
//	go run ./bench/loadmem bench/out/synth-50000
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

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
	restore := gcpace.Load() // as serve loads
	arch, err := archive.LoadDirContext(context.Background(), dir, dataset.Options{MaxFileBytes: *maxBytes})
	if err != nil {
		log.Fatal(err)
	}
	answers.Prepare(arch.Current().Dataset) // the API's answers, which serve prepares next
	restore()
	peak := status("VmHWM")
	candidates := 0
	for _, e := range arch.Elections() {
		candidates += len(e.Dataset.Candidates())
	}
	fmt.Printf("candidates=%d files_bytes=%d rss_before=%d peak_rss=%d peak_over_files=%.1f load_over_files=%.1f\n",
		candidates, size, before, peak, float64(peak)/float64(size), float64(peak-before)/float64(size))
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
