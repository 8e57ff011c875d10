package commands

import "net"

// openableURL is the base URL of a listener written so that a person can
// open it: a listener on every interface (":8080", "0.0.0.0:8080",
// "[::]:8080") is reached on this machine as localhost, while
// "http://[::]:8080" leads nowhere in a browser. scheme is http or https.
func openableURL(scheme string, addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		// Not a host:port (no TCP listener gives one): shown as it is.
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
