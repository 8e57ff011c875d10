package dataset

import (
	"strings"
	"testing"
)

// TestDistrictLocalitiesAtTheirNumber: a district's localities are decoded
// into a list made at their number, not grown by doubling (which held up
// to twice the list); a repeated key is decoded as the last.
func TestDistrictLocalitiesAtTheirNumber(t *testing.T) {
	loc := `{"name": "Ħal Far", "slug": "hal-far"}`
	district := func(localities string) string {
		return `[{"id": "00000000-0000-4000-8000-000000000001", "number": 1, "name": "First", "localities": ` + localities + `}]`
	}
	tests := []struct {
		name, file string
		want       int
	}{
		{"five", district("[" + strings.Repeat(loc+", ", 4) + loc + "]"), 5},
		{"one", district("[" + loc + "]"), 1},
		{"none", district("[]"), 0},
		{"a thousand", district("[" + strings.Repeat(loc+",", 999) + loc + "]"), 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := decodeArray[District](DistrictsFile, []byte(tt.file), &Report{})
			if len(f.recs) != 1 {
				t.Fatalf("%d districts decoded, want 1", len(f.recs))
			}
			got := f.recs[0].Localities
			if len(got) != tt.want || cap(got) != tt.want {
				t.Errorf("localities: len %d, cap %d; want both %d", len(got), cap(got), tt.want)
			}
		})
	}
	t.Run("a repeated key: the last", func(t *testing.T) {
		file := `[{"id": "00000000-0000-4000-8000-000000000001", "number": 1, "name": "First", "localities": [` + loc + `], "localities": [` + loc + `, ` + loc + `, ` + loc + `]}]`
		f := decodeArray[District](DistrictsFile, []byte(file), &Report{})
		if got := f.recs[0].Localities; len(got) != 3 || cap(got) != 3 {
			t.Errorf("localities: len %d, cap %d; want both 3", len(got), cap(got))
		}
	})
}
