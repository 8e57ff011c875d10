package pages

import (
	"fmt"
	"html/template"
	"strings"

	"ballot/dataset"
)

// Lang is one language of the pages: its code (the lang attribute), the
// prefix of its pages' paths, and its table of the interface's strings
// (strings_en.go, strings_mt.go). Every word of the interface is in the
// tables, so that a translator corrects it in one place; the data's own
// words (names, the dataset's title and notes) are shown as the dataset
// gives them, with the lang attribute of their language.
type Lang struct {
	Code   string // "en", "mt"
	Prefix string // of every page's path: "" for English, "/mt" for Maltese
	Home   string // the home page's stable path: /en/ or /mt/
	t      map[string]string
}

// The languages, English first: the default when Accept-Language prefers
// neither.
var (
	English = &Lang{Code: "en", Prefix: "", Home: "/en/", t: stringsEN}
	Maltese = &Lang{Code: "mt", Prefix: "/mt", Home: "/mt/", t: stringsMT}
	Langs   = []*Lang{English, Maltese}
)

// T is the interface string key in l, formatted with args when the string
// holds verbs. A key missing from a table is a mistake that
// TestStringTables finds; it shows as the key itself.
func (l *Lang) T(key string, args ...any) string {
	s, ok := l.t[key]
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// Num is n with its digits grouped by threes, as the language writes a
// number of votes: 22,816 in English and in Maltese.
func (l *Lang) Num(n int) string { return dataset.Thousands(n) }

// other is the language a page's switch offers.
func (l *Lang) other() *Lang {
	if l == English {
		return Maltese
	}
	return English
}

// langAttr is ` lang="code"` when text in code sits on a page in another
// language, and nothing otherwise.
func langAttr(page, text string) template.HTMLAttr {
	if text == "" || text == page {
		return ""
	}
	return template.HTMLAttr(` lang="` + text + `"`)
}

// Negotiate picks the language of "/" from an Accept-Language header:
// Maltese when it ranks Maltese above English (a language left out ranks
// 0), English otherwise.
func Negotiate(acceptLanguage []string) *Lang {
	q := map[string]float64{}
	for _, h := range acceptLanguage {
		for _, item := range strings.Split(h, ",") {
			tag, params, _ := strings.Cut(item, ";")
			tag = strings.ToLower(strings.TrimSpace(tag))
			primary, _, _ := strings.Cut(tag, "-")
			w := 1.0
			if name, value, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(name) == "q" {
				if _, err := fmt.Sscanf(strings.TrimSpace(value), "%g", &w); err != nil {
					w = 0
				}
			}
			if primary == "mt" || primary == "en" {
				q[primary] = max(q[primary], w)
			}
		}
	}
	if q["mt"] > 0 && q["mt"] > q["en"] {
		return Maltese
	}
	return English
}
