package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

type principalKey struct{}

// callers has a tool that tells what reached it of the HTTP request.
type callers struct{}

// Caller returns the principal a net/http middleware put in the request's
// context and the request's X-Trace header.
func (callers) Caller(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	r := rpc.HTTPRequest(ctx)
	if r == nil {
		return p + " (no request)"
	}
	return p + " " + r.Header.Get("X-Trace")
}

// What a net/http middleware in front of Streamable HTTP puts in the
// request's context, and the request itself, reach a tool, in a legacy
// session and in a 2026-07-28 request alike (issue 24's foundation: the
// calls' contexts derived from the handler's alone).
func TestHTTPRequestReachesTheTool(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "c", Version: "1"})
	require.NoError(t, s.Register("", callers{}))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	defer h.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, "alice")))
	}))
	defer srv.Close()

	modern := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caller",` + modernMeta + `}}`
	check(t, srv.URL, exchange{body: modern, header: map[string]string{"Accept": "application/json", "X-Trace": "t-9",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "caller"}, status: 200,
		want: `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"alice t-9"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"}}},"id":2}` + "\n"})

	resp, _ := do(t, srv.URL, exchange{body: initBody})
	require.Equal(t, 200, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}, status: 202})
	_, body := do(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"caller"}}`,
		header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "X-Trace": "t-10", "Accept": "application/json"}})
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"alice t-10"}]},"id":3}`+"\n", body)

	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"caller",`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":" (no request)"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"}}},"id":1}`, nil)
}
