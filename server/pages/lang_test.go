package pages

import (
	"regexp"
	"slices"
	"testing"
)

// TestStringTables: every key of the interface is in both languages'
// tables, with the same verbs, and no string is left empty.
func TestStringTables(t *testing.T) {
	verbs := regexp.MustCompile(`%(\[\d\])?[ds]`)
	for key, en := range stringsEN {
		mt, ok := stringsMT[key]
		if !ok {
			t.Errorf("%q has no Maltese string", key)
			continue
		}
		if en == "" || mt == "" {
			t.Errorf("%q is empty: %q, %q", key, en, mt)
		}
		ve, vm := verbs.FindAllString(en, -1), verbs.FindAllString(mt, -1)
		slices.Sort(ve)
		slices.Sort(vm)
		if !slices.Equal(ve, vm) {
			t.Errorf("%q: English verbs %q, Maltese %q", key, ve, vm)
		}
	}
	for key := range stringsMT {
		if _, ok := stringsEN[key]; !ok {
			t.Errorf("%q has no English string", key)
		}
	}
}

// TestNegotiate: the language of / from Accept-Language.
func TestNegotiate(t *testing.T) {
	for _, tt := range []struct {
		header []string
		want   *Lang
	}{
		{nil, English},
		{[]string{""}, English},
		{[]string{"en-GB,en;q=0.9"}, English},
		{[]string{"mt"}, Maltese},
		{[]string{"mt-MT,mt;q=0.9,en;q=0.8"}, Maltese},
		{[]string{"MT"}, Maltese},
		{[]string{"fr-FR, mt;q=0.5"}, Maltese},
		{[]string{"en, mt;q=0.9"}, English},
		{[]string{"mt;q=0.5, en;q=0.5"}, English},
		{[]string{"mt;q=0"}, English},
		{[]string{"mt;q=x"}, English},
		{[]string{"de", "mt;q=0.3"}, Maltese},
	} {
		if got := Negotiate(tt.header); got != tt.want {
			t.Errorf("Accept-Language %q: %s, want %s", tt.header, got.Code, tt.want.Code)
		}
	}
}
