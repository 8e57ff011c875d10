package answers_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestAnswerFormat fails when the shape of the answers around their
// records (the envelope's keys and meta's, in order) changes without the
// answerFormat in their ETags changing with it: a client holding a body of
// the old shape would get a 304 for the new one. testdata/answer-format
// holds the pair; after changing answerFormat, write the new pair there.
func TestAnswerFormat(t *testing.T) {
	d, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 4, 15, 0, 0, time.UTC)
	var shape strings.Builder
	queries := []func() (dataset.Result, error){
		func() (dataset.Result, error) { return d.Query(dataset.Parties, nil) },
		func() (dataset.Result, error) { return d.Query(dataset.Districts, nil) },
		func() (dataset.Result, error) {
			return d.Query(dataset.Districts, dataset.Params{"locality": {"luqa"}})
		},
		func() (dataset.Result, error) {
			return d.Query(dataset.Candidates, dataset.Params{"district": {"5"}, "offset": {"1"}})
		},
		func() (dataset.Result, error) { return d.Record(dataset.Parties, "pn") },
	}
	var format string
	for _, query := range queries {
		res, err := query()
		if err != nil {
			t.Fatal(err)
		}
		ans := datasettest.Answer(d, res)
		body := ans.AppendJSON(nil, at)
		shape.WriteString(keys(t, body) + "\n")
		tag := ans.ETag()
		format = tag[len(`W/"`)+17 : len(`W/"`)+19]
	}
	sum := sha256.Sum256([]byte(shape.String()))
	got := "format " + format + " shape " + hex.EncodeToString(sum[:8]) + "\n"
	want, err := os.ReadFile("testdata/answer-format")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("testdata/answer-format holds %q, the answers give %q:\n%s\nif the shape changed, change answerFormat in answers.go, then write the new line to testdata/answer-format", want, got, shape.String())
	}
}

// keys gives the envelope's shape: its keys, and meta's keys with the
// shape of their values, in their order.
func keys(t *testing.T, body []byte) string {
	t.Helper()
	var env struct{ Data, Meta json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil || !strings.HasPrefix(string(body), `{"data":[`) {
		t.Fatalf("not an envelope (%v): %.200s", err, body)
	}
	dec := json.NewDecoder(strings.NewReader(string(env.Meta)))
	return `{"data":[…],"meta":` + shapeOf(t, dec) + "}"
}

// shapeOf reads one value from dec: objects with their keys in order,
// anything else as its kind.
func shapeOf(t *testing.T, dec *json.Decoder) string {
	t.Helper()
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	switch v := tok.(type) {
	case json.Delim:
		if v != '{' {
			for dec.More() {
				shapeOf(t, dec)
			}
			_, _ = dec.Token()
			return "[…]"
		}
		var parts []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, k.(string)+":"+shapeOf(t, dec))
		}
		_, _ = dec.Token()
		return "{" + strings.Join(parts, ",") + "}"
	case string:
		return "string"
	case float64:
		return "number"
	case nil:
		return "null"
	default:
		return "bool"
	}
}
