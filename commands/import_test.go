package commands_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ballot/commands"
	"ballot/dataset"
	"ballot/dataset/sheet"
)

var (
	importExample = filepath.Join("testdata", "import", "example")
	importInputs  = []string{dataset.ManifestFile, sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile}
	importOutputs = []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile}
)

// readExample returns the README's example sheets, to be changed by a test.
func readExample(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range importInputs {
		b, err := os.ReadFile(filepath.Join(importExample, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readOutputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range importOutputs {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}

// TestImportExample imports the publishers' manual's example: the output
// is the golden dataset, passes validate, and a second import gives the
// same bytes. docs/PUBLISHING.md shows each example file whole, so it
// cannot drift from what is tested.
func TestImportExample(t *testing.T) {
	manual, err := os.ReadFile(filepath.Join("..", "docs", "PUBLISHING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range readExample(t) {
		if !bytes.Contains(manual, append([]byte("```\n"), b...)) && !bytes.Contains(manual, append([]byte("```toml\n"), b...)) && !bytes.Contains(manual, append([]byte("```csv\n"), b...)) {
			t.Errorf("docs/PUBLISHING.md does not show %s as it is in %s", name, importExample)
		}
	}

	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	for _, out := range []string{first, second} {
		code, stdout, stderr := run(t, "import", importExample, out)
		if code != commands.ExitOK || stdout != "" || stderr != readComma+"ballot: imported "+importExample+" into "+out+"\n" {
			t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	a, b := readOutputs(t, first), readOutputs(t, second)
	for _, name := range importOutputs {
		golden(t, filepath.Join("testdata", "import", "example-out", name), a[name])
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two imports of the same sheets", name)
		}
	}
	if code, _, stderr := run(t, "validate", first); code != commands.ExitOK {
		t.Errorf("validate of the import: exit %d, %s", code, stderr)
	}
}

// readComma is what import says of the example's CSV files, read with
// cells separated by commas.
const readComma = "ballot: read parties.csv: separated by ','\n" +
	"ballot: read districts.csv: separated by ','\n" +
	"ballot: read candidates.csv: separated by ','\n"

// semicolons returns the example's CSV files as a spreadsheet exports them
// where the decimal mark is a comma: cells separated by ';', and a cell
// that holds one quoted.
func semicolons(t *testing.T) map[string][]byte {
	t.Helper()
	files := readExample(t)
	for _, name := range []string{sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile} {
		var lines []string
		for _, line := range strings.Split(string(files[name]), "\n") {
			cells := strings.Split(line, ",")
			for i, c := range cells {
				if strings.Contains(c, ";") {
					cells[i] = `"` + c + `"`
				}
			}
			lines = append(lines, strings.Join(cells, ";"))
		}
		files[name] = []byte(strings.Join(lines, "\n"))
	}
	return files
}

// TestImportDelimiter: a folder exported with cells separated by ';' is
// imported as the example is, and stderr says that each file was read so;
// --delimiter sets the delimiter instead of the guess, and one the header
// row contradicts is a problem that names both; any other --delimiter is
// a usage error.
func TestImportDelimiter(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFiles(t, src, semicolons(t))
	readSemicolon := "ballot: read parties.csv: separated by ';'%[1]s\n" +
		"ballot: read districts.csv: separated by ';'%[1]s\n" +
		"ballot: read candidates.csv: separated by ';'%[1]s\n"
	tests := []struct {
		name   string
		flags  []string
		code   int
		stdout string
		stderr string // with SRC and OUT for the directories
	}{
		{"guessed", nil, commands.ExitOK, "", fmt.Sprintf(readSemicolon, "") + "ballot: imported SRC into OUT\n"},
		{"given", []string{"--delimiter", ";"}, commands.ExitOK, "", fmt.Sprintf(readSemicolon, " (--delimiter)") + "ballot: imported SRC into OUT\n"},
		{"given otherwise", []string{"--delimiter", ","}, commands.ExitFailure,
			"parties.csv:1: the cells are read as separated by ',' (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n" +
				"districts.csv:1: the cells are read as separated by ',' (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n" +
				"candidates.csv:1: the cells are read as separated by ',' (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n",
			"ballot: read parties.csv: separated by ',' (--delimiter)\n" +
				"ballot: read districts.csv: separated by ',' (--delimiter)\n" +
				"ballot: read candidates.csv: separated by ',' (--delimiter)\n" +
				"ballot: import failed: 3 problems, nothing written\n"},
		{"tab given", []string{"--delimiter", "tab"}, commands.ExitFailure,
			"parties.csv:1: the cells are read as separated by tabs (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n" +
				"districts.csv:1: the cells are read as separated by tabs (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n" +
				"candidates.csv:1: the cells are read as separated by tabs (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed\n",
			"ballot: read parties.csv: separated by tabs (--delimiter)\n" +
				"ballot: read districts.csv: separated by tabs (--delimiter)\n" +
				"ballot: read candidates.csv: separated by tabs (--delimiter)\n" +
				"ballot: import failed: 3 problems, nothing written\n"},
		{"not a delimiter", []string{"--delimiter", "|"}, commands.ExitUsage, "", "ballot: --delimiter must be ',', ';' or tab, got \"|\"\n"},
		{"empty", []string{"--delimiter="}, commands.ExitUsage, "", "ballot: --delimiter must be ',', ';' or tab, got \"\"\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out"+strconv.Itoa(i))
			code, stdout, stderr := run(t, append(append([]string{"import"}, tt.flags...), src, out)...)
			if want := strings.NewReplacer("SRC", src, "OUT", out).Replace(tt.stderr); code != tt.code || stdout != tt.stdout || stderr != want {
				t.Fatalf("exit %d, stdout\n%s\nstderr\n%s\nwant exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr, tt.code, tt.stdout, want)
			}
			if code != commands.ExitOK {
				return
			}
			for name, b := range readOutputs(t, out) {
				want, err := os.ReadFile(filepath.Join("testdata", "import", "example-out", name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, want) {
					t.Errorf("%s differs from the import of the example", name)
				}
			}
		})
	}
}

// TestImportWarnings: names whose Maltese letters an export turned into
// "?" are warnings on stdout, at their cells; the import is written, and
// stderr counts the warnings. With a problem beside them, they are
// listed among the problems and counted apart.
func TestImportWarnings(t *testing.T) {
	files := readExample(t)
	files[sheet.CandidatesFile] = bytes.Replace(files[sheet.CandidatesFile], []byte("Ġorġ,Borġ,pn,"), []byte("?or?,Bor?,pn,"), 1)
	why := ` has "?" where a letter should stand: a sheet saved in an encoding without the Maltese letters (such as Windows-1252) has "?" in place of each ċ, ġ, ħ and ż; write the letters back and save it again as "CSV UTF-8": in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"; in LibreOffice Calc, File > Save As > "Text CSV" with "Edit filter settings" and the character set "Unicode (UTF-8)"` + "\n"
	warnings := "candidates.csv:4: given_name: warning: \"?or?\"" + why +
		"candidates.csv:4: family_name: warning: \"Bor?\"" + why
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	writeFiles(t, src, files)
	code, stdout, stderr := run(t, "import", src, out)
	if want := readComma + "ballot: imported " + src + " into " + out + " with 2 warnings\n"; code != commands.ExitOK || stdout != warnings || stderr != want {
		t.Errorf("exit %d, stdout\n%s\nstderr\n%s\nwant exit 0, stdout\n%s\nstderr\n%s", code, stdout, stderr, warnings, want)
	}
	if _, err := os.Stat(filepath.Join(out, dataset.CandidatesFile)); err != nil {
		t.Errorf("nothing written: %v", err)
	}

	files[sheet.CandidatesFile] = bytes.Replace(files[sheet.CandidatesFile], []byte("Arnold,Cassola,,10;11,no"), []byte("Arnold,Cassola,,10;11,x"), 1)
	writeFiles(t, src, files)
	code, stdout, stderr = run(t, "import", src, filepath.Join(dir, "out2"))
	wantOut := warnings + `candidates.csv:5: elected: "x" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown` + "\n"
	if want := readComma + "ballot: import failed: 1 problem and 2 warnings, nothing written\n"; code != commands.ExitFailure || stdout != wantOut || stderr != want {
		t.Errorf("exit %d, stdout\n%s\nstderr\n%s\nwant exit 1, stdout\n%s\nstderr\n%s", code, stdout, stderr, wantOut, want)
	}
}

// TestImportOneRowEdited: editing one row changes that record's bytes and
// nothing else.
func TestImportOneRowEdited(t *testing.T) {
	dir := t.TempDir()
	files := readExample(t)
	writeFiles(t, filepath.Join(dir, "before"), files)
	files[sheet.CandidatesFile] = bytes.Replace(files[sheet.CandidatesFile], []byte("Marija,Borġ,pn,6,no"), []byte("Marija,Borġ,pn,6,yes"), 1)
	writeFiles(t, filepath.Join(dir, "after"), files)
	for _, name := range []string{"before", "after"} {
		if code, _, stderr := run(t, "import", filepath.Join(dir, name), filepath.Join(dir, name+"-out")); code != commands.ExitOK {
			t.Fatalf("import %s: exit %d, %s", name, code, stderr)
		}
	}
	before, after := readOutputs(t, filepath.Join(dir, "before-out")), readOutputs(t, filepath.Join(dir, "after-out"))
	for _, name := range importOutputs {
		if name != dataset.CandidatesFile && !bytes.Equal(before[name], after[name]) {
			t.Errorf("%s changed", name)
		}
	}
	var b, a []json.RawMessage
	if json.Unmarshal(before[dataset.CandidatesFile], &b) != nil || json.Unmarshal(after[dataset.CandidatesFile], &a) != nil || len(a) != len(b) {
		t.Fatalf("candidates: %d records before, %d after", len(b), len(a))
	}
	for i := range a {
		changed := !bytes.Equal(a[i], b[i])
		if changed != (i == 1) {
			t.Errorf("record %d changed: %v, want only record 1 (Marija Borġ) changed", i, changed)
		}
	}
	if want := bytes.Replace(b[1], []byte(`"elected": false`), []byte(`"elected": true`), 1); !bytes.Equal(a[1], want) {
		t.Errorf("record 1 is\n%s\nwant\n%s", a[1], want)
	}

	// What a reviewer reads: ballot diff shows that one change and no other.
	beforeOut, afterOut := filepath.Join(dir, "before-out"), filepath.Join(dir, "after-out")
	code, stdout, stderr := run(t, "diff", beforeOut, afterOut)
	var id struct{ ID string }
	if err := json.Unmarshal(a[1], &id); err != nil {
		t.Fatal(err)
	}
	want := "candidates: 0 added, 0 removed, 1 changed\n" +
		"  ~ " + id.ID + " slug marija-borg \"Marija Borġ\"\n" +
		"      elected: false → true\n"
	if code != commands.ExitFailure || !strings.Contains(stdout, want) || strings.Count(stdout, "→") != 1 ||
		!strings.Contains(stderr+stdout, "ballot: datasets differ: 0 added, 0 removed, 1 changed, 0 warnings") {
		t.Errorf("diff before after: exit %d, stdout\n%s\nstderr %s\nwant exit %d with\n%s", code, stdout, stderr, commands.ExitFailure, want)
	}
}

// TestImportMalformed: each malformed sheet gives its FILE:LINE report
// (golden), exit 1, and writes nothing.
func TestImportMalformed(t *testing.T) {
	replace := func(file, old, new string) func(map[string][]byte) {
		return func(files map[string][]byte) {
			if !bytes.Contains(files[file], []byte(old)) {
				panic(file + " has no " + old)
			}
			files[file] = bytes.Replace(files[file], []byte(old), []byte(new), 1)
		}
	}
	tests := []struct {
		name   string
		change func(map[string][]byte)
	}{
		{"missing-column", func(files map[string][]byte) {
			files[sheet.CandidatesFile] = []byte("given_name,party,districts\nĠorġ,PL,5\n")
		}},
		{"unknown-column", func(files map[string][]byte) {
			replace(sheet.CandidatesFile, ",elected\n", ",electd\n")(files)
			replace(sheet.CandidatesFile, "Marija,Borġ,pn,", "Marija,Borġ,PNN,")(files) // still checked
		}},
		{"misspelt-required-column", replace(sheet.CandidatesFile, "given_name,", "given_nmae,")},
		{"unknown-party", replace(sheet.CandidatesFile, "Marija,Borġ,pn,", "Marija,Borġ,PNN,")},
		{"district-14", replace(sheet.CandidatesFile, "Arnold,Cassola,,10;11,", "Arnold,Cassola,,10;14,")},
		{"district-14-in-districts", replace(sheet.DistrictsFile, "13,Victoria,", "14,Victoria,")},
		{"duplicate-slug", func(files map[string][]byte) {
			replace(sheet.CandidatesFile, "given_name,", "slug,given_name,")(files)
			replace(sheet.CandidatesFile, "\nĠorġ,Borġ,PL", "\ngorg-borg,Ġorġ,Borġ,PL")(files)
			replace(sheet.CandidatesFile, "\nMarija,", "\n,Marija,")(files)
			replace(sheet.CandidatesFile, "\nĠorġ,Borġ,pn", "\ngorg-borg,Ġorġ,Borġ,pn")(files)
			for _, given := range []string{"Arnold", "Rita", "Pawlu", "Ċensa", "Toni"} {
				replace(sheet.CandidatesFile, "\n"+given+",", "\n,"+given+",")(files)
			}
		}},
		{"duplicate-row", func(files map[string][]byte) {
			files[sheet.CandidatesFile] = append(files[sheet.CandidatesFile], []byte("Marija,Borġ,PN,6,no\n")...)
		}},
		{"duplicate-party-slug", replace(sheet.PartiesFile, "pn,Partit Nazzjonalista,PN,", "pl,Partit Nazzjonalista,PN,")},
		{"bad-utf8", replace(sheet.CandidatesFile, "Marija", "Mar\xefja")},
		{"ragged-row", replace(sheet.CandidatesFile, "Arnold,Cassola,,10;11,no", "Arnold,Cassola,,10;11")},
		{"hidden-text", func(files map[string][]byte) {
			replace(sheet.CandidatesFile, "Arnold,Cassola,", "\"Arnold\nJohn\",Cassola,")(files)
			replace(sheet.PartiesFile, "Partit Nazzjonalista", "Partit \u202eNazzjonalista")(files)
		}},
		{"bad-quote", replace(sheet.DistrictsFile, "7,Rabat,", "7,\"Rabat\"x,")},
		{"missing-file", func(files map[string][]byte) { delete(files, sheet.PartiesFile) }},
		{"manifest-unknown-key", replace(dataset.ManifestFile, "[ids]\nnamespace", "[ids]\nnamespac")},
		{"no-namespace", replace(dataset.ManifestFile, "\n[ids]\nnamespace = \"6f1c2a4e-8d3b-4c5a-9e7f-1a2b3c4d5e6f\"\n", "")},
		{"several", func(files map[string][]byte) {
			replace(sheet.PartiesFile, "#0054a6,https://pn.org.mt", "#0054A6,pn.org.mt")(files)
			replace(sheet.DistrictsFile, "5,Luqa,,yes,", "5,Luqa,,perhaps,")(files)
			replace(sheet.CandidatesFile, "Ġorġ,Borġ,PL,5;6,yes", "Ġorġ,,PL,5;5,yes")(files)
			replace(sheet.CandidatesFile, "Arnold,Cassola,,10;11,no", "Arnold,Cassola,,,no")(files)
			replace(dataset.ManifestFile, "url = \"https://news.example/\"", "url = \"news.example\"")(files)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := readExample(t)
			tt.change(files)
			src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
			writeFiles(t, src, files)
			code, stdout, stderr := run(t, "import", src, out)
			if code != commands.ExitFailure {
				t.Errorf("exit %d, want 1", code)
			}
			n := strings.Count(stdout, "\n")
			if want := "\nballot: import failed: "; !strings.Contains(stderr, want) || !strings.HasSuffix(stderr, ", nothing written\n") || n == 0 {
				t.Errorf("stderr %q, want %q… with the count of the %d problems", stderr, want, n)
			}
			golden(t, filepath.Join("testdata", "import", "reports", tt.name+".txt"), []byte(strings.ReplaceAll(stdout, src, "SRC")))
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Errorf("the import left %d entries beside its source (%v), want none", len(entries)-1, err)
			}
		})
	}
}

// TestImportOut: OUT must not exist or be empty, unless --force replaces it.
func TestImportOut(t *testing.T) {
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty"), filepath.Join(dir, "full")
	writeFiles(t, empty, nil)
	writeFiles(t, full, map[string][]byte{"dataset.toml": []byte("title = \"old\"\n"), "old.txt": []byte("old")})

	if code, _, stderr := run(t, "import", importExample, empty); code != commands.ExitOK {
		t.Errorf("into an empty directory: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := run(t, "import", importExample, full)
	if want := "ballot: " + full + " is not empty: give --force to replace it whole\n"; code != commands.ExitUsage || stdout != "" || stderr != want {
		t.Errorf("into a full directory: exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
	if b, err := os.ReadFile(filepath.Join(full, "old.txt")); err != nil || string(b) != "old" {
		t.Errorf("the refused import changed OUT: %q, %v", b, err)
	}
	if code, _, stderr := run(t, "import", "--force", importExample, full); code != commands.ExitOK {
		t.Errorf("--force: exit %d, %s", code, stderr)
	}
	entries, _ := os.ReadDir(full)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "candidates.json dataset.toml districts.json parties.json" {
		t.Errorf("after --force OUT holds %v, want the four dataset files", names)
	}
	for _, args := range [][]string{{"import", importExample}, {"import", filepath.Join(dir, "nope"), filepath.Join(dir, "out")}} {
		if code, _, _ := run(t, args...); code != commands.ExitUsage {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestImportOutParent: OUT's parent directory must exist (import makes
// OUT, not the directories above it); the usage error says which one is
// missing and how to make it, and nothing is written.
func TestImportOutParent(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "sheets"), readExample(t))
	writeFiles(t, filepath.Join(dir, "files"), map[string][]byte{"pub": []byte("a file")})
	t.Chdir(dir)
	tests := []struct{ name, out, want string }{
		{"parent missing", "pub/2022", "ballot: import: cannot write pub/2022: its parent directory pub does not exist; create it first (mkdir -p pub)\n"},
		{"grandparent missing", "pub/2022/final", "ballot: import: cannot write pub/2022/final: its parent directory pub/2022 does not exist; create it first (mkdir -p pub/2022)\n"},
		{"parent is a file", "files/pub/2022", "ballot: import: cannot write files/pub/2022: files/pub is not a directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "import", "sheets", tt.out)
			if code != commands.ExitUsage || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat("pub"); !os.IsNotExist(err) {
		t.Errorf("the refused imports made pub: %v", err)
	}
	if err := os.Mkdir("pub", 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "import", "sheets", "pub/2022"); code != commands.ExitOK {
		t.Errorf("once pub is made: exit %d, %s", code, stderr)
	}
}

// TestImportForceRefusesOtherDirectories: --force replaces a dataset
// directory (one holding dataset.toml) or an empty one, never a directory
// of other files, and the refusal touches nothing.
func TestImportForceRefusesOtherDirectories(t *testing.T) {
	for _, force := range []bool{true, false} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "photos")
			files := map[string][]byte{"notes.txt": []byte("notes"), "photo.jpg": []byte("\xff\xd8\xff")}
			writeFiles(t, out, files)
			args := []string{"import", importExample, out}
			if force {
				args = []string{"import", "--force", importExample, out}
			}
			code, stdout, stderr := run(t, args...)
			want := "ballot: " + out + " holds files and no dataset.toml: not a dataset directory; --force replaces only a dataset directory or an empty one\n"
			if code != commands.ExitUsage || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
			}
			entries, err := os.ReadDir(out)
			if err != nil || len(entries) != len(files) {
				t.Fatalf("OUT holds %v, %v; want only %v", entries, err, slices.Sorted(maps.Keys(files)))
			}
			for name, b := range files {
				if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s: %q, %v; want it untouched", name, got, err)
				}
			}
			siblings, _ := os.ReadDir(filepath.Dir(out))
			if len(siblings) != 1 {
				t.Errorf("the refused import left %v beside OUT", siblings)
			}
		})
	}
}

// TestImportOutApart: OUT that is SRC, holds it or lies inside it, or is
// a symbolic link (the one a server reads), is a usage error, even with
// --force, and SRC's sheets are left as they were.
func TestImportOutApart(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sheets")
	writeFiles(t, src, readExample(t))
	served := filepath.Join(dir, "served")
	writeFiles(t, served, nil)
	link := filepath.Join(dir, "current")
	if err := os.Symlink(served, link); err != nil {
		t.Fatal(err)
	}
	linkToSrc := filepath.Join(dir, "sheets-link")
	if err := os.Symlink(src, linkToSrc); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, out, want string }{
		{"OUT is SRC", src, "overlap"},
		{"OUT is a link to SRC", linkToSrc, "is a symbolic link"},
		{"OUT holds SRC", dir, "overlap"},
		{"OUT inside SRC", filepath.Join(src, "out"), "overlap"},
		{"OUT is the served link", link, "is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "import", "--force", src, tt.out)
			if code != commands.ExitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and a message with %q", code, stdout, stderr, tt.want)
			}
			for _, name := range importInputs {
				b, err := os.ReadFile(filepath.Join(src, name))
				if err != nil || !bytes.Equal(b, readExample(t)[name]) {
					t.Errorf("%s in SRC changed: %v", name, err)
				}
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the served link is no longer a link: %v", err)
			}
		})
	}
}

// TestImportSpreadsheetExport: the example as Excel's "CSV UTF-8" writes
// it on Windows (a byte-order mark, CRLF line ends, header names in
// another case, columns in another order, empty rows below the data) gives
// the same dataset byte for byte.
func TestImportSpreadsheetExport(t *testing.T) {
	files := readExample(t)
	for _, name := range []string{sheet.PartiesFile, sheet.DistrictsFile, sheet.CandidatesFile} {
		lines := strings.Split(strings.TrimSuffix(string(files[name]), "\n"), "\n")
		var rows []string
		for i, line := range lines {
			cells := strings.Split(line, ",")
			slices.Reverse(cells)
			if i == 0 {
				for j := range cells {
					cells[j] = strings.ToUpper(cells[j])
				}
			}
			rows = append(rows, strings.Join(cells, ","))
		}
		rows = append(rows, strings.Repeat(",", len(strings.Split(lines[0], ","))-1))
		files[name] = []byte("\uFEFF" + strings.Join(rows, "\r\n") + "\r\n")
	}
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "src"), files)
	if code, stdout, stderr := run(t, "import", filepath.Join(dir, "src"), filepath.Join(dir, "out")); code != commands.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got := readOutputs(t, filepath.Join(dir, "out"))
	for _, name := range importOutputs {
		want, err := os.ReadFile(filepath.Join("testdata", "import", "example-out", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[name], want) {
			t.Errorf("%s differs from the import of the example", name)
		}
	}
}

// TestImportBoundsTheProblems: of a candidates.csv of 3,000 rows each
// with an elected cell that is not yes or no, import prints the first
// dataset.KeptOfAKind, then a line with how many more of the same kind
// there are, and counts every one.
func TestImportBoundsTheProblems(t *testing.T) {
	files := readExample(t)
	var rows strings.Builder
	rows.WriteString("given_name,family_name,party,districts,elected\n")
	for i := range 3000 {
		fmt.Fprintf(&rows, "Given,Family%d,pn,%d,x\n", i, i%13+1)
	}
	files[sheet.CandidatesFile] = []byte(rows.String())
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFiles(t, src, files)
	code, stdout, stderr := run(t, "import", src, filepath.Join(dir, "out"))
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if want := readComma + "ballot: import failed: 3000 problems, nothing written\n"; code != commands.ExitFailure || stderr != want || len(lines) != dataset.KeptOfAKind+1 {
		t.Fatalf("exit %d, %d lines, stderr\n%s\nwant exit 1, %d lines, stderr\n%s", code, len(lines), stderr, dataset.KeptOfAKind+1, want)
	}
	why := `: elected: "x" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`
	if want := []string{
		"candidates.csv:2" + why,
		"candidates.csv:1001" + why,
		"candidates.csv: … and 2,000 more problems of the same kind",
	}; lines[0] != want[0] || !slices.Equal(lines[dataset.KeptOfAKind-1:], want[1:]) {
		t.Errorf("the first and the last lines:\n%s\n…\n%s\nwant\n%s", lines[0], strings.Join(lines[dataset.KeptOfAKind-1:], "\n"), strings.Join(want, "\n"))
	}
}
