package mcp_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/mcp"
)

// A request of a session that negotiated 2025-11-25 whose call sends
// nothing before its answer is answered as an event stream all the same,
// its priming event at once: a client whose connection drops before the
// answer resumes the stream (GET, Last-Event-ID) and gets it.
func TestHTTPAnswerResumable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		w, leave, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"stuck"}}`, nil)
		synctest.Wait()
		assert.Equal(t, 200, w.Status())
		assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
		assert.Equal(t, priming, w.String())
		leave() // the connection drops before the answer
		<-done
		close(r.g.release)
		synctest.Wait()
		assert.Equal(t, priming, w.String(), "nothing after the client left")

		w2, _, done2 := r.get("1-0")
		<-done2
		assert.Equal(t, 200, w2.Status())
		assert.Equal(t, "id: 1-1\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"unstuck"}]},"id":"q"}`+"\n\n", w2.String())
	})
}

// What a POST of a legacy session is answered with, when its call sends
// nothing before its answer: an event stream (a priming event, then the
// answer's) in a session that negotiated 2025-11-25, from a client that
// accepts events, unless HTTPOptions.PreferJSON; JSON where the client
// accepts JSON alone (or refuses events with q=0), in the older
// revisions, and with PreferJSON; 202
// for a notification or a response, whatever it accepts.
func TestHTTPPostAnswer(t *testing.T) {
	const (
		both = "application/json, text/event-stream"
		ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		pong = `{"jsonrpc":"2.0","result":{},"id":2}`
	)
	for _, tc := range []struct {
		name       string
		revision   string
		preferJSON bool
		accept     string // "-": none
		body       string
		status     int
		want       string
		typ        string // Content-Type
	}{
		{"events", "2025-11-25", false, both, ping, 200, answered(1, pong), "text/event-stream"},
		{"events alone", "2025-11-25", false, "text/event-stream", ping, 200, answered(1, pong), "text/event-stream"},
		{"any", "2025-11-25", false, "*/*", ping, 200, answered(1, pong), "text/event-stream"},
		{"JSON alone", "2025-11-25", false, "application/json", ping, 200, pong + "\n", "application/json"},
		{"events refused (q=0)", "2025-11-25", false, "application/json, text/event-stream;q=0", ping, 200, pong + "\n", "application/json"},
		{"any but events", "2025-11-25", false, "*/*, text/event-stream;q=0", ping, 200, pong + "\n", "application/json"},
		{"no Accept", "2025-11-25", false, "-", ping, 200, pong + "\n", "application/json"},
		{"PreferJSON", "2025-11-25", true, both, ping, 200, pong + "\n", "application/json"},
		{"2025-06-18", "2025-06-18", false, both, ping, 200, pong + "\n", "application/json"},
		{"2025-03-26", "2025-03-26", false, both, ping, 200, pong + "\n", "application/json"},
		{"notification", "2025-11-25", false, both, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, 202, "", ""},
		{"response", "2025-11-25", false, both, `{"jsonrpc":"2.0","result":{},"id":"s1"}`, 202, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newHTTP(t, &mcp.HTTPOptions{PreferJSON: tc.preferJSON})
			resp := check(t, srv.URL, exchange{body: strings.Replace(initBody, "2025-11-25", tc.revision, 1), status: 200,
				want: strings.Replace(initResult, "2025-11-25", tc.revision, 1)})
			sid := resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, sid)
			check(t, srv.URL, exchange{body: tc.body, status: tc.status, want: tc.want,
				header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": tc.revision, "Accept": tc.accept},
				got:    map[string]string{"Content-Type": tc.typ}})
		})
	}
}
