package rpchttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack (issue 23 review): a body announced at most presizedBody (64 KiB)
// takes the fast path of ReadBody, which counts its announced length at
// once, before a byte came. Four clients that announce 64 KiB and send
// one byte hold 256 KiB of the bound, not 4 bytes, and an honest request
// is refused 503: the "counted as they come, never as announced" rule
// fails for every body of 64 KiB or less.
func TestAttackSmallAnnouncedBodiesHoldTheBound(t *testing.T) {
	var g Gate
	g.Init(quiet, Limits{MaxFrame: 64 << 20, MaxHeld: 256 << 10})
	var reads []<-chan readResult
	var pipes []*io.PipeWriter
	for range 4 {
		r, pw := slowBody(64 << 10)
		reads = append(reads, startRead(&g, r))
		_, err := pw.Write([]byte("{"))
		require.NoError(t, err)
		pipes = append(pipes, pw)
	}
	defer func() {
		for i, pw := range pipes {
			pw.CloseWithError(io.ErrUnexpectedEOF)
			<-reads[i]
		}
	}()
	awaitHeld(t, &g, 4) // held: what came, not what was announced
	honest := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"ping","id":1}`))
	got := <-startRead(&g, honest)
	assert.True(t, got.ok, "an honest body is served beside four that sent a byte: got %d", got.code)
	if got.ok {
		g.Release(got.held)
	}
}

// Attack (issue 23 review): the fast path sets no read deadline, so
// MinRate never applies to a body announced at 64 KiB or less: one that
// sends a byte and stops is never answered 408, and holds its connection
// (and its 64 KiB of the bound, above) until the server's own ReadTimeout,
// if any (none on a caller's http.Server; 2 min with rpc.ServeListener).
func TestAttackSmallAnnouncedBodyEscapesMinRate(t *testing.T) {
	var g Gate
	g.Init(quiet, Limits{MaxFrame: 64 << 20, MaxHeld: 256 << 20, MinRate: 1 << 20, Grace: 50 * time.Millisecond})
	done := make(chan readResult, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, held, ok := g.ReadBody(w, r)
		if ok {
			g.Release(held)
			w.WriteHeader(200)
		}
		done <- readResult{body: body, ok: ok}
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", 64<<10)
	require.NoError(t, err)
	select {
	case res := <-done:
		assert.False(t, res.ok)
	case <-time.After(3 * time.Second): // 60x the grace plus the rate's allowance
		t.Fatal("a 64 KiB body that sent one byte was not ended by MinRate")
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	status, _ := bufio.NewReader(conn).ReadString('\n')
	assert.Equal(t, "HTTP/1.1 408 Request Timeout\r\n", status)
}
