package dataset

import (
	"embed"
	"io/fs"
	"sync"
)

//go:generate go run ./internal/maltagen/cmd/maltagen -src malta-2022/source -out malta-2022

// The embedded default dataset: the Malta general election of 26 March 2022,
// generated from the sourced facts in malta-2022/source.
//
//go:embed malta-2022/dataset.toml malta-2022/parties.json malta-2022/districts.json malta-2022/candidates.json
var embedded embed.FS

// DefaultFS returns the files of the embedded default dataset.
func DefaultFS() fs.FS {
	sub, err := fs.Sub(embedded, "malta-2022")
	if err != nil {
		panic("dataset: embedded dataset missing: " + err.Error())
	}
	return sub
}

// Default returns the embedded default dataset, loaded once.
var Default = sync.OnceValues(func() (*Dataset, error) { return Load(DefaultFS()) })
