package dataset

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Letters that Unicode does not decompose into a base letter and a mark, so
// stripping marks alone would keep them; Maltese ħ is the one that matters.
var undecomposable = strings.NewReplacer("ħ", "h", "Ħ", "h", "ø", "o", "Ø", "o", "ł", "l", "Ł", "l", "đ", "d", "Đ", "d", "ß", "ss", "æ", "ae", "Æ", "ae", "œ", "oe", "Œ", "oe")

// Fold returns s lower-cased with its accents and diacritics removed, so
// that "Żebbuġ", "ZEBBUG" and "zebbug" compare equal. Ordering and
// case-insensitive lookups use it.
func Fold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	t := folders.Get().(transform.Transformer)
	defer folders.Put(t)
	t.Reset()
	out, _, err := transform.String(t, undecomposable.Replace(s))
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// folders recycle the chain that strips marks: building one costs more
// than folding a name.
var folders = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Slugify turns a name into an ASCII slug of lower-case letters and digits
// joined by single hyphens: "San Ġiljan" becomes "san-giljan" and
// "Ta' Xbiex" becomes "ta-xbiex".
func Slugify(s string) string {
	var b strings.Builder
	pendingHyphen := false
	for _, r := range Fold(s) {
		switch {
		case r == '\'' || r == '’' || r == '.':
			// Apostrophes and initials' dots join the letters around them.
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if pendingHyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingHyphen = false
			b.WriteRune(r)
		default:
			pendingHyphen = true
		}
	}
	return b.String()
}
