package commands_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ballot/internal/testprograms"
)

// tlsFiles are a certificate and key the test wrote, and the certificate.
type tlsFiles struct {
	cert, key string
	leaf      *x509.Certificate
}

// writeCert writes a self-signed ECDSA certificate for 127.0.0.1 with the
// given serial, and its key, as dir/cert.pem and dir/key.pem. Each file is
// replaced in one rename, as a certificate renewal tool does.
func writeCert(t *testing.T, dir string, serial int64) tlsFiles {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "ballot test " + strconv.FormatInt(serial, 10)},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	f := tlsFiles{cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem"), leaf: leaf}
	replaceFile(t, f.cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	replaceFile(t, f.key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	return f
}

// replaceFile writes b to path through a rename, so no reader sees half.
func replaceFile(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// fetchFrom sends a GET with the transport given, whose address tells the
// server which client it is, and reads the whole answer.
func fetchFrom(t *testing.T, tr *http.Transport, rawURL string, hdr map[string]string) reply {
	t.Helper()
	return prodDo(t, &http.Client{Transport: tr, Timeout: e2eTimeout}, http.MethodGet, rawURL, hdr)
}

// transportFrom is a transport dialling from localIP; with roots it speaks
// TLS, offering HTTP/2 when h2 is set and HTTP/1.1 alone otherwise.
func transportFrom(t *testing.T, localIP string, roots *x509.CertPool, h2 bool) *http.Transport {
	t.Helper()
	dialer := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	tr := &http.Transport{Proxy: nil, DialContext: dialer.DialContext, DisableCompression: true}
	if roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: roots}
		tr.ForceAttemptHTTP2 = h2 // a custom dialer turns HTTP/2 off unless asked
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// TestTLSSameAnswers checks that HTTPS, over HTTP/1.1 and over HTTP/2,
// answers with the headers and bodies plain HTTP answers: TLS changes the
// transport, not the contract.
func TestTLSSameAnswers(t *testing.T) {
	t.Parallel()
	files := writeCert(t, t.TempDir(), 1)
	plain := serveInProcess(t)
	secure := serveInProcess(t, "--tls-cert-file", files.cert, "--tls-key-file", files.key)
	if want := "on https://" + secure.addr + "/api/public/v1/\n"; !strings.Contains(secure.stderr.String(), want) {
		t.Errorf("the start-up line does not say %q:\n%s", want, secure.stderr)
	}
	prodWaitLog(t, secure, regexp.MustCompile(`level=INFO msg=serving .* api=https://`+regexp.QuoteMeta(secure.addr)+`/api/public/v1/`), "the serving log line with the https:// address")
	roots := x509.NewCertPool()
	roots.AddCert(files.leaf)
	// Each protocol from its own address: each is a new client with full
	// rate-limit counters, so the headers can be the same.
	viaPlain := transportFrom(t, "127.0.0.2", nil, false)
	viaH1 := transportFrom(t, "127.0.0.3", roots, false)
	viaH2 := transportFrom(t, "127.0.0.4", roots, true)

	for _, tt := range []struct {
		path   string
		hdr    map[string]string
		status int
	}{
		{e2eBase + "/parties", nil, http.StatusOK},
		{e2eBase + "/candidates?district=5&party=pn", nil, http.StatusOK},
		{e2eBase + "/districts", map[string]string{"Accept-Encoding": "gzip", "Origin": "https://news.example"}, http.StatusOK},
		{e2eBase + "/", nil, http.StatusOK},
		{e2eBase + "/parties", map[string]string{"If-None-Match": `W/"nothing"`}, http.StatusOK},
		{e2eBase + "/candidates?limit=0", nil, http.StatusBadRequest},
		{e2eBase + "/nope", nil, http.StatusNotFound},
	} {
		want := fetchFrom(t, viaPlain, "http://"+plain.addr+tt.path, tt.hdr)
		if want.status != tt.status || want.proto != "HTTP/1.1" {
			t.Fatalf("plain GET %s: %s %d, want HTTP/1.1 %d", tt.path, want.proto, want.status, tt.status)
		}
		for _, c := range []struct {
			tr    *http.Transport
			proto string
		}{{viaH1, "HTTP/1.1"}, {viaH2, "HTTP/2.0"}} {
			got := fetchFrom(t, c.tr, "https://"+secure.addr+tt.path, tt.hdr)
			if got.proto != c.proto {
				t.Errorf("GET %s over TLS: protocol %s, want %s", tt.path, got.proto, c.proto)
			}
			if got.status != want.status {
				t.Errorf("GET %s over %s: status %d, plain HTTP %d", tt.path, got.proto, got.status, want.status)
			}
			sameHeadersAsPlain(t, "GET "+tt.path+" over "+got.proto, got.header, want.header)
			if g, w := e2eGenerated.ReplaceAll(plainBody(t, got), nil), e2eGenerated.ReplaceAll(plainBody(t, want), nil); string(g) != string(w) {
				t.Errorf("GET %s over %s: body (generatedAt aside)\n%.300s\nplain HTTP:\n%.300s", tt.path, got.proto, g, w)
			}
		}
	}
}

// plainBody is an answer's body, decompressed when it came gzipped: the
// compressed bytes differ with generatedAt.
func plainBody(t *testing.T, r reply) []byte {
	t.Helper()
	if r.header.Get("Content-Encoding") != "gzip" {
		return r.body
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("a gzip answer that is not gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("a gzip answer that is not gzip: %v", err)
	}
	return b
}

// sameHeadersAsPlain compares two answers' header fields, names and values, but
// Date, and X-RateLimit-Reset, which may be one second later when the two
// windows began either side of a second's turn.
func sameHeadersAsPlain(t *testing.T, what string, got, want http.Header) {
	t.Helper()
	names := func(h http.Header) []string {
		var out []string
		for k := range h {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if g, w := names(got), names(want); !slices.Equal(g, w) {
		t.Errorf("%s: header fields %q, plain HTTP %q", what, g, w)
		return
	}
	for name, values := range want {
		switch name {
		case "Date":
			continue
		case "X-Ratelimit-Reset":
			g, _ := strconv.ParseInt(got.Get(name), 10, 64)
			w, _ := strconv.ParseInt(values[0], 10, 64)
			if g < w || g > w+1 {
				t.Errorf("%s: X-RateLimit-Reset %d, plain HTTP %d", what, g, w)
			}
			continue
		}
		if !slices.Equal(got.Values(name), values) {
			t.Errorf("%s: %s %q, plain HTTP %q", what, name, got.Values(name), values)
		}
	}
}

// servedSerial opens a new TLS connection and returns the serial number of
// the certificate the server presents.
func servedSerial(t *testing.T, addr string, roots *x509.CertPool) int64 {
	t.Helper()
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: &tls.Config{RootCAs: roots, NextProtos: []string{"h2"}}}
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("TLS handshake with %s: %v", addr, err)
	}
	defer c.Close()
	state := c.(*tls.Conn).ConnectionState()
	if state.NegotiatedProtocol != "h2" {
		t.Errorf("ALPN: %q negotiated, want h2", state.NegotiatedProtocol)
	}
	return state.PeerCertificates[0].SerialNumber.Int64()
}

// TestTLSReload checks that SIGHUP and POST /reload serve a renewed
// certificate on new connections, and that a bad one is logged and the old
// one kept.
func TestTLSReload(t *testing.T) {
	testprograms.EndToEnd(t, "sends SIGHUP to the binary")
	t.Parallel()
	dir := t.TempDir()
	first := writeCert(t, dir, 1)
	p := startServerWith(t, "--tls-cert-file", first.cert, "--tls-key-file", first.key, "--admin-listen", "127.0.0.1:0")
	admin := prodAdmin(t, p)
	roots := x509.NewCertPool()
	roots.AddCert(first.leaf)
	if got := servedSerial(t, p.addr, roots); got != 1 {
		t.Fatalf("serial %d served at start, want 1", got)
	}

	second := writeCert(t, dir, 2)
	roots.AddCert(second.leaf)
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	prodWaitLog(t, p, regexp.MustCompile(`msg="TLS certificate reloaded" subject="CN=ballot test 2" serial=2 `), "the reload of certificate 2")
	if got := servedSerial(t, p.addr, roots); got != 2 {
		t.Errorf("serial %d served after SIGHUP, want 2", got)
	}

	replaceFile(t, second.cert, []byte("not a certificate\n"))
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	refused := regexp.MustCompile(`level=ERROR msg="TLS certificate reload refused: still serving the previous certificate" error=".*` + regexp.QuoteMeta(second.cert) + `: no PEM certificate`)
	prodWaitLog(t, p, refused, "the refusal of a bad certificate")
	if got := servedSerial(t, p.addr, roots); got != 2 {
		t.Errorf("serial %d served after a bad certificate, want 2 still", got)
	}

	third := writeCert(t, dir, 3)
	roots.AddCert(third.leaf)
	r := prodDo(t, prodHTTP(t), http.MethodPost, "http://"+admin+"/reload", nil)
	if r.status != http.StatusOK {
		t.Fatalf("POST /reload: status %d: %s", r.status, r.body)
	}
	if got := servedSerial(t, p.addr, roots); got != 3 {
		t.Errorf("serial %d served after POST /reload, want 3", got)
	}
	// The public API answers over the new certificate.
	got := fetchFrom(t, transportFrom(t, "127.0.0.1", roots, true), "https://"+p.addr+e2eBase+"/parties", nil)
	if got.status != http.StatusOK || got.proto != "HTTP/2.0" {
		t.Errorf("GET /parties after the reloads: %s %d, want HTTP/2.0 200", got.proto, got.status)
	}
}

// TestTLSRefusesToStart checks that a missing or bad certificate or key
// stops serve at once with one line naming the file.
func TestTLSRefusesToStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeCert(t, filepath.Join(dir), 1)
	otherDir := filepath.Join(dir, "other")
	if err := os.Mkdir(otherDir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := writeCert(t, otherDir, 2)
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		wantStderr string
	}{
		{"missing certificate", []string{"--tls-cert-file", missing, "--tls-key-file", good.key}, 1,
			"ballot: tls_cert_file " + missing + ": no such file or directory\n"},
		{"missing key", []string{"--tls-cert-file", good.cert, "--tls-key-file", missing}, 1,
			"ballot: tls_key_file " + missing + ": no such file or directory\n"},
		{"certificate not PEM", []string{"--tls-cert-file", garbage, "--tls-key-file", good.key}, 1,
			"ballot: tls_cert_file " + garbage + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it\n"},
		{"key not PEM", []string{"--tls-cert-file", good.cert, "--tls-key-file", good.cert}, 1,
			"ballot: tls_key_file " + good.cert + ": no PEM private key (-----BEGIN … PRIVATE KEY-----) in it\n"},
		{"key of another certificate", []string{"--tls-cert-file", good.cert, "--tls-key-file", other.key}, 1,
			"ballot: tls_cert_file " + good.cert + " with tls_key_file " + other.key + ": tls: private key does not match public key\n"},
		{"certificate alone", []string{"--tls-cert-file", good.cert}, 2,
			"ballot: flag --tls-cert-file: tls_cert_file and tls_key_file go together: set both to serve HTTPS, or neither\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A dataset without warnings: the embedded archive's would be
			// logged before the refusal.
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--admin-listen", "", "--data", prodValidDataset}, tt.args...)
			code, _, stderr := runWithin(t, 30*time.Second, args...)
			if code != tt.code || stderr != tt.wantStderr {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, stderr, tt.code, tt.wantStderr)
			}
		})
	}
}
