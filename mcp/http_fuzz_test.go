package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// FuzzHTTP posts any body with any protocol headers, after a session is
// open: the status is one the transport answers with, a JSON answer or a
// refusal is one JSON line, and no session id is issued but by a
// successful initialize.
func FuzzHTTP(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},`+meta+`}}`, "2026-07-28", "tools/call", "echo", false)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},`+meta+`}}`, "2026-07-28", "tools/call", "=?base64?ZWNobw==?=", false)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "2025-11-25", "", "", true)
	f.Add(initBody, "", "", "", false)
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "2025-03-26", "", "", true)
	f.Add(`{"jsonrpc":"2.0","id":{},"method":"x"}`, "2026-07-28", "x", "\x01", false)
	f.Fuzz(func(t *testing.T, body, version, method, name string, session bool) {
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet(), MaxFrameSize: 4096}})
		defer h.Close()
		sid := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name} {
			if v != "" {
				req.Header[k] = []string{v} // as sent: any bytes
			}
		}
		if session {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 202, 400, 404, 413, 503:
		default:
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Header().Get("Content-Type") == "application/json" {
			out := rec.Body.Bytes()
			if !json.Valid(out) || strings.Count(string(out), "\n") != 1 {
				t.Fatalf("not one JSON line: %q", out)
			}
		}
		if got := rec.Header().Get("Mcp-Session-Id"); got != "" && (rec.Code != 200 || !strings.Contains(rec.Body.String(), `"result"`)) {
			t.Fatalf("session id issued on %d %q", rec.Code, rec.Body)
		}
	})
}
