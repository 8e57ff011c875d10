package commands_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestE2EContract checks the contract's successful and refused answers on
// one fresh process, request by request, with the exact rate-limit headers.
func TestE2EContract(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	c := p.client(t, "127.0.0.1")

	t.Run("envelope", func(t *testing.T) { checkEnvelopes(t, c) })
	recs := &contractRecords{partyByID: map[string]party{}, districtByID: map[string]district{}}
	t.Run("records", func(t *testing.T) {
		t.Run("parties", func(t *testing.T) { recs.readParties(t, c) })
		t.Run("districts", func(t *testing.T) { recs.readDistricts(t, c) })
		t.Run("candidates", func(t *testing.T) { recs.readCandidates(t, c) })
	})
	if t.Failed() || len(recs.candidates) == 0 || len(recs.districts) != 13 || len(recs.parties) == 0 {
		t.Fatal("the records could not be read; the other checks need them")
	}
	t.Run("limits and filters", func(t *testing.T) { checkLimitsAndFilters(t, c, recs) })
	t.Run("400", func(t *testing.T) { checkRefusedQueries(t, c, recs.parties) })
}

// checkEnvelopes checks each collection's envelope and Cache-Control.
func checkEnvelopes(t *testing.T, c *e2eClient) {
	for _, name := range []string{"parties", "districts", "candidates"} {
		t.Run(name, func(t *testing.T) {
			r := c.get(t, e2eBase+"/"+name)
			env := checkOK(t, r)
			if len(env.Data) == 0 {
				t.Errorf("no %s", name)
			}
			if !strings.HasPrefix(r.header.Get("Cache-Control"), "public, max-age=") {
				t.Errorf("Cache-Control = %q, want public, max-age=…", r.header.Get("Cache-Control"))
			}
		})
	}
}

// contractRecords is the whole dataset, as the records subtests read it;
// later subtests compute their expectations from it.
type contractRecords struct {
	parties      []party
	districts    []district
	candidates   []candidate // all of them, in the documented order
	rawAll       []json.RawMessage
	partyByID    map[string]party
	districtByID map[string]district
}

// readParties reads and checks every party: ids, unique slugs, colours,
// websites and their order.
func (r *contractRecords) readParties(t *testing.T, c *e2eClient) {
	partyByID := r.partyByID
	r.parties = decodeParties(t, checkOK(t, c.get(t, e2eBase+"/parties")).Data)
	slugs := map[string]bool{}
	for _, p := range r.parties {
		checkUUID(t, "party id", p.ID)
		if !e2eSlug.MatchString(p.Slug) || slugs[p.Slug] {
			t.Errorf("party %s: slug %q is not a unique lowercase slug", p.ID, p.Slug)
		}
		slugs[p.Slug] = true
		if p.Color != nil && !e2eColor.MatchString(*p.Color) {
			t.Errorf("party %s: color %q, want #rrggbb or null", p.Slug, *p.Color)
		}
		if p.Website != nil {
			if u, err := url.Parse(*p.Website); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Errorf("party %s: website %q, want an http(s) URL or null", p.Slug, *p.Website)
			}
		}
		if _, dup := partyByID[p.ID]; dup {
			t.Errorf("party id %s twice", p.ID)
		}
		partyByID[p.ID] = p
	}
	if !slices.IsSortedFunc(r.parties, func(a, b party) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.ID, b.ID))
	}) {
		t.Errorf("parties are not ordered by name (case-insensitive), then id: %q", ids(r.parties, func(p party) string { return p.Name }))
	}
}

// readDistricts reads and checks the 13 districts and their localities.
func (r *contractRecords) readDistricts(t *testing.T, c *e2eClient) {
	districtByID := r.districtByID
	r.districts = decodeDistricts(t, checkOK(t, c.get(t, e2eBase+"/districts")).Data)
	if len(r.districts) != 13 {
		t.Fatalf("%d districts, want 13", len(r.districts))
	}
	for i, d := range r.districts {
		checkUUID(t, "district id", d.ID)
		if d.Number != i+1 {
			t.Errorf("district %d has number %d, want districts 1..13 in order", i, d.Number)
		}
		if len(d.Localities) == 0 {
			t.Errorf("district %d has no localities", d.Number)
		}
		raws := make([]json.RawMessage, len(d.Localities))
		for j, l := range d.Localities {
			raws[j], _ = json.Marshal(l)
		}
		slugs := map[string]bool{}
		for _, l := range decodeRecords(t, raws, []string{"name", "slug"}) {
			str(t, l, "name")
			s := str(t, l, "slug")
			if !e2eSlug.MatchString(s) || slugs[s] {
				t.Errorf("district %d: locality slug %q is not a unique ASCII slug", d.Number, s)
			}
			slugs[s] = true
		}
		districtByID[d.ID] = d
	}
}

// readCandidates reads every candidate and checks ids, references to
// parties and districts, and the documented order.
func (r *contractRecords) readCandidates(t *testing.T, c *e2eClient) {
	partyByID, districtByID := r.partyByID, r.districtByID
	env := checkOK(t, c.get(t, e2eBase+"/candidates?limit=500"))
	r.rawAll = env.Data
	r.candidates = decodeCandidates(t, env.Data)
	candidates := r.candidates
	if len(candidates) == 0 {
		t.Fatal("no candidates")
	}
	seen, slugs := map[string]bool{}, map[string]bool{}
	for _, k := range candidates {
		checkUUID(t, "candidate id", k.ID)
		checkUUID(t, "primary_district_id", k.PrimaryDistrictID)
		if seen[k.ID] || slugs[k.Slug] {
			t.Errorf("candidate %s (%s) listed twice", k.ID, k.Slug)
		}
		seen[k.ID], slugs[k.Slug] = true, true
		if k.PartyID != nil {
			checkUUID(t, "party_id", *k.PartyID)
			if _, ok := partyByID[*k.PartyID]; !ok {
				t.Errorf("candidate %s: party_id %s names no party", k.Slug, *k.PartyID)
			}
		}
		if _, ok := districtByID[k.PrimaryDistrictID]; !ok {
			t.Errorf("candidate %s: primary_district_id %s names no district", k.Slug, k.PrimaryDistrictID)
		}
		if len(k.DistrictIDs) == 0 || k.DistrictIDs[0] != k.PrimaryDistrictID {
			t.Errorf("candidate %s: district_ids %q does not start with primary_district_id %s", k.Slug, k.DistrictIDs, k.PrimaryDistrictID)
		}
		for _, id := range k.DistrictIDs {
			checkUUID(t, "district_ids[]", id)
			if _, ok := districtByID[id]; !ok {
				t.Errorf("candidate %s: district_ids names no district: %s", k.Slug, id)
			}
		}
	}
	order := func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(districtByID[a.PrimaryDistrictID].Number, districtByID[b.PrimaryDistrictID].Number),
			strings.Compare(fold(a.FamilyName), fold(b.FamilyName)),
			strings.Compare(fold(a.GivenName), fold(b.GivenName)),
			strings.Compare(a.ID, b.ID))
	}
	for i := 1; i < len(candidates); i++ {
		if order(candidates[i-1], candidates[i]) > 0 {
			a, b := candidates[i-1], candidates[i]
			t.Errorf("candidates %d and %d out of order: (district %d, %s, %s, %s) before (district %d, %s, %s, %s)", i-1, i,
				districtByID[a.PrimaryDistrictID].Number, a.FamilyName, a.GivenName, a.ID,
				districtByID[b.PrimaryDistrictID].Number, b.FamilyName, b.GivenName, b.ID)
		}
	}
}

// checkLimitsAndFilters checks limit, district and party against the
// records: the same records, in the same order, as bytes of the full list.
func checkLimitsAndFilters(t *testing.T, c *e2eClient, r *contractRecords) {
	parties, districts, candidates, rawAll, districtByID := r.parties, r.districts, r.candidates, r.rawAll, r.districtByID
	byDistrict := func(n int) func(candidate) bool {
		return func(k candidate) bool { return districtByID[k.PrimaryDistrictID].Number == n }
	}
	byParty := func(id string) func(candidate) bool {
		return func(k candidate) bool { return k.PartyID != nil && *k.PartyID == id }
	}
	all := func(candidate) bool { return true }
	and := func(f, g func(candidate) bool) func(candidate) bool {
		return func(k candidate) bool { return f(k) && g(k) }
	}
	// A party and a district with no candidate of that party in it.
	var emptyDistrict int
	var emptyParty party
search:
	for _, pa := range parties {
		for _, d := range districts {
			if !slices.ContainsFunc(candidates, and(byDistrict(d.Number), byParty(pa.ID))) {
				emptyDistrict, emptyParty = d.Number, pa
				break search
			}
		}
	}
	// The party with the most candidates, so its filter says something.
	big := parties[0]
	for _, pa := range parties {
		if len(slices.DeleteFunc(slices.Clone(candidates), func(k candidate) bool { return !byParty(pa.ID)(k) })) >
			len(slices.DeleteFunc(slices.Clone(candidates), func(k candidate) bool { return !byParty(big.ID)(k) })) {
			big = pa
		}
	}
	d5 := districts[4]
	tests := []struct {
		name  string
		query string
		keep  func(candidate) bool
		limit int
	}{
		{"no parameter: default limit 100", "", all, 100},
		{"limit=1", "limit=1", all, 1},
		{"limit=7", "limit=7", all, 7},
		{"limit=500", "limit=500", all, 500},
		{"empty values are absent", "district=&party=&limit=", all, 100},
		{"unknown parameter ignored", "_=123", all, 100},
		{"unknown parameters ignored with a limit", "limit=2&callback=x&utm_source=y", all, 2},
		{"district by number", "district=5&limit=500", byDistrict(5), 500},
		{"district by number, limited", "district=5&limit=2", byDistrict(5), 2},
		{"district 13", "district=13&limit=500", byDistrict(13), 500},
		{"district by UUID", "district=" + d5.ID + "&limit=500", byDistrict(5), 500},
		{"district by upper-case UUID", "district=" + strings.ToUpper(d5.ID) + "&limit=500", byDistrict(5), 500},
		{"party by slug", "party=" + big.Slug + "&limit=500", byParty(big.ID), 500},
		{"party by upper-case slug", "party=" + strings.ToUpper(big.Slug) + "&limit=500", byParty(big.ID), 500},
		{"party by UUID", "party=" + big.ID + "&limit=500", byParty(big.ID), 500},
		{"party by upper-case UUID", "party=" + strings.ToUpper(big.ID) + "&limit=500", byParty(big.ID), 500},
		{"district and party: AND", "district=5&party=" + big.Slug + "&limit=500", and(byDistrict(5), byParty(big.ID)), 500},
		{"filters matching nothing", fmt.Sprintf("district=%d&party=%s", emptyDistrict, emptyParty.Slug), and(byDistrict(emptyDistrict), byParty(emptyParty.ID)), 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := e2eBase + "/candidates"
			if tt.query != "" {
				path += "?" + tt.query
			}
			r := c.get(t, path)
			env := checkOK(t, r)
			var wantRaw []json.RawMessage
			var want []string
			for i, k := range candidates {
				if tt.keep(k) && len(want) < tt.limit {
					want = append(want, k.ID)
					wantRaw = append(wantRaw, rawAll[i])
				}
			}
			got := candidateIDs(decodeCandidates(t, env.Data))
			if !slices.Equal(got, want) {
				t.Errorf("GET %s: got %d candidates %q,\nwant %d %q", path, len(got), got, len(want), want)
			}
			// The records are the same bytes as in the full list: a
			// smaller limit or a filter gives a prefix or a subset.
			for i := range min(len(env.Data), len(wantRaw)) {
				if !bytes.Equal(env.Data[i], wantRaw[i]) {
					t.Errorf("record %d differs from the full list's: %s vs %s", i, env.Data[i], wantRaw[i])
					break
				}
			}
			if len(want) == 0 && !bytes.HasPrefix(r.body, []byte(`{"data":[],"meta":{"count":0,`)) {
				t.Errorf("an empty result is %.100s, want data [] and count 0", r.body)
			}
		})
	}
}

// checkRefusedQueries checks that each malformed or unknown parameter gets a
// 400 problem naming it.
func checkRefusedQueries(t *testing.T, c *e2eClient, parties []party) {
	unknownUUID := "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		query string
		param []string // the refused parameters, in order
	}{
		{"limit=0", []string{"limit"}},
		{"limit=501", []string{"limit"}},
		{"limit=abc", []string{"limit"}},
		{"limit=-1", []string{"limit"}},
		{"limit=1.5", []string{"limit"}},
		{"limit=99999999999999999999999999", []string{"limit"}},
		{"limit=%201", []string{"limit"}},
		{"district=0", []string{"district"}},
		{"district=14", []string{"district"}},
		{"district=-5", []string{"district"}},
		{"district=foo", []string{"district"}},
		{"district=" + unknownUUID, []string{"district"}},
		{"party=no-such-party", []string{"party"}},
		{"party=" + unknownUUID, []string{"party"}},
		{"party=pn!", []string{"party"}},
		{"limit=1&limit=2", []string{"limit"}},
		{"limit=5&limit=5", []string{"limit"}},
		{"district=1&district=2", []string{"district"}},
		{"party=" + parties[0].Slug + "&party=" + parties[0].Slug, []string{"party"}},
		{"district=14&limit=0", []string{"district", "limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := c.get(t, e2eBase+"/candidates?"+tt.query)
			p := checkProblem(t, r, http.StatusBadRequest)
			var names []string
			for _, ip := range p.InvalidParams {
				names = append(names, ip.Name)
				if ip.Reason == "" {
					t.Errorf("invalid_params entry %q has no reason", ip.Name)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.param) {
				t.Errorf("invalid_params names %q, want %q; body %s", names, tt.param, r.body)
			}
			for _, name := range tt.param {
				if !strings.Contains(p.Detail, name) {
					t.Errorf("detail %q does not name %s", p.Detail, name)
				}
			}
		})
	}
}
