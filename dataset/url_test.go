package dataset_test

import (
	"strings"
	"testing"

	"ballot/dataset"
	"ballot/internal/datasettest"
)

// TestURLProblem: only absolute http and https URLs in RFC 3986's
// characters, with no user information, a valid host and a valid port.
func TestURLProblem(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://pn.org.mt/", ""},
		{"http://www.gov.mt/en/Pages/Elections.aspx?x=1&y=%C4%A7#top", ""},
		{"https://pn.org.mt:8443/path", ""},
		{"https://PN.org.MT", ""},
		{"https://xn--amrun-9ib.gov.mt/", ""},
		{"http://192.0.2.1/", ""},
		{"http://[2001:db8::1]:8080/", ""},
		{"https://en.wikipedia.org/wiki/Partit_Laburista_(Malta)", ""},
		{"https://pn.org.mt/a b", "it holds a space (write %20)"},
		{`https://pn.org.mt/"><script>alert(1)</script>`, `the character "\"" is not allowed in a URL (percent-encode it)`},
		{"https://pn.org.mt/<x>", `the character "<" is not allowed in a URL (percent-encode it)`},
		{"https://pn.org.mt/{x}", `the character "{" is not allowed in a URL (percent-encode it)`},
		{"https://pn.org.mt/\\x", `the character "\\" is not allowed in a URL (percent-encode it)`},
		{"https://pn.org.mt/\x00", `the character "\x00" is not allowed in a URL (percent-encode it)`},
		{"https://pn.org.mt/100%", "a % is not followed by two hexadecimal digits"},
		{"https://pn.org.mt/%zz", "a % is not followed by two hexadecimal digits"},
		{"https://ħamrun.gov.mt/", "it holds a character that is not ASCII (percent-encode it, and write a host name in its xn-- form)"},
		{"https://pn.org.mt@evil.example/", "it has user information before its host (user@host), which hides the host it leads to"},
		{"https://user:pass@pn.org.mt/", "it has user information before its host (user@host), which hides the host it leads to"},
		{"https://pn.org.mt:99999/", "port 99999 is not from 1 to 65535"},
		{"https://pn.org.mt:0/", "port 0 is not from 1 to 65535"},
		{"https://pn.org.mt:/", "its port is empty"},
		{"https://pn.org.mt:80a/", "it cannot be read as a URL"},
		{"https://-pn.org.mt/", `host "-pn.org.mt" is not a valid host name`},
		{"https://pn..org.mt/", `host "pn..org.mt" is not a valid host name`},
		{"https://pn_x.org.mt/", `host "pn_x.org.mt" is not a valid host name`},
		{"https://" + strings.Repeat("a", 64) + ".mt/", `host "` + strings.Repeat("a", 64) + `.mt" is not a valid host name`},
		{"http://999.1.1.1/", `host "999.1.1.1" is not a valid host name`},
		{"http://[::1%25eth0]/", `host "::1%eth0" is not an IPv6 address`},
		{"https://", "it has no host (write it as https://host/…)"},
		{"https:pn.org.mt", "it has no host (write it as https://host/…)"},
		{"logo.png", "it is relative (write the whole URL, beginning https://)"},
		{"//pn.org.mt/", "it is relative (write the whole URL, beginning https://)"},
		{"ftp://pn.org.mt/", "only http and https URLs are allowed"},
		{"javascript:alert(1)", "only http and https URLs are allowed"},
		{"", "it is relative (write the whole URL, beginning https://)"},
	}
	for _, tt := range tests {
		if got := dataset.URLProblem(tt.url); got != tt.want {
			t.Errorf("URLProblem(%q) = %q, want %q", tt.url, got, tt.want)
		}
		if got := dataset.AbsoluteHTTP(tt.url); got != (tt.want == "") {
			t.Errorf("AbsoluteHTTP(%q) = %v", tt.url, got)
		}
	}
}

// TestBadURLsNamed: each refused URL of a dataset is reported with its file,
// JSON pointer (or manifest key) and why.
func TestBadURLsNamed(t *testing.T) {
	m := datasettest.Files(t)
	datasettest.Edit(t, m, dataset.PartiesFile, func(rs []map[string]any) []map[string]any {
		rs[0]["website"] = "https://pn.org.mt@evil.example/"
		rs[1]["logo_url"] = `https://x.example/"><script>`
		return rs
	})
	datasettest.Edit(t, m, dataset.DistrictsFile, func(rs []map[string]any) []map[string]any {
		rs[2]["source_url"] = "https://electoral.gov.mt:99999/results"
		return rs
	})
	datasettest.Edit(t, m, dataset.CandidatesFile, func(rs []map[string]any) []map[string]any {
		rs[4]["photo_url"] = "https://x.example/a photo.jpg"
		return rs
	})
	m[dataset.ManifestFile].Data = []byte(strings.Replace(string(m[dataset.ManifestFile].Data), `license_url = "`, `license_url = "https://a@b.example/`, 1))
	_, err := dataset.Load(m)
	want := []string{
		`dataset.toml: license_url: "https://a@b.example/`,
		`parties.json: /0/website: "https://pn.org.mt@evil.example/" is not an absolute http or https URL: it has user information before its host (user@host), which hides the host it leads to`,
		`parties.json: /1/logo_url: "https://x.example/\"><script>" is not an absolute http or https URL: the character "\"" is not allowed in a URL (percent-encode it)`,
		`districts.json: /2/source_url: "https://electoral.gov.mt:99999/results" is not an absolute http or https URL: port 99999 is not from 1 to 65535`,
		`candidates.json: /4/photo_url: "https://x.example/a photo.jpg" is not an absolute http or https URL: it holds a space (write %20)`,
	}
	if err == nil {
		t.Fatal("the dataset loaded")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the report lacks %q:\n%v", w, err)
		}
	}
}
