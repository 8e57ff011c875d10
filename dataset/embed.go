package dataset

import (
	"embed"
	"io/fs"
	"sync"
)

// The embedded archive is what `ballot import` makes of the sheets of each
// of its elections (their dataset.toml included, which import copies as
// it is), as for any publisher: malta-2022/sheets, malta-2017/sheets and
// each year's of malta-history, which import.sh imports; and
// archive.toml, which names them and the current one.
//
//go:generate sh import.sh

// The embedded archive: the Malta general elections of 26 March 2022, the
// current one, of 3 June 2017, and of every year from 1921 to 2013, each
// imported from its sheets.
//
//go:embed archive.toml
//go:embed malta-2022/dataset.toml malta-2022/parties.json malta-2022/districts.json malta-2022/candidates.json malta-2022/counts.json
//go:embed malta-2017/dataset.toml malta-2017/parties.json malta-2017/districts.json malta-2017/candidates.json malta-2017/counts.json
//go:embed malta-history/*/dataset.toml malta-history/*/parties.json malta-history/*/districts.json malta-history/*/candidates.json malta-history/*/counts.json
var embedded embed.FS

// ArchiveFS returns the files of the embedded archive: archive.toml and a
// directory for each election.
func ArchiveFS() fs.FS { return embedded }

// DefaultFS returns the files of the embedded archive's current election,
// the Malta general election of 2022: the embedded default dataset.
func DefaultFS() fs.FS {
	sub, err := fs.Sub(embedded, "malta-2022")
	if err != nil {
		panic("dataset: embedded dataset missing: " + err.Error())
	}
	return sub
}

// Default returns the embedded default dataset, loaded once.
var Default = sync.OnceValues(func() (*Dataset, error) { return Load(DefaultFS()) })
