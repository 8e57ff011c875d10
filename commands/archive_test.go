package commands_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"ballot/commands"
	"ballot/dataset"
	"ballot/internal/datasettest"
)

// archiveElection is an election of a test archive: its directory, the
// dataset directory it copies ("" for the embedded dataset), and the lines
// of its [election].
type archiveElection struct {
	dir, src string
	table    []string
}

// elections2022and2017 are an archive's two elections, copies of src: 2022
// and 2017, dated.
func elections2022and2017(src string) []archiveElection {
	return []archiveElection{
		{"2022", src, []string{`slug = "2022"`, `name = "General election 2022"`, `date = 2022-03-26`}},
		{"2017", src, []string{`slug = "2017"`, `name = "General election 2017"`, `date = 2017-06-03`}},
	}
}

const archiveTOML = "elections = [\"2022\", \"2017\"]\ncurrent = \"2022\"\n"

// writeArchive writes an archive of the elections into a new directory,
// with archive.toml holding manifest, and returns its path. Each
// candidate is given the person of their slug, the same in every election,
// so that the archive's only warnings are those a test makes.
func writeArchive(t *testing.T, manifest string, elections ...archiveElection) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "archive.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range elections {
		dir := filepath.Join(root, e.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var src fs.FS = dataset.DefaultFS()
		if e.src != "" {
			src = os.DirFS(e.src)
		}
		for _, name := range dataset.FileNames() {
			b, err := fs.ReadFile(src, name)
			if err != nil {
				continue // counts.json is optional
			}
			if name == dataset.ManifestFile {
				b = datasettest.ReplaceElection(b, "[election]\n"+strings.Join(e.table, "\n")+"\n")
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		editJSON(t, filepath.Join(dir, dataset.CandidatesFile), func(rs []map[string]any) {
			for _, r := range rs {
				r["person_id"] = personOf(r["slug"].(string))
			}
		})
	}
	return root
}

// personOf is the person_id of a test archive's candidate of the slug.
func personOf(slug string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("person/"+slug)).String()
}

// editJSON rewrites the JSON file at path, an array of records, with edit.
func editJSON(t *testing.T, path string, edit func(rs []map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rs []map[string]any
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	edit(rs)
	if b, err = json.Marshal(rs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceIn replaces old with new once in the file at path.
func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// archiveBreaks are the ways a test breaks an archive, each with the
// lines validate prints for it: nil for the broken election's own report,
// its directory before each file (as validate of the election alone
// prints it).
var archiveBreaks = []struct {
	name   string
	src    string // the elections' dataset: "" for the embedded one
	break_ func(t *testing.T, root string)
	want   []string
}{
	{"an unbalanced count in 2017", "", func(t *testing.T, root string) {
		// One vote moved from Robert Abela's total at count 6 of district 5.
		replaceIn(t, filepath.Join(root, "2017", dataset.CountsFile), `"totals":[9996,3799,3799,3799,3799,3799,`, `"totals":[9996,3799,3799,3799,3799,3798,`)
	}, nil},
	{"a person id on two names", prodValidDataset, func(t *testing.T, root string) {
		editJSON(t, filepath.Join(root, "2017", dataset.CandidatesFile), func(rs []map[string]any) { rs[1]["person_id"] = rs[0]["person_id"] })
	}, nil},
	{"a slug used twice", prodValidDataset, func(t *testing.T, root string) {
		replaceIn(t, filepath.Join(root, "2017", dataset.ManifestFile), `slug = "2017"`, `slug = "2022"`)
	}, []string{`2017/dataset.toml: election.slug: slug "2022" is already the slug of the election in 2022/dataset.toml: each election of an archive has a slug of its own`}},
	{"no current election", prodValidDataset, func(t *testing.T, root string) {
		replaceIn(t, filepath.Join(root, "archive.toml"), `current = "2022"`, ``)
	}, []string{`archive.toml: current: key "current" is missing: name the current election by its slug ("2022" or "2017")`}},
	{"current naming no election", prodValidDataset, func(t *testing.T, root string) {
		replaceIn(t, filepath.Join(root, "archive.toml"), `current = "2022"`, `current = "2016"`)
	}, []string{`archive.toml: current: no election has the slug "2016" (did you mean "2017"?); the slugs are "2022" and "2017"`}},
}

// brokenLines are the lines validate prints for the archive at root,
// broken as b: b's own, or those of its 2017 election alone, each after
// the directory.
func brokenLines(t *testing.T, root string, want []string) []string {
	t.Helper()
	if want != nil {
		return want
	}
	code, stdout, _ := run(t, "validate", filepath.Join(root, "2017"))
	if code != commands.ExitFailure || stdout == "" {
		t.Fatalf("validate of 2017 alone: exit %d, %q", code, stdout)
	}
	var lines []string
	for line := range strings.Lines(stdout) {
		lines = append(lines, "2017/"+strings.TrimSuffix(line, "\n"))
	}
	return lines
}

// TestValidateArchive: validate checks every election of an archive with
// the rules of a dataset, each problem after its election's directory,
// and the archive's own rules, with the summary line of a dataset's.
func TestValidateArchive(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		root := writeArchive(t, archiveTOML, elections2022and2017("")...)
		code, stdout, stderr := run(t, "validate", root)
		if code != commands.ExitOK || stdout != "" || stderr != "ballot: archive valid: 2 elections, 0 errors, 0 warnings\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	for _, b := range archiveBreaks {
		t.Run(b.name, func(t *testing.T) {
			root := writeArchive(t, archiveTOML, elections2022and2017(b.src)...)
			b.break_(t, root)
			want := brokenLines(t, root, b.want)
			code, stdout, stderr := run(t, "validate", root)
			if code != commands.ExitFailure || stdout != strings.Join(want, "\n")+"\n" ||
				stderr != fmt.Sprintf("ballot: archive invalid: %s, 0 warnings\n", dataset.Quantity(len(want), "error")) {
				t.Errorf("exit %d, stdout:\n%s\nstderr %q\nwant exit 1 and:\n%s", code, stdout, stderr, strings.Join(want, "\n"))
			}
			// serve refuses to start on it, with validate's report.
			if code, out, errOut := runWithin(t, 30*time.Second, "serve", "--listen", "127.0.0.1:0", "--data", root); code != commands.ExitFailure || out != "" || errOut != stdout+stderr {
				t.Errorf("serve: exit %d, stdout %q, stderr:\n%s\nwant 1 and validate's report:\n%s", code, out, errOut, stdout+stderr)
			}
			code, stdout, _ = run(t, "validate", "--format", "json", root)
			var report struct {
				Errors []struct {
					File, Pointer, Message string
				}
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != commands.ExitFailure || len(report.Errors) != len(want) {
				t.Fatalf("--format json: exit %d, %v:\n%s", code, err, stdout)
			}
			for i, p := range report.Errors {
				if !strings.HasPrefix(want[i], p.File+":") {
					t.Errorf("--format json: error %d in %q, want the file of %q", i, p.File, want[i])
				}
			}
		})
	}
	t.Run("a name and party without a person in 2017", func(t *testing.T) {
		root := writeArchive(t, archiveTOML, elections2022and2017(prodValidDataset)...)
		editJSON(t, filepath.Join(root, "2017", dataset.CandidatesFile), func(rs []map[string]any) {
			for _, r := range rs {
				if r["slug"] == "person-3" {
					delete(r, "person_id")
				}
			}
		})
		code, stdout, stderr := run(t, "validate", root)
		want := "2022/candidates.json: warning: Person Number3, BM, in 2017 and 2022 (a person_id in 2022 only): give both the same person key if they are one person\n"
		if code != commands.ExitOK || stdout != want || stderr != "ballot: archive valid: 2 elections, 0 errors, 1 warning\n" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, stdout, stderr, want)
		}
		if code, _, _ := run(t, "validate", "--strict", root); code != commands.ExitFailure {
			t.Errorf("--strict: exit %d, want 1", code)
		}
	})
}

// TestServeArchiveReload: serve serves an archive's current election; a
// reload of an archive with any election broken, or with the archive's
// own rules broken, is refused with the election named, and the last good
// archive keeps serving; mended, the next reload serves it.
func TestServeArchiveReload(t *testing.T) {
	for _, b := range archiveBreaks {
		t.Run(b.name, func(t *testing.T) {
			root := writeArchive(t, archiveTOML, elections2022and2017(b.src)...)
			p := serveInProcess(t, "--data", root, "--admin-listen", "127.0.0.1:0")
			admin := prodAdmin(t, p)
			hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: nil}}
			before := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/candidates"), nil)
			code, alone, _ := run(t, "query", "--data", filepath.Join(root, "2022"), "candidates")
			if before.status != http.StatusOK || code != 0 || dataOf(t, before.body) != dataOf(t, []byte(alone)) {
				t.Fatalf("GET /candidates: %d; want 200 and the 2022 election's candidates", before.status)
			}
			saved := copyTree(t, root)
			b.break_(t, root)
			want := brokenLines(t, root, b.want)
			r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), jsonString(want[0])) {
				t.Errorf("POST /reload: %d %s; want 422 naming %s", r.status, r.body, want[0])
			}
			// The log, written out within 100 ms, names it too.
			logged := `msg="reload refused: still serving the previous dataset"`
			named := strings.ReplaceAll(strings.ReplaceAll(want[0], `\`, `\\`), `"`, `\"`)
			prodEventually(t, 10*time.Second, "the refusal's log line", func() (bool, string) {
				log := p.stderr.String()
				return strings.Contains(log, logged) && strings.Contains(log, named), "not in the log"
			})
			after := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/candidates"), nil)
			if after.status != http.StatusOK || after.header.Get("ETag") != before.header.Get("ETag") {
				t.Errorf("GET /candidates after the refusal: %d, ETag %q; want 200 and the last good one's %q", after.status, after.header.Get("ETag"), before.header.Get("ETag"))
			}
			// Mended, with a new 2022: the reload serves it.
			restoreTree(t, root, saved)
			editJSON(t, filepath.Join(root, "2022", dataset.CandidatesFile), func(rs []map[string]any) { rs[0]["elected"] = !(rs[0]["elected"] == true) })
			if r := prodDo(t, hc, http.MethodPost, "http://"+admin+"/reload", nil); r.status != http.StatusOK {
				t.Errorf("POST /reload of the mended archive: %d %s", r.status, r.body)
			}
			if after := prodDo(t, hc, http.MethodGet, p.url("/api/public/v1/candidates"), nil); after.header.Get("ETag") == before.header.Get("ETag") {
				t.Errorf("GET /candidates after the mended reload: ETag %q unchanged", after.header.Get("ETag"))
			}
		})
	}
}

// TestServeArchiveWatch: serve --watch sees a change inside an election's
// directory, and reloads the archive: here, a 2017 broken, refused by
// name.
func TestServeArchiveWatch(t *testing.T) {
	root := writeArchive(t, archiveTOML, elections2022and2017(prodValidDataset)...)
	s := watchServe(t, "--data", root, "--watch")
	editJSON(t, filepath.Join(root, "2017", dataset.CandidatesFile), func(rs []map[string]any) { rs[1]["person_id"] = rs[0]["person_id"] })
	s.waitLog(t, regexp.MustCompile(`msg="reload refused: still serving the previous dataset".*2017/candidates\.json: /1/person_id: `), "the refusal naming 2017")
}

// dataOf is the data array of an answer's body.
func dataOf(t *testing.T, body []byte) string {
	t.Helper()
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("not an answer: %v: %s", err, body)
	}
	return string(env.Data)
}

// jsonString is s as a JSON string holds it, without the quotes.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// copyTree returns the files under root, by path, to put back with
// restoreTree.
func copyTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[path], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func restoreTree(t *testing.T, root string, files map[string][]byte) {
	t.Helper()
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryElection: query of an archive prints what it prints of the
// current election's dataset, or of the one --election names; an election
// the archive does not hold is a usage error naming those it holds.
func TestQueryElection(t *testing.T) {
	root := writeArchive(t, archiveTOML, elections2022and2017(prodValidDataset)...)
	// 2017 differs: its first candidate elected.
	editJSON(t, filepath.Join(root, "2017", dataset.CandidatesFile), func(rs []map[string]any) { rs[0]["elected"] = true })
	generated := regexp.MustCompile(`"generatedAt":"[^"]*"`)
	for _, tt := range []struct {
		args []string
		dir  string
	}{
		{nil, "2022"},
		{[]string{"--election", "2017"}, "2017"},
		{[]string{"--election", "2022"}, "2022"},
	} {
		for _, q := range [][]string{{"candidates", "--elected", "true"}, {"parties"}, {"candidates", "person-1"}} {
			code, got, stderr := run(t, append(append([]string{"query", "--data", root}, tt.args...), q...)...)
			_, want, _ := run(t, append([]string{"query", "--data", filepath.Join(root, tt.dir)}, q...)...)
			if code != 0 || stderr != "" || generated.ReplaceAllString(got, "") != generated.ReplaceAllString(want, "") {
				t.Errorf("query %v %v: exit %d, stderr %q,\n%s\nwant the %s election's:\n%s", tt.args, q, code, stderr, got, tt.dir, want)
			}
		}
	}
	if _, a, _ := run(t, "query", "--data", root, "--election", "2017", "candidates", "--elected", "true"); a == "" || strings.Count(a, `"person-1"`) != 1 {
		t.Errorf("2017's elected: %s; want person-1 among them", a)
	}
	code, stdout, stderr := run(t, "query", "--data", root, "--election", "2016", "parties")
	if want := "ballot: --election \"2016\" names no election (did you mean \"2017\"?): the elections are 2022 and 2017\n"; code != commands.ExitUsage || stdout != "" || stderr != want {
		t.Errorf("an unknown election: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
	}
}

// TestDiffArchives: diff of two archives says which elections were added
// and removed, whether the current one changed, and what changed in each
// election in both, as two datasets' diff says it, against the golden
// output in text and JSON (testdata/diff/archive-NAME.txt and .json), the
// archives' directories written OLD and NEW.
func TestDiffArchives(t *testing.T) {
	old := writeArchive(t, archiveTOML, elections2022and2017(prodValidDataset)...)
	changed := writeArchive(t, "elections = [\"2022\", \"2013\"]\ncurrent = \"2022\"\n",
		archiveElection{"2022", prodValidDataset, []string{`slug = "2022"`, `name = "General election 2022"`, `date = 2022-03-26`}},
		archiveElection{"2013", prodValidDataset, []string{`slug = "2013"`, `name = "General election 2013"`, `date = 2013-03-09`}})
	editJSON(t, filepath.Join(changed, "2022", dataset.CandidatesFile), func(rs []map[string]any) { rs[0]["elected"] = true })
	replaceIn(t, filepath.Join(changed, "2022", dataset.ManifestFile), `name = "General election 2022"`, `name = "General election of 2022"`)
	recurrent := writeArchive(t, "elections = [\"2022\", \"2017\"]\ncurrent = \"2017\"\n", elections2022and2017(prodValidDataset)...)
	tests := []struct {
		name     string
		old, new string
		code     int
	}{
		{"identical", old, old, 0},
		{"changed", old, changed, 1},
		{"current", old, recurrent, 1},
		{"dataset", prodValidDataset, old, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, format := range []string{"txt", "json"} {
				args := []string{"diff", tt.old, tt.new}
				if format == "json" {
					args = []string{"diff", "--format", "json", tt.old, tt.new}
				}
				code, stdout, stderr := run(t, args...)
				if code != tt.code || stderr != "" {
					t.Errorf("%v: exit %d, stderr %q; want %d and nothing", args, code, stderr, tt.code)
				}
				out := strings.NewReplacer(tt.old, "OLD", tt.new, "NEW").Replace(stdout)
				if format == "json" && !json.Valid([]byte(out)) {
					t.Errorf("--format json printed no JSON:\n%s", out)
				}
				golden(t, filepath.Join("testdata", "diff", "archive-"+tt.name+"."+format), []byte(out))
			}
		})
	}
}
