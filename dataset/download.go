package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"strconv"
	"strings"
)

// The CSV downloads: a collection's records as a spreadsheet opens them.
// Every record a query's filters keep is a row (limit and offset do not
// apply: a download is the whole selection). The columns are what people
// read first (names, a party's name, district numbers, yes or no) and the
// ids last, for joining with the API. The file starts with a UTF-8 byte
// order mark, which spreadsheets need to read the Maltese letters as
// UTF-8, ends its lines with CRLF (RFC 4180), and neutralises every cell
// with SafeCSVCell.

// Rows is the answer to a download: the records a query's filters keep.
type Rows struct {
	d   *Dataset
	c   Collection
	pos []int32 // the records' positions in their collection's published order
	tag string  // names the selection inside a dataset version
}

// downloadFormat names the columns of the downloads and is part of their
// ETags with the dataset version: change the columns, change it.
const downloadFormat = "csv1"

// Independent is what a download writes in the party column of a candidate
// of no party.
const Independent = "Independent"

// utf8BOM is the byte order mark a download starts with.
const utf8BOM = "\uFEFF"

// Rows answers a request for a collection's download with the collection's
// parameters, checked as Query checks them: parties take none; districts
// take locality; candidates take district, party, stood_in, elected and q.
// limit and offset are ignored, as every other parameter not listed, so
// that a link made from a listing page's query gives every row of its
// selection. A refused parameter gives a *ParamError.
func (d *Dataset) Rows(c Collection, p Params) (Rows, error) {
	switch c {
	case Parties:
		return Rows{d: d, c: c, pos: d.partiesList.pos, tag: "p"}, nil
	case Districts:
		res, err := d.queryDistricts(p)
		if err != nil {
			return Rows{}, err
		}
		pos := make([]int32, res.n)
		for i := range pos {
			pos[i] = int32(res.Index(i))
		}
		return Rows{d: d, c: c, pos: pos, tag: res.tag()}, nil
	case Candidates:
		var bad []InvalidParam
		f := d.parseCandidateFilters(p, func(name, reason string) { bad = append(bad, InvalidParam{name, reason}) })
		if len(bad) > 0 {
			return Rows{}, &ParamError{Params: bad}
		}
		l := d.candidateList(f.district, f.party)
		r := Rows{d: d, c: c, pos: l.pos, tag: "c" + strconv.Itoa(d.candidateKey(f.district, f.party))}
		if f.readers.any() {
			r.pos = d.match(l, f.readers)
			// The rows depend on the folded text alone.
			h := sha256.Sum256([]byte(Fold(f.readers.q)))
			r.tag += "-s" + strconv.Itoa(f.readers.stoodIn) + "-e" + strconv.Itoa(int(f.readers.elected)) + "-q" + hex.EncodeToString(h[:8])
		}
		return r, nil
	}
	return Rows{}, &CollectionError{Name: string(c)}
}

// Count is the number of rows, the header not counted.
func (r Rows) Count() int { return len(r.pos) }

// Index returns the position of the i-th row's record in its collection's
// published order, as Result.Index does.
func (r Rows) Index(i int) int { return int(r.pos[i]) }

// ETag identifies the download's bytes: the dataset version, the columns
// and the selection. It is strong: the same request to the same dataset
// gives the same bytes.
func (r Rows) ETag() string {
	return `"` + r.d.Version[:16] + "-" + downloadFormat + r.tag + "-" + strconv.Itoa(len(r.pos)) + `"`
}

// AppendCSV appends the download's bytes to dst: the byte order mark, the
// header and a row per record.
func (r Rows) AppendCSV(dst []byte) []byte {
	b := bytes.NewBuffer(append(dst, utf8BOM...))
	w := csv.NewWriter(b)
	w.UseCRLF = true
	write := func(row []string) {
		for i := range row {
			row[i] = SafeCSVCell(row[i])
		}
		_ = w.Write(row) // a bytes.Buffer does not fail
	}
	switch r.c {
	case Parties:
		write([]string{"Name", "Short name", "Name in English", "Leader", "Website", "Wikipedia", "Logo", "Colour", "Slug", "ID"})
		for _, i := range r.pos {
			p := r.d.parties[i]
			write([]string{p.Name, p.ShortName, text(p.NameEN), text(p.LeaderName), text(p.Website), text(p.WikipediaURL), text(p.LogoURL), text(p.Color), p.Slug, p.ID})
		}
	case Districts:
		write([]string{"Number", "Name", "Localities", "Source", "ID"})
		for _, i := range r.pos {
			dist := r.d.districts[i]
			names := make([]string, len(dist.Localities))
			for j, l := range dist.Localities {
				names[j] = l.Name
			}
			write([]string{strconv.Itoa(dist.Number), dist.Name, strings.Join(names, "; "), text(dist.SourceURL), dist.ID})
		}
	case Candidates:
		write([]string{"Name", "Given name", "Family name", "Party", "Primary district", "Districts stood in", "Elected", "Incumbent", "Website", "Photo", "Slug", "ID", "Party ID", "Primary district ID", "District IDs"})
		for _, i := range r.pos {
			c := r.d.candidates[i]
			party, partyID := Independent, ""
			if c.PartyID != nil {
				pi, _ := r.d.partyByID.find(*c.PartyID, r.d.partyID)
				party, partyID = r.d.parties[pi].Name, *c.PartyID
			}
			stood := make([]string, len(c.DistrictIDs))
			for j, id := range c.DistrictIDs {
				stood[j] = strconv.Itoa(r.d.districtByID[id])
			}
			write([]string{c.Name, c.GivenName, c.FamilyName, party, strconv.Itoa(r.d.districtByID[c.PrimaryDistrictID]),
				strings.Join(stood, "; "), yesNo(c.Elected), yesNo(c.IsIncumbent), text(c.Website), text(c.PhotoURL),
				c.Slug, c.ID, partyID, c.PrimaryDistrictID, strings.Join(c.DistrictIDs, "; ")})
		}
	}
	w.Flush()
	return b.Bytes()
}

// text is an optional field's cell: empty for null.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// yesNo is an optional boolean's cell: yes, no, or empty for null (not
// known).
func yesNo(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "yes"
	}
	return "no"
}
