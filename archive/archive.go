// Package archive holds several elections side by side: each election a
// dataset (package dataset), loaded and checked exactly as a dataset is on
// its own, and above them which elections there are, the current one, the
// rules that span elections, and the people who stood in them, followed
// from one election to the next by their person_id.
//
// A directory holding archive.toml is an archive: the elections it names,
// each a dataset directory of its own beside it. A dataset directory
// (dataset.toml, no archive.toml) is an archive of one election, which
// serves, validates, queries and compares exactly as the dataset it holds.
// serve, validate, query and diff all load an archive.
//
// archive imports dataset; dataset never imports archive. How an election
// or a person is written on the wire is package answers' and the server's.
package archive

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"ballot/dataset"
)

// Archive is a loaded and checked archive of elections. It is immutable:
// a reload loads a new one, every election at once or none.
type Archive struct {
	// Version identifies the archive's data: the version of its one
	// dataset for a dataset directory, else the SHA-256, in hex, of each
	// election's directory and version and of the current slug, so that
	// it changes whenever any byte of the data does.
	Version string
	// Warnings are every election's warnings, its directory before each
	// file, in archive.toml's order, then the archive's own.
	Warnings []dataset.Problem

	single    bool
	elections []*Election // newest first
	current   *Election
	people    []Person // in published order
	bySlug    map[string]int
	byID      map[string]int
	names     dataset.NameIndex
	all       []int32 // every person's position: what a search looks within
	size      int64
	title     string // archive.toml's title, or ""
}

// Title names the archive as a whole: archive.toml's title, or, without
// one (and for a dataset directory), the current election's dataset's.
func (a *Archive) Title() string {
	if a.title != "" {
		return a.title
	}
	return a.current.Manifest.Title
}

// Election is one election of an archive: its record, its dataset's
// manifest and version, and its dataset (Dataset), loaded as on its own.
// The current election's dataset is held as long as the archive is; a
// past election's only while it is used (see Held and Archive.Release).
type Election struct {
	// Dir is the election's directory as archive.toml names it; "" for
	// a dataset directory served alone.
	Dir string
	// Record is the election as the API lists it.
	Record Record
	// Manifest and Version are its dataset's, kept when the dataset is
	// released.
	Manifest dataset.Manifest
	Version  string

	shortNames map[string]string // each party's short name, by its id
	heldElection
}

// PartyShortName returns the short name of the election's party with the
// id, kept when its dataset is released (the people's search names each
// person's parties).
func (e *Election) PartyShortName(id string) (string, bool) {
	name, ok := e.shortNames[id]
	return name, ok
}

// Record is an election as the API serves it (/api/public/v1/elections):
// what [election] in its dataset.toml says, and what its dataset holds.
type Record struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	// Name is [election]'s name, or, for a dataset directory without
	// one, the manifest's title; NameEN is null when not given.
	Name   string  `json:"name"`
	NameEN *string `json:"name_en"`
	Kind   string  `json:"kind"`
	// Date is the poll's date, YYYY-MM-DD, or null when not given.
	Date    *string `json:"date"`
	Current bool    `json:"current"`
	// Districts is how many districts the dataset has; Seats how many
	// seats they fill together, the sum of the districts' seats (each
	// district's own, or its count sheet's), or null when some district
	// says neither.
	Districts int    `json:"districts"`
	Seats     *int   `json:"seats"`
	Counts    Counts `json:"counts"`
}

// Counts are how many records each collection of an election holds.
type Counts struct {
	Parties    int `json:"parties"`
	Districts  int `json:"districts"`
	Candidates int `json:"candidates"`
	Results    int `json:"results"`
}

// Namespace is ballot's own namespace for the ids it derives where a
// dataset gives no ids.namespace: an election's id is then the name-based
// UUID (version 5) in it of "election/" and the slug.
const Namespace = "f5c2f40d-6a71-4aae-89ec-ee619c9c7501"

// CurrentSlug is the slug of a dataset directory's election when its
// dataset.toml has no [election] slug.
const CurrentSlug = "current"

// ElectionKey is the natural key of the election with the slug: its id,
// when [election] gives none, is the name-based UUID of it in
// ids.namespace (or in Namespace without one).
func ElectionKey(slug string) string { return "election/" + slug }

// Elections returns the elections, newest first: by date, the latest
// first and an election without one after those with, then by slug,
// "2022" before "2017". The slice is shared: callers must not modify it.
func (a *Archive) Elections() []*Election { return a.elections }

// Current returns the current election: the one the paths without an
// election answer for.
func (a *Archive) Current() *Election { return a.current }

// Single reports whether the archive is a dataset directory (or a
// dataset's files) seen as an archive of one election.
func (a *Archive) Single() bool { return a.single }

// Size is the size of the archive's files, in bytes: every election's
// dataset files, and archive.toml.
func (a *Archive) Size() int64 { return a.size }

// Election finds an election by its slug or its id, in any letter case.
func (a *Archive) Election(key string) (*Election, error) {
	i, err := a.ElectionIndex(key)
	if err != nil {
		return nil, err
	}
	return a.elections[i], nil
}

// ElectionIndex finds an election by its slug or its id, in any letter
// case, and returns its position in Elections, or a *NotFoundError that
// names every election's slug.
func (a *Archive) ElectionIndex(key string) (int, error) {
	lower := strings.ToLower(key)
	for i, e := range a.elections {
		if e.Record.Slug == lower || e.Record.ID == lower {
			return i, nil
		}
	}
	slugs := make([]string, len(a.elections))
	for i, e := range a.elections {
		slugs[i] = e.Record.Slug
	}
	return -1, &NotFoundError{What: "election", Key: key, Near: suggestSlug(lower, slugs), Slugs: slugs}
}

// Of is the archive of one election, ds, loaded and checked, as a load
// makes of a dataset directory: the dataset served alone, its election
// current, its warnings the archive's.
func Of(ds *dataset.Dataset) *Archive {
	e := newElection("", ds)
	return newArchive([]*Election{e}, e.Record.Slug, true, ds.Warnings, int64(ds.Size()))
}

// newArchive makes the archive of elections, in archive.toml's order (or
// the one of a dataset directory, single), whose current one has the slug
// current, with the warnings already found, and indexes its people.
func newArchive(elections []*Election, current string, single bool, warnings []dataset.Problem, size int64) *Archive {
	a := &Archive{single: single, Warnings: warnings, size: size}
	h := sha256.New()
	for _, e := range elections {
		h.Write([]byte(e.Dir + "\x00" + e.Record.Slug + "\x00" + e.Version + "\x00"))
	}
	h.Write([]byte(current))
	a.Version = hex.EncodeToString(h.Sum(nil))
	if single {
		a.Version = elections[0].Version
	}
	a.elections = slices.Clone(elections)
	slices.SortStableFunc(a.elections, func(x, y *Election) int {
		dx, dy := x.Manifest.Election.Date, y.Manifest.Election.Date
		return cmp.Or(dy.Compare(dx), strings.Compare(y.Record.Slug, x.Record.Slug))
	})
	for _, e := range a.elections {
		if e.Record.Slug == current {
			e.Record.Current = true
			a.current = e
		}
	}
	a.indexPeople()
	return a
}

// newElection is the election of ds, in directory dir, with its record.
func newElection(dir string, ds *dataset.Dataset) *Election {
	m := ds.Manifest
	e := m.Election
	r := Record{
		ID: e.ID, Slug: e.Slug, Name: e.Name, Kind: e.Kind,
		Districts: len(ds.Districts()),
		Counts:    Counts{len(ds.Parties()), len(ds.Districts()), len(ds.Candidates()), len(ds.Sheets())},
	}
	if r.Slug == "" {
		r.Slug = CurrentSlug
	}
	if r.Name == "" {
		r.Name = m.Title
	}
	if e.NameEN != "" {
		r.NameEN = &e.NameEN
	}
	if r.Kind == "" {
		r.Kind = dataset.DefaultKind
	}
	if !e.Date.IsZero() {
		d := e.Date.String()
		r.Date = &d
	}
	if r.ID == "" {
		r.ID = electionID(m.IDs.Namespace, r.Slug)
	}
	seats := 0
	for _, d := range ds.Districts() {
		if d.Seats == nil {
			seats = -1
			break
		}
		seats += *d.Seats
	}
	if seats >= 0 {
		r.Seats = &seats
	}
	el := &Election{Dir: dir, Record: r, Manifest: m, Version: ds.Version, shortNames: map[string]string{}}
	for _, p := range ds.Parties() {
		el.shortNames[p.ID] = p.ShortName
	}
	el.held.Store(&Held{Dataset: ds})
	return el
}

// electionID is the id derived for the election with the slug, in the
// namespace ns, or in Namespace when ns is "" (or not a UUID, which the
// dataset's own rules refuse).
func electionID(ns, slug string) string {
	space, err := uuid.Parse(ns)
	if err != nil {
		space = uuid.MustParse(Namespace)
	}
	return uuid.NewSHA1(space, []byte(ElectionKey(slug))).String()
}

// Default returns the embedded archive (dataset.ArchiveFS), loaded once:
// the Malta general elections of 2022, the current one, and of 2017.
var Default = sync.OnceValues(func() (*Archive, error) { return Load(dataset.ArchiveFS()) })
