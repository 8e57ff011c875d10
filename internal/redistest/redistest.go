// Package redistest starts a real redis-server for tests: on a free loopback
// port, with no persistence, stopped by its PID when the test ends. A test
// that needs it is skipped when redis-server is not on PATH, and fails then
// under BALLOT_TEST_REQUIRE=all (see package testprograms; CI installs
// Debian's package with .ci/redis-deps). It imports testing, so only tests
// use it.
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"ballot/internal/testprograms"
)

// readyWait bounds the wait for a started redis-server to answer PING: far
// beyond what a loaded machine needs, so only a server that will never
// answer reaches it.
const readyWait = 20 * time.Second

// Server is one redis-server a test started.
type Server struct {
	// Addr is its loopback address, host:port.
	Addr string
	dir  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan struct{}
}

// Start starts redis-server on a free loopback port and waits until it
// answers PING. Its cleanup stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	testprograms.Need(t, testprograms.Redis)
	s := &Server{dir: t.TempDir()}
	// A port the kernel just gave out is free unless another process
	// takes it first; then redis-server exits and another is tried.
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.Addr = ln.Addr().String()
		ln.Close()
		if err := s.launch(t); err == nil {
			break
		} else if attempt == 4 {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { s.Stop(t, syscall.SIGTERM) })
	return s
}

// URL is the redis:// URL of the server.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// PID is the server's process id.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Pid
}

// launch starts redis-server on s.Addr and waits for PING.
func (s *Server) launch(t testing.TB) error {
	t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command("redis-server",
		"--bind", "127.0.0.1", "--port", port,
		"--save", "", "--appendonly", "no",
		"--dir", s.dir, "--daemonize", "no", "--logfile", "")
	out := new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.out, s.done = cmd, out, done
	s.mu.Unlock()
	deadline := time.Now().Add(readyWait)
	for {
		if ping(s.Addr) == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server on %s exited before answering PING: %s\n%s", s.Addr, cmd.ProcessState, out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("redis-server on %s did not answer PING within %v\n%s", s.Addr, readyWait, out)
		}
	}
}

// ping sends PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop sends sig to the server by its PID and waits for it to exit (SIGKILL
// after 15 s). Stopping a stopped server does nothing.
func (s *Server) Stop(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	select {
	case <-done:
		return
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Errorf("signal %v to redis-server pid %d: %v", sig, cmd.Process.Pid, err)
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("redis-server pid %d did not exit within 15 s of %v; killed", cmd.Process.Pid, sig)
	}
}

// Restart starts a stopped server again on the same port, empty.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.launch(t); err != nil {
		t.Fatal(err)
	}
}

// Keys returns how many keys the server holds (DBSIZE).
func (s *Server) Keys(t testing.TB) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("DBSIZE\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || len(line) < 4 || line[0] != ':' {
		t.Fatalf("DBSIZE answered %q, %v", line, err)
	}
	n, err := strconv.Atoi(line[1 : len(line)-2])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
