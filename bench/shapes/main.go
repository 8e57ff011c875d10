// Command shapes writes a dataset of one shape, near a size, for measuring
// the memory of a load per byte of data: the embedded dataset with one
// file replaced by the shape's. Each shape the rules accept, and two they
// refuse with a problem for each sheet or each total.
//
//	go run ./bench/shapes -shape parties -bytes 67108864 -out /tmp/parties
//
// Shapes:
//
//	parties     many minimal parties ({"id","slug","name","short_name"})
//	localities  many localities spread over the 13 districts
//	longparty   one party whose name fills the file
//	longnote    one locality whose note fills the file
//	longcand    one candidate whose name fills the file
//	candidates  many minimal candidates, each of a party, in one district
//	everywhere  many minimal candidates, each of a party, in all 13
//	counts      one district's count sheet of many candidacies over many
//	            counts (-candidacies, -counts; 10,000 over 500 by default),
//	            every candidate of the dataset one of its rows
//	archive     an archive of -elections elections of the 2022 shape
//	            (10 by default), each a copy of the embedded 2022 election
//	            with a slug and date of its own, a year apart (2022, the
//	            current one, 2021, …); -bytes does not apply
//
// Refused:
//
//	emptysheets a counts.json of empty sheets ({}), seven problems each
//	badtotals   the counts shape with every total -1, a problem each
//
// Many candidates, the other shape, is bench/synth's (-n 135000 is near
// 64 MiB).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"ballot/dataset"
)

var namespace = uuid.MustParse("6b616c6c-6f74-2d62-656e-63682d73796e")

func main() {
	shape := flag.String("shape", "parties", "parties, localities, longparty, longnote, longcand, candidates, everywhere, counts, archive, emptysheets or badtotals")
	size := flag.Int("bytes", 64<<20, "the largest the shape's file may be, in bytes")
	out := flag.String("out", "", "directory to write (created if missing)")
	flag.IntVar(&sheetRows, "candidacies", 10000, "counts: the sheet's candidacies")
	flag.IntVar(&sheetCounts, "counts", 500, "counts: the sheet's counts")
	flag.IntVar(&elections, "elections", 10, "archive: the archive's elections")
	flag.Parse()
	if *out == "" {
		log.Fatal("usage: shapes -shape SHAPE -bytes N -out DIR")
	}
	if err := write(*shape, *size, *out); err != nil {
		log.Fatal(err)
	}
}

func write(shape string, size int, out string) error {
	if shape == "archive" {
		return archiveOf(elections, out)
	}
	if err := copyBase(out); err != nil {
		return err
	}
	switch shape {
	case "parties":
		return manyParties(size, out)
	case "localities":
		return manyLocalities(size, out)
	case "candidates", "everywhere":
		return manyCandidates(size, out, shape == "everywhere")
	case "counts", "badtotals":
		return countSheet(sheetRows, sheetCounts, out, shape == "badtotals")
	case "emptysheets":
		var b strings.Builder
		b.WriteByte('[')
		fill(&b, size, func(i int) string {
			if i == 0 {
				return "{}"
			}
			return ",{}"
		})
		return os.WriteFile(filepath.Join(out, dataset.CountsFile), []byte(b.String()), 0o644)
	case "longparty":
		return longField(dataset.PartiesFile, size, out, func(parties []map[string]any) {
			parties[0]["name"] = "Partit " + strings.Repeat("x", size-16<<10)
		})
	case "longnote":
		return longField(dataset.DistrictsFile, size, out, func(districts []map[string]any) {
			districts[0]["localities"].([]any)[0].(map[string]any)["note"] = strings.Repeat("n", size-128<<10)
		})
	case "longcand":
		return longField(dataset.CandidatesFile, size, out, func(candidates []map[string]any) {
			candidates[0]["name"] = "N " + strings.Repeat("y", size-256<<10)
		})
	}
	return fmt.Errorf("no shape %q: parties, localities, longparty, longnote, longcand, candidates, everywhere, counts, archive, emptysheets or badtotals", shape)
}

// copyBase writes the embedded dataset's files into out, for a shape to
// replace one of them.
func copyBase(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile} {
		b, err := fs.ReadFile(dataset.DefaultFS(), name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readBase decodes one of the embedded dataset's files into v.
func readBase(name string, v any) error {
	b, err := fs.ReadFile(dataset.DefaultFS(), name)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// manyParties is the embedded parties followed by minimal parties up to size.
func manyParties(size int, out string) error {
	var raws []json.RawMessage
	if err := readBase(dataset.PartiesFile, &raws); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	fill(&b, size, func(i int) string {
		slug := "p" + strconv.Itoa(i)
		return fmt.Sprintf(`,{"id":%q,"slug":%q,"name":"P","short_name":"P"}`,
			uuid.NewSHA1(namespace, []byte(slug)).String(), slug)
	})
	return os.WriteFile(filepath.Join(out, dataset.PartiesFile), []byte(b.String()), 0o644)
}

// manyLocalities spreads minimal localities evenly over the 13 districts.
func manyLocalities(size int, out string) error {
	var districts []map[string]any
	if err := readBase(dataset.DistrictsFile, &districts); err != nil {
		return err
	}
	base, err := json.Marshal(districts)
	if err != nil {
		return err
	}
	// {"name":"l123456","slug":"l123456"}, and a comma: under 40 bytes.
	per := (size - len(base)) / 40 / len(districts)
	for k, d := range districts {
		locs := d["localities"].([]any)
		for i := range per {
			name := "l" + strconv.Itoa(k*per+i)
			locs = append(locs, map[string]any{"name": name, "slug": name})
		}
		d["localities"] = locs
	}
	return writeJSON(filepath.Join(out, dataset.DistrictsFile), districts, size)
}

// manyCandidates is minimal candidates up to size, each of a party, in one
// district, or, everywhere, standing in all 13.
func manyCandidates(size int, out string, everywhere bool) error {
	var parties []dataset.Party
	var districts []dataset.District
	if err := readBase(dataset.PartiesFile, &parties); err != nil {
		return err
	}
	if err := readBase(dataset.DistrictsFile, &districts); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteByte('[')
	fill(&b, size, func(i int) string {
		slug := "c" + strconv.Itoa(i)
		primary := districts[i%len(districts)].ID
		stood := strconv.Quote(primary)
		if everywhere {
			ids := []string{stood} // the primary first, as the rules ask
			for _, d := range districts {
				if d.ID != primary {
					ids = append(ids, strconv.Quote(d.ID))
				}
			}
			stood = strings.Join(ids, ",")
		}
		rec := fmt.Sprintf(`{"id":%q,"slug":%q,"name":"C %d","given_name":"C","family_name":"%d","party_id":%q,"primary_district_id":%q,"district_ids":[%s]}`,
			uuid.NewSHA1(namespace, []byte(slug)).String(), slug, i, i, parties[i%len(parties)].ID, primary, stood)
		if i > 0 {
			rec = "," + rec
		}
		return rec
	})
	return os.WriteFile(filepath.Join(out, dataset.CandidatesFile), []byte(b.String()), 0o644)
}

// longField rewrites one embedded file with one field made long by set.
func longField(name string, size int, out string, set func([]map[string]any)) error {
	var records []map[string]any
	if err := readBase(name, &records); err != nil {
		return err
	}
	set(records)
	return writeJSON(filepath.Join(out, name), records, size)
}

// fill appends the records rec makes, each with its leading comma, until
// the next would take b past size with the array's closing bracket; then
// the bracket.
func fill(b *strings.Builder, size int, rec func(i int) string) {
	for i := 0; ; i++ {
		r := rec(i)
		if b.Len()+len(r)+1 > size {
			break
		}
		b.WriteString(r)
	}
	b.WriteByte(']')
}

// writeJSON writes v compactly, refusing to pass size.
func writeJSON(path string, v any, size int) error {
	b := dataset.EncodeJSON(v)
	if len(b) > size {
		return fmt.Errorf("%s would be %d bytes, over %d", path, len(b), size)
	}
	return os.WriteFile(path, b, 0o644)
}

// The size of the counts shape's sheet.
var sheetRows, sheetCounts int

// countSheet writes a count sheet of district 1 that the rules accept,
// and candidates.json with its candidates alone: candidate i has i+1 first
// preferences, and each count after the first excludes the lowest
// continuing candidate, whose votes all go to non-transferable. No one
// reaches the quota, so the sheet is still counting. With bad, every
// total is -1.
func countSheet(rows, counts int, out string, bad bool) error {
	var districts []dataset.District
	if err := readBase(dataset.DistrictsFile, &districts); err != nil {
		return err
	}
	d := districts[0].ID
	var cands, sheet strings.Builder
	cands.WriteByte('[')
	valid := rows * (rows + 1) / 2
	fmt.Fprintf(&sheet, `[{"district_id":%q,"status":"counting","seats":5,"valid_votes":%d,"quota":%d,"counts":[`, d, valid, valid/6+1)
	nt := 0
	for k := range counts {
		if k > 0 {
			nt += k // candidate k-1, with k votes, excluded
			sheet.WriteByte(',')
		}
		fmt.Fprintf(&sheet, `{"non_transferable":%d}`, nt)
	}
	sheet.WriteString(`],"candidacies":[`)
	for i := range rows {
		slug := "c" + strconv.Itoa(i)
		id := uuid.NewSHA1(namespace, []byte(slug)).String()
		if i > 0 {
			cands.WriteByte(',')
			sheet.WriteByte(',')
		}
		fmt.Fprintf(&cands, `{"id":%q,"slug":%q,"name":"C %d","given_name":"C","family_name":"%d","party_id":null,"primary_district_id":%q,"district_ids":[%q]}`, id, slug, i, i, d, d)
		fmt.Fprintf(&sheet, `{"candidate_id":%q,"name":"C %d","totals":[`, id, i)
		for k := range counts {
			if k > 0 {
				sheet.WriteByte(',')
			}
			switch {
			case bad:
				sheet.WriteString("-1")
			case k > i: // excluded at count i+2
				sheet.WriteByte('0')
			default:
				sheet.WriteString(strconv.Itoa(i + 1))
			}
		}
		sheet.WriteString("]}")
	}
	cands.WriteByte(']')
	sheet.WriteString("]}]")
	if err := os.WriteFile(filepath.Join(out, dataset.CandidatesFile), []byte(cands.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, dataset.CountsFile), []byte(sheet.String()), 0o644)
}

// The number of elections of the archive shape.
var elections int

// archiveOf writes an archive of n elections of the 2022 shape into out:
// archive.toml, and a directory for each election, named by its slug (the
// year, from 2022 back), holding the embedded 2022 election's five files,
// its [election] table given that slug, a name and the poll's date that
// year. The elections share their candidates' ids and persons, as one
// person standing in each.
func archiveOf(n int, out string) error {
	if n < 1 {
		return fmt.Errorf("an archive of %d elections: give -elections 1 or more", n)
	}
	var slugs []string
	for i := range n {
		slug := strconv.Itoa(2022 - i)
		slugs = append(slugs, strconv.Quote(slug))
		dir := filepath.Join(out, slug)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, name := range dataset.FileNames() {
			b, err := fs.ReadFile(dataset.DefaultFS(), name)
			if err != nil {
				return err
			}
			if name == dataset.ManifestFile {
				table := fmt.Sprintf("[election]\nslug = %q\nname = \"General election %s\"\ndate = %s-03-26\n", slug, slug, slug)
				if b, err = replaceElection(b, table); err != nil {
					return err
				}
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	manifest := fmt.Sprintf("elections = [%s]\ncurrent = \"2022\"\n", strings.Join(slugs, ", "))
	return os.WriteFile(filepath.Join(out, "archive.toml"), []byte(manifest), 0o644)
}

// replaceElection returns manifest with its [election] table, up to the
// next table, replaced by table.
func replaceElection(manifest []byte, table string) ([]byte, error) {
	s := string(manifest)
	start := strings.Index(s, "[election]\n")
	if start < 0 {
		return nil, fmt.Errorf("the embedded dataset.toml has no [election]")
	}
	end := strings.Index(s[start+1:], "\n[")
	if end < 0 {
		return []byte(s[:start] + table), nil
	}
	return []byte(s[:start] + table + "\n" + s[start+1+end+1:]), nil
}
