package dataset

import (
	"strings"

	"ballot/suggest"
)

// Collection names one of the published collections.
type Collection string

// The published collections, named as in the API's paths.
const (
	Parties    Collection = "parties"
	Districts  Collection = "districts"
	Candidates Collection = "candidates"
	Results    Collection = "results"
)

// CollectionInfo is what ballot says of one published collection beside its
// record type. The API's routes, their rate-limit counters and route names
// in metrics and logs, the API's index, the catalogue and the command line
// are all made from Table, so that each collection is named in one row.
type CollectionInfo struct {
	// Name is the collection's path segment in the API, its file's stem
	// and query's argument.
	Name Collection
	// Record names one record, as the route of a record's path.
	Record string
	// File is the dataset file that holds the records.
	File string
	// Key names the last segment of a record's path, and KeyDoc says
	// what it accepts.
	Key, KeyDoc string
	// Doc describes the collection's answer, and RecordDoc a record's.
	Doc, RecordDoc string
	// Params are the query parameters the collection takes, in the order
	// the API's index lists them.
	Params []ParamInfo
	// Title, Description and Keywords are what the DCAT-AP catalogue says
	// of the collection.
	Title, Description string
	Keywords           []string
}

// ParamInfo describes one query parameter of a collection.
type ParamInfo struct {
	Name, Doc string
	// Default is the value an absent parameter stands for, or nil.
	Default *int
}

var defaultLimit, defaultOffset = DefaultLimit, 0

// Table is every published collection, in a stable order: the order of the
// API's index, the catalogue and the command line's help.
var Table = [...]CollectionInfo{
	{
		Name: Parties, Record: "party", File: PartiesFile,
		Key: "slug_or_id", KeyDoc: "A party slug or a party UUID, in any letter case.",
		Doc:       "Every party, ordered by name, then id.",
		RecordDoc: "One party by its slug or id, in any letter case; 404 when none has it.",
		Title:     "parties", Description: "The parties that stood in the election: id, slug, name, short name, English name, colour and website.",
		Keywords: []string{"elections", "political parties"},
	},
	{
		Name: Districts, Record: "district", File: DistrictsFile,
		Key: "number_or_id", KeyDoc: "A district number from 1 to 13 in decimal digits (05 is 5), or a district UUID in any letter case.",
		Doc:       "The 13 electoral districts with their localities, ordered by number; with locality, only the districts holding it.",
		RecordDoc: "One district by its number or id; 404 when none has it.",
		Params: []ParamInfo{
			{"locality", "A locality's name, English name or slug, compared with letter case, accents, spaces and punctuation ignored: keeps the districts holding it (two for a council split between districts).", nil},
		},
		Title: "electoral districts", Description: "The 13 electoral districts, each with its localities (local councils, some split between two districts).",
		Keywords: []string{"elections", "electoral districts", "localities"},
	},
	{
		Name: Candidates, Record: "candidate", File: CandidatesFile,
		Key: "slug_or_id", KeyDoc: "A candidate slug or a candidate UUID, in any letter case.",
		Doc:       "Candidates, ordered by their primary district's number, family name, given name, then id; the filters combine with AND.",
		RecordDoc: "One candidate by slug or id, in any letter case; 404 when none has it.",
		Params: []ParamInfo{
			{"district", "A district number from 1 to 13, or a district UUID: keeps the candidates whose primary_district_id is that district.", nil},
			{"party", "A party slug or a party UUID, in any letter case: keeps the candidates of that party.", nil},
			{"stood_in", "A district number from 1 to 13, or a district UUID: keeps the candidates whose district_ids hold that district (every district they stood in).", nil},
			{"elected", "true or false, exactly: keeps the candidates whose elected is that value (a candidate whose elected is null matches neither).", nil},
			{"q", "Text of 2 to 100 characters, spaces at either end not counted: keeps the candidates whose name, given_name or family_name contains it, with letter case, accents and the Maltese letters folded (zammit finds Żammit, gh finds għ).", nil},
			{"limit", "An integer from 1 to 500: returns at most that many candidates, the first of the order from offset on.", &defaultLimit},
			{"offset", "An integer from 0 to meta.total: skips that many of the matching candidates; the Link header names the next page.", &defaultOffset},
		},
		Title: "candidates", Description: "The candidates: names, party (null for an independent), primary district and every district contested, and whether they were elected.",
		Keywords: []string{"elections", "candidates"},
	},
	{
		Name: Results, Record: "result", File: CountsFile,
		Key: "number_or_id", KeyDoc: "A district number from 1 to 13 in decimal digits (05 is 5), or a district UUID in any letter case.",
		Doc:       "The count sheets: one record per district that has one, ordered by district number; none when the dataset has no count sheets. With district, the sheet of that district alone (none when it has none).",
		RecordDoc: "One district's count sheet by the district's number or id; 404 when the district has none.",
		Params: []ParamInfo{
			{"district", "A district number from 1 to 13, or a district UUID: keeps the count sheet of that district.", nil},
		},
		Title: "results: count sheets", Description: "The official count sheets by the single transferable vote, district by district and count by count: the quota, each count's event, each candidacy's running totals, and who was elected at which count.",
		Keywords: []string{"elections", "election results", "single transferable vote"},
	},
}

// Collections lists every collection in Table's order.
var Collections = func() []Collection {
	cs := make([]Collection, len(Table))
	for i, info := range Table {
		cs[i] = info.Name
	}
	return cs
}()

// CollectionNames is the collections' names joined with sep, in Table's
// order: "parties|districts|candidates" for a usage line.
func CollectionNames(sep string) string {
	return strings.Join(collectionNames(), sep)
}

func collectionNames() []string {
	names := make([]string, len(Collections))
	for i, c := range Collections {
		names[i] = string(c)
	}
	return names
}

// CollectionChoice is the collections' names as a sentence offers them:
// "parties, districts or candidates".
func CollectionChoice() string {
	return suggest.List(collectionNames(), "or")
}

// ParseCollection turns a name into a Collection.
func ParseCollection(name string) (Collection, error) {
	for _, c := range Collections {
		if string(c) == name {
			return c, nil
		}
	}
	return "", &CollectionError{Name: name}
}

// IsParam reports whether name is a query parameter of some collection;
// every other name is ignored.
func IsParam(name string) bool {
	for _, info := range Table {
		for _, p := range info.Params {
			if p.Name == name {
				return true
			}
		}
	}
	return false
}
