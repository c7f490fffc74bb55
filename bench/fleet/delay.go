//go:build linux

package main

import (
	"net"
	"time"
)

// A delayProxy forwards TCP connections on 127.0.0.1 to a server, holding
// every chunk of bytes for delay in each direction: a network whose round
// trip takes twice delay. (The TCP handshake with the proxy is not
// delayed; the proxy's own connection to the server is made at once.)
type delayProxy struct {
	Addr string
	l    net.Listener
}

func newDelayProxy(target string, delay time.Duration) *delayProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	p := &delayProxy{Addr: l.Addr().String(), l: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go pipe(c, s, delay)
			go pipe(s, c, delay)
		}
	}()
	return p
}

func (p *delayProxy) Close() { p.l.Close() }

// pipe copies from to to, each chunk delay after it was read, in order.
func pipe(from, to net.Conn, delay time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	q := make(chan chunk, 1024)
	go func() {
		defer to.Close()
		for c := range q {
			time.Sleep(time.Until(c.at))
			if _, err := to.Write(c.data); err != nil {
				return
			}
		}
	}()
	defer close(q)
	for {
		buf := make([]byte, 32<<10)
		n, err := from.Read(buf)
		if n > 0 {
			q <- chunk{time.Now().Add(delay), buf[:n]}
		}
		if err != nil {
			return
		}
	}
}
