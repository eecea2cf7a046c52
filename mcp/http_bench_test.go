package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// The cost of one call through the transport, next to the same call on
// rpc.HTTPHandler alone: a stateless tools/call, and one of a session
// (answered as an event stream; with PreferJSON, as JSON).
func BenchmarkHTTP(b *testing.B) {
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	if err := s.Register("", steps{}); err != nil {
		b.Fatal(err)
	}
	opts := rpc.Options{Logger: wiretest.Quiet()}
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: opts})
	defer h.Close()
	sid := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
	hj := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: opts, PreferJSON: true})
	defer hj.Close()
	sidJSON := serveDirect(hj, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
	plain := rpc.NewHTTPHandler(context.Background(), s.Handler(), &opts)
	defer plain.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},` + modernMeta + `}}`
	for _, bc := range []struct {
		name string
		h    interface {
			ServeHTTP(http.ResponseWriter, *http.Request)
		}
		header map[string]string
	}{
		{"rpc.HTTPHandler", plain, nil},
		{"modern", h, modernHeaders("tools/call", "echo")},
		{"session", h, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}},
		{"session, PreferJSON", hj, map[string]string{"Mcp-Session-Id": sidJSON, "Mcp-Protocol-Version": "2025-11-25"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest("POST", "/", strings.NewReader(call))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range bc.header {
					req.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				bc.h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}
