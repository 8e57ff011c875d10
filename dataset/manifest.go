package dataset

import "time"

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
