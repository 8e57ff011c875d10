package dataset

import (
	"embed"
	"io/fs"
	"sync"
)

// The embedded dataset is what `ballot import` makes of the sheets in
// malta-2022/sheets (their dataset.toml included, which import copies as it
// is), as for any publisher. Import replaces its output directory whole, so
// it writes to malta-2022/.imported and the five files are copied from there
// beside SOURCES.md and source/, the record of the research, which import
// does not touch.
//
//go:generate go run .. import --force malta-2022/sheets malta-2022/.imported
//go:generate cp malta-2022/.imported/dataset.toml malta-2022/.imported/parties.json malta-2022/.imported/districts.json malta-2022/.imported/candidates.json malta-2022/.imported/counts.json malta-2022/
//go:generate rm -r malta-2022/.imported

// The embedded default dataset: the Malta general election of 26 March 2022,
// imported from the sheets in malta-2022/sheets.
//
//go:embed malta-2022/dataset.toml malta-2022/parties.json malta-2022/districts.json malta-2022/candidates.json malta-2022/counts.json
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
