package dataset

import (
	"errors"
	"fmt"
	"time"
)

// Manifest is a dataset's dataset.toml: what the data is, under which
// licence, who publishes it (users are asked to credit them with a link and to
// read their About page) and what the data does not cover.
type Manifest struct {
	Title       string    `toml:"title" json:"title"`
	Description string    `toml:"description" json:"description"`
	License     string    `toml:"license" json:"license"`
	LicenseURL  string    `toml:"license_url" json:"license_url"`
	PublishedAt time.Time `toml:"published_at" json:"published_at"`
	Publisher   Publisher `toml:"publisher" json:"publisher"`
	Coverage    Coverage  `toml:"coverage" json:"coverage"`
	// IDs is how ballot import derives the ids a sheet does not give. It
	// is not published: the ids themselves are.
	IDs IDs `toml:"ids" json:"-"`
	// Election says which election the dataset is, for an archive of
	// several (package archive), which publishes it as the election's
	// record; optional in a dataset served alone.
	Election Election `toml:"election" json:"-"`
}

// Election is dataset.toml's [election] table: the election a dataset
// holds, as an archive lists it. Slug and Name are required in an archive;
// the rest is optional everywhere.
type Election struct {
	// Slug names the election in URLs (/elections/2022/…): lower-case
	// ASCII letters and digits joined by single hyphens; for Malta's
	// general elections, the year.
	Slug string `toml:"slug"`
	// Name is the election's name, in the dataset's language; NameEN in
	// English, when it differs.
	Name   string `toml:"name"`
	NameEN string `toml:"name_en"`
	// Kind is what election it is: "general" (the default), or another
	// word the publisher chooses ("by-election").
	Kind string `toml:"kind"`
	// Date is the poll's date.
	Date Date `toml:"date"`
	// ID is the election's UUID; the default is derived from the slug
	// in ids.namespace (see package archive).
	ID string `toml:"id"`
	// Districts is how many districts the election has, numbered 1 to
	// Districts; nil when not given, for DefaultDistricts (see
	// DistrictCount). Malta's have had 8, 2, 10 and 13.
	Districts *int `toml:"districts"`
}

// IsZero reports whether the table is absent, or empty.
func (e Election) IsZero() bool { return e == Election{} }

// DefaultDistricts is how many districts an election has when [election]
// does not say: the contract's 13, Malta's since 1976.
const DefaultDistricts = 13

// MaxDistricts is the most districts an election may have: the lookups
// and the readers' filters hold a set of districts as the bits of a
// 32-bit word, numbered from 1. Malta's elections have had at most 13.
const MaxDistricts = 31

// DistrictCount is how many districts the election has: [election]
// districts, or DefaultDistricts when it does not say.
func (e Election) DistrictCount() int {
	if e.Districts == nil {
		return DefaultDistricts
	}
	return *e.Districts
}

// DefaultKind is an election's kind when [election] does not say.
const DefaultKind = "general"

// Date is a day of the calendar, without a time of day or a zone:
// dataset.toml writes it as a TOML local date (date = 2022-03-26), the API
// as "2022-03-26".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// IsZero reports whether the date is not given.
func (d Date) IsZero() bool { return d == Date{} }

// String writes the date as YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// Compare orders dates, earlier first, a date not given before any.
func (d Date) Compare(o Date) int {
	switch a, b := d.Year*10000+int(d.Month)*100+d.Day, o.Year*10000+int(o.Month)*100+o.Day; {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// errNotDate is the refusal of a value that is not a TOML local date: a
// string, a number, a time of day, or a date with a time.
var errNotDate = errors.New("must be a date written bare, as date = 2022-03-26 (a TOML local date: no quotes, no time of day)")

// UnmarshalTOML takes a TOML local date, and nothing else: a date with a
// time of day, or in quotes, is refused rather than cut to its day.
func (d *Date) UnmarshalTOML(v any) error {
	t, ok := v.(time.Time)
	// The TOML decoder marks a local date by this zone's name.
	if !ok || t.Location().String() != "date-local" {
		return errNotDate
	}
	*d = Date{t.Year(), t.Month(), t.Day()}
	return nil
}

// IDs fixes the ids that ballot import derives: each is the name-based
// SHA-1 UUID (version 5) in Namespace of KeyPrefix followed by the record's
// natural key ("party/<slug>", "district/<number>", "candidate/<slug>"), so
// importing the same sheet again gives the same ids.
type IDs struct {
	// Namespace is a UUID of the publisher's own choosing.
	Namespace string `toml:"namespace" json:"-"`
	// KeyPrefix lets one namespace serve several elections
	// ("malta-2022/").
	KeyPrefix string `toml:"key_prefix" json:"-"`
}

// Publisher names whom to credit for the data.
type Publisher struct {
	Name     string `toml:"name" json:"name"`
	URL      string `toml:"url" json:"url"`
	AboutURL string `toml:"about_url" json:"about_url"`
}

// Coverage says plainly what the data holds and what it lacks.
type Coverage struct {
	Summary string   `toml:"summary" json:"summary"`
	Notes   []string `toml:"notes" json:"notes"`
}
