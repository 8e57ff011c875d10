package commands

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// certificate is the public listener's TLS certificate, read from
// tls_cert_file and tls_key_file. The handshake reads it through
// GetCertificate, so a reload swaps it for new connections while those
// already open keep theirs.
type certificate struct {
	certFile, keyFile string
	current           atomic.Pointer[tls.Certificate]
}

// loadCertificate reads the certificate and key, refusing a file that is
// missing, not PEM, or a key that does not match the certificate.
func loadCertificate(certFile, keyFile string) (*certificate, error) {
	c := &certificate{certFile: certFile, keyFile: keyFile}
	cert, err := c.read()
	if err != nil {
		return nil, err
	}
	c.current.Store(cert)
	return c, nil
}

// read reads and checks both files, with an error naming the file at fault.
func (c *certificate) read() (*tls.Certificate, error) {
	certPEM, err := os.ReadFile(c.certFile)
	if err != nil {
		return nil, fmt.Errorf("tls_cert_file %s: %w", c.certFile, errors.Unwrap(err))
	}
	keyPEM, err := os.ReadFile(c.keyFile)
	if err != nil {
		return nil, fmt.Errorf("tls_key_file %s: %w", c.keyFile, errors.Unwrap(err))
	}
	// tls.X509KeyPair's errors do not say which file is wrong: each file
	// is first checked for the PEM block it must hold.
	if !hasPEMBlock(certPEM, func(t string) bool { return t == "CERTIFICATE" }) {
		return nil, fmt.Errorf("tls_cert_file %s: no PEM certificate (-----BEGIN CERTIFICATE-----) in it", c.certFile)
	}
	if !hasPEMBlock(keyPEM, func(t string) bool { return strings.HasSuffix(t, "PRIVATE KEY") }) {
		return nil, fmt.Errorf("tls_key_file %s: no PEM private key (-----BEGIN … PRIVATE KEY-----) in it", c.keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("tls_cert_file %s with tls_key_file %s: %v", c.certFile, c.keyFile, err)
	}
	return &cert, nil
}

// hasPEMBlock reports whether b holds a PEM block of a type wanted accepts.
func hasPEMBlock(b []byte, wanted func(string) bool) bool {
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return false
		}
		if wanted(block.Type) {
			return true
		}
	}
}

// reload reads the files again and serves the new certificate on new
// connections; a certificate that cannot be read is logged and the one
// already served goes on.
func (c *certificate) reload(logger *slog.Logger) {
	cert, err := c.read()
	if err != nil {
		logger.Error("TLS certificate reload refused: still serving the previous certificate", slog.String("error", err.Error()))
		return
	}
	c.current.Store(cert)
	logger.Info("TLS certificate reloaded", certAttrs(cert)...)
}

// certAttrs describe a certificate in the log: what an operator checks
// after renewing one.
func certAttrs(cert *tls.Certificate) []any {
	if cert.Leaf == nil {
		return nil
	}
	return []any{
		slog.String("subject", cert.Leaf.Subject.String()),
		slog.String("serial", cert.Leaf.SerialNumber.Text(16)),
		slog.String("not_after", cert.Leaf.NotAfter.UTC().Format(time.RFC3339)),
	}
}

// listener serves TLS on ln, offering HTTP/2 and HTTP/1.1: net/http
// answers HTTP/2 on connections that negotiated it.
func (c *certificate) listener(ln net.Listener) net.Listener {
	return tls.NewListener(ln, &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	})
}
