package server_test

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"ballot/archive"
	"ballot/server"
)

// TestAdminReloadOutlastsWriteTimeout: a reload that takes longer than the
// admin listener's write timeout still gets its answer to the client.
func TestAdminReloadOutlastsWriteTimeout(t *testing.T) {
	const tiny = 50 * time.Millisecond
	s, _ := newServer(t, server.Options{})
	ds := malta(t)
	// The reload outlasts the write and read timeouts set when the
	// request arrived: it returns only once they have passed.
	load := func() (*archive.Archive, error) {
		time.Sleep(4 * tiny)
		return archive.Of(ds), nil
	}
	addr := serveLoopback(t, s.AdminHandler(load), server.Timeouts{Write: tiny, Read: tiny, ReadHeader: tiny})
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	resp, err := hc.Post("http://"+addr+"/reload", "", nil)
	if err != nil {
		t.Fatalf("POST /reload: %v (the answer was lost)", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"status":"reloaded","version":"` + ds.Version + "\"}\n"
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != want {
		t.Errorf("POST /reload: %d %q (%v), want 200 %q", resp.StatusCode, body, err, want)
	}
}

// serveLoopback runs server.Serve with h and timeouts on a loopback port
// until the test ends (server.ServeOn), and returns the address.
func serveLoopback(t *testing.T, h http.Handler, timeouts server.Timeouts) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server.ServeOn(t, ln, h, timeouts)
	return ln.Addr().String()
}
