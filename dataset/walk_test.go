package dataset

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The walk of a valid file reports what the token reader reports on it,
// problem for problem: the same rules, pointers and positions.
func TestWalkMatchesTokens(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []string{
		`[]`, `{}`, `"x"`, `12`, `null`,
		`[{"id":"a","id":"b","name":"x\u202ey"}]`,
		` [ { "a\u0001" : 1 , "k~/x": "\u0007", "note": "line\nnext\ttab", "b": [ "\u200f", {"note":"\u0000"} ] } ] `,
		`[{"localities":[{"note":"a\tb","name":"c\td"}],"x":{"y":{"z":["\ud800"]}}}]`,
		`[[["\u0085"]],[{"notes":["ok\n","\u0001"]}]]`,
		"[{\"bad\":\"a\xffb\",\"name\":\"caf\xc3\xa9\",\"slug\":\"\xe2\x80\xae\"}]",
		`{"` + strings.Repeat(`k":1,"`, 40) + `k":2}`,
		deep(maxDepth), deep(maxDepth + 1), "[\n" + deep(maxDepth+3) + "\n]",
		`[{"a":{},"b":[],"c":[{}],"d":"\\u0001","e":"\\\\\u0002"}]`,
	}
	for i := range 40 {
		cases = append(cases, fmt.Sprintf(`{"k%d":"%s"}`, i, strings.Repeat("é", i)))
	}
	for _, in := range cases {
		var byTokens, byWalk Report
		okTokens := scanTokens(context.Background(), "f.json", []byte(in), &byTokens)
		okWalk := walkJSON(context.Background(), "f.json", []byte(in), &byWalk)
		if okTokens != okWalk || !reflect.DeepEqual(byTokens, byWalk) {
			t.Errorf("%.80q:\ntokens %v %+v\nwalk   %v %+v", in, okTokens, byTokens, okWalk, byWalk)
		}
	}
}
