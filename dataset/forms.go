package dataset

import (
	"strings"

	"github.com/google/uuid"
)

// The forms a dataset's identifiers and colours take. Each is checked
// byte by byte, rather than by a regular expression: a check runs once
// for every id and slug of a load, and a lookup for every request that
// names a record, where a regular expression's machinery cost more than
// the rest of the rule (TestForms holds each to the expression it
// replaced).

// isUUID reports whether s is a UUID in canonical 8-4-4-4-12 form, in any
// letter case.
func isUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}

// isCanonicalUUID reports whether s is a UUID as a dataset must write it:
// canonical 8-4-4-4-12 form, lower case.
func isCanonicalUUID(s string) bool {
	return isUUID(s) && strings.ToLower(s) == s
}

// isSlug reports whether s is a slug: lower-case ASCII letters and digits
// joined by single hyphens.
func isSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && s[i-1] != '-': // not the first byte, checked above
		default:
			return false
		}
	}
	return true
}

// IsColor reports whether s is a colour as a party's may be written: a CSS
// hex colour of six lower-case digits, such as "#e30613".
func IsColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
