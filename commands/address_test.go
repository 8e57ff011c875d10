package commands_test

import (
	"net"
	"testing"

	"ballot/commands"
)

// TestOpenableURL checks the address the start-up line prints: one a person
// can open, localhost for a listener on every interface.
func TestOpenableURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, scheme string
		addr         net.Addr
		want         string
	}{
		{"every interface, as Go reports :8080", "http", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://localhost:8080"},
		{"every IPv4 interface, 0.0.0.0:8080", "http", &net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://localhost:8080"},
		{"no IP at all", "http", &net.TCPAddr{Port: 8080}, "http://localhost:8080"},
		{"every interface over TLS", "https", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8443}, "https://localhost:8443"},
		{"IPv4 loopback", "http", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9000}, "http://127.0.0.1:9000"},
		{"IPv6 loopback keeps its brackets", "http", &net.TCPAddr{IP: net.IPv6loopback, Port: 9000}, "http://[::1]:9000"},
		{"a chosen address", "https", &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 443}, "https://192.0.2.7:443"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := commands.OpenableURL(tt.scheme, tt.addr); got != tt.want {
				t.Errorf("OpenableURL(%q, %v) = %q, want %q", tt.scheme, tt.addr, got, tt.want)
			}
		})
	}
}
