package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// who is the tools' and methods' answer: the caller's subject and
// scopes, and whether the tool's own scope is there.
func who(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	if id == nil {
		return "nobody"
	}
	return id.Subject + " " + strings.Join(id.Scopes, ",") + " " + errText(auth.RequireScopes(ctx, "write"))
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// whoTools has the tool whoami.
type whoTools struct{}

// Whoami returns who calls.
func (whoTools) Whoami(ctx context.Context) string { return who(ctx) }

// post sends body to url with token and headers, and returns the status,
// the challenge and the body.
func post(t *testing.T, url, token, body string, header map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// The identity Require verified reaches a JSON-RPC method behind
// rpc.HTTPHandler and an MCP tool behind Streamable HTTP, in a 2026-07-28
// request and in a legacy session; a request without a token reaches
// neither.
func TestIdentityReachesTheTools(t *testing.T) {
	rs := newServer(t, &bytes.Buffer{})
	methods := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		return who(ctx), nil
	}), &rpc.Options{Logger: quiet()})
	defer methods.Close()
	s := mcp.New(&mcp.Options{Name: "c", Version: "1"})
	require.NoError(t, s.Register("", whoTools{}))
	tools := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: quiet()}})
	defer tools.Close()
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	mux.Handle("/rpc", rs.Require(methods))
	mux.Handle("/mcp", rs.Require(tools))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	const lacks = "auth: insufficient scope: the token lacks write"
	status, challenge, body := post(t, srv.URL+"/rpc", "good-secret-1", `{"jsonrpc":"2.0","method":"who","id":1}`, nil)
	assert.Equal(t, 200, status)
	assert.Empty(t, challenge)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"alice mcp,read `+lacks+`","id":1}`+"\n", body)

	status, challenge, body = post(t, srv.URL+"/rpc", "", `{"jsonrpc":"2.0","method":"who","id":1}`, nil)
	assert.Equal(t, 401, status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp"`, challenge)
	assert.Empty(t, body)

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modern := map[string]string{"Accept": "application/json", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"}
	status, _, body = post(t, srv.URL+"/mcp", "good-secret-1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami",`+meta+`}}`, modern)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"alice mcp,read `+lacks+`"}],`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"}}},"id":2}`+"\n", body)

	status, challenge, _ = post(t, srv.URL+"/mcp", "noscope-secret-7", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami",`+meta+`}}`, modern)
	assert.Equal(t, 403, status)
	assert.Contains(t, challenge, `error="insufficient_scope"`)

	req, err := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer good-secret-1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, 200, resp.StatusCode)
	legacy := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25", "Accept": "application/json"}
	status, _, _ = post(t, srv.URL+"/mcp", "good-secret-1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, legacy)
	require.Equal(t, 202, status)
	status, _, body = post(t, srv.URL+"/mcp", "good-secret-1", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami"}}`, legacy)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"alice mcp,read `+lacks+`"}]},"id":3}`+"\n", body)
	status, _, _ = post(t, srv.URL+"/mcp", "", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami"}}`, legacy)
	assert.Equal(t, 401, status, "every request of a session needs the token")

	resp, err = http.Get(srv.URL + rs.MetadataPath())
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(b), `"resource":"`+resource+`"`)
}

// The log records of a call behind Require name its caller, its subject
// and client id, in JSON-RPC over HTTP and in MCP's Streamable HTTP
// alike; never the token.
func TestCallRecordsNameTheCaller(t *testing.T) {
	rs := newServer(t, &bytes.Buffer{})
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	methods := rpc.NewHTTPHandler(context.Background(), middleware.Default(nil)(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		return "ok", nil
	})), &rpc.Options{Logger: logger})
	defer methods.Close()
	s := mcp.New(&mcp.Options{Name: "c", Version: "1"})
	require.NoError(t, s.Register("", whoTools{}))
	tools := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: logger}})
	defer tools.Close()
	mux := http.NewServeMux()
	mux.Handle("/rpc", rs.Require(methods))
	mux.Handle("/mcp", rs.Require(tools))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	status, _, _ := post(t, srv.URL+"/rpc", "good-secret-1", `{"jsonrpc":"2.0","method":"who","id":1}`, nil)
	require.Equal(t, 200, status)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modern := map[string]string{"Accept": "application/json", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"}
	status, _, _ = post(t, srv.URL+"/mcp", "good-secret-1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami",`+meta+`}}`, modern)
	require.Equal(t, 200, status)

	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if rec["msg"] == "rpc call" {
			records = append(records, rec)
		}
	}
	require.Len(t, records, 2, logs.String())
	for i, method := range []string{"who", "tools/call"} {
		assert.Equal(t, method, records[i]["method"])
		assert.Equal(t, "alice", records[i]["subject"])
		assert.Equal(t, "cli", records[i]["client_id"])
	}
	assert.NotContains(t, logs.String(), "good-secret-1")
}
