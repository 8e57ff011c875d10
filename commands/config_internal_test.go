package commands

import (
	"fmt"
	"testing"
)

// TestTrustedPrefixesUnmapped: proxies written as IPv4-mapped IPv6
// addresses or ranges are the IPv4 ones, as clients are seen.
func TestTrustedPrefixesUnmapped(t *testing.T) {
	cfg := Config{TrustedProxies: []string{"::ffff:127.0.0.2/128", "::ffff:10.1.0.0/104", "::ffff:192.0.2.1", "::ffff:0:0/96", "2001:db8::/32", "::/0", "192.0.2.0/24"}}
	got, err := cfg.trustedPrefixes()
	if err != nil {
		t.Fatal(err)
	}
	want := "[127.0.0.2/32 10.0.0.0/8 192.0.2.1/32 0.0.0.0/0 2001:db8::/32 ::/0 192.0.2.0/24]"
	if fmt.Sprint(got) != want {
		t.Errorf("trustedPrefixes = %v, want %v", got, want)
	}
}
