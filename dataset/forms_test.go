package dataset

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the forms were checked with before: the rules as
// API.md states them, which each byte-by-byte check must match exactly.
var (
	uuidForm      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	slugForm      = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	colorForm     = regexp.MustCompile(`^#[0-9a-f]{6}$`)
	formsExamples = []string{
		"", "-", "a", "a-", "-a", "a-b", "a--b", "ab-cd-9", "Ab", "a_b", "a b", "ż", "a-ż",
		"#e30613", "#E30613", "#e3061", "#e306133", "e30613#", "#g30613", "##30613",
		"1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a5", "1C56F16B-A4A2-4C5E-8B6E-52BD95A2E4A5",
		"1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a", "1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a55",
		"1c56f16ba4a24c5e8b6e52bd95a2e4a5", "{1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a5}",
		"urn:uuid:1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a5", "1c56f16b-a4a2-4c5e-8b6e_52bd95a2e4a5",
		"1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4g5", "1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a\n",
	}
)

func checkForms(t *testing.T, s string) {
	t.Helper()
	for _, f := range []struct {
		name string
		got  bool
		want bool
	}{
		{"isCanonicalUUID", isCanonicalUUID(s), uuidForm.MatchString(s)},
		{"isUUID", isUUID(s), len(s) == 36 && uuidForm.MatchString(strings.ToLower(s))},
		{"isSlug", isSlug(s), slugForm.MatchString(s)},
		{"IsColor", IsColor(s), colorForm.MatchString(s)},
	} {
		if f.got != f.want {
			t.Errorf("%s(%q) = %t, want %t", f.name, s, f.got, f.want)
		}
	}
}

// TestForms holds each form's check to the regular expression it stands
// for, on the edges of each.
func TestForms(t *testing.T) {
	for _, s := range formsExamples {
		checkForms(t, s)
	}
	if !isSlug("ab-cd-9") || !IsColor("#e30613") || !isCanonicalUUID("1c56f16b-a4a2-4c5e-8b6e-52bd95a2e4a5") || !isUUID("1C56F16B-A4A2-4C5E-8B6E-52BD95A2E4A5") {
		t.Error("a form refuses its own example")
	}
}

// FuzzForms holds each form's check to its regular expression on any
// string.
func FuzzForms(f *testing.F) {
	for _, s := range formsExamples {
		f.Add(s)
	}
	f.Fuzz(checkForms)
}
