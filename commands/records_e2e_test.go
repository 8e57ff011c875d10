package commands_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestE2ERecords reads records one by one from a real process, by each of
// their keys, and the districts of localities: each answer is the envelope
// with exactly the records the collection holds for it.
func TestE2ERecords(t *testing.T) {
	t.Parallel()
	p := serveInProcess(t)
	c := p.client(t, "127.0.0.1")

	one := func(t *testing.T, path string, want json.RawMessage) {
		t.Helper()
		env := checkOK(t, c.get(t, path))
		if len(env.Data) != 1 || env.Meta.Count != 1 || !bytes.Equal(env.Data[0], want) {
			t.Errorf("%s: %d records (count %d), want exactly %s", path, len(env.Data), env.Meta.Count, want)
		}
	}
	keyed := func(raw json.RawMessage, field string) string {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if n, ok := m[field].(float64); ok {
			return strconv.Itoa(int(n))
		}
		return m[field].(string)
	}

	t.Run("parties", func(t *testing.T) {
		for _, raw := range checkOK(t, c.get(t, e2eBase+"/parties")).Data {
			one(t, e2eBase+"/parties/"+strings.ToUpper(keyed(raw, "slug")), raw)
			one(t, e2eBase+"/parties/"+strings.ToUpper(keyed(raw, "id")), raw)
		}
	})
	t.Run("districts", func(t *testing.T) {
		for _, raw := range checkOK(t, c.get(t, e2eBase+"/districts")).Data {
			one(t, e2eBase+"/districts/"+keyed(raw, "number"), raw)
			one(t, e2eBase+"/districts/"+strings.ToUpper(keyed(raw, "id")), raw)
		}
	})
	t.Run("candidates", func(t *testing.T) {
		all := checkOK(t, c.get(t, e2eBase+"/candidates?limit=500")).Data
		for _, raw := range all[:20] {
			one(t, e2eBase+"/candidates/"+keyed(raw, "slug"), raw)
			one(t, e2eBase+"/candidates/"+keyed(raw, "id"), raw)
		}
		p := checkProblem(t, c.get(t, e2eBase+"/candidates/nobody"), 404)
		if p.Detail != `no candidate has the slug or id "nobody"` {
			t.Errorf("detail %q", p.Detail)
		}
	})
	t.Run("localities", func(t *testing.T) {
		lc := p.client(t, "127.0.0.2") // a counter of its own for districts
		all := checkOK(t, lc.get(t, e2eBase+"/districts")).Data
		for _, tt := range []struct {
			locality string
			numbers  []int
		}{
			{"Birżebbuġa", []int{5}},
			{"BIRZEBBUGA", []int{5}},
			{"Vittoriosa", []int{2}},
			{"Fgura", []int{2, 4}},
			{"luqa", []int{5, 6}},
			{"Naxxar", []int{10, 12}},
			{"St Paul's Bay", []int{11, 12}},
		} {
			env := checkOK(t, lc.get(t, e2eBase+"/districts?locality="+url.QueryEscape(tt.locality)))
			var want []json.RawMessage
			for _, n := range tt.numbers {
				want = append(want, all[n-1])
			}
			if !slices.EqualFunc(env.Data, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
				t.Errorf("locality=%s: %d districts, want %v", tt.locality, len(env.Data), tt.numbers)
			}
		}
		p := checkProblem(t, lc.get(t, e2eBase+"/districts?locality=Atlantis"), 400)
		if len(p.InvalidParams) != 1 || p.InvalidParams[0].Name != "locality" {
			t.Errorf("invalid_params %v, want locality", p.InvalidParams)
		}
	})
}
