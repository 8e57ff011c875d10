package dataset

// The record types are the API's published shape: a dataset file holds an
// array of them as the API serves them, so what a publisher writes is what a
// client reads. The API always serves every field, null where unknown; a
// dataset file may leave out a field tagged `dataset:"optional"` (absent
// means null, or false for a boolean), so that fields added in a later
// version never make an existing dataset invalid. Every other field is
// required; a tag `null:"…"` says what null means where a required field may
// be null.

// Party is one political party that stood in the election.
type Party struct {
	ID           string  `json:"id"`
	Slug         string  `json:"slug"`
	Name         string  `json:"name"`
	ShortName    string  `json:"short_name"`
	NameEN       *string `json:"name_en" dataset:"optional"`
	Color        *string `json:"color" dataset:"optional"`
	Website      *string `json:"website" dataset:"optional"`
	LeaderName   *string `json:"leader_name" dataset:"optional"`
	LogoURL      *string `json:"logo_url" dataset:"optional"`
	WikipediaURL *string `json:"wikipedia_url" dataset:"optional"`
}

// District is one of the electoral districts of an election (13 in
// Malta's today) with its localities.
type District struct {
	ID         string     `json:"id"`
	Number     int        `json:"number"`
	Name       string     `json:"name"`
	Localities []Locality `json:"localities"`
	SourceURL  *string    `json:"source_url" dataset:"optional"`
	// Seats is how many members the district elects: as the file gives
	// it or, where it does not, as the district's count sheet does; null
	// when neither says. Seats and Note come last, added after the
	// fields before them.
	Seats *int `json:"seats" dataset:"optional"`
	// Note says what the record lacks or needs said ("No locality list
	// is given for the districts of 1950").
	Note *string `json:"note" dataset:"optional"`
}

// Locality is a local council (or the part of one) inside a district.
type Locality struct {
	Name   string  `json:"name"`
	Slug   string  `json:"slug"`
	NameEN *string `json:"name_en" dataset:"optional"`
	Split  bool    `json:"split" dataset:"optional"`
	Note   *string `json:"note" dataset:"optional"`
}

// Candidate is one person who contested the election.
type Candidate struct {
	ID                string   `json:"id"`
	Slug              string   `json:"slug"`
	Name              string   `json:"name"`
	GivenName         string   `json:"given_name"`
	FamilyName        string   `json:"family_name"`
	PartyID           *string  `json:"party_id" null:"for an independent"`
	PrimaryDistrictID string   `json:"primary_district_id"`
	DistrictIDs       []string `json:"district_ids"`
	Elected           *bool    `json:"elected" dataset:"optional"`
	IsIncumbent       *bool    `json:"is_incumbent" dataset:"optional"`
	Website           *string  `json:"website" dataset:"optional"`
	PhotoURL          *string  `json:"photo_url" dataset:"optional"`
	// PersonID is the person the candidate is, the same in every
	// election they stood in (see package archive), or null where the
	// publisher has not said. It comes last, added after the fields
	// before it, so that a reader of the CSV columns finds them where
	// they were.
	PersonID *string `json:"person_id" dataset:"optional"`
}
