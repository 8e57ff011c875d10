package dataset

import (
	"strconv"
)

// Rows is the answer to a download: the records a query's filters keep.
// Every record they keep is a row (limit and offset do not apply: a
// download is the whole selection). How the rows are written, the columns
// and the bytes, is package answer's.
type Rows struct {
	c   Collection
	pos []int32 // the records' positions in their collection's published order
	tag string  // names the selection inside a dataset version
}

// Rows answers a request for a collection's download with the collection's
// parameters, checked as Query checks them: parties take none; districts
// take locality; candidates take district, party, stood_in, elected and q.
// limit and offset are ignored, as every other parameter not listed, so
// that a link made from a listing page's query gives every row of its
// selection. A refused parameter gives a *ParamError.
func (d *Dataset) Rows(c Collection, p Params) (Rows, error) {
	switch c {
	case Parties:
		return Rows{c: c, pos: d.partiesList.Pos, tag: "p"}, nil
	case Districts:
		res, err := d.queryDistricts(p)
		if err != nil {
			return Rows{}, err
		}
		pos := make([]int32, res.n)
		for i := range pos {
			pos[i] = int32(res.Index(i))
		}
		return Rows{c: c, pos: pos, tag: res.tag()}, nil
	case Candidates:
		var bad []InvalidParam
		f := d.parseCandidateFilters(p, func(name, reason string) { bad = append(bad, InvalidParam{Name: name, Reason: reason}) })
		if len(bad) > 0 {
			return Rows{}, &ParamError{Params: bad}
		}
		l := d.candidateList(f.district, f.party)
		r := Rows{c: c, pos: l.Pos, tag: "c" + strconv.Itoa(d.candidateKey(f.district, f.party))}
		if f.readers.any() {
			r.pos = d.match(l, f.readers)
			// The rows depend on the folded text alone.
			r.tag += ReadersTag(f.readers.stoodIn, f.readers.elected, Fold(f.readers.q))
		}
		return r, nil
	}
	return Rows{}, &CollectionError{Name: string(c)}
}

// Collection is the collection the rows are records of.
func (r Rows) Collection() Collection { return r.c }

// Count is the number of rows, the header not counted.
func (r Rows) Count() int { return len(r.pos) }

// Index returns the position of the i-th row's record in its collection's
// published order, as Result.Index does.
func (r Rows) Index(i int) int { return int(r.pos[i]) }

// Tag names the selection inside a dataset version: the same filters in
// any form give the same tag, and two selections of the same version with
// the same tag hold the same rows. A download's ETag is made of it.
func (r Rows) Tag() string { return r.tag }

// PartyByID returns the index in Parties of the party with the id, as a
// dataset writes it (lower case).
func (d *Dataset) PartyByID(id string) (int, bool) { return d.partyByID.find(id, d.partyID) }

// DistrictByID returns the number of the district with the id, as a
// dataset writes it (lower case).
func (d *Dataset) DistrictByID(id string) (int, bool) {
	n, ok := d.districtByID[id]
	return n, ok
}
