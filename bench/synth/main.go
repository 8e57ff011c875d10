// Command synth writes a synthetic dataset directory in ballot's format
// (dataset.toml, parties.json, districts.json, candidates.json) with many
// candidates, for benchmarks: the districts are the embedded Malta data's,
// the parties and candidates are invented, deterministically from a seed.
//
//	go run ./bench/synth -n 20000 -out bench/out/synth-20000
//	ballot validate bench/out/synth-20000
package main

import (
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"ballot/dataset"
)

// namespace is the UUIDv5 namespace of every id synth makes.
var namespace = [16]byte{0x6b, 0x61, 0x6c, 0x6c, 0x6f, 0x74, 0x2d, 0x62, 0x65, 0x6e, 0x63, 0x68, 0x2d, 0x73, 0x79, 0x6e}

// uuid5 is an RFC 9562 name-based (SHA-1) UUID, lower-case canonical.
func uuid5(name string) string {
	h := sha1.New()
	h.Write(namespace[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

var givenNames = []string{
	"Ġużeppi", "Ġorġ", "Ċensu", "Ħenri", "Żaren", "Ġanni", "Ġwann", "Ċikku", "Pawlu", "Mikiel",
	"Karmenu", "Salvu", "Toni", "Ninu", "Wiġi", "Ġakbu", "Manwel", "Frans", "Indri", "Kalċidon",
	"Marija", "Rożann", "Ċettina", "Ġilda", "Ħelena", "Tereża", "Katerina", "Doris", "Rita", "Luċija",
	"Anġela", "Ġovanna", "Marlene", "Roberta", "Miriam", "Graziella", "Claudette", "Josianne", "Alison", "Stephanie",
	"Joseph", "Michael", "Anthony", "Christian", "Clyde", "Byron", "Glenn", "Owen", "Keith", "Ian",
	"Chris", "Jonathan", "Edward", "Silvio", "Carmelo", "Rosianne", "Julia", "Bernice", "Eve", "Amanda",
}

var familyNames = []string{
	"Abela", "Agius", "Apap", "Aquilina", "Attard", "Azzopardi", "Bartolo", "Bezzina", "Bonello", "Bonnici",
	"Borg", "Buħaġiar", "Buttigieg", "Cachia", "Calleja", "Camilleri", "Caruana", "Cassar", "Chetcuti", "Cilia",
	"Cutajar", "Dalli", "Debattista", "Deguara", "Delia", "Ellul", "Falzon", "Farrugia", "Fenech", "Galea",
	"Gauci", "Għirlando", "Grech", "Grima", "Ħili", "Mallia", "Micallef", "Mifsud", "Mizzi", "Muscat",
	"Pace", "Portelli", "Psaila", "Refalo", "Said", "Sammut", "Schembri", "Sciberras", "Scicluna", "Spiteri",
	"Vassallo", "Vella", "Xuereb", "Żahra", "Zammit", "Zerafa", "Tabone", "Saliba", "Pisani", "Magri",
}

type party struct {
	name, short string
	nameEN      *string
}

func str(s string) *string { return &s }

var parties = []party{
	{"Partit tal-Ħaddiema", "PĦ", str("Workers' Party")},
	{"Moviment Għal Ġustizzja", "MĠĠ", str("Movement for Justice")},
	{"Alleanza tal-Gżejjer", "AG", str("Islands Alliance")},
	{"Partit Ekoloġiku Malti", "PEM", str("Maltese Ecological Party")},
	{"Lejn il-Futur", "LF", str("Towards the Future")},
	{"Għaqda Demokratika", "GĦD", str("Democratic Union")},
	{"Partit Ċiviku", "PĊ", str("Civic Party")},
	{"Rinnovament Nazzjonali", "RN", str("National Renewal")},
	{"Volt Malta Sintetiku", "VMS", nil},
	{"Forza Żgħażagħ", "FŻ", str("Youth Force")},
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("synth: ")
	n := flag.Int("n", 20000, "number of candidates")
	seed := flag.Uint64("seed", 1, "random seed: the same seed writes the same files")
	out := flag.String("out", "bench/out/synth-20000", "directory to write (created if missing)")
	flag.Parse()
	if *n < 1 {
		log.Fatal("-n must be at least 1")
	}
	rng := rand.New(rand.NewPCG(*seed, 0x62616c6c6f74))
	districts := realDistricts()
	ps := makeParties(rng)
	cands := makeCandidates(rng, *n, ps, districts)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	write(*out, "dataset.toml", manifest(*n, *seed))
	writeJSON(*out, "parties.json", ps)
	writeJSON(*out, "districts.json", districts)
	writeJSON(*out, "candidates.json", cands)
}

// realDistricts are the embedded dataset's districts and their localities,
// so they are real; only their number of candidates is invented.
func realDistricts() []dataset.District {
	raw, err := fs.ReadFile(dataset.DefaultFS(), "districts.json")
	if err != nil {
		log.Fatal(err)
	}
	var districts []dataset.District
	if err := json.Unmarshal(raw, &districts); err != nil {
		log.Fatal(err)
	}
	return districts
}

// makeParties gives each invented party its id, slug, colour and website.
func makeParties(rng *rand.Rand) []dataset.Party {
	ps := make([]dataset.Party, len(parties))
	for i, p := range parties {
		slug := dataset.Slugify(p.short)
		ps[i] = dataset.Party{
			ID:        uuid5("party/" + slug),
			Slug:      slug,
			Name:      p.name,
			ShortName: p.short,
			NameEN:    p.nameEN,
			Color:     str(fmt.Sprintf("#%06x", rng.Uint32N(1<<24))),
			Website:   str("https://" + slug + ".example/"),
		}
	}
	return ps
}

// makeCandidates invents n candidates spread evenly over the districts,
// shuffled so the file is not already in the API's order.
func makeCandidates(rng *rand.Rand, n int, ps []dataset.Party, districts []dataset.District) []dataset.Candidate {
	cands := make([]dataset.Candidate, 0, n)
	names := map[string]bool{} // folded name and party: no duplicate warnings
	slugs := map[string]int{}
	for i := range n {
		var partyID *string
		if rng.IntN(100) >= 3 { // about 3% independents
			partyID = &ps[rng.IntN(len(ps))].ID
		}
		given, family := uniqueName(rng, names, partyID)
		name := given + " " + family
		slug := dataset.Slugify(name)
		if k := slugs[slug]; k > 0 {
			slugs[slug] = k + 1
			slug = fmt.Sprintf("%s-%d", slug, k+1)
		} else {
			slugs[slug] = 1
		}
		// Spread candidates evenly so every district has about n/13.
		primary := i % len(districts)
		ids := []string{districts[primary].ID}
		if rng.IntN(10) == 0 && primary+1 < len(districts) { // about 10% contest a second district
			ids = append(ids, districts[primary+1+rng.IntN(len(districts)-primary-1)].ID)
		}
		elected := rng.IntN(20) == 0
		cands = append(cands, dataset.Candidate{
			ID:                uuid5(fmt.Sprintf("candidate/%d", i)),
			Slug:              slug,
			Name:              name,
			GivenName:         given,
			FamilyName:        family,
			PartyID:           partyID,
			PrimaryDistrictID: districts[primary].ID,
			DistrictIDs:       ids,
			Elected:           &elected,
		})
	}
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	return cands
}

// uniqueName draws a given and a family name that no candidate of the same
// party has yet (folded), and records it in names.
func uniqueName(rng *rand.Rand, names map[string]bool, partyID *string) (given, family string) {
	for {
		given = givenNames[rng.IntN(len(givenNames))]
		family = familyNames[rng.IntN(len(familyNames))]
		if rng.IntN(4) == 0 { // Maltese double family names
			family += " " + familyNames[rng.IntN(len(familyNames))]
		}
		key := dataset.Fold(given + " " + family)
		if partyID != nil {
			key += "\x00" + *partyID
		}
		if !names[key] {
			names[key] = true
			return given, family
		}
	}
}

// manifest is the synthetic dataset's dataset.toml.
func manifest(n int, seed uint64) []byte {
	return []byte(fmt.Sprintf(`title = "Synthetic election (%d candidates)"
description = "Invented parties and candidates over the real 13 districts, for benchmarks (bench/synth, seed %d)."
license = "CC0-1.0"
license_url = "https://creativecommons.org/publicdomain/zero/1.0/"
published_at = 2026-01-01

[publisher]
name = "ballot benchmark kit"
url = "https://ballot.example/"
about_url = "https://ballot.example/about"

[coverage]
summary = "Synthetic data: no real person or party."
notes = ["Generated by bench/synth; names are random combinations."]
`, n, seed))
}

func writeJSON(dir, name string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	write(dir, name, append(b, '\n'))
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		log.Fatal(err)
	}
}
