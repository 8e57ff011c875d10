// Package docs_test holds the manual to what exists: every relative link
// and #anchor in README.md and docs/ names a file of the repository and,
// where it has an anchor, a heading (or an <a id>) of that file; and
// API.md's field tables follow server/openapi.json. The manual is Markdown
// only; this test is its one Go file.
package docs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

var (
	// link is a Markdown link or image: [text](target) or ![alt](target).
	link = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// htmlAnchor is an anchor written as HTML.
	htmlAnchor = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	heading    = regexp.MustCompile(`^#{1,6} (.*)$`)
)

// manual lists the Markdown files the test holds: README.md and docs/*.md.
func manual(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("docs/ holds %d Markdown files, want the manual's (API, publishing, pages, operating, development, performance)", len(files))
	}
	return append([]string{"../README.md"}, files...)
}

// lines are a Markdown file's lines outside fenced code blocks.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for l := range strings.Lines(string(b)) {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, strings.TrimRight(l, "\n"))
		}
	}
	return out
}

// slug is the anchor GitHub gives a heading: lower case, without the
// punctuation, spaces as hyphens.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of a Markdown file: each heading's slug (the
// second of a name with "-1", and so on) and each <a id>.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range lines(t, path) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		if m := heading.FindStringSubmatch(l); m != nil {
			s := slug(m[1])
			if n := seen[s]; n > 0 {
				out[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				out[s] = true
			}
			seen[s]++
		}
	}
	return out
}

func TestManualLinks(t *testing.T) {
	known := map[string]map[string]bool{}
	checked := 0
	for _, file := range manual(t) {
		for i, l := range lines(t, file) {
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: %s: no such file", file, i+1, target)
						continue
					}
				}
				if frag == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: %s: an anchor in a file that is not Markdown", file, i+1, target)
					continue
				}
				if known[dest] == nil {
					known[dest] = anchors(t, dest)
				}
				if !known[dest][frag] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", file, i+1, target, dest, frag)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links checked: the manual is not where the test looks", checked)
	}
}

func TestSlug(t *testing.T) {
	for title, want := range map[string]string{
		"Quick start":                            "quick-start",
		"`ballot validate [DIR]`":                "ballot-validate-dir",
		"`GET /` : the index":                    "get---the-index",
		"Memory of `ballot import` (2026-11-26)": "memory-of-ballot-import-2026-11-26",
		"Shared limits across replicas":          "shared-limits-across-replicas",
	} {
		if got := slug(title); got != want {
			t.Errorf("slug(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestFieldTablesFollowOpenAPI holds the record tables of docs/API.md to
// server/openapi.json, the source of truth for every field: each table
// lists exactly the properties of its schema (a district's localities as
// localities[].NAME), so the manual cannot drift from what is served.
func TestFieldTablesFollowOpenAPI(t *testing.T) {
	b, err := os.ReadFile("../server/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	props := func(schema, prefix string) []string {
		var out []string
		for name := range doc.Components.Schemas[schema].Properties {
			out = append(out, prefix+name)
		}
		return out
	}
	want := map[string][]string{
		"`GET /parties`":    props("Party", ""),
		"`GET /districts`":  append(props("District", ""), props("Locality", "localities[].")...),
		"`GET /candidates`": props("Candidate", ""),
		"`GET /results`": slices.Concat(props("CountSheet", ""), props("Count", "counts[]."), props("Candidacy", "candidacies[]."), props("Tie", "ties[]."),
			props("Correction", "corrections[]."), props("Defect", "defects[].")),
		"`GET /results/national`": append(props("NationalTotals", ""), props("PartyTotal", "parties[].")...),
		"`GET /elections`":        props("Election", ""),
		"`GET /people/{slug_or_id}`": append(append(props("Person", ""), props("PersonCandidacy", "candidacies[].")...),
			props("PersonResult", "candidacies[].results[].")...),
	}
	got := map[string][]string{}
	section := ""
	row := regexp.MustCompile("^\\| (`[^|]+`) \\|")
	name := regexp.MustCompile("`([^`]+)`")
	inTable := false
	for _, l := range lines(t, "API.md") {
		if m := heading.FindStringSubmatch(l); m != nil {
			section, inTable = m[1], false
			continue
		}
		if strings.HasPrefix(l, "| field | type | meaning |") {
			inTable = true
			continue
		}
		if !strings.HasPrefix(l, "|") {
			inTable = false
		}
		if m := row.FindStringSubmatch(l); inTable && m != nil {
			for _, n := range name.FindAllStringSubmatch(m[1], -1) { // a row may name several
				got[section] = append(got[section], n[1])
			}
		}
	}
	for section, fields := range want {
		if len(fields) == 0 {
			t.Fatalf("openapi.json has no properties for %s", section)
		}
		slices.Sort(fields)
		listed := slices.Sorted(slices.Values(got[section]))
		if !slices.Equal(listed, fields) {
			t.Errorf("docs/API.md's table under %s lists %v; openapi.json's schema has %v", section, listed, fields)
		}
	}
}
