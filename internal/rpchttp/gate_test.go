package rpchttp_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// Screen is the handler's judgment before a body, for a transport that
// serves more methods on the same endpoint: the methods it is given pass
// (after the Origin), others get 405 naming them all.
func TestGateScreen(t *testing.T) {
	var g rpchttp.Gate
	g.Init(slog.New(slog.NewTextHandler(io.Discard, nil)), rpchttp.Limits{MaxFrame: codec.DefaultMaxFrameSize, MaxHeld: 256 << 20})
	for _, tt := range []struct {
		method, origin string
		pass           bool
		status         int
		allow          string
	}{
		{"DELETE", "", true, 200, ""},
		{"GET", "", false, 405, "POST, DELETE"},
		{"DELETE", "http://evil.example", false, 403, ""},
		{"POST", "", false, 415, ""}, // no Content-Type
	} {
		req := httptest.NewRequest(tt.method, "/", nil)
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		assert.Equal(t, tt.pass, g.Screen(rec, req, "DELETE"), tt.method)
		assert.Equal(t, tt.status, rec.Code, tt.method)
		assert.Equal(t, tt.allow, rec.Header().Get("Allow"), tt.method)
	}
}
