package mcp_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/mcp"
)

// What a 2026-07-28 POST is answered with when its call sends nothing
// before its answer: an event stream (the answer's event alone: no
// priming event, no id) from a client that accepts events, unless
// HTTPOptions.PreferJSON; JSON where the client accepts JSON alone (or
// */*), with PreferJSON, and for an error that answers it first (its
// status the protocol's: 400); 202 for a notification, whatever it
// accepts.
func TestHTTPModernPostAnswer(t *testing.T) {
	const (
		both    = "application/json, text/event-stream"
		echo    = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},` + modernMeta + `}}`
		echoed  = `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"x"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":3}`
		bare    = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
		missing = `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]},"id":2}` + "\n"
	)
	for _, tc := range []struct {
		name       string
		preferJSON bool
		accept     string // "-": none
		body       string
		method     string
		status     int
		want       string
		typ        string // Content-Type
	}{
		{"events", false, both, echo, "tools/call", 200, streamed(echoed), "text/event-stream"},
		{"events alone", false, "text/event-stream", echo, "tools/call", 200, streamed(echoed), "text/event-stream"},
		{"any", false, "*/*", echo, "tools/call", 200, echoed + "\n", "application/json"}, // rpc: */* is JSON's
		{"JSON alone", false, "application/json", echo, "tools/call", 200, echoed + "\n", "application/json"},
		{"no Accept", false, "-", echo, "tools/call", 200, echoed + "\n", "application/json"},
		{"PreferJSON", true, both, echo, "tools/call", 200, echoed + "\n", "application/json"},
		{"PreferJSON, events alone", true, "text/event-stream", echo, "tools/call", 200, streamed(echoed), "text/event-stream"},
		{"an error first", false, both, bare, "tools/list", 400, missing, "application/json"},
		{"notification", false, both, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, "notifications/cancelled", 202, "", ""},
		{"notification, PreferJSON", true, both, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, "notifications/cancelled", 202, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newHTTP(t, &mcp.HTTPOptions{PreferJSON: tc.preferJSON})
			header := modernHeaders(tc.method, "")
			if tc.method == "tools/call" {
				header["Mcp-Name"] = "echo"
			}
			header["Accept"] = tc.accept
			check(t, srv.URL, exchange{body: tc.body, header: header, status: tc.status, want: tc.want,
				got: map[string]string{"Content-Type": tc.typ}})
		})
	}
}

// A long 2026-07-28 call, from a client that accepts events, has its
// event stream opened once it has run KeepAlive with nothing to send, and
// a keep-alive comment each KeepAlive after that: its connection is never
// idle for longer (proxies cut idle ones); its answer is the last event.
func TestHTTPModernLongCallKeptAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{KeepAlive: 10 * time.Second})
		defer r.h.Close()
		header := modernHeaders("tools/call", "stuck")
		header["Mcp-Session-Id"] = "" // stateless: none
		w, _, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"stuck",`+modernMeta+`}}`, header)
		synctest.Wait()
		assert.Equal(t, 0, w.Status(), "nothing yet: an error would still be answered 400")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.Equal(t, 200, w.Status(), "the stream opens")
		assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
		assert.Equal(t, "no", w.Header().Get("X-Accel-Buffering"))
		assert.Equal(t, "", w.String())
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.Equal(t, ":\n\n", w.String())
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.Equal(t, ":\n\n:\n\n", w.String())
		close(r.g.release)
		<-done
		assert.Equal(t, ":\n\n:\n\n"+streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"unstuck"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gated","version":"1.0.0"}}},"id":"q"}`), w.String())
	})
}
