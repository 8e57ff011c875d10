package sheet_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// namespace is the ids.namespace of the test manifests.
const namespace = "6f1c2a4e-8d3b-4c5a-9e7f-1a2b3c4d5e6f"

const manifestTOML = `title = "Sample general election"
license = "CC-BY-4.0"

[publisher]
name = "Example Newsroom"
url = "https://news.example/"

[ids]
namespace = "` + namespace + `"
`

const partiesCSV = "slug,name,short_name\n" +
	"pl,Partit Laburista,PL\n" +
	"pn,Partit Nazzjonalista,PN\n"

// localities are the one locality of each district 1 to 13 in the minimal
// districts.csv.
var localities = [dataset.DefaultDistricts]string{"Valletta", "Birgu", "Żabbar", "Paola", "Luqa", "Qormi", "Rabat", "Birkirkara", "Msida", "Sliema", "Mosta", "Mellieħa", "Victoria"}

const districtsCSV = "number,locality\n" +
	"1,Valletta\n" +
	"2,Birgu\n" +
	"3,Żabbar\n" +
	"4,Paola\n" +
	"5,Luqa\n" +
	"6,Qormi\n" +
	"7,Rabat\n" +
	"8,Birkirkara\n" +
	"9,Msida\n" +
	"10,Sliema\n" +
	"11,Mosta\n" +
	"12,Mellieħa\n" +
	"13,Victoria\n"

const candidatesCSV = "given_name,family_name,party,districts\n" +
	"Ġorġ,Borġ,PL,5;6\n" +
	"Marija,Borġ,pn,6\n"

// everyDistrict returns rows of candidates.csv (given_name, family_name,
// party, districts, then empty cells after) that stand a candidate in each
// district but 5 and 6, those of candidatesCSV: a folder with them has no
// district to warn of. after ends each row.
func everyDistrict(after string) string {
	return "Rita,Camilleri,PL,1;2" + after + "\n" +
		"Pawlu,Grech,pn,3;4" + after + "\n" +
		"Ċensa,Vella,PL,7;8" + after + "\n" +
		"Toni,Zammit,pn,9;13" + after + "\n" +
		"Anna,Borg,PL,10;11" + after + "\n" +
		"Leli,Abela,pn,12" + after + "\n"
}

// sheets is a source folder held in memory: file name -> content.
type sheets map[string]string

// minimal is the smallest valid folder: the manifest, two parties, one
// locality per district and two candidates.
func minimal() sheets {
	return sheets{
		dataset.ManifestFile: manifestTOML,
		sheet.PartiesFile:    partiesCSV,
		sheet.DistrictsFile:  districtsCSV,
		sheet.CandidatesFile: candidatesCSV,
	}
}

// with returns a copy of s with the files given as name, content pairs
// replaced.
func (s sheets) with(pairs ...string) sheets {
	if len(pairs)%2 != 0 {
		panic("with: odd number of arguments")
	}
	out := maps.Clone(s)
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	return out
}

// without returns a copy of s without the named file.
func (s sheets) without(name string) sheets {
	out := maps.Clone(s)
	delete(out, name)
	return out
}

func (s sheets) fs() dataset.Files {
	files := dataset.Files{}
	for name, content := range s {
		files[name] = []byte(content)
	}
	return files
}

// districts returns a districts.csv with header, then rows (lines 2, 3, …,
// usually district 1's), then one row for each district 2 to 13 with its
// locality from localities and as many empty cells as the header has
// further columns.
func districts(header string, rows ...string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	pad := strings.Repeat(",", strings.Count(header, ",")-1)
	for n := 2; n <= dataset.DefaultDistricts; n++ {
		b.WriteString(strconv.Itoa(n) + "," + localities[n-1] + pad + "\n")
	}
	return b.String()
}

// importOK imports src and fails the test unless it succeeds.
func importOK(t *testing.T, src fs.FS) map[string][]byte {
	t.Helper()
	files, err := sheet.Import(src)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return files
}

// importProblems imports src, which must fail with sheet.Problems and no
// files, and returns the report, one problem a line.
func importProblems(t *testing.T, src fs.FS) string {
	t.Helper()
	files, err := sheet.Import(src)
	var problems sheet.Problems
	if !errors.As(err, &problems) {
		t.Fatalf("Import: error %v (%T), want sheet.Problems", err, err)
	}
	if files != nil {
		t.Errorf("Import returned %d files beside its problems, want none", len(files))
	}
	if len(problems) == 0 {
		t.Errorf("Import returned an empty Problems")
	}
	return err.Error()
}

// decode unmarshals one of the JSON files Import returns.
func decode[T any](t *testing.T, files map[string][]byte, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(files[name], &v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, files[name])
	}
	return v
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./dataset/sheet -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./dataset/sheet -update if the change is intended)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// outputs are the files Import returns, in the order they are compared.
var outputs = []string{dataset.ManifestFile, dataset.PartiesFile, dataset.DistrictsFile, dataset.CandidatesFile}

// TestImportMinimal: the minimal folder gives the four dataset files
// (golden), the manifest as it is, which dataset.LoadFiles accepts, and a
// second import gives the same bytes.
func TestImportMinimal(t *testing.T) {
	files := importOK(t, minimal().fs())
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, slices.Sorted(slices.Values(outputs))) {
		t.Fatalf("Import returned %v, want %v", got, outputs)
	}
	if string(files[dataset.ManifestFile]) != manifestTOML {
		t.Errorf("dataset.toml is\n%s\nwant the manifest as it is\n%s", files[dataset.ManifestFile], manifestTOML)
	}
	for _, name := range outputs[1:] {
		golden(t, filepath.Join("testdata", "minimal", name), files[name])
	}
	ds, err := dataset.LoadFiles(files)
	if err != nil {
		t.Fatalf("LoadFiles: %v", err)
	}
	if p, d, c := len(ds.Parties()), len(ds.Districts()), len(ds.Candidates()); p != 2 || d != 13 || c != 2 {
		t.Errorf("the dataset holds %d parties, %d districts, %d candidates; want 2, 13, 2", p, d, c)
	}
	again := importOK(t, minimal().fs())
	for _, name := range outputs {
		if !bytes.Equal(files[name], again[name]) {
			t.Errorf("%s differs between two imports of the same folder", name)
		}
	}
}

// TestImportAllColumns: every optional column of every file, header names
// in another case and order and with space around them, gives the golden
// files, which dataset.LoadFiles accepts.
func TestImportAllColumns(t *testing.T) {
	src := minimal().with(
		sheet.PartiesFile, " Wikipedia_URL ,LOGO_URL,leader_name,website,color,name_en,id,short_name,name,slug\n"+
			"https://en.wikipedia.org/wiki/Labour_Party_(Malta),https://pl.example/logo.png,Robert Abela,https://partitlaburista.org,#E2001A,Labour Party,,PL,Partit Laburista,pl\n"+
			",,,,,,9c0d5a8e-2f4b-4c6d-8e1f-3a5b7c9d1e2f,PN,Partit Nazzjonalista,pn\n",
		sheet.DistrictsFile, districts("number,locality,id,district_name,locality_slug,locality_name_en,split,note,source_url",
			"1,Valletta,,Il-Belt,,City of Valletta,no,the capital,https://electoral.gov.mt/d1",
			"1,Floriana,4B1D2C3E-5F6A-4B7C-8D9E-0F1A2B3C4D5E,Il-Belt,il-furjana,,,,https://electoral.gov.mt/d1",
			"1,Ħamrun,,,,,yes,\"only the part\nnorth of the road\",",
		),
		sheet.CandidatesFile, "person_id,Person,photo_url,website,is_incumbent,elected,slug,name,id,districts,party,family_name,given_name\n"+
			",gorg-borg,https://img.example/gorg.jpg,https://gorg.example,yes,no,,Ġorġ Borġ Jr,,1;2,pl,Borġ,Ġorġ\n"+
			"5E6F7A8B-9C0D-4E1F-8A2B-3C4D5E6F7A8B,,,,,,marija,,2d3e4f50-6172-4839-8a9b-0c1d2e3f4a5b,2,PN,Borġ,Marija\n"+
			",,,,n,,,,,13,,Cassola,Arnold\n",
	)
	files := importOK(t, src.fs())
	for _, name := range outputs[1:] {
		golden(t, filepath.Join("testdata", "all-columns", name), files[name])
	}
	if _, err := dataset.LoadFiles(files); err != nil {
		t.Fatalf("LoadFiles: %v", err)
	}
}

// TestImportIDs: an id not given is the name-based UUID (version 5) of
// ids.key_prefix and the record's natural key in ids.namespace, as the
// README says; an id given wins, in lower-case canonical form, and a
// district's may be given on any one of its rows.
func TestImportIDs(t *testing.T) {
	const givenDistrict = "4B1D2C3E-5F6A-4B7C-8D9E-0F1A2B3C4D5E"
	ns := uuid.MustParse(namespace)
	derived := func(prefix, key string) string { return uuid.NewSHA1(ns, []byte(prefix+key)).String() }
	for _, prefix := range []string{"", "2027/"} {
		t.Run("key_prefix="+strconv.Quote(prefix), func(t *testing.T) {
			manifest := strings.Replace(manifestTOML, "[ids]\n", "[ids]\nkey_prefix = "+strconv.Quote(prefix)+"\n", 1)
			src := minimal().with(
				dataset.ManifestFile, manifest,
				sheet.DistrictsFile, districts("number,locality,id", "1,Valletta,", "1,Floriana,"+givenDistrict),
			)
			files := importOK(t, src.fs())
			parties := decode[[]dataset.Party](t, files, dataset.PartiesFile)
			dists := decode[[]dataset.District](t, files, dataset.DistrictsFile)
			cands := decode[[]dataset.Candidate](t, files, dataset.CandidatesFile)
			if got, want := parties[0].ID, derived(prefix, "party/pl"); got != want {
				t.Errorf("party pl has id %s, want %s", got, want)
			}
			if got, want := dists[0].ID, strings.ToLower(givenDistrict); got != want {
				t.Errorf("district 1 has id %s, want the given %s", got, want)
			}
			if got, want := dists[4].ID, derived(prefix, "district/5"); got != want {
				t.Errorf("district 5 has id %s, want %s", got, want)
			}
			if got, want := cands[1].ID, derived(prefix, "candidate/marija-borg"); got != want {
				t.Errorf("candidate marija-borg has id %s, want %s", got, want)
			}
			if got, want := *cands[1].PartyID, derived(prefix, "party/pn"); got != want {
				t.Errorf("candidate marija-borg has party_id %s, want %s", got, want)
			}
			if got, want := cands[0].DistrictIDs, []string{derived(prefix, "district/5"), derived(prefix, "district/6")}; !slices.Equal(got, want) || cands[0].PrimaryDistrictID != want[0] {
				t.Errorf("candidate gorg-borg has district_ids %v, primary %s; want %v, the first primary", got, cands[0].PrimaryDistrictID, want)
			}
		})
	}
}

// TestImportPersons: a person key gives the name-based UUID of
// "person/" and the key in ids.namespace, without ids.key_prefix, so that
// two elections imported with one namespace give a person one id; a
// person_id given is kept, in lower case; neither is null, and left out
// of candidates.json.
func TestImportPersons(t *testing.T) {
	const given = "0B6C8F3E-3F4A-4A7E-9D2B-5C1E7A9F0D11"
	csv := "given_name,family_name,party,districts,person,person_id\n" +
		"Ġorġ,Borġ,PL,5;6,gorg-borg,\n" +
		"Marija,Borġ,pn,6,,\n" +
		"Pawlu,Borġ,pn,7,," + given + "\n"
	var ids []string
	for _, prefix := range []string{"malta-2017/", "malta-2022/"} {
		manifest := strings.Replace(manifestTOML, "[ids]\n", "[ids]\nkey_prefix = "+strconv.Quote(prefix)+"\n", 1)
		files := importOK(t, minimal().with(dataset.ManifestFile, manifest, sheet.CandidatesFile, csv).fs())
		cands := decode[[]dataset.Candidate](t, files, dataset.CandidatesFile)
		if cands[0].PersonID == nil {
			t.Fatalf("%s: gorg-borg has no person_id", prefix)
		}
		ids = append(ids, *cands[0].PersonID)
		if cands[1].PersonID != nil {
			t.Errorf("%s: marija-borg has person_id %s, want null", prefix, *cands[1].PersonID)
		}
		if got := cands[2].PersonID; got == nil || *got != strings.ToLower(given) {
			t.Errorf("%s: pawlu-borg has person_id %v, want the given %s in lower case", prefix, got, strings.ToLower(given))
		}
		if n := strings.Count(string(files[dataset.CandidatesFile]), `"person_id"`); n != 2 {
			t.Errorf("%s: candidates.json names person_id %d times, want twice: left out where null", prefix, n)
		}
	}
	if want := uuid.NewSHA1(uuid.MustParse(namespace), []byte("person/gorg-borg")).String(); ids[0] != want || ids[1] != want {
		t.Errorf("gorg-borg's person_id in two elections: %v, want %s in both", ids, want)
	}
}

// TestImportBooleans: the words a yes/no cell accepts (yes/no, true/false,
// 1/0, y/n and the Maltese iva/le), in any case and with space around
// them, in elected and is_incumbent alike; an empty cell is null.
func TestImportBooleans(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		cell string
		want *bool
	}{
		{"yes", &yes}, {"Y", &yes}, {"TRUE", &yes}, {"1", &yes}, {" Yes ", &yes}, {"iva", &yes}, {"Iva", &yes}, {" IVA ", &yes},
		{"no", &no}, {"N", &no}, {"False", &no}, {"0", &no}, {"le", &no}, {"Le", &no}, {"LE ", &no},
		{"", nil}, {"   ", nil},
	}
	for _, tt := range tests {
		for _, col := range []string{"elected", "is_incumbent"} {
			t.Run(col+"="+strconv.Quote(tt.cell), func(t *testing.T) {
				src := minimal().with(sheet.CandidatesFile, "given_name,family_name,party,districts,"+col+"\nĠorġ,Borġ,PL,5,"+tt.cell+"\n")
				c := decode[[]dataset.Candidate](t, importOK(t, src.fs()), dataset.CandidatesFile)[0]
				got := c.Elected
				if col == "is_incumbent" {
					got = c.IsIncumbent
				}
				if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
					t.Errorf("%s %q gives %v, want %v", col, tt.cell, fmtBool(got), fmtBool(tt.want))
				}
			})
		}
	}
}

// TestImportBooleansRefused: any other word, "x" (a tick mark) and
// "maybe" among them, is a problem at its file, line and column that
// lists the words allowed, rather than a guess.
func TestImportBooleansRefused(t *testing.T) {
	const allowed = "yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown"
	for _, cell := range []string{"x", "X", "maybe", "2", "-", "yes please", "ie", "sì"} {
		for _, col := range []string{"elected", "is_incumbent"} {
			t.Run(col+"="+strconv.Quote(cell), func(t *testing.T) {
				src := minimal().with(sheet.CandidatesFile, "given_name,family_name,party,districts,"+col+"\nĠorġ,Borġ,PL,5,yes\nMarija,Borġ,PN,6, "+cell+" \n")
				want := "candidates.csv:3: " + col + ": " + strconv.Quote(cell) + " is not yes or no: write " + allowed
				if got := importProblems(t, src.fs()); got != want {
					t.Errorf("report\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// TestImportDelimiters: the cells of each file are separated by ',', ';'
// (as a spreadsheet set to a locale with a decimal comma exports them) or
// tabs, whichever the header row holds most of outside quotes (',' before
// ';' before a tab on a tie), and Result.Read says which one each file
// was read with. Options.Delimiter sets it for every file instead, and a
// header row that shows another one says so, and nothing more of the file;
// so does a header of one unknown column, saying which delimiters are
// known. A row of the wrong length names the delimiter.
func TestImportDelimiters(t *testing.T) {
	tests := []struct {
		name      string
		parties   string
		delimiter rune   // Options.Delimiter
		read      string // how parties.csv was read, as "d guessed"
		want      string // the report; "" when the import succeeds
	}{
		{name: "comma", parties: "slug,name,short_name\npl,Partit Laburista,PL\npn,Partit Nazzjonalista,PN\n", read: "',' true"},
		{name: "semicolon", parties: "slug;name;short_name\npl;Partit Laburista;PL\npn;Partit Nazzjonalista;PN\n", read: "';' true"},
		{name: "semicolon, a comma in a quoted cell", parties: "slug;name;short_name\npl;\"Partit Laburista, Malta\";PL\npn;Partit Nazzjonalista;PN\n", read: "';' true"},
		{name: "semicolon, a comma in a quoted header", parties: "\"slug,\";name;short_name\npl;Partit Laburista;PL\npn;Partit Nazzjonalista;PN\n", read: "';' true",
			want: `parties.csv:1: slug,: unknown column (did you mean "slug"?)`},
		{name: "tab", parties: "slug\tname\tshort_name\npl\tPartit Laburista\tPL\npn\tPartit Nazzjonalista\tPN\n", read: "tabs true"},
		{name: "semicolon after blank lines, CRLF", parties: "\r\n\r\nslug;name;short_name\r\npl;Partit Laburista;PL\r\npn;Partit Nazzjonalista;PN\r\n", read: "';' true"},
		{name: "semicolon given", parties: "slug;name;short_name\npl;Partit Laburista;PL\npn;Partit Nazzjonalista;PN\n", delimiter: ';', read: "';' false"},
		{name: "tab given", parties: "slug\tname\tshort_name\npl\tPartit Laburista\tPL\npn\tPartit Nazzjonalista\tPN\n", delimiter: '\t', read: "tabs false"},
		{name: "comma given, semicolon file", parties: "slug;name;short_name\npl;Partit Laburista;PL\npn;Partit Nazzjonalista;PN\n", delimiter: ',', read: "',' false",
			want: "parties.csv:1: the cells are read as separated by ',' (--delimiter), but the header row is separated by ';': give --delimiter ';', or leave it out to have it guessed"},
		{name: "another delimiter", parties: "slug|name|short_name\npl|Partit Laburista|PL\n", read: "',' true",
			want: `parties.csv:1: the header row "slug|name|short_name" is a single column: separate the cells by ',', ';' or tabs`},
		{name: "one unknown column", parties: " Party \nPL\n", read: "',' true",
			want: `parties.csv:1: the header row "Party" is a single column: separate the cells by ',', ';' or tabs`},
		{name: "semicolon, a row with a bare comma is fine, one with a semicolon more is not", parties: "slug;name;short_name\npl;Partit Laburista, Malta;PL\npn;Partit; Nazzjonalista;PN\n", read: "';' true",
			want: "parties.csv:3: has 4 cells, but the header has 3 columns (cells separated by ';')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := minimal().with(sheet.PartiesFile, tt.parties)
			if tt.delimiter != 0 {
				// The delimiter given is that of every file.
				d := string(tt.delimiter)
				src = src.with(
					sheet.DistrictsFile, strings.ReplaceAll(districtsCSV, ",", d),
					sheet.CandidatesFile, strings.ReplaceAll(strings.ReplaceAll(candidatesCSV, "5;6", `"5;6"`), ",", d),
				)
			}
			res, err := sheet.ImportWith(src.fs(), sheet.Options{Delimiter: tt.delimiter})
			var read string
			for _, r := range res.Read {
				if r.File == sheet.PartiesFile {
					read = sheet.DelimiterName(r.Delimiter) + " " + strconv.FormatBool(r.Guessed)
				}
			}
			if read != tt.read {
				t.Errorf("parties.csv read as %q, want %q", read, tt.read)
			}
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ImportWith: %v", err)
				}
				if got := decode[[]dataset.Party](t, res.Files, dataset.PartiesFile); len(got) != 2 || got[1].Name != "Partit Nazzjonalista" || got[1].ShortName != "PN" {
					t.Errorf("parties %+v, want pl and pn", got)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("report\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

// TestImportQuoting: quoted cells as a spreadsheet writes them keep their
// commas, doubled quotes and line breaks (CRLF inside quotes read as LF);
// cells are trimmed, quoted or not; an empty quoted cell is empty.
func TestImportQuoting(t *testing.T) {
	tests := []struct {
		name       string
		cell       string // the name of party pn, as written in parties.csv
		want       string
		nameEN     string // the name_en cell
		wantNameEN *string
	}{
		{name: "plain", cell: "Partit Nazzjonalista", want: "Partit Nazzjonalista"},
		{name: "quoted", cell: `"Partit Nazzjonalista"`, want: "Partit Nazzjonalista"},
		{name: "comma", cell: `"Partit Nazzjonalista, Malta"`, want: "Partit Nazzjonalista, Malta"},
		{name: "doubled quotes", cell: `"Il-""Partit"" Nazzjonalista"`, want: `Il-"Partit" Nazzjonalista`},
		{name: "only a doubled quote", cell: `""""`, want: `"`},
		{name: "space inside quotes trimmed", cell: `"  Partit Nazzjonalista  "`, want: "Partit Nazzjonalista"},
		{name: "space around unquoted trimmed", cell: "  Partit Nazzjonalista ", want: "Partit Nazzjonalista"},
		{name: "empty quoted optional is null", cell: "Partit Nazzjonalista", want: "Partit Nazzjonalista", nameEN: `""`},
		{name: "quoted comma in optional", cell: "Partit Nazzjonalista", want: "Partit Nazzjonalista", nameEN: `"Nationalist Party, Malta"`, wantNameEN: ptr("Nationalist Party, Malta")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := minimal().with(sheet.PartiesFile, "slug,name,short_name,name_en\npl,Partit Laburista,PL,\npn,"+tt.cell+",PN,"+tt.nameEN+"\n")
			p := decode[[]dataset.Party](t, importOK(t, src.fs()), dataset.PartiesFile)[1]
			if p.Name != tt.want || p.ShortName != "PN" {
				t.Errorf("name %q, short_name %q; want %q, \"PN\"", p.Name, p.ShortName, tt.want)
			}
			if !equalPtr(p.NameEN, tt.wantNameEN) {
				t.Errorf("name_en %v, want %v", fmtPtr(p.NameEN), fmtPtr(tt.wantNameEN))
			}
		})
	}

	// A line break inside quotes is allowed in a note, kept as LF, and the
	// lines after it are still numbered as in the file.
	notes := []struct{ name, cell, want string }{
		{"LF", "\"only the part\nnorth of the road\"", "only the part\nnorth of the road"},
		{"CRLF", "\"only the part\r\nnorth of the road\"", "only the part\nnorth of the road"},
		{"tab", "\"only the part\tnorth\"", "only the part\tnorth"},
		{"comma and quotes", `"only ""Ħal Farruġ"", not the rest"`, `only "Ħal Farruġ", not the rest`},
	}
	for _, tt := range notes {
		t.Run("note "+tt.name, func(t *testing.T) {
			src := minimal().with(sheet.DistrictsFile, districts("number,locality,split,note", "1,Valletta,yes,"+tt.cell, "1,Floriana,perhaps,"))
			want := "districts.csv:" + strconv.Itoa(3+strings.Count(tt.cell, "\n")) + ": split: \"perhaps\" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown"
			if got := importProblems(t, src.fs()); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
			src = minimal().with(sheet.DistrictsFile, districts("number,locality,split,note", "1,Valletta,yes,"+tt.cell, "1,Floriana,,"))
			d := decode[[]dataset.District](t, importOK(t, src.fs()), dataset.DistrictsFile)[0]
			if len(d.Localities) != 2 || !equalPtr(d.Localities[0].Note, &tt.want) || !d.Localities[0].Split || d.Localities[1].Note != nil || d.Localities[1].Split {
				t.Errorf("district 1 localities %+v, want Valletta split with note %q, then Floriana", d.Localities, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func equalPtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func fmtPtr(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
}

// TestImportLineEnds: a folder saved with lines ended by CRLF, or by a
// carriage return alone (as the old spreadsheet programs of the Mac wrote
// them), imports as the one ended by LF; a problem is at the same line,
// and a line break inside quotes is a line break of the cell.
func TestImportLineEnds(t *testing.T) {
	plain := importOK(t, minimal().fs())
	for _, end := range []string{"\r\n", "\r"} {
		t.Run(strconv.Quote(end), func(t *testing.T) {
			ended := sheets{}
			for name, content := range minimal() {
				if name != dataset.ManifestFile {
					content = strings.ReplaceAll(content, "\n", end)
				}
				ended[name] = content
			}
			got := importOK(t, ended.fs())
			for _, name := range outputs {
				if !bytes.Equal(got[name], plain[name]) {
					t.Errorf("%s is\n%s\nwant as with LF\n%s", name, got[name], plain[name])
				}
			}
			src := ended.with(sheet.DistrictsFile, strings.ReplaceAll(districts("number,locality,split,note", "1,Valletta,yes,\"only the part\nnorth of the road\"", "1,Floriana,perhaps,"), "\n", end))
			want := `districts.csv:4: split: "perhaps" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`
			if got := importProblems(t, src.fs()); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
			if got := importProblems(t, oneByte{src.fs()}); got != want {
				t.Errorf("read a byte at a time, report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportBOM: the byte-order mark a spreadsheet writes at the start of
// a file is dropped, from the manifest too, so the output is that of the
// same folder without it. Only one is dropped: a second is part of the
// first header name, which the problem shows escaped, as it does not print.
func TestImportBOM(t *testing.T) {
	const bom = "\uFEFF"
	plain := importOK(t, minimal().fs())
	withBOM := sheets{}
	for name, content := range minimal() {
		withBOM[name] = bom + content
	}
	got := importOK(t, withBOM.fs())
	for _, name := range outputs {
		if !bytes.Equal(got[name], plain[name]) {
			t.Errorf("%s with a byte-order mark is\n%s\nwant as without\n%s", name, got[name], plain[name])
		}
	}

	want := "parties.csv:1: \"\\ufeffslug\": unknown column\n" +
		"parties.csv:1: slug: required column is missing"
	if got := importProblems(t, minimal().with(sheet.PartiesFile, bom+bom+partiesCSV).fs()); got != want {
		t.Errorf("two byte-order marks: report\n%q\nwant\n%q", got, want)
	}
}

// TestImportLostLetters: a name with "?" next to a letter, as an export
// in an encoding without the Maltese letters writes "Ġorġ Borġ", is a
// warning at its cell that says why, in every column that holds a name;
// the import goes on. A "?" on its own, or in a column that is not a
// name, is no warning.
func TestImportLostLetters(t *testing.T) {
	why := ` has "?" where a letter should stand: a sheet saved in an encoding without the Maltese letters (such as Windows-1252) has "?" in place of each ċ, ġ, ħ and ż; write the letters back and ` + saveAsUTF8
	src := minimal().with(
		sheet.PartiesFile, "slug,name,short_name,leader_name\npl,Partit Laburista,PL,?or? Bor?\npn,Partit Nazzjonalista,PN,?\n",
		sheet.DistrictsFile, strings.Replace(districtsCSV, "Żabbar", "?abbar", 1),
		sheet.CandidatesFile, "given_name,family_name,party,districts,website\n?or?,Bor?,PL,5;6,https://gorg.example/?q=1\nMarija,Borġ,pn,6,\n"+everyDistrict(","),
	)
	res, err := sheet.ImportWith(src.fs(), sheet.Options{})
	if err != nil {
		t.Fatalf("ImportWith: %v", err)
	}
	want := "parties.csv:2: leader_name: warning: \"?or? Bor?\"" + why + "\n" +
		"districts.csv:4: locality: warning: \"?abbar\"" + why + "\n" +
		"candidates.csv:2: given_name: warning: \"?or?\"" + why + "\n" +
		"candidates.csv:2: family_name: warning: \"Bor?\"" + why
	if got := res.Problems.Error(); got != want {
		t.Errorf("warnings\n%s\nwant\n%s", got, want)
	}
	if res.Problems.Errors() != 0 {
		t.Errorf("%d errors among the warnings, want none", res.Problems.Errors())
	}
	if c := decode[[]dataset.Candidate](t, res.Files, dataset.CandidatesFile)[0]; c.Name != "?or? Bor?" {
		t.Errorf("candidate named %q, want the name as written", c.Name)
	}
	// Import gives the files, and not the warnings.
	files, err := sheet.Import(src.fs())
	if err != nil || files == nil {
		t.Errorf("Import: %d files, error %v; want the files", len(files), err)
	}
	// With an error, the warnings are part of the report.
	src = src.with(sheet.PartiesFile, "slug,name,short_name,leader_name\npl,Partit Laburista,PL,?or? Bor?\npn,,PN,\n")
	want = "parties.csv:2: leader_name: warning: \"?or? Bor?\"" + why + "\n" +
		"parties.csv:3: name: must not be empty\n" +
		"districts.csv:4: locality: warning: \"?abbar\"" + why + "\n" +
		"candidates.csv:2: given_name: warning: \"?or?\"" + why + "\n" +
		"candidates.csv:2: family_name: warning: \"Bor?\"" + why
	if got := importProblems(t, src.fs()); got != want {
		t.Errorf("report\n%s\nwant\n%s", got, want)
	}
}

// TestImportPartyNames: a candidate's party may be given by its slug,
// short name, name or English name, in any letter case, with or without
// accents and punctuation; a slug or short name wins over another party's
// name.
func TestImportPartyNames(t *testing.T) {
	parties := "slug,name,short_name,name_en\n" +
		"pl,Partit Laburista,PL,Labour Party\n" +
		"pn,Partit Nazzjonalista,PN,Nationalist Party\n" +
		"ph,Partit Ħaddiema,P.Ħ.,PL\n"
	tests := []struct{ cell, want string }{
		{"pl", "pl"}, {"PL", "pl"}, {"p.l.", "pl"}, {" Pl ", "pl"},
		{"Partit Laburista", "pl"}, {"PARTIT LABURISTA", "pl"}, {"partit  laburista", "pl"}, {"Labour Party", "pl"}, {"labour party", "pl"},
		{"Nationalist Party", "pn"}, {"Partit Nazzjonalista", "pn"},
		{"Partit Ħaddiema", "ph"}, {"partit haddiema", "ph"}, {"PARTIT ĦADDIEMA", "ph"}, {"PH", "ph"}, {"P.Ħ.", "ph"},
	}
	for _, tt := range tests {
		t.Run(tt.cell, func(t *testing.T) {
			src := minimal().with(sheet.PartiesFile, parties, sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,"+tt.cell+",5\n")
			files := importOK(t, src.fs())
			ids := map[string]string{}
			for _, p := range decode[[]dataset.Party](t, files, dataset.PartiesFile) {
				ids[p.ID] = p.Slug
			}
			c := decode[[]dataset.Candidate](t, files, dataset.CandidatesFile)[0]
			if c.PartyID == nil || ids[*c.PartyID] != tt.want {
				t.Errorf("party %q is %v, want %s", tt.cell, fmtPtr(c.PartyID), tt.want)
			}
		})
	}
}

// TestImportDistrictNames: a candidate's district may be given by its
// number, its name (district_name, or "District N"), or the name, English
// name or slug of one of its localities that no other district has, in
// any letter case, with or without accents.
func TestImportDistrictNames(t *testing.T) {
	src := minimal().with(sheet.DistrictsFile, districts("number,locality,district_name,locality_name_en,locality_slug",
		"1,Valletta,Il-Belt,City of Valletta,",
		"1,Il-Furjana,Il-Belt,Floriana,furjana"))
	tests := []struct {
		cell string
		want []int
	}{
		{"1", []int{1}}, {"Valletta", []int{1}}, {"VALLETTA", []int{1}}, {"il-belt", []int{1}}, {"Il Belt", []int{1}}, {"City of Valletta", []int{1}},
		{"Floriana", []int{1}}, {"furjana", []int{1}}, {"District 1", []int{1}}, {"district 7", []int{7}},
		{"Żabbar;Zabbar", nil}, {"zabbar; 4", []int{3, 4}}, {"MELLIEĦA;Mellieha", nil}, {"Mellieha;Victoria", []int{12, 13}},
	}
	for _, tt := range tests {
		t.Run(tt.cell, func(t *testing.T) {
			s := src.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,"+tt.cell+"\n")
			if tt.want == nil { // the same district twice
				want := "candidates.csv:2: districts: district " + strconv.Itoa(map[string]int{"Żabbar;Zabbar": 3, "MELLIEĦA;Mellieha": 12}[tt.cell]) + " is listed twice"
				if got := importProblems(t, s.fs()); got != want {
					t.Errorf("report\n%s\nwant\n%s", got, want)
				}
				return
			}
			files := importOK(t, s.fs())
			numbers := map[string]int{}
			for _, d := range decode[[]dataset.District](t, files, dataset.DistrictsFile) {
				numbers[d.ID] = d.Number
			}
			var got []int
			for _, id := range decode[[]dataset.Candidate](t, files, dataset.CandidatesFile)[0].DistrictIDs {
				got = append(got, numbers[id])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("districts %q are %v, want %v", tt.cell, got, tt.want)
			}
		})
	}
}

// TestImportMaltese: Maltese letters are kept exactly as written in every
// name (not even normalised), and the slugs made from them drop the dot
// and the bar (ċ ġ ż → c g z, ħ → h, għ → gh), in either case.
func TestImportMaltese(t *testing.T) {
	// One locality per district, with the slug it gets.
	locs := [dataset.DefaultDistricts]struct{ name, slug string }{
		{"Ħal Għaxaq", "hal-ghaxaq"},
		{"Żebbuġ", "zebbug"},
		{"Ċirkewwa", "cirkewwa"},
		{"Il-Gżira", "il-gzira"},
		{"Ħ'Attard", "hattard"},
		{"San Ġiljan", "san-giljan"},
		{"Ta' Xbiex", "ta-xbiex"},
		{"Għargħur", "gharghur"},
		{"ĦAŻ-ŻEBBUĠ", "haz-zebbug"},
		{"ĊENSU ĠIĠI ĦAĦĦ", "censu-gigi-hahh"},
		{"Z\u0307ebbug\u0307", "zebbug"}, // Żebbuġ with the dots as combining marks
		{"Mellieħa", "mellieha"},
		{"Għajnsielem", "ghajnsielem"},
	}
	var csv strings.Builder
	csv.WriteString("number,locality\n")
	for i, l := range locs {
		csv.WriteString(strconv.Itoa(i+1) + "," + l.name + "\n")
	}
	cands := []struct{ given, family, slug string }{
		{"Ġorġ", "Borġ", "gorg-borg"},
		{"Ċensu", "Żammit", "censu-zammit"},
		{"ĦILDA", "ĠAUĊI", "hilda-gauci"},
		{"Marija", "Għaġġ", "marija-ghagg"},
	}
	var ccsv strings.Builder
	ccsv.WriteString("given_name,family_name,party,districts\n")
	for i, c := range cands {
		party := []string{"ĦŻ", "ħż", "hz", "Hż"}[i] // the party by its short name, in any case, with or without marks
		ccsv.WriteString(c.given + "," + c.family + "," + party + ",1\n")
	}
	src := minimal().with(
		sheet.PartiesFile, "slug,name,short_name\nhz,Ħilda Żgħira,ĦŻ\n",
		sheet.DistrictsFile, csv.String(),
		sheet.CandidatesFile, ccsv.String(),
	)
	files := importOK(t, src.fs())

	p := decode[[]dataset.Party](t, files, dataset.PartiesFile)[0]
	if p.Name != "Ħilda Żgħira" || p.ShortName != "ĦŻ" {
		t.Errorf("party name %q, short_name %q; want \"Ħilda Żgħira\", \"ĦŻ\"", p.Name, p.ShortName)
	}
	for i, d := range decode[[]dataset.District](t, files, dataset.DistrictsFile) {
		l := d.Localities[0]
		if l.Name != locs[i].name || l.Slug != locs[i].slug {
			t.Errorf("district %d: locality %q slug %q, want %q slug %q", d.Number, l.Name, l.Slug, locs[i].name, locs[i].slug)
		}
	}
	for i, c := range decode[[]dataset.Candidate](t, files, dataset.CandidatesFile) {
		want := cands[i]
		if c.GivenName != want.given || c.FamilyName != want.family || c.Name != want.given+" "+want.family || c.Slug != want.slug {
			t.Errorf("candidate %d: %q %q name %q slug %q, want %q %q name %q slug %q", i, c.GivenName, c.FamilyName, c.Name, c.Slug, want.given, want.family, want.given+" "+want.family, want.slug)
		}
		if c.PartyID == nil || *c.PartyID != p.ID {
			t.Errorf("candidate %d: party_id %v, want %s", i, fmtPtr(c.PartyID), p.ID)
		}
	}
	// What was written is also what a load accepts.
	if _, err := dataset.LoadFiles(files); err != nil {
		t.Errorf("LoadFiles: %v", err)
	}
}

// TestImportRulesWarnings: the warnings validate gives of what import
// writes are import's too, at the lines and columns of the sheets, and
// a record a warning points to is named by its line.
func TestImportRulesWarnings(t *testing.T) {
	const formula = ", which a spreadsheet may run as a formula"
	cands := func(rows string) string {
		return "given_name,family_name,party,districts\n" + rows + everyDistrict("")
	}
	tests := []struct {
		name string
		src  sheets
		want []string
	}{
		{"none", minimal().with(sheet.CandidatesFile, candidatesCSV+everyDistrict("")), nil},
		{"a candidate on four districts", minimal().with(sheet.CandidatesFile, cands("Ġorġ,Borġ,PL,5;6;1;2\n")), []string{
			"candidates.csv:2: districts: warning: contests 4 districts; Maltese law allows 2",
		}},
		{"a locality in two districts, not split", minimal().with(
			sheet.DistrictsFile, districts("number,locality,split", "1,Valletta,", "1,Ħamrun,", "2,Ħamrun,yes"),
			sheet.CandidatesFile, candidatesCSV+everyDistrict(""),
		), []string{
			`districts.csv:3: split: warning: locality "hamrun" appears in 2 districts but is not marked as split (a different place of the same name needs a different slug)`,
		}},
		{"a name twice in a party", minimal().with(sheet.CandidatesFile, cands("Ġorġ,Borġ,PL,5\nMarija,Borġ,PN,6\nĠorġ,Borġ,PL,6\n")), []string{
			`candidates.csv:4: warning: "Ġorġ Borġ" of the same party is also at candidates.csv line 2: the same person twice?`,
		}},
		{"a party and a district without candidates", minimal().with(
			sheet.PartiesFile, partiesCSV+"ad,Alternattiva Demokratika,AD\n",
			sheet.CandidatesFile, "given_name,family_name,party,districts\n"+strings.Replace(everyDistrict(""), "Leli,Abela,pn,12\n", "", 1)+"Ġorġ,Borġ,PL,5;6\n",
		), []string{
			`parties.csv:4: warning: party "ad" has no candidates`,
			"districts.csv:13: warning: district 12 has no candidates",
		}},
		{"names a spreadsheet may run", minimal().with(
			sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista,+PL\npn,Partit Nazzjonalista,PN\n",
			sheet.DistrictsFile, districts("number,locality,note", "1,Valletta,-the capital"),
			sheet.CandidatesFile, cands("@Ġorġ,Borġ,PL,5;6\nMarija,Borġ,pn,6\n")+"\"=HYPERLINK(\"\"http://evil.example\"\")\",Borġ,pn,10\n",
		), []string{
			`parties.csv:2: short_name: warning: "+PL" begins with "+"` + formula,
			`districts.csv:2: note: warning: "-the capital" begins with "-"` + formula,
			`candidates.csv:2: given_name: warning: "@Ġorġ" begins with "@"` + formula,
			`candidates.csv:10: given_name: warning: "=HYPERLINK(\"http://evil.example\")" begins with "="` + formula,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sheet.ImportWith(tt.src.fs(), sheet.Options{})
			if err != nil {
				t.Fatalf("ImportWith: %v", err)
			}
			if got, want := res.Problems.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestImportDuplicateRows: what a row given twice does in each file. A
// party or a locality given twice is an error, and so is a candidate: the
// same name, party and districts (matched as written in any case, order
// or form the importer accepts) on two rows that give no slug or id,
// reported at the later row with the line of the first. Namesakes in
// another party or district, or given a slug, are two candidates, a
// derived slug numbered; a slug or id given twice is an error; rows of
// empty cells are skipped.
func TestImportDuplicateRows(t *testing.T) {
	const gorgID = "2d3e4f50-6172-4839-8a9b-0c1d2e3f4a5b"
	tests := []struct {
		name  string
		src   sheets
		want  string   // the report, or "" when the import succeeds
		slugs []string // the candidates' slugs when it succeeds
	}{
		{name: "party", src: minimal().with(sheet.PartiesFile, partiesCSV+"pn,Partit Nazzjonalista,PN\n"),
			want: `parties.csv:4: slug: "pn" is already used on line 3`},
		{name: "locality", src: minimal().with(sheet.DistrictsFile, districts("number,locality", "1,Valletta", "1,Valletta")),
			want: `districts.csv:3: locality: "Valletta" is already listed in district 1 on line 2`},
		{name: "locality in another case and without marks", src: minimal().with(sheet.DistrictsFile, districts("number,locality", "1,Ħamrun", "1,HAMRUN")),
			want: `districts.csv:3: locality: "HAMRUN" is already listed in district 1 on line 2`},
		{name: "candidate", src: minimal().with(sheet.CandidatesFile, candidatesCSV+"Ġorġ,Borġ,PL,5;6\nĠorġ,Borġ,PL,5;6\n"),
			want: "candidates.csv:4: repeats line 2: Ġorġ Borġ, of PL, in districts 5 and 6; delete one of the two rows, or, for two people of the same name, give each a slug\n" +
				"candidates.csv:5: repeats line 2: Ġorġ Borġ, of PL, in districts 5 and 6; delete one of the two rows, or, for two people of the same name, give each a slug"},
		{name: "candidate written otherwise", src: minimal().with(sheet.CandidatesFile, candidatesCSV+"Arnold,Cassola,,10\n ĠORĠ , borg ,Partit Laburista,6;5\narnold,cassola,,10\n"),
			want: "candidates.csv:5: repeats line 2: ĠORĠ borg, of Partit Laburista, in districts 5 and 6; delete one of the two rows, or, for two people of the same name, give each a slug\n" +
				"candidates.csv:6: repeats line 4: arnold cassola, an independent, in district 10; delete one of the two rows, or, for two people of the same name, give each a slug"},
		{name: "namesakes in another party or district", src: minimal().with(sheet.CandidatesFile, candidatesCSV+"Ġorġ,Borġ,PN,5;6\nĠorġ,Borġ,PL,5\nĠorġ,Borġ,,5;6\n"),
			slugs: []string{"gorg-borg", "marija-borg", "gorg-borg-2", "gorg-borg-3", "gorg-borg-4"}},
		{name: "namesakes given slugs", src: minimal().with(sheet.CandidatesFile, "slug,given_name,family_name,party,districts\n,Ġorġ,Borġ,PL,5\ngorg-borg-iz-zghir,Ġorġ,Borġ,PL,5\n"),
			slugs: []string{"gorg-borg", "gorg-borg-iz-zghir"}},
		{name: "candidate with the slug given", src: minimal().with(sheet.CandidatesFile, "slug,given_name,family_name,party,districts\ngorg-borg,Ġorġ,Borġ,PL,5\ngorg-borg,Ġorġ,Borġ,PL,5\n"),
			want: `candidates.csv:3: slug: "gorg-borg" is already used on line 2`},
		{name: "candidate with the id given", src: minimal().with(sheet.CandidatesFile, "id,given_name,family_name,party,districts\n"+gorgID+",Ġorġ,Borġ,PL,5\n"+gorgID+",Ġorġ,Borġ,PL,5\n"),
			want: "candidates.csv:3: id: id " + gorgID + " is already used at candidates.csv line 2"},
		{name: "rows of empty cells", src: minimal().with(sheet.CandidatesFile, candidatesCSV+",,,\n , ,  ,\n\n,,,\n"),
			slugs: []string{"gorg-borg", "marija-borg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want != "" {
				if got := importProblems(t, tt.src.fs()); got != tt.want {
					t.Errorf("report\n%s\nwant\n%s", got, tt.want)
				}
				return
			}
			files := importOK(t, tt.src.fs())
			cands := decode[[]dataset.Candidate](t, files, dataset.CandidatesFile)
			var slugs []string
			ids := map[string]bool{}
			for _, c := range cands {
				slugs = append(slugs, c.Slug)
				ids[c.ID] = true
			}
			if !slices.Equal(slugs, tt.slugs) || len(ids) != len(cands) {
				t.Errorf("candidates' slugs %v (%d distinct ids), want %v with distinct ids", slugs, len(ids), tt.slugs)
			}
		})
	}
}

// TestImportLocalitySlugs: locality slugs written in districts.csv are
// taken first, in each district, so a derived one never takes a slug a
// later row writes: it gets the next free number instead, as namesakes
// do. The same slug in another district is no clash.
func TestImportLocalitySlugs(t *testing.T) {
	src := minimal().with(sheet.DistrictsFile, districts("number,locality,locality_slug",
		"1,Il-Belt,",
		"1,Il Belt,",
		"1,Valletta,il-belt",
		"2,Il-Belt,"))
	got := map[int][]string{}
	for _, d := range decode[[]dataset.District](t, importOK(t, src.fs()), dataset.DistrictsFile) {
		for _, l := range d.Localities {
			got[d.Number] = append(got[d.Number], l.Name+"="+l.Slug)
		}
	}
	if want := []string{"Il-Belt=il-belt-2", "Il Belt=il-belt-3", "Valletta=il-belt"}; !slices.Equal(got[1], want) {
		t.Errorf("district 1's localities %v, want %v", got[1], want)
	}
	if want := []string{"Il-Belt=il-belt", "Birgu=birgu"}; !slices.Equal(got[2], want) {
		t.Errorf("district 2's localities %v, want %v", got[2], want)
	}
}

// TestProblemsError: the error of an import is its problems, one a line.
func TestProblemsError(t *testing.T) {
	ps := sheet.Problems{
		{File: "parties.csv", Line: 3, Column: "slug", Message: "m"},
		{File: "districts.csv", Column: "number", Message: "m"},
	}
	if got, want := ps.Error(), "parties.csv:3: slug: m\ndistricts.csv: number: m"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestImportReadsAStream imports a candidates.csv of 32 MiB, its two
// candidates followed by rows of blank cells (as a spreadsheet exports
// below its data), made as it is read and never held whole: the heap never
// holds a quarter of it, since each row is let go once read. Read whole,
// the file alone would take its size.
func TestImportReadsAStream(t *testing.T) {
	const size = 32 << 20
	blank := strings.Repeat(" ", 50) + strings.Repeat(","+strings.Repeat(" ", 50), 3) + "\r\n"
	src := streamed{files: minimal().fs(), name: sheet.CandidatesFile, size: size, head: candidatesCSV, row: blank}

	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var most uint64
		for {
			metrics.Read(samples)
			most = max(most, samples[0].Value.Uint64())
			select {
			case <-done:
				peak <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	files, err := sheet.Import(src)
	close(done)
	most := <-peak
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if got := decode[[]dataset.Candidate](t, files, dataset.CandidatesFile); len(got) != 2 {
		t.Errorf("%d candidates, want the 2 above the blank rows", len(got))
	}
	t.Logf("a sheet of %d bytes read with at most %d bytes of heap", size, most)
	if most > size/4 {
		t.Errorf("the heap held up to %d bytes while a sheet of %d bytes was read, want at most a quarter of it: the sheet is held, not read as a stream", most, size)
	}
}

// streamed is files with one file in place, name, of size bytes: head,
// then row again and again, made as it is read. Its files are only
// opened: it has no ReadFile to read one at once.
type streamed struct {
	files     dataset.Files
	name      string
	size      int64
	head, row string
}

func (s streamed) Open(name string) (fs.File, error) {
	if name != s.name {
		return s.files.Open(name)
	}
	return &rowsFile{s: s}, nil
}

type rowsFile struct {
	s    streamed
	read int64
}

func (f *rowsFile) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && f.read < f.s.size {
		var c byte
		if f.read < int64(len(f.s.head)) {
			c = f.s.head[f.read]
		} else {
			c = f.s.row[(f.read-int64(len(f.s.head)))%int64(len(f.s.row))]
		}
		p[n] = c
		n++
		f.read++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (f *rowsFile) Stat() (fs.FileInfo, error) { return rowsInfo{f.s}, nil }
func (f *rowsFile) Close() error               { return nil }

type rowsInfo struct{ s streamed }

func (i rowsInfo) Name() string       { return i.s.name }
func (i rowsInfo) Size() int64        { return i.s.size }
func (i rowsInfo) Mode() fs.FileMode  { return 0o444 }
func (i rowsInfo) ModTime() time.Time { return time.Time{} }
func (i rowsInfo) IsDir() bool        { return false }
func (i rowsInfo) Sys() any           { return nil }

// TestImportNoLimitOfItsOwn imports a candidates.csv whose candidates.json
// is larger than dataset.DefaultMaxFileBytes: Import returns it, checked,
// since the limit a file is held to is its caller's (ballot import's
// max_dataset_bytes), not the default.
func TestImportNoLimitOfItsOwn(t *testing.T) {
	long := "https://news.example/" + strings.Repeat("photos/", 300)
	rows := func(i int) string {
		return fmt.Sprintf("Ġorġ,Borġ %d,PL,%d,%s%d,%s%d.jpg\n", i, i%dataset.DefaultDistricts+1, long, i, long, i)
	}
	const n = 15_000
	src := generated{files: minimal().fs(), name: sheet.CandidatesFile, head: "given_name,family_name,party,districts,website,photo_url\n", rows: rows, n: n}
	files, err := sheet.Import(src)
	if err != nil {
		t.Fatalf("Import: %.2000v", err)
	}
	if got := len(files[dataset.CandidatesFile]); got <= dataset.DefaultMaxFileBytes {
		t.Fatalf("candidates.json is %d bytes, want a test of more than %d", got, dataset.DefaultMaxFileBytes)
	}
}

// generated is files with one file in place, name: head, then rows(0) to
// rows(n-1), made as they are read.
type generated struct {
	files dataset.Files
	name  string
	head  string
	rows  func(i int) string
	n     int
}

func (g generated) Open(name string) (fs.File, error) {
	if name != g.name {
		return g.files.Open(name)
	}
	return &generatedFile{g: g, next: []byte(g.head)}, nil
}

type generatedFile struct {
	g    generated
	i    int
	next []byte
}

func (f *generatedFile) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		if f.i == f.g.n {
			return 0, io.EOF
		}
		f.next = []byte(f.g.rows(f.i))
		f.i++
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

func (f *generatedFile) Stat() (fs.FileInfo, error) { return rowsInfo{streamed{name: f.g.name}}, nil }
func (f *generatedFile) Close() error               { return nil }
