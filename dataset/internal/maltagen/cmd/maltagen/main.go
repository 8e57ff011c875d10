// Command maltagen writes the JSON files of the embedded Malta 2022 dataset
// from its CSV sources and its manifest. From the dataset directory (as go
// generate runs it):
//
//	go run ./internal/maltagen/cmd/maltagen -src malta-2022/source -out malta-2022
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"ballot/dataset/internal/maltagen"
)

func main() {
	src := flag.String("src", "malta-2022/source", "directory holding the source CSV files")
	out := flag.String("out", "malta-2022", "directory to write the JSON files to; its dataset.toml is the manifest, read and left as it is")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "maltagen: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	manifest, err := os.ReadFile(filepath.Join(*out, "dataset.toml"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "maltagen: %v\n", err)
		os.Exit(1)
	}
	files, err := maltagen.Generate(os.DirFS(*src), manifest)
	if err != nil {
		fmt.Fprintf(os.Stderr, "maltagen: %v\n", err)
		os.Exit(1)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(*out, name), files[name], 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "maltagen: %v\n", err)
			os.Exit(1)
		}
	}
}
