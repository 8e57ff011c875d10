package answers

import (
	"bytes"
	"encoding/csv"
	"io"
	"iter"
	"strconv"
	"strings"
	"unsafe"

	"ballot/dataset"
)

// A record's CSV encoding is written once per record type (partyCSV,
// districtCSV, candidateCSV, resultCSV), in two column sets, which Columns chooses:
// the downloads' and query's. They differ because their readers do: a
// download is opened in a spreadsheet by people, query's CSV is read by
// programs that know the API's field names, and both are published as
// they are.

// Columns chooses which of a record's two CSV column sets a row holds.
type Columns int

const (
	// DownloadColumns are the downloads' (/parties.csv and the others):
	// what people read first, headed for people ("Name", "Short name"),
	// with names and district numbers, yes or no, lists joined with "; ",
	// and the ids last, for joining with the API.
	DownloadColumns Columns = iota
	// FieldColumns are query's (--format csv, and the table made from
	// them): one column per JSON field, headed by its name, in the
	// record's order, with the party's short name and the district
	// numbers beside the ids (party_short_name, primary_district_number,
	// district_numbers), true or false, lists joined with ";".
	FieldColumns
)

// Independent is what a download writes in the party column of a candidate
// of no party.
const Independent = "Independent"

// csvRecords is what a CSV reads of a selection: how many records, and the
// position of each in its collection's published order. dataset.Rows and
// dataset.Result are both.
type csvRecords interface {
	Count() int
	Index(i int) int
}

// CSVRows returns the records of c that recs selects as rows of cells in
// the column set cols, the header first, the cells as the records hold
// them (SafeCSVCell is the writer's, see WriteCSV).
func CSVRows(ds *dataset.Dataset, c dataset.Collection, recs csvRecords, cols Columns) [][]string {
	rows := make([][]string, 0, recs.Count()+1)
	for row := range csvRows(ds, c, recs, cols) {
		rows = append(rows, row)
	}
	return rows
}

// csvRows yields CSVRows' rows one by one, each made as it is asked for.
func csvRows(ds *dataset.Dataset, c dataset.Collection, recs csvRecords, cols Columns) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		rows := func(header []string, row func(i int) []string) {
			if !yield(header) {
				return
			}
			for i := range recs.Count() {
				if !yield(row(recs.Index(i))) {
					return
				}
			}
		}
		switch c {
		case dataset.Parties:
			rows(partyCSV(nil, cols), func(i int) []string { return partyCSV(&ds.Parties()[i], cols) })
		case dataset.Districts:
			rows(districtCSV(nil, cols), func(i int) []string { return districtCSV(&ds.Districts()[i], cols) })
		case dataset.Candidates:
			rows(candidateCSV(ds, nil, cols), func(i int) []string { return candidateCSV(ds, &ds.Candidates()[i], cols) })
		case dataset.Results:
			rows(resultCSV(nil, cols), func(i int) []string { return resultCSV(&ds.Sheets()[i], cols) })
		}
	}
}

// WriteCSV writes rows to w as query's CSV: every cell through
// SafeCSVCell, lines ended by LF, no byte order mark.
func WriteCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	for _, row := range rows {
		safeRow(row)
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// safeRow passes every cell of row through SafeCSVCell.
func safeRow(row []string) {
	for i := range row {
		row[i] = SafeCSVCell(row[i])
	}
}

// partyCSV is a party's row in cols, or the header for a nil party.
func partyCSV(p *dataset.Party, cols Columns) []string {
	if cols == DownloadColumns {
		if p == nil {
			return []string{"Name", "Short name", "Name in English", "Leader", "Website", "Wikipedia", "Logo", "Colour", "Slug", "ID"}
		}
		return []string{p.Name, p.ShortName, dataset.Text(p.NameEN), dataset.Text(p.LeaderName), dataset.Text(p.Website), dataset.Text(p.WikipediaURL), dataset.Text(p.LogoURL), dataset.Text(p.Color), p.Slug, p.ID}
	}
	if p == nil {
		return []string{"id", "slug", "name", "short_name", "name_en", "color", "website", "leader_name", "logo_url", "wikipedia_url"}
	}
	return []string{p.ID, p.Slug, p.Name, p.ShortName, dataset.Text(p.NameEN), dataset.Text(p.Color), dataset.Text(p.Website), dataset.Text(p.LeaderName), dataset.Text(p.LogoURL), dataset.Text(p.WikipediaURL)}
}

// districtCSV is a district's row in cols, or the header for a nil
// district. Its localities are written by name. Seats and note come last,
// added after the columns before them.
func districtCSV(d *dataset.District, cols Columns) []string {
	if d == nil {
		if cols == DownloadColumns {
			return []string{"Number", "Name", "Localities", "Source", "ID", "Seats", "Note"}
		}
		return []string{"id", "number", "name", "localities", "source_url", "seats", "note"}
	}
	names := make([]string, len(d.Localities))
	for j, l := range d.Localities {
		names[j] = l.Name
	}
	seats := ""
	if d.Seats != nil {
		seats = strconv.Itoa(*d.Seats)
	}
	if cols == DownloadColumns {
		return []string{strconv.Itoa(d.Number), d.Name, strings.Join(names, "; "), dataset.Text(d.SourceURL), d.ID, seats, dataset.Text(d.Note)}
	}
	return []string{d.ID, strconv.Itoa(d.Number), d.Name, strings.Join(names, ";"), dataset.Text(d.SourceURL), seats, dataset.Text(d.Note)}
}

// candidateCSV is a candidate's row in cols, or the header for a nil
// candidate: its party and districts by name and number beside their ids.
func candidateCSV(ds *dataset.Dataset, c *dataset.Candidate, cols Columns) []string {
	if c == nil {
		if cols == DownloadColumns {
			return []string{"Name", "Given name", "Family name", "Party", "Primary district", "Districts stood in", "Elected", "Incumbent", "Website", "Photo", "Slug", "ID", "Party ID", "Primary district ID", "District IDs", "Person ID"}
		}
		return []string{"id", "slug", "name", "given_name", "family_name", "party_id", "party_short_name", "primary_district_id", "primary_district_number",
			"district_ids", "district_numbers", "elected", "is_incumbent", "website", "photo_url", "person_id"}
	}
	var party *dataset.Party
	if c.PartyID != nil {
		pi, _ := ds.PartyByID(*c.PartyID) // every party_id names a party, as the load checks
		party = &ds.Parties()[pi]
	}
	primary, _ := ds.DistrictByID(c.PrimaryDistrictID)
	stood := make([]string, len(c.DistrictIDs))
	for j, id := range c.DistrictIDs {
		n, _ := ds.DistrictByID(id)
		stood[j] = strconv.Itoa(n)
	}
	if cols == DownloadColumns {
		name, partyID := Independent, ""
		if party != nil {
			name, partyID = party.Name, party.ID
		}
		return []string{c.Name, c.GivenName, c.FamilyName, name, strconv.Itoa(primary),
			strings.Join(stood, "; "), yesNo(c.Elected), yesNo(c.IsIncumbent), dataset.Text(c.Website), dataset.Text(c.PhotoURL),
			c.Slug, c.ID, partyID, c.PrimaryDistrictID, strings.Join(c.DistrictIDs, "; "), dataset.Text(c.PersonID)}
	}
	shortName := ""
	if party != nil {
		shortName = party.ShortName
	}
	return []string{c.ID, c.Slug, c.Name, c.GivenName, c.FamilyName, dataset.Text(c.PartyID), shortName, c.PrimaryDistrictID, strconv.Itoa(primary),
		strings.Join(c.DistrictIDs, ";"), strings.Join(stood, ";"), trueFalse(c.Elected), trueFalse(c.IsIncumbent), dataset.Text(c.Website), dataset.Text(c.PhotoURL), dataset.Text(c.PersonID)}
}

// resultCSV is a count sheet's row in cols, or the header for a nil sheet:
// its figures, its number of counts and the elected in order, by id. The
// counts themselves are the sheet's own CSV (SheetDownload).
func resultCSV(s *dataset.CountSheet, cols Columns) []string {
	if s == nil {
		if cols == DownloadColumns {
			return []string{"District", "Status", "Seats", "Registered", "Valid votes", "Quota", "Counts", "Elected", "District ID"}
		}
		return []string{"district_id", "district_number", "status", "seats", "registered", "valid_votes", "quota", "counts", "elected"}
	}
	registered := atCount(s.Registered) // empty when not known
	if cols == DownloadColumns {
		return []string{strconv.Itoa(s.DistrictNumber), s.Status, strconv.Itoa(s.Seats), registered, strconv.Itoa(s.ValidVotes),
			strconv.Itoa(s.Quota), strconv.Itoa(len(s.Counts)), strings.Join(s.Elected, "; "), s.DistrictID}
	}
	return []string{s.DistrictID, strconv.Itoa(s.DistrictNumber), s.Status, strconv.Itoa(s.Seats), registered, strconv.Itoa(s.ValidVotes),
		strconv.Itoa(s.Quota), strconv.Itoa(len(s.Counts)), strings.Join(s.Elected, ";")}
}

// yesNo is an optional boolean's cell in a download: yes, no, or empty for
// null (not known).
func yesNo(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "yes"
	}
	return "no"
}

// trueFalse is an optional boolean's cell in query's columns: true, false,
// or empty for null.
func trueFalse(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

// Download is a collection's CSV download, as a spreadsheet opens it: the
// file starts with a UTF-8 byte order mark, which spreadsheets need to read
// the Maltese letters as UTF-8, ends its lines with CRLF (RFC 4180), and
// neutralises every cell with SafeCSVCell.
type Download struct {
	ds   *dataset.Dataset
	rows dataset.Rows
}

// NewDownload is the download of rows, a selection of ds.
func NewDownload(ds *dataset.Dataset, rows dataset.Rows) Download {
	return Download{ds: ds, rows: rows}
}

// downloadFormat names the columns of the downloads and is part of their
// ETags with the dataset version: change the columns, change it.
const downloadFormat = "csv2"

// utf8BOM is the byte order mark a download starts with.
const utf8BOM = "\uFEFF"

// ETag identifies the download's bytes: the dataset version, the columns
// and the selection. It is strong: the same request to the same dataset
// gives the same bytes.
func (d Download) ETag() string {
	return `"` + d.ds.Version[:16] + "-" + downloadFormat + d.rows.Tag() + "-" + strconv.Itoa(d.rows.Count()) + `"`
}

// AppendCSV appends the download's bytes to dst: the byte order mark, the
// header and a row per record.
func (d Download) AppendCSV(dst []byte) []byte { return appendCSV(dst, d.WriteCSV) }

// WriteCSV writes the download's bytes to w as AppendCSV appends them,
// each row made as it is written: a download of any size holds a row.
func (d Download) WriteCSV(w io.Writer) error {
	return writeDownload(w, csvRows(d.ds, d.rows.Collection(), d.rows, DownloadColumns))
}

// appendCSV appends to dst what write writes.
func appendCSV(dst []byte, write func(io.Writer) error) []byte {
	b := bytes.NewBuffer(dst)
	_ = write(b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// writeDownload writes to w a download's bytes, every download's way: a
// byte order mark, then rows, CRLF-ended, each cell through SafeCSVCell.
// A row may be the same slice again. It stops at the first write that
// fails.
func writeDownload(w io.Writer, rows iter.Seq[[]string]) error {
	if _, err := io.WriteString(w, utf8BOM); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	for row := range rows {
		safeRow(row)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SheetDownload is one district's count sheet as a download, written as
// Download writes a collection's (byte order mark, CRLF, SafeCSVCell): a
// row per candidacy in the sheet's order, with its party's short name,
// its first preferences, the counts at which it was elected or excluded
// (empty for none) and its running total after each count, then the
// non-transferable row.
type SheetDownload struct {
	ds    *dataset.Dataset
	sheet *dataset.CountSheet
}

// NewSheetDownload is the download of sheet, a count sheet of ds.
func NewSheetDownload(ds *dataset.Dataset, sheet *dataset.CountSheet) SheetDownload {
	return SheetDownload{ds: ds, sheet: sheet}
}

// ETag identifies the download's bytes, strong as Download's: the dataset
// version, the columns and the district.
func (d SheetDownload) ETag() string {
	return `"` + d.ds.Version[:16] + "-" + downloadFormat + "s" + strconv.Itoa(d.sheet.DistrictNumber) + "-" + strconv.Itoa(len(d.sheet.Candidacies)) + `"`
}

// Filename is the name a browser saves the download as:
// district-5-count.csv.
func (d SheetDownload) Filename() string {
	return "district-" + strconv.Itoa(d.sheet.DistrictNumber) + "-count.csv"
}

// AppendCSV appends the download's bytes to dst.
func (d SheetDownload) AppendCSV(dst []byte) []byte { return appendCSV(dst, d.WriteCSV) }

// WriteCSV writes the download's bytes to w as AppendCSV appends them, a
// row at a time.
func (d SheetDownload) WriteCSV(w io.Writer) error {
	s := d.sheet
	return writeDownload(w, func(yield func([]string) bool) {
		row := make([]string, 6+len(s.Counts))
		copy(row, []string{"candidate_id", "name", "party", "first_preferences", "elected_at_count", "excluded_at_count"})
		for k := range s.Counts {
			row[6+k] = "count_" + strconv.Itoa(k+1)
		}
		if !yield(row) {
			return
		}
		// A row's totals are written into one buffer, made again for
		// each row, and each cell is a part of it, read only while the
		// row is written: a string for each total was most of what a
		// download of a sheet of 10,000 rows over 500 counts made, 25 MB
		// of garbage for each reader.
		var digits []byte
		ends := make([]int, len(s.Counts))
		totals := func(n int, total func(k int) int) {
			digits = digits[:0]
			for k := range n {
				digits = strconv.AppendInt(digits, int64(total(k)), 10)
				ends[k] = len(digits)
			}
			start := 0
			for k := range n {
				row[6+k], start = unsafe.String(unsafe.SliceData(digits[start:]), ends[k]-start), ends[k]
			}
		}
		for i := range s.Candidacies {
			c := &s.Candidacies[i]
			party := Independent
			if c.PartyID != nil {
				pi, _ := d.ds.PartyByID(*c.PartyID) // every party_id names a party, as the load checks
				party = d.ds.Parties()[pi].ShortName
			}
			copy(row, []string{c.CandidateID, c.Name, party, strconv.Itoa(c.FirstPreferences), atCount(c.ElectedAtCount), atCount(c.ExcludedAtCount)})
			totals(len(c.Totals), func(k int) int { return c.Totals[k] })
			if !yield(row) {
				return
			}
		}
		copy(row, []string{"", dataset.NonTransferableRow, "", strconv.Itoa(s.Counts[0].NonTransferable), "", ""})
		totals(len(s.Counts), func(k int) int { return s.Counts[k].NonTransferable })
		yield(row)
	})
}

// atCount is a count number's cell, or another whole number's: empty for
// none.
func atCount(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// formulaPrefixed is dataset.FormulaPrefixed: the rule is the data's, as
// validate warns of it.
var formulaPrefixed = dataset.FormulaPrefixed

// SafeCSVCell returns s as a CSV cell that a spreadsheet shows as text: a
// value beginning with "=", "+", "-", "@", a tab or a carriage return gets
// a leading "'", the rest kept as it was; any other value is returned
// unchanged. Every CSV the project writes passes its cells through it, so
// a dataset cannot plant a live formula (=HYPERLINK(...)) in a reader's
// spreadsheet.
//
// A negative number is prefixed too ("-3" becomes "'-3"). No column ballot
// writes holds one, and a number that must stay a number would need its own
// check, so the rule is kept as OWASP states it, with no exception.
func SafeCSVCell(s string) string {
	if formulaPrefixed(s) {
		return "'" + s
	}
	return s
}
