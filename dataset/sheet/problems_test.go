package sheet_test

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"testing/iotest"

	"github.com/google/uuid"

	"ballot/dataset"
	"ballot/dataset/sheet"
)

// TestImportProblems gives every problem sheet.go can report a case that
// triggers it, and asserts the whole report, word for word, with its file,
// line and column. The messages, as sheet.go writes them, and the cases
// that cover them:
//
// read:
//
//	file is missing                                           missing file, missing manifest
//	cannot be read: %v                                        unreadable file, unreadable file, plain error
//	is not UTF-8 text: byte 0x%02X is not UTF-8, so the file
//	  was saved in another encoding (…); save it again as
//	  "CSV UTF-8": …                                          not UTF-8, Latin-3 export, Windows-1252 export after Maltese letters
//	is not UTF-8 text: … save it again as UTF-8 (in a text
//	  editor's Save As, the encoding "UTF-8")                 manifest not UTF-8
//	is not UTF-8 text: the file is UTF-16 (…); save it again
//	  as "CSV UTF-8": …                                       UTF-16 export, UTF-16 big-endian
//
// A cell or header a message echoes (%q below) is quoted and escaped as
// Go quotes a string, and cut after 100 characters, with "…" after the
// closing quote; a header, or a name shown without quotes, is shown so
// when it holds a character that does not print.
//
// readCSV and csvError (the csv package's own messages):
//
//	is empty: it needs a header row                           empty file, only a byte-order mark, only blank lines
//	bare " in non-quoted-field                                bare quote, space before quote, quote in header
//	extraneous or missing " in quoted-field                   text after closing quote
//	the quote that starts this cell is never closed, so the
//	  rest of the file was read into it: …                    unclosed quote, unclosed quote after quoted line breaks
//	the cells are read as separated by %s (--delimiter), but
//	  the header row is separated by %s: …                    (TestImportDelimiters: comma given, semicolon file)
//	the header row %q is a single column: separate the cells
//	  by ',', ';' or tabs                                     (TestImportDelimiters: another delimiter, one unknown column)
//	column %d has no name                                     unnamed column, trailing comma in header
//	unknown column                                            unknown column, control character in unknown column
//	unknown column (did you mean %q?)                         misspelt column, misspelt required column
//	column appears twice                                      column twice
//	required column is missing                                required column missing, required columns missing
//	has %d cells, but the header has %d columns (cells
//	  separated by %s)                                        fewer cells, more cells, syntax error stops the file
//	dataset.CheckText: holds the control character U+%04X,
//	  not allowed in names, slugs, ids and links              control character, line break in a name, C1 control, control character in unknown column
//	dataset.CheckText: holds the control character U+%04X,
//	  not allowed in text, where only a tab and line breaks
//	  are allowed                                             control character in a note
//	dataset.CheckText: holds the bidirectional control
//	  U+%04X, which can make text display in another order
//	  than it is stored                                       bidi control
//
// manifest (dataset.CheckManifest's problems are passed on, at their TOML
// key or line):
//
//	(dataset.CheckManifest's messages)                        TOML syntax, TOML table not closed, manifest key missing, manifest key misspelt, namespace not canonical
//	missing: ids are derived from it; add [ids] with
//	  namespace = a UUID of your own (uuidgen makes one)
//	  and never change it                                     no namespace
//
// rows:
//
//	%q is not a UUID (8-4-4-4-12 hex digits)                  party id not a UUID, district id not a UUID, candidate id in braces
//	%q is not yes or no: write yes/no, true/false, 1/0, y/n
//	  or iva/le (in any letter case), or leave it empty for
//	  unknown                                                 not yes or no, split not yes or no
//	%q is not an absolute http or https URL: (why)            party URL, candidate URL, district URL
//	must not be empty                                         party name empty, candidate names empty, locality empty, number empty, candidate district part empty
//	%q is not a slug (lower-case ASCII letters and digits
//	  joined by single hyphens; %q would do)                  party slug not a slug, locality slug not a slug, candidate slug not a slug, slug of no letters
//	%q is not a slug (lower-case ASCII letters and digits
//	  joined by single hyphens)                               slug of no letters
//	%q is not a colour of the form #rrggbb                    colour
//	%q is already used on line %d                             party slug twice, candidate slug twice
//	%q also names the party on line %d, so candidates.csv
//	  could not tell them apart                               short name names another party, slug names another party
//	district %d is given %q here but %q on line %d            district name differs, district id differs
//	%q is already listed in district %d on line %d            locality twice
//	%q is already used in district %d on line %d              locality slug twice
//	%q makes no slug: give one in locality_slug               locality makes no slug
//	district %d has no rows: each of the %d districts
//	  needs a row for each of its localities (or one row
//	  with the locality empty, where they are not given)      district without rows
//	district %q is not a number from 1 to %d                  district number out of range, candidate district out of range
//	district %q is not a number from 1 to %d, nor the name of
//	  a district or locality in %s                            candidate district not a number
//	district %q is not a number from 1 to %d, nor the name of
//	  a district or locality in %s (did you mean %d for %s?)  candidate district misspelt
//	%q is in %d districts in %s, %s: write the number of the
//	  one meant                                               candidate district by a locality in two districts
//	%q makes no slug: give one in a slug column               candidate makes no slug
//	no party in %s has the slug, short name, name or English
//	  name %q; leave it empty for an independent              unknown party
//	no party in %s has the slug, short name, name or English
//	  name %q (did you mean %q for %s?); leave it empty for
//	  an independent                                          misspelt party, misspelt party name
//	%q is the name of %d parties in %s, %s: write the slug
//	  of the one meant                                        party name of two parties
//	must not be empty: give the district numbers separated
//	  by ;, the primary first                                 candidate districts empty
//	district %d is listed twice                               candidate district twice
//	%q is not a UUID (8-4-4-4-12 hex digits)                  person_id not a UUID
//	the row gives both a person key (%q) and a person_id:
//	  give one of the two                                     person key and person_id
//	%s has the person of %s on line %d: two candidates with
//	  different names are two people; give each a person of
//	  their own                                               person of two names
//	%s has the person of another %s on line %d: a person is
//	  one row in an election, with every district they
//	  contest; list them once, or give each of two people of
//	  that name a person of their own                         person of one name twice
//	repeats line %d: %s, %s, in %s %s; delete one of the two
//	  rows, or, for two people of the same name, give each a
//	  slug                                                    candidate twice
//
// Import (dataset.CheckFiles's errors passed on, at the line and column of
// the sheet each record comes from, and the records a message points to
// named by their sheet and line; the manifest's at their key):
//
//	(dataset.CheckFiles's messages)                            party id given twice, candidate id given as a district's, manifest bidi control
//
// Not covered, because no input reaches them: csvError's branch for an
// error that is not a *csv.ParseError (a read error of the file is the
// stream's, reported as "cannot be read"), the error of dataset.CheckFiles
// that is not a *dataset.Report (it reads from memory), and encode's panic (records hold only plain values).
// saveAsUTF8 is how a message tells to save a sheet as UTF-8.
const saveAsUTF8 = `save it again as "CSV UTF-8": in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"; in LibreOffice Calc, File > Save As > "Text CSV" with "Edit filter settings" and the character set "Unicode (UTF-8)"`

func TestImportProblems(t *testing.T) {
	const idA = "0b6c8f3e-3f4a-4a7e-9d2b-5c1e7a9f0d11"
	base := minimal()
	tests := []struct {
		name string
		src  fs.FS
		want []string // the report, one problem a line
	}{
		// read
		{"missing file", base.without(sheet.CandidatesFile).fs(), []string{
			"candidates.csv: file is missing",
		}},
		{"missing manifest", base.without(dataset.ManifestFile).fs(), []string{
			"dataset.toml: file is missing",
		}},
		{"unreadable file", unreadable(base, sheet.PartiesFile), []string{
			"parties.csv: cannot be read: invalid argument",
		}},
		{"unreadable file, plain error", failing{base.fs(), sheet.DistrictsFile, errors.New("device not ready")}, []string{
			"districts.csv: cannot be read: device not ready",
		}},
		{"manifest not UTF-8", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, "Sample general", "Elezzjoni \xc9enerali", 1)).fs(), []string{
			`dataset.toml:1:20: is not UTF-8 text: byte 0xC9 is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3); save it again as UTF-8 (in a text editor's Save As, the encoding "UTF-8")`,
		}},
		{"not UTF-8", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista,PL\npn,Partit Nazzjonali\xffsta,PN\n").fs(), []string{
			`parties.csv:3:21: is not UTF-8 text: byte 0xFF is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3); ` + saveAsUTF8,
		}},
		// The character is counted in letters, not bytes, after a
		// byte-order mark too.
		{"Latin-3 export", base.with(sheet.DistrictsFile, "\uFEFF"+strings.Replace(districtsCSV, "12,Mellieħa", "12,Mellie\xb1a", 1)).fs(), []string{
			`districts.csv:13:10: is not UTF-8 text: byte 0xB1 is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3); ` + saveAsUTF8,
		}},
		{"Windows-1252 export after Maltese letters", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5\nMarija,Borġ,PN,6\nJos\xe9,Borġ,PN,6\n").fs(), []string{
			`candidates.csv:4:4: is not UTF-8 text: byte 0xE9 is not UTF-8, so the file was saved in another encoding (such as Windows-1252, Latin-1 or Latin-3); ` + saveAsUTF8,
		}},
		// Excel's "Unicode Text": UTF-16, named as such, not as a
		// byte of another encoding.
		{"UTF-16 export", base.with(sheet.PartiesFile, utf16("\uFEFFslug,name,short_name\npl,Partit Laburista,PL\n", false)).fs(), []string{
			`parties.csv:1:1: is not UTF-8 text: the file is UTF-16 (it begins with UTF-16's byte-order mark, as Excel's "Unicode Text" writes); ` + saveAsUTF8,
		}},
		{"UTF-16 big-endian", base.with(sheet.PartiesFile, utf16("\uFEFFslug,name,short_name\npl,Partit Laburista,PL\n", true)).fs(), []string{
			`parties.csv:1:1: is not UTF-8 text: the file is UTF-16 (it begins with UTF-16's byte-order mark, as Excel's "Unicode Text" writes); ` + saveAsUTF8,
		}},

		// readCSV
		{"empty file", base.with(sheet.DistrictsFile, "").fs(), []string{
			"districts.csv: is empty: it needs a header row",
		}},
		{"only a byte-order mark", base.with(sheet.PartiesFile, "\uFEFF").fs(), []string{
			"parties.csv: is empty: it needs a header row",
		}},
		{"only blank lines", base.with(sheet.CandidatesFile, "\n\r\n\n").fs(), []string{
			"candidates.csv: is empty: it needs a header row",
		}},
		{"bare quote", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit \"Laburista\",PL\n").fs(), []string{
			`parties.csv:2: bare " in non-quoted-field`,
		}},
		{"space before quote", base.with(sheet.PartiesFile, "slug,name,short_name\npl, \"Partit Laburista\",PL\n").fs(), []string{
			`parties.csv:2: bare " in non-quoted-field`,
		}},
		{"quote in header", base.with(sheet.PartiesFile, "slug,na\"me,short_name\npl,Partit Laburista,PL\n").fs(), []string{
			`parties.csv:1: bare " in non-quoted-field`,
		}},
		{"text after closing quote", base.with(sheet.DistrictsFile, strings.Replace(districtsCSV, "7,Rabat", "7,\"Rabat\"x", 1)).fs(), []string{
			`districts.csv:8: extraneous or missing " in quoted-field`,
		}},
		// The rows before a syntax error are checked, those after it are
		// not, nor is the file as a whole.
		{"syntax error stops the file", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista\npn,\"Partit\"x,PN\nad,AD\n").fs(), []string{
			"parties.csv:2: has 2 cells, but the header has 3 columns (cells separated by ',')",
			`parties.csv:3: extraneous or missing " in quoted-field`,
		}},
		// A quote never closed takes the rest of the file into its cell:
		// the problem is where it opened, not at the end of the file.
		{"unclosed quote", base.with(sheet.PartiesFile, "slug,name,short_name\npl,\"Partit Laburista,PL\npn,Partit Nazzjonalista,PN\n\n").fs(), []string{
			`parties.csv:2:4: the quote that starts this cell is never closed, so the rest of the file was read into it: end the cell with ", and write a " inside a cell as ""`,
		}},
		{"unclosed quote after quoted line breaks", base.with(sheet.DistrictsFile, districts("number,locality,note", "1,Valletta,\"the\r\n\"\"capital\"\"\"", "1,Floriana,x", "1,\"Pietà,;\"\"\n")).fs(), []string{
			`districts.csv:5:3: the quote that starts this cell is never closed, so the rest of the file was read into it: end the cell with ", and write a " inside a cell as ""`,
		}},
		{"text after closing quote, a quote never closed later", base.with(sheet.DistrictsFile, strings.Replace(strings.Replace(districtsCSV, "7,Rabat", "7,\"Rabat\"x", 1), "11,Mosta", "11,\"Mosta", 1)).fs(), []string{
			`districts.csv:8: extraneous or missing " in quoted-field`,
		}},
		{"unnamed column", base.with(sheet.PartiesFile, "slug, ,name,short_name\npl,x,Partit Laburista,PL\npn,,Partit Nazzjonalista,PN\n").fs(), []string{
			"parties.csv:1: column 2 has no name",
		}},
		{"trailing comma in header", base.with(sheet.PartiesFile, "slug,name,short_name,\npl,Partit Laburista,PL,\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			"parties.csv:1: column 4 has no name",
		}},
		{"unknown column", base.with(sheet.PartiesFile, "slug,name,short_name,Motto\npl,Partit Laburista,PL,x\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			"parties.csv:1: motto: unknown column",
		}},
		{"misspelt column", base.with(sheet.PartiesFile, "slug,name,short_name,colour\npl,Partit Laburista,PL,#e2001a\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			`parties.csv:1: colour: unknown column (did you mean "color"?)`,
		}},
		{"misspelt required column", base.with(sheet.PartiesFile, "slug,nmae,short_name\npl,Partit Laburista,PL\n").fs(), []string{
			`parties.csv:1: nmae: unknown column (did you mean "name"?)`,
		}},
		{"column twice", base.with(sheet.PartiesFile, "slug,name,short_name, NAME\npl,Partit Laburista,PL,x\npn,Partit Nazzjonalista,PN,y\n").fs(), []string{
			"parties.csv:1: name: column appears twice",
		}},
		{"required column missing", base.with(sheet.DistrictsFile, "number,name\n1,Valletta\n").fs(), []string{
			"districts.csv:1: name: unknown column",
			"districts.csv:1: locality: required column is missing",
		}},
		{"required columns missing", base.with(sheet.PartiesFile, "slug\npl\n").fs(), []string{
			"parties.csv:1: name: required column is missing",
			"parties.csv:1: short_name: required column is missing",
		}},
		{"fewer cells", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista\npn,Partit Nazzjonalista,PN\n").fs(), []string{
			"parties.csv:2: has 2 cells, but the header has 3 columns (cells separated by ',')",
		}},
		{"more cells", base.with(sheet.CandidatesFile, candidatesCSV+"Arnold,Cassola,,10,11\n").fs(), []string{
			"candidates.csv:4: has 5 cells, but the header has 4 columns (cells separated by ',')",
		}},
		{"control character", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit\aLaburista,PL\npn,Partit Nazzjonalista,PN\n").fs(), []string{
			"parties.csv:2: name: holds the control character U+0007, not allowed in names, slugs, ids and links",
		}},
		{"line break in a name", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5\n\"Marija\nAnna\",Borġ,PN,6\n").fs(), []string{
			"candidates.csv:3: given_name: holds the control character U+000A, not allowed in names, slugs, ids and links",
		}},
		{"C1 control", base.with(sheet.DistrictsFile, strings.Replace(districtsCSV, "9,Msida", "9,Msi\u0085da", 1)).fs(), []string{
			"districts.csv:10: locality: holds the control character U+0085, not allowed in names, slugs, ids and links",
		}},
		{"control character in unknown column", base.with(sheet.PartiesFile, "slug,name,short_name,Motto\npl,Partit Laburista,PL,a\x1bb\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			"parties.csv:1: motto: unknown column",
			"parties.csv:2: motto: holds the control character U+001B, not allowed in names, slugs, ids and links",
		}},
		// A header or cell a message echoes is escaped, and a long one
		// cut: nothing of the sheet moves the publisher's terminal.
		{"control character in a header", base.with(sheet.PartiesFile, "slug,name,short_name,Mo\x1b[2Jtto\a\npl,Partit Laburista,PL,\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			`parties.csv:1: "mo\x1b[2jtto\a": unknown column`,
		}},
		{"control character in a repeated name", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ\x1b]0;x\a,Borġ,PL,5\nĠorġ\x1b]0;x\a,Borġ,PL,5\n").fs(), []string{
			"candidates.csv:2: given_name: holds the control character U+001B, not allowed in names, slugs, ids and links",
			"candidates.csv:3: given_name: holds the control character U+001B, not allowed in names, slugs, ids and links",
			`candidates.csv:3: repeats line 2: "Ġorġ\x1b]0;x\a Borġ", of PL, in district 5; delete one of the two rows, or, for two people of the same name, give each a slug`,
		}},
		{"a long cell", base.with(sheet.PartiesFile, "slug,name,short_name,website\npl,Partit Laburista,PL,"+strings.Repeat("ħ", 150)+"\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			`parties.csv:2: website: "` + strings.Repeat("ħ", 100) + `"… is not an absolute http or https URL: it holds a character that is not ASCII (percent-encode it, and write a host name in its xn-- form)`,
		}},
		{"a long header row of one column", base.with(sheet.PartiesFile, strings.Repeat("slug|name|short_name|", 10)+"\n").fs(), []string{
			`parties.csv:1: the header row "` + strings.Repeat("slug|name|short_name|", 5)[:100] + `"… is a single column: separate the cells by ',', ';' or tabs`,
		}},
		{"control character in a note", base.with(sheet.DistrictsFile, districts("number,locality,note", "1,Valletta,\"the\tcapital\a\"")).fs(), []string{
			"districts.csv:2: note: holds the control character U+0007, not allowed in text, where only a tab and line breaks are allowed",
		}},
		{"bidi control", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit \u202eLaburista,PL\npn,Partit Nazzjonalista,PN\u2066\n").fs(), []string{
			"parties.csv:2: name: holds the bidirectional control U+202E, which can make text display in another order than it is stored",
			"parties.csv:3: short_name: holds the bidirectional control U+2066, which can make text display in another order than it is stored",
		}},

		// manifest
		{"TOML syntax", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, `title = "Sample general election"`, `title = "Sample general election`, 1)).fs(), []string{
			"dataset.toml:1:33: strings cannot contain newlines",
		}},
		{"TOML table not closed", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, "[publisher]", "[publisher", 1)).fs(), []string{
			`dataset.toml:5:11: expected '.' or ']' to end table name, but got '\n' instead`,
		}},
		{"manifest key missing", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, `title = "Sample general election"`, `title = " "`, 1)).fs(), []string{
			`dataset.toml: title: key "title" is missing or empty`,
		}},
		{"manifest key misspelt", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, "license =", "licence =", 1)).fs(), []string{
			`dataset.toml: licence: unknown key "licence" (did you mean "license"?)`,
			`dataset.toml: license: key "license" is missing or empty`,
		}},
		{"namespace not canonical", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, namespace, strings.ToUpper(namespace), 1)).fs(), []string{
			`dataset.toml: ids.namespace: "6F1C2A4E-8D3B-4C5A-9E7F-1A2B3C4D5E6F" is not a UUID in lower-case canonical form (8-4-4-4-12 hex digits)`,
		}},
		{"no namespace", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, `namespace = "`+namespace+`"`, "", 1)).fs(), []string{
			"dataset.toml: ids.namespace: missing: ids are derived from it; add [ids] with namespace = a UUID of your own (uuidgen makes one) and never change it",
		}},

		// rows
		{"party id not a UUID", base.with(sheet.PartiesFile, "slug,name,short_name,id\npl,Partit Laburista,PL,123\npn,Partit Nazzjonalista,PN,\n").fs(), []string{
			`parties.csv:2: id: "123" is not a UUID (8-4-4-4-12 hex digits)`,
		}},
		{"district id not a UUID", base.with(sheet.DistrictsFile, districts("number,locality,id", "1,Valletta,123", "1,Floriana,123")).fs(), []string{
			`districts.csv:2: id: "123" is not a UUID (8-4-4-4-12 hex digits)`,
		}},
		{"candidate id in braces", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,id\nĠorġ,Borġ,PL,5,{"+idA+"}\n").fs(), []string{
			`candidates.csv:2: id: "{` + idA + `}" is not a UUID (8-4-4-4-12 hex digits)`,
		}},
		{"not yes or no", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,elected,is_incumbent\nĠorġ,Borġ,PL,5,maybe,yes\nMarija,Borġ,PN,6,Le,x\n").fs(), []string{
			`candidates.csv:2: elected: "maybe" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`,
			`candidates.csv:3: is_incumbent: "x" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`,
		}},
		{"split not yes or no", base.with(sheet.DistrictsFile, districts("number,locality,split", "1,Valletta, perhaps ")).fs(), []string{
			`districts.csv:2: split: "perhaps" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`,
		}},
		{"party URL", base.with(sheet.PartiesFile, "slug,name,short_name,website,logo_url,wikipedia_url\npl,Partit Laburista,PL,partitlaburista.org,/logo.png,mailto:pl@example.org\npn,Partit Nazzjonalista,PN,,,\n").fs(), []string{
			`parties.csv:2: website: "partitlaburista.org" is not an absolute http or https URL: it is relative (write the whole URL, beginning https://)`,
			`parties.csv:2: logo_url: "/logo.png" is not an absolute http or https URL: it is relative (write the whole URL, beginning https://)`,
			`parties.csv:2: wikipedia_url: "mailto:pl@example.org" is not an absolute http or https URL: only http and https URLs are allowed`,
		}},
		{"candidate URL", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,website,photo_url\nĠorġ,Borġ,PL,5,https://,ftp://img.example/g.jpg\n").fs(), []string{
			`candidates.csv:2: website: "https://" is not an absolute http or https URL: it has no host (write it as https://host/…)`,
			`candidates.csv:2: photo_url: "ftp://img.example/g.jpg" is not an absolute http or https URL: only http and https URLs are allowed`,
		}},
		{"district URL", base.with(sheet.DistrictsFile, districts("number,locality,source_url", "1,Valletta,www.electoral.gov.mt")).fs(), []string{
			`districts.csv:2: source_url: "www.electoral.gov.mt" is not an absolute http or https URL: it is relative (write the whole URL, beginning https://)`,
		}},
		{"party name empty", base.with(sheet.PartiesFile, "slug,name,short_name\npl,  ,PL\npn,Partit Nazzjonalista,\n").fs(), []string{
			"parties.csv:2: name: must not be empty",
			"parties.csv:3: short_name: must not be empty",
		}},
		{"candidate names empty", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\n,Borġ,PL,5\nMarija,,PN,6\n").fs(), []string{
			"candidates.csv:2: given_name: must not be empty",
			"candidates.csv:3: family_name: must not be empty",
		}},
		{"locality empty", base.with(sheet.DistrictsFile, districts("number,locality", "1,Valletta", "1,")).fs(), []string{
			"districts.csv:3: locality: must not be empty",
		}},
		{"number empty", base.with(sheet.DistrictsFile, districts("number,locality", "1,Valletta", ",Floriana")).fs(), []string{
			"districts.csv:3: number: must not be empty",
		}},
		{"party slug not a slug", base.with(sheet.PartiesFile, "slug,name,short_name\nPL,Partit Laburista,PL\npn,Partit Nazzjonalista,PN\n").fs(), []string{
			`parties.csv:2: slug: "PL" is not a slug (lower-case ASCII letters and digits joined by single hyphens; "pl" would do)`,
		}},
		{"locality slug not a slug", base.with(sheet.DistrictsFile, districts("number,locality,locality_slug", "1,Ħal Għaxaq,Ħal Għaxaq")).fs(), []string{
			`districts.csv:2: locality_slug: "Ħal Għaxaq" is not a slug (lower-case ASCII letters and digits joined by single hyphens; "hal-ghaxaq" would do)`,
		}},
		{"candidate slug not a slug", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,slug\nĠorġ,Borġ,PL,5,ġorġ--borġ\n").fs(), []string{
			`candidates.csv:2: slug: "ġorġ--borġ" is not a slug (lower-case ASCII letters and digits joined by single hyphens; "gorg-borg" would do)`,
		}},
		{"slug of no letters", base.with(
			sheet.PartiesFile, "slug,name,short_name\n!!!,Partit Laburista,PL\npn,Partit Nazzjonalista,PN\n",
			sheet.DistrictsFile, districts("number,locality,locality_slug", "1,Valletta,---"),
			sheet.CandidatesFile, "given_name,family_name,party,districts,slug\nĠorġ,Borġ,PN,5,ħ?\n").fs(), []string{
			`parties.csv:2: slug: "!!!" is not a slug (lower-case ASCII letters and digits joined by single hyphens)`,
			`districts.csv:2: locality_slug: "---" is not a slug (lower-case ASCII letters and digits joined by single hyphens)`,
			`candidates.csv:2: slug: "ħ?" is not a slug (lower-case ASCII letters and digits joined by single hyphens; "h" would do)`,
		}},
		{"colour", base.with(sheet.PartiesFile, "slug,name,short_name,color\npl,Partit Laburista,PL,Red\npn,Partit Nazzjonalista,PN,#0054A\nad,Alternattiva Demokratika,AD,#00A65G\n").fs(), []string{
			`parties.csv:2: color: "Red" is not a colour of the form #rrggbb`,
			`parties.csv:3: color: "#0054A" is not a colour of the form #rrggbb`,
			`parties.csv:4: color: "#00A65G" is not a colour of the form #rrggbb`,
		}},
		{"party slug twice", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista,PL\npl,Partit Nazzjonalista,PN\n").fs(), []string{
			`parties.csv:3: slug: "pl" is already used on line 2`,
		}},
		{"candidate slug twice", base.with(sheet.CandidatesFile, "slug,given_name,family_name,party,districts\nborg,Ġorġ,Borġ,PL,5\n,Marija,Borġ,PN,6\nborg,Ġorġ,Borġ,PN,12\n").fs(), []string{
			`candidates.csv:4: slug: "borg" is already used on line 2`,
		}},
		{"short name names another party", base.with(sheet.PartiesFile, "slug,name,short_name\npl,Partit Laburista,PL\nlab,Labour,Pl\npn,Partit Nazzjonalista,PN\n").fs(), []string{
			`parties.csv:3: short_name: "Pl" also names the party on line 2, so candidates.csv could not tell them apart`,
		}},
		{"slug names another party", base.with(sheet.PartiesFile, "slug,name,short_name\nlabour,Partit Laburista,PL\npl,Partit Nazzjonalista,PN\n").fs(), []string{
			`parties.csv:3: slug: "pl" also names the party on line 2, so candidates.csv could not tell them apart`,
		}},
		{"district name differs", base.with(sheet.DistrictsFile, districts("number,locality,district_name", "1,Valletta,Il-Belt", "1,Floriana,", "1,Pietà,Il-Belt", "1,Ħamrun,Valletta")).fs(), []string{
			`districts.csv:5: district_name: district 1 is given "Valletta" here but "Il-Belt" on line 2`,
		}},
		{"district id differs", base.with(sheet.DistrictsFile, districts("number,locality,id", "1,Valletta,", "1,Floriana,"+idA, "1,Pietà,"+strings.ToUpper(idA))).fs(), []string{
			`districts.csv:4: id: district 1 is given "` + strings.ToUpper(idA) + `" here but "` + idA + `" on line 3`,
		}},
		{"locality twice", base.with(sheet.DistrictsFile, districts("number,locality", "1,Valletta", "1,Floriana", "1,valletta ")).fs(), []string{
			`districts.csv:4: locality: "valletta" is already listed in district 1 on line 2`,
		}},
		{"locality slug twice", base.with(sheet.DistrictsFile, districts("number,locality,locality_slug", "1,Valletta,belt", "1,Il-Belt Valletta,belt")).fs(), []string{
			`districts.csv:3: locality_slug: "belt" is already used in district 1 on line 2`,
		}},
		{"locality makes no slug", base.with(sheet.DistrictsFile, districts("number,locality", "1,Valletta", "1,+++")).fs(), []string{
			`districts.csv:3: locality: "+++" makes no slug: give one in locality_slug`,
		}},
		{"district without rows", base.with(sheet.DistrictsFile, strings.Replace(districtsCSV, "13,Victoria\n", "", 1)).fs(), []string{
			"districts.csv: number: district 13 has no rows: each of the 13 districts needs a row for each of its localities (or one row with the locality empty, where they are not given)",
		}},
		{"district number out of range", base.with(sheet.DistrictsFile, districtsCSV+"14,Għajnsielem\n0,Kerċem\n1.0,Floriana\n").fs(), []string{
			`districts.csv:15: number: district "14" is not a number from 1 to 13`,
			`districts.csv:16: number: district "0" is not a number from 1 to 13`,
			`districts.csv:17: number: district "1.0" is not a number from 1 to 13`,
		}},
		{"candidate district not a number", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5;six\nMarija,Borġ,PN,5/6\n").fs(), []string{
			`candidates.csv:2: districts: district "six" is not a number from 1 to 13, nor the name of a district or locality in districts.csv`,
			`candidates.csv:3: districts: district "5/6" is not a number from 1 to 13, nor the name of a district or locality in districts.csv`,
		}},
		{"candidate district out of range", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5;14\nMarija,Borġ,PN,0\n").fs(), []string{
			`candidates.csv:2: districts: district "14" is not a number from 1 to 13`,
			`candidates.csv:3: districts: district "0" is not a number from 1 to 13`,
		}},
		{"candidate district misspelt", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,Valeta\nMarija,Borġ,PN,Mellieha;Birgu;Mosta Dam\n").fs(), []string{
			`candidates.csv:2: districts: district "Valeta" is not a number from 1 to 13, nor the name of a district or locality in districts.csv (did you mean 1 for Valletta?)`,
			`candidates.csv:3: districts: district "Mosta Dam" is not a number from 1 to 13, nor the name of a district or locality in districts.csv (did you mean 11 for Mosta?)`,
		}},
		{"candidate district by a locality in two districts", base.with(
			sheet.DistrictsFile, districts("number,locality,split", "1,Valletta,", "1,Ħamrun,yes", "2,Ħamrun,yes"),
			sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,hamrun\n").fs(), []string{
			`candidates.csv:2: districts: "hamrun" is in 2 districts in districts.csv, 1 and 2: write the number of the one meant`,
		}},
		// A district named in candidates.csv is not looked for in a
		// districts.csv that cannot be read: that file is reported.
		{"candidate district by name, districts.csv unusable", base.with(
			sheet.DistrictsFile, "number,name\n1,Valletta\n",
			sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,Valletta;14\n").fs(), []string{
			"districts.csv:1: name: unknown column",
			"districts.csv:1: locality: required column is missing",
			`candidates.csv:2: districts: district "14" is not a number from 1 to 13`,
		}},
		{"candidate district part empty", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5;;6\n").fs(), []string{
			`candidates.csv:2: districts: must not be empty`,
		}},
		{"candidate makes no slug", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\n?,!,PL,5\n").fs(), []string{
			`candidates.csv:2: name: "? !" makes no slug: give one in a slug column`,
		}},
		{"unknown party", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,AD,5\n").fs(), []string{
			`candidates.csv:2: party: no party in parties.csv has the slug, short name, name or English name "AD"; leave it empty for an independent`,
		}},
		{"misspelt party", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PLL,5\n").fs(), []string{
			`candidates.csv:2: party: no party in parties.csv has the slug, short name, name or English name "PLL" (did you mean "pl" for Partit Laburista?); leave it empty for an independent`,
		}},
		{"misspelt party name", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,Partit Laburisti,5\nMarija,Borġ,Partit,6\n").fs(), []string{
			`candidates.csv:2: party: no party in parties.csv has the slug, short name, name or English name "Partit Laburisti" (did you mean "pl" for Partit Laburista?); leave it empty for an independent`,
			`candidates.csv:3: party: no party in parties.csv has the slug, short name, name or English name "Partit" (did you mean "pl" for Partit Laburista or "pn" for Partit Nazzjonalista?); leave it empty for an independent`,
		}},
		{"party name of two parties", base.with(
			sheet.PartiesFile, "slug,name,short_name,name_en\npl,Partit Laburista,PL,Labour\npn,Partit Nazzjonalista,PN,\nlab,Labour,LAB,\n",
			sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,labour,5\n").fs(), []string{
			`candidates.csv:2: party: "labour" is the name of 2 parties in parties.csv, "pl" (line 2) and "lab" (line 4): write the slug of the one meant`,
		}},
		{"candidate districts empty", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,  \n").fs(), []string{
			"candidates.csv:2: districts: must not be empty: give the district numbers separated by ;, the primary first",
		}},
		{"candidate twice", base.with(sheet.CandidatesFile, candidatesCSV+"Ġorġ,Borġ,pl,6;5\n").fs(), []string{
			"candidates.csv:4: repeats line 2: Ġorġ Borġ, of pl, in districts 5 and 6; delete one of the two rows, or, for two people of the same name, give each a slug",
		}},
		{"person_id not a UUID", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,person_id\nĠorġ,Borġ,PL,5,gorg-borg\nMarija,Borġ,PN,6,{"+idA+"}\n").fs(), []string{
			`candidates.csv:2: person_id: "gorg-borg" is not a UUID (8-4-4-4-12 hex digits)`,
			`candidates.csv:3: person_id: "{` + idA + `}" is not a UUID (8-4-4-4-12 hex digits)`,
		}},
		{"person key and person_id", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,person,person_id\nĠorġ,Borġ,PL,5,gorg-borg,"+idA+"\n").fs(), []string{
			`candidates.csv:2: person_id: the row gives both a person key ("gorg-borg") and a person_id: give one of the two`,
		}},
		{"person of two names", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,person,person_id\nĠorġ,Borġ,PL,5,borg,\nMarija,Borġ,PN,6,borg,\nĠużè,Borġ,PN,7,,"+idA+"\nPawlu,Borġ,PL,8,,"+strings.ToUpper(idA)+"\n").fs(), []string{
			"candidates.csv:3: person: Marija Borġ has the person of Ġorġ Borġ on line 2: two candidates with different names are two people; give each a person of their own",
			"candidates.csv:5: person_id: Pawlu Borġ has the person of Ġużè Borġ on line 4: two candidates with different names are two people; give each a person of their own",
		}},
		{"person of one name twice", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,person,slug\nĠorġ,Borġ,PL,5,borg,\nGorg,BORG,PN,6,borg,gorg-borg-2\n").fs(), []string{
			"candidates.csv:3: person: Gorg BORG has the person of another Ġorġ Borġ on line 2: a person is one row in an election, with every district they contest; list them once, or give each of two people of that name a person of their own",
		}},
		{"candidate district twice", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts\nĠorġ,Borġ,PL,5; 6;05\n").fs(), []string{
			"candidates.csv:2: districts: district 5 is listed twice",
		}},

		// Problems come in file and line order, whichever check found
		// them first; the manifest's first, then the CSV files', then
		// those found across files.
		{"line order", base.with(
			dataset.ManifestFile, strings.Replace(manifestTOML, "license =", "licence =", 1),
			sheet.CandidatesFile, "slug,given_name,family_name,party,districts,elected\nborg,Ġorġ,Borġ,PL,5,maybe\nborg,Marija,Borġ\a,PN,6,\n,Ġużè,Borġ,PN,7,x\n",
		).fs(), []string{
			`dataset.toml: licence: unknown key "licence" (did you mean "license"?)`,
			`dataset.toml: license: key "license" is missing or empty`,
			`candidates.csv:2: elected: "maybe" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`,
			"candidates.csv:3: family_name: holds the control character U+0007, not allowed in names, slugs, ids and links",
			`candidates.csv:3: slug: "borg" is already used on line 2`,
			`candidates.csv:4: elected: "x" is not yes or no: write yes/no, true/false, 1/0, y/n or iva/le (in any letter case), or leave it empty for unknown`,
		}},

		// Import, after the sheets: what dataset.CheckFiles refuses
		{"party id given twice", base.with(sheet.PartiesFile, "slug,name,short_name,id\npl,Partit Laburista,PL,"+idA+"\npn,Partit Nazzjonalista,PN,"+idA+"\n").fs(), []string{
			"parties.csv:3: id: id " + idA + " is already used at parties.csv line 2",
		}},
		{"candidate id given as a district's", base.with(sheet.CandidatesFile, "given_name,family_name,party,districts,id\nĠorġ,Borġ,PL,5;6,\nMarija,Borġ,pn,6,"+derivedID("district/6")+"\n").fs(), []string{
			"candidates.csv:3: id: id " + derivedID("district/6") + " is already used at districts.csv line 7",
		}},
		{"manifest bidi control", base.with(dataset.ManifestFile, strings.Replace(manifestTOML, "Sample general", "Sample \u202egeneral", 1)).fs(), []string{
			"dataset.toml: title: holds the bidirectional control U+202E, which can make text display in another order than it is stored",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Join(tt.want, "\n")
			if got := importProblems(t, tt.src); got != want {
				t.Errorf("report\n%s\nwant\n%s", got, want)
			}
			// The sheets are read as streams: a character cut between
			// two reads is read as one, wherever the cut falls.
			if got := importProblems(t, oneByte{tt.src}); got != want {
				t.Errorf("read a byte at a time, report\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// derivedID is the id import derives from a natural key in the test
// manifests' namespace.
func derivedID(key string) string {
	return uuid.NewSHA1(uuid.MustParse(namespace), []byte(key)).String()
}

// failing is an fs.FS in which opening name fails with err, as it is.
type failing struct {
	fs.FS
	name string
	err  error
}

func (f failing) Open(name string) (fs.File, error) {
	if name == f.name {
		return nil, f.err
	}
	return f.FS.Open(name)
}

// oneByte is an fs.FS whose files give one byte a read.
type oneByte struct{ fsys fs.FS }

func (o oneByte) Open(name string) (fs.File, error) {
	f, err := o.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return oneByteFile{f, iotest.OneByteReader(f)}, nil
}

type oneByteFile struct {
	fs.File
	r io.Reader
}

func (f oneByteFile) Read(p []byte) (int, error) { return f.r.Read(p) }

// unreadable returns s as an fs.FS in which name is a directory, which
// opens but cannot be read as a file.
func unreadable(s sheets, name string) fs.FS {
	m := fstest.MapFS{}
	for n, content := range s {
		m[n] = &fstest.MapFile{Data: []byte(content)}
	}
	m[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	return m
}

// utf16 encodes s, text of the Basic Multilingual Plane, as UTF-16.
func utf16(s string, bigEndian bool) string {
	var b []byte
	for _, r := range s {
		if bigEndian {
			b = append(b, byte(r>>8), byte(r))
		} else {
			b = append(b, byte(r), byte(r>>8))
		}
	}
	return string(b)
}
