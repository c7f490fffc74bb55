package pgtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// A Proxy forwards TCP connections to a server and counts what goes
// through: connections, and requests (a run of bytes from the client
// after the server last answered, which is one round trip).
type Proxy struct {
	Addr        string // host:port to connect to instead of the server
	Connections atomic.Int64
	Requests    atomic.Int64
	// Blackhole, while set, drops whatever goes through, both ways, and
	// new connections get no answer: a network cut off without a word,
	// where every round waits for its time limit.
	Blackhole atomic.Bool
}

// NewProxy starts a Proxy to the server at target, stopped when t ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.Connections.Add(1)
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			var turn atomic.Bool // true once the server has spoken since the client last did
			turn.Store(true)
			wg.Add(2)
			go func() { // client to server
				defer wg.Done()
				defer s.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 && p.Blackhole.Load() {
						continue
					}
					if n > 0 {
						if turn.Swap(false) {
							p.Requests.Add(1)
						}
						if _, err := s.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // server to client
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 && p.Blackhole.Load() {
						continue
					}
					if n > 0 {
						turn.Store(true)
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err == io.EOF || err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}
