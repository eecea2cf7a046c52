package wiretest

import (
	"net"
	"net/http"
	"sync"
	"testing"
)

// PipeServer serves an http.Handler over in-memory connections (net.Pipe),
// so that a synctest bubble can serve HTTP in fake time: the deadlines
// net/http and the handler set on a connection (a read or write timeout)
// are the bubble's timers, and a client that does not read holds the
// server's write, as a network whose buffers are full does.
type PipeServer struct {
	srv   *http.Server
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

// NewPipeServer serves h until the test ends (in a bubble: until its
// function returns), and then waits for every connection's goroutine.
func NewPipeServer(t testing.TB, h http.Handler) *PipeServer {
	s := &PipeServer{srv: &http.Server{Handler: h}, conns: make(chan net.Conn), done: make(chan struct{})}
	var open sync.WaitGroup // connections not yet closed
	s.srv.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Done()
		}
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.srv.Serve(pipeListener{s})
	}()
	t.Cleanup(func() {
		_ = s.srv.Close()
		<-served
		open.Wait() // a connection closing may linger (net/http's 500 ms before a reset)
	})
	return s
}

// Dial opens a connection to the server.
func (s *PipeServer) Dial() net.Conn {
	client, server := net.Pipe()
	select {
	case s.conns <- server:
	case <-s.done:
		_ = server.Close()
	}
	return client
}

// pipeListener is the net.Listener a PipeServer serves, its connections
// those Dial made.
type pipeListener struct{ s *PipeServer }

func (l pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.s.conns:
		return c, nil
	case <-l.s.done:
		return nil, net.ErrClosed
	}
}

func (l pipeListener) Close() error {
	l.s.once.Do(func() { close(l.s.done) })
	return nil
}

func (l pipeListener) Addr() net.Addr { return pipeAddr{} }

// pipeAddr is a PipeServer's address.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
