package dataset

// The record types are the API's published shape: a dataset file holds an
// array of them exactly as the API serves them, so what a publisher writes is
// what a client reads. Every field is always present; optional ones are null.

// Party is one political party that stood in the election.
type Party struct {
	ID        string  `json:"id"`
	Slug      string  `json:"slug"`
	Name      string  `json:"name"`
	ShortName string  `json:"short_name"`
	NameEN    *string `json:"name_en"`
	Color     *string `json:"color"`
	Website   *string `json:"website"`
}

// District is one of the 13 electoral districts with its localities.
type District struct {
	ID         string     `json:"id"`
	Number     int        `json:"number"`
	Name       string     `json:"name"`
	Localities []Locality `json:"localities"`
}

// Locality is a local council (or the part of one) inside a district.
type Locality struct {
	Name   string  `json:"name"`
	Slug   string  `json:"slug"`
	NameEN *string `json:"name_en"`
	Split  bool    `json:"split"`
	Note   *string `json:"note"`
}

// Candidate is one person who contested the election.
type Candidate struct {
	ID                string   `json:"id"`
	Slug              string   `json:"slug"`
	Name              string   `json:"name"`
	GivenName         string   `json:"given_name"`
	FamilyName        string   `json:"family_name"`
	PartyID           *string  `json:"party_id"`
	PrimaryDistrictID string   `json:"primary_district_id"`
	DistrictIDs       []string `json:"district_ids"`
	Elected           *bool    `json:"elected"`
}
