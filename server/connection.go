package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// connection is what the server knows of one connection, worked out once,
// when it is accepted (ConnContext), rather than on every request
// it carries: the peer's address, parsed, and its text in the access log;
// and, on HTTP/1, the store of the header values made for a response.
type connection struct {
	// remote is the RemoteAddr net/http gives each request of the
	// connection, and peer the address it names (peerAddr). A request
	// whose RemoteAddr is another (a handler's test, a middleware that
	// rewrote it) has it parsed as before.
	remote string
	peer   netip.Addr
	// peerText is the peer as the access log writes a client known by
	// its address (appendClient).
	peerText []byte
	// values holds the header values of the response in progress on an
	// HTTP/1 connection, whose requests are answered one after the other:
	// net/http has written a response's header block before it reads the
	// connection's next request, so each request can reuse them (see
	// request.fieldValues). An HTTP/2 connection's streams are answered
	// at the same time, and each response makes its own.
	values fieldValues
	// raw is the socket of a plain TCP connection (HTTP/1, not TLS), which
	// a large answer corks (writeCorked); nil for any other.
	raw syscall.RawConn
}

type connectionKey struct{}

// ConnContext is the http.Server's ConnContext that Serve sets: the
// context of each connection holds what the server knows of it. A
// server of one's own (httptest's) sets it too, to answer as Serve does.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	addr := c.RemoteAddr()
	if addr == nil { // a listener's connection that names no peer: parsed per request
		return ctx
	}
	remote := addr.String() // as net/http sets each request's RemoteAddr
	peer := peerAddr(remote)
	conn := &connection{
		remote:   remote,
		peer:     peer,
		peerText: appendClient(nil, Client{Addr: peer}),
	}
	if corks {
		switch tc := c.(type) {
		case *lingerConn: // Serve's
			conn.raw, _ = tc.SyscallConn()
		case *net.TCPConn: // a server of one's own
			conn.raw, _ = tc.SyscallConn()
		}
	}
	return context.WithValue(ctx, connectionKey{}, conn)
}

// connectionOf returns the connection r came on, or nil for a request
// that did not come through Serve.
func connectionOf(r *http.Request) *connection {
	c, _ := r.Context().Value(connectionKey{}).(*connection)
	if c == nil || c.remote != r.RemoteAddr {
		return nil
	}
	return c
}
