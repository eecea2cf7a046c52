package rpc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

type callerKey struct{}

// whoCalls answers with what reached it of the HTTP request: a value a
// net/http middleware put in the request's context, a header, and
// whether the remote address is known.
var whoCalls = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	r := rpc.HTTPRequest(ctx)
	if r == nil {
		return "no HTTP request", nil
	}
	v, _ := ctx.Value(callerKey{}).(string)
	return v + " " + r.Header.Get("X-Trace") + " " + r.RemoteAddr[:strings.IndexByte(r.RemoteAddr, ':')], nil
})

// What an ordinary net/http middleware puts in a request's context
// reaches every call the request's body carries, and the request itself
// (its headers, its remote address) is the calls' to read; the handler's
// own context's values come first. A call of a stream connection has no
// HTTP request.
func TestHTTPRequestReachesTheCalls(t *testing.T) {
	type baseKey struct{}
	base := context.WithValue(context.Background(), baseKey{}, "base")
	h := rpc.NewHTTPHandler(base, rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method == "base" {
			return ctx.Value(baseKey{}), nil
		}
		return whoCalls(ctx, req)
	}), &rpc.Options{Logger: quiet})
	defer h.Close()
	authn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := context.WithValue(r.Context(), callerKey{}, "alice")
			ctx = context.WithValue(ctx, baseKey{}, "shadowed")
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	srv := httptest.NewServer(authn(h))
	defer srv.Close()
	tests := []struct{ body, want string }{
		{`{"jsonrpc":"2.0","method":"who","id":1}`, `{"jsonrpc":"2.0","result":"alice t-1 127.0.0.1","id":1}`},
		{`[{"jsonrpc":"2.0","method":"who","id":1},{"jsonrpc":"2.0","method":"base","id":2}]`,
			`[{"jsonrpc":"2.0","result":"alice t-1 127.0.0.1","id":1},{"jsonrpc":"2.0","result":"base","id":2}]`},
	}
	for _, tt := range tests {
		req, err := http.NewRequest("POST", srv.URL, strings.NewReader(tt.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Trace", "t-1")
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, tt.want+"\n", string(b))
	}
	wiretest.Serve(t, whoCalls, `
		--> {"jsonrpc":"2.0","method":"who","id":1}
		<-- {"jsonrpc":"2.0","result":"no HTTP request","id":1}`, nil)
	assert.Nil(t, rpc.HTTPRequest(context.Background()))
}
