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
