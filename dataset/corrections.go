package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The corrections of a count sheet: each a change the publisher made to a
// figure of the source the sheet was made from (a transcription, say),
// with the evidence that the source's figure is wrong. The sheet holds
// the corrected figure; the correction says what the source gave, so a
// reader always sees what was changed and why.

// Correction is one change to a figure of the source: of a candidacy's
// total at a count, of a count's non-transferable, of the party a row is
// of, or of the district the source filed a row under.
type Correction struct {
	// CandidateID names the row corrected: every field but
	// non_transferable has one, and it is null for non_transferable.
	CandidateID *string `json:"candidate_id" dataset:"optional"`
	// Count is the count corrected, for a total or non_transferable;
	// null for a party or a district.
	Count *int   `json:"count" dataset:"optional"`
	Field string `json:"field"`
	// From is what the source gives: a whole number (null for an empty
	// cell) for a total or non_transferable, a party's id (null for an
	// independent) for a party, the district's number or where the
	// source filed the row, in words, for a district.
	From Cell `json:"from"`
	// To is what the sheet holds.
	To       Cell   `json:"to"`
	Evidence string `json:"evidence"`
}

// The fields a correction changes.
const (
	// CorrectedTotal is a candidacy's total at a count.
	CorrectedTotal = "total"
	// CorrectedNonTransferable is a count's non-transferable.
	CorrectedNonTransferable = "non_transferable"
	// CorrectedParty is the party a row is of.
	CorrectedParty = "party"
	// CorrectedDistrict is the district a row was filed under.
	CorrectedDistrict = "district"
)

// correctedFields are the fields a correction may change, in the order
// messages list them, with whether each names a row and a count.
var correctedFields = []correctedField{{CorrectedTotal, true, true}, {CorrectedNonTransferable, false, true}, {CorrectedParty, true, false}, {CorrectedDistrict, true, false}}

// correctedField is a field a correction may change, and whether a
// correction of it names a row and a count.
type correctedField struct {
	name       string
	row, count bool
}

// Cell is what a cell of a count sheet, or of the source it was made
// from, holds, as a correction gives it: a whole number, a string, or
// null (an empty cell).
type Cell struct {
	Number *int
	Text   *string
}

// Number is a Cell holding n.
func Number(n int) Cell { return Cell{Number: &n} }

// TextCell is a Cell holding s.
func TextCell(s string) Cell { return Cell{Text: &s} }

// IsNull reports whether the cell holds nothing.
func (c Cell) IsNull() bool { return c.Number == nil && c.Text == nil }

// Equal reports whether two cells hold the same.
func (c Cell) Equal(o Cell) bool {
	switch {
	case c.Number != nil:
		return o.Number != nil && *c.Number == *o.Number
	case c.Text != nil:
		return o.Text != nil && *c.Text == *o.Text
	}
	return o.IsNull()
}

// String writes the cell for a message: a number grouped by thousands, a
// string quoted, or null.
func (c Cell) String() string {
	switch {
	case c.Number != nil:
		return Thousands(*c.Number)
	case c.Text != nil:
		return strconv.Quote(*c.Text)
	}
	return "null"
}

// MarshalJSON writes the number, the string (without escaping HTML, as
// EncodeJSON writes every string) or null.
func (c Cell) MarshalJSON() ([]byte, error) {
	switch {
	case c.Number != nil:
		return strconv.AppendInt(nil, int64(*c.Number), 10), nil
	case c.Text != nil:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(*c.Text); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a whole number, a string or null; fieldCheck has
// reported a value of another kind, which decodes as null.
func (c *Cell) UnmarshalJSON(b []byte) error {
	*c = Cell{}
	switch jsonKind(b) {
	case "number":
		if n, ok := wholeNumber(bytes.TrimSpace(b)); ok {
			c.Number = &n
		}
	case "string":
		var s string
		if json.Unmarshal(b, &s) == nil {
			c.Text = &s
		}
	}
	return nil
}

// checkCorrectionFields applies the rules of one field to the corrections
// sheet i states: a field of those there are, a row and a count where the
// field has them and not where it has none, a count of the sheet, values
// of the field's kind, a from that differs from to, and evidence.
func (d *records) checkCorrectionFields(r *Report, i int, s *sheetFile) {
	f := &d.counts
	for n, c := range s.Corrections {
		has := func(field string) bool { return f.hasIn(i, "corrections", n, field) }
		at := func(field string) string { return pointer(i, "corrections", n, field) }
		if has("evidence") && strings.TrimSpace(c.Evidence) == "" {
			r.errorf(CountsFile, at("evidence"), "required", "must not be empty: say how the source's figure is known to be wrong")
		}
		if has("count") && c.Count != nil && len(s.Counts) > 0 && (*c.Count < 1 || *c.Count > len(s.Counts)) {
			r.errorf(CountsFile, at("count"), "range", "is %d; must be a count of the sheet, 1 to %d", *c.Count, len(s.Counts))
		}
		if !has("field") {
			continue
		}
		k := slices.IndexFunc(correctedFields, func(f correctedField) bool { return f.name == c.Field })
		if k < 0 {
			names := make([]string, len(correctedFields))
			for m, cf := range correctedFields {
				names[m] = strconv.Quote(cf.name)
			}
			r.errorf(CountsFile, at("field"), "correction", "is %q; must be %s", c.Field, strings.Join(names[:len(names)-1], ", ")+" or "+names[len(names)-1])
			continue
		}
		cf := correctedFields[k]
		switch {
		case !has("candidate_id"):
		case cf.row && c.CandidateID == nil:
			r.errorf(CountsFile, at("candidate_id"), "correction", "is null; a correction of %s names its row", c.Field)
		case !cf.row && c.CandidateID != nil:
			r.errorf(CountsFile, at("candidate_id"), "correction", "is given; a correction of %s names no row: give null", c.Field)
		}
		switch {
		case !has("count"):
		case cf.count && c.Count == nil:
			r.errorf(CountsFile, at("count"), "correction", "is null; a correction of %s names its count", c.Field)
		case !cf.count && c.Count != nil:
			r.errorf(CountsFile, at("count"), "correction", "is %d; a correction of %s names no count: give null", *c.Count, c.Field)
		}
		fromOK, toOK := has("from") && c.fromFits(), has("to") && c.toFits()
		if has("from") && !fromOK {
			r.errorf(CountsFile, at("from"), "correction", "is %s; %s", c.From, c.kinds(true))
		}
		if has("to") && !toOK {
			r.errorf(CountsFile, at("to"), "correction", "is %s; %s", c.To, c.kinds(false))
		}
		if fromOK && toOK && c.From.Equal(c.To) {
			r.errorf(CountsFile, at("from"), "correction", "is %s, as to is; a correction changes the source's figure", c.From)
		}
	}
}

// fromFits reports whether c's from is of the kind its field takes: a
// whole number of votes or null (an empty cell) for a total or
// non_transferable, a party's id or null for a party, a district's
// number or words for a district.
func (c *Correction) fromFits() bool {
	switch c.Field {
	case CorrectedTotal, CorrectedNonTransferable:
		return c.From.Text == nil && (c.From.Number == nil || *c.From.Number >= 0)
	case CorrectedParty:
		return c.From.Number == nil
	}
	return !c.From.IsNull()
}

// toFits reports whether c's to is of the kind its field takes: a whole
// number of votes for a total or non_transferable, a party's id or null
// for a party, a district's number for a district.
func (c *Correction) toFits() bool {
	switch c.Field {
	case CorrectedTotal, CorrectedNonTransferable, CorrectedDistrict:
		return c.To.Number != nil && *c.To.Number >= 0
	}
	return c.To.Number == nil
}

// kinds says what c's from (or to) holds for its field.
func (c *Correction) kinds(from bool) string {
	switch {
	case c.Field == CorrectedParty:
		return "a correction of party holds a party's id, or null for an independent"
	case c.Field == CorrectedDistrict && from:
		return "a correction of district holds the district's number, or where the source filed the row, in words"
	case c.Field == CorrectedDistrict:
		return "a correction of district holds the number of the sheet's district"
	case from:
		return fmt.Sprintf("a correction of %s holds a whole number of votes, or null for an empty cell", c.Field)
	}
	return fmt.Sprintf("a correction of %s holds a whole number of votes, the sheet's", c.Field)
}

// checkCorrections checks the corrections of sheet i, of district number,
// against the sheet and the other files: each names a row of the sheet,
// the sheet holds its to, a party's from is a party of parties.json, and
// no figure is corrected twice. Its fields passed checkCorrectionFields
// and the sheet checkSheetFields.
func (d *records) checkCorrections(r *Report, i int, s *sheetFile, number int, candidates map[string]candidateAt) {
	rows := make(map[string]int, len(s.Candidacies))
	for j, row := range s.Candidacies {
		rows[row.CandidateID] = j
	}
	parties := make(map[string]bool, len(d.parties.recs))
	for _, p := range d.parties.recs {
		parties[p.ID] = true
	}
	seen := map[string]int{}
	for n, c := range s.Corrections {
		at := func(field string) string { return pointer(i, "corrections", n, field) }
		cf := slices.IndexFunc(correctedFields, func(f correctedField) bool { return f.name == c.Field })
		count := derefCount(c.Count)
		if cf < 0 || !c.fromFits() || !c.toFits() || correctedFields[cf].row != (c.CandidateID != nil) ||
			correctedFields[cf].count != (c.Count != nil) || count > len(s.Counts) || c.Count != nil && count < 1 {
			continue // reported
		}
		j, found := -1, false
		if c.CandidateID != nil {
			if j, found = rows[*c.CandidateID]; !found {
				r.errorf(CountsFile, at("candidate_id"), "reference", "district %d: no row of the sheet is candidate %s", number, *c.CandidateID)
				continue
			}
		}
		whose := "non-transferable"
		if found {
			whose = s.Candidacies[j].Name + "'s " + c.Field
		}
		key := fmt.Sprintf("%s/%s/%d", c.Field, Text(c.CandidateID), count)
		if first, dup := seen[key]; dup {
			r.errorf(CountsFile, pointer(i, "corrections", n), "duplicate-key", "district %d%s: %s is corrected already, at %s", number, atCountOf(count), whose, pointer(i, "corrections", first))
			continue
		}
		seen[key] = n
		switch c.Field {
		case CorrectedTotal:
			if held := s.Candidacies[j].Totals[count-1]; held != *c.To.Number {
				r.errorf(CountsFile, at("to"), "correction", "district %d, count %d: is %s, and %s's total there is %s", number, count, c.To, s.Candidacies[j].Name, Thousands(held))
			}
		case CorrectedNonTransferable:
			if held := s.Counts[count-1].NonTransferable; held != *c.To.Number {
				r.errorf(CountsFile, at("to"), "correction", "district %d, count %d: is %s, and the count's non-transferable is %s", number, count, c.To, Thousands(held))
			}
		case CorrectedParty:
			cand := candidates[*c.CandidateID]
			if !c.To.Equal(Cell{Text: cand.c.PartyID}) {
				r.errorf(CountsFile, at("to"), "correction", "district %d: is %s, and %s's party_id is %s", number, c.To, cand.c.Name, orNull(cand.c.PartyID))
			}
			if c.From.Text != nil && !parties[*c.From.Text] {
				r.errorf(CountsFile, at("from"), "reference", "district %d: no party has id %s", number, *c.From.Text)
			}
		case CorrectedDistrict:
			if *c.To.Number != number {
				r.errorf(CountsFile, at("to"), "correction", "is %s, and the sheet is district %d's", c.To, number)
			}
		}
	}
}

// atCountOf is ", count N" for a message, or "" for count 0.
func atCountOf(count int) string {
	if count == 0 {
		return ""
	}
	return fmt.Sprintf(", count %d", count)
}
