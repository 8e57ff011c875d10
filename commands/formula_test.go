package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ballot/commands"
)

// formulaDataset copies the valid test dataset into a temporary directory
// with one party and one candidate whose names (and the party's short name) a spreadsheet would run as
// formulas.
func formulaDataset(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "datasets", "valid")
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	replace := map[string][][2]string{
		"parties.json": {
			{`"name": "Alpha Party"`, `"name": "=HYPERLINK(\"http://evil.example\",\"x\")"`},
			{`"short_name": "AP"`, `"short_name": "+AP"`},
		},
		"candidates.json": {{`"name": "Person Number1"`, `"name": "@SUM(1+1)"`}},
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range replace[e.Name()] {
			if !strings.Contains(string(b), r[0]) {
				t.Fatalf("%s holds no %s", e.Name(), r[0])
			}
			b = []byte(strings.Replace(string(b), r[0], r[1], 1))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestQueryCSVNeutralisesFormulas: a name that begins with "=" or "@"
// reaches the CSV with a leading "'", so a spreadsheet shows it as text.
func TestQueryCSVNeutralisesFormulas(t *testing.T) {
	dir := formulaDataset(t)
	code, out, stderr := run(t, "query", "parties", "--format", "csv", "--data", dir)
	if code != commands.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := `9946e9b1-b253-5ac4-a6f4-2794c0b372b2,alpha,"'=HYPERLINK(""http://evil.example"",""x"")",'+AP,`; !strings.Contains(out, "\n"+want) {
		t.Errorf("parties CSV:\n%s\nwant a row beginning %s", out, want)
	}
	code, out, stderr = run(t, "query", "candidates", "--format", "csv", "--data", dir)
	if code != commands.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := "b579cf57-8430-59e1-8a21-b51be8e31d30,person-1,'@SUM(1+1),Person,Number1,"; !strings.Contains(out, "\n"+want) {
		t.Errorf("candidates CSV:\n%s\nwant a row beginning %s", out, want)
	}
	// The party's short name, shown beside a candidate's party_id, is
	// neutralised too.
	if want := ",9946e9b1-b253-5ac4-a6f4-2794c0b372b2,'+AP,"; !strings.Contains(out, want) || strings.Contains(out, ",+AP,") {
		t.Errorf("candidates CSV:\n%s\nwant the party's short name as %s, never bare", out, want)
	}
}

// TestValidateWarnsOfFormulas: a name that begins with a formula character
// is a warning, not an error, naming the file and the JSON pointer.
func TestValidateWarnsOfFormulas(t *testing.T) {
	dir := formulaDataset(t)
	code, out, stderr := run(t, "validate", dir)
	if code != commands.ExitOK {
		t.Fatalf("exit %d, want 0; stderr %q", code, stderr)
	}
	for _, want := range []string{
		`parties.json: /0/name: warning: "=HYPERLINK(\"http://evil.example\",\"x\")" begins with "=", which a spreadsheet may run as a formula` + "\n",
		`parties.json: /0/short_name: warning: "+AP" begins with "+", which a spreadsheet may run as a formula` + "\n",
		`candidates.json: /0/name: warning: "@SUM(1+1)" begins with "@", which a spreadsheet may run as a formula` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate's report:\n%s\nwant the line %s", out, want)
		}
	}
}
