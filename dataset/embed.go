package dataset

import (
	"embed"
	"io/fs"
	"sync"
)

// The embedded archive is what `ballot import` makes of the sheets of each
// of its elections, malta-2022/sheets and malta-2017/sheets (their
// dataset.toml included, which import copies as it is), as for any
// publisher, and archive.toml, which names them and the current one.
// Import replaces its output directory whole, so it writes to
// .imported and the five files are copied from there beside SOURCES.md
// and source/, the record of the research, which import does not touch.
//
//go:generate go run .. import --force malta-2022/sheets malta-2022/.imported
//go:generate cp malta-2022/.imported/dataset.toml malta-2022/.imported/parties.json malta-2022/.imported/districts.json malta-2022/.imported/candidates.json malta-2022/.imported/counts.json malta-2022/
//go:generate rm -r malta-2022/.imported
//go:generate go run .. import --force malta-2017/sheets malta-2017/.imported
//go:generate cp malta-2017/.imported/dataset.toml malta-2017/.imported/parties.json malta-2017/.imported/districts.json malta-2017/.imported/candidates.json malta-2017/.imported/counts.json malta-2017/
//go:generate rm -r malta-2017/.imported

// The embedded archive: the Malta general elections of 26 March 2022, the
// current one, and of 3 June 2017, each imported from its sheets.
//
//go:embed archive.toml
//go:embed malta-2022/dataset.toml malta-2022/parties.json malta-2022/districts.json malta-2022/candidates.json malta-2022/counts.json
//go:embed malta-2017/dataset.toml malta-2017/parties.json malta-2017/districts.json malta-2017/candidates.json malta-2017/counts.json
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
