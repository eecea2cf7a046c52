package jwt_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/auth/jwt"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A JWT verifier of a real (test) authorization server in front of an
// MCP server: no token 401, a good token's tool call answered with its
// identity, a token for another resource 401, a forged one 401, the
// server down before any key was fetched 503.
func TestJWTVerifierBehindRequire(t *testing.T) {
	key := jwt.NewECKey("k1")
	as := jwt.NewFakeAS(t, key)
	verifier, err := jwt.NewVerifier(&jwt.Options{Issuer: as.Issuer()})
	require.NoError(t, err)
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource: resource, AuthorizationServers: []string{as.Issuer()}, Verifier: verifier, Scopes: []string{"mcp"}, Logger: quiet(),
	})
	require.NoError(t, err)
	s := mcp.New(&mcp.Options{Name: "c", Version: "1"})
	require.NoError(t, s.Register("", caller{}))
	tools := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: quiet()}})
	defer tools.Close()
	srv := httptest.NewServer(rs.Require(tools))
	defer srv.Close()

	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	modern := map[string]string{"Accept": "application/json", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"}

	// The authorization server is down at first: 503, then it mends.
	as.SetHostile(func(w http.ResponseWriter, r *http.Request) bool { w.WriteHeader(500); return true })
	good := jwt.Sign(t, key, as.Claims(), nil)
	status, _, _ := post(t, srv.URL, good, call, modern)
	assert.Equal(t, 503, status)
	as.SetHostile(nil)
	require.NoError(t, verifier.Refresh(context.Background()))

	status, challenge, _ := post(t, srv.URL, "", call, modern)
	assert.Equal(t, 401, status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp"`, challenge)

	status, challenge, body := post(t, srv.URL, good, call, modern)
	assert.Equal(t, 200, status)
	assert.Empty(t, challenge)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"alice mcp,read"}],`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"}}},"id":2}`+"\n", body)

	elsewhere := as.Claims()
	elsewhere["aud"] = "https://other.example.com/mcp"
	status, challenge, _ = post(t, srv.URL, jwt.Sign(t, key, elsewhere, nil), call, modern)
	assert.Equal(t, 401, status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp", error="invalid_token", error_description="the access token is not for this resource"`, challenge)

	status, challenge, _ = post(t, srv.URL, jwt.Sign(t, jwt.NewECKey("k1"), as.Claims(), nil), call, modern)
	assert.Equal(t, 401, status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp", error="invalid_token", error_description="the access token is not valid"`, challenge)

	noscope := as.Claims()
	noscope["scope"] = "read"
	status, challenge, _ = post(t, srv.URL, jwt.Sign(t, key, noscope, nil), call, modern)
	assert.Equal(t, 403, status)
	assert.Contains(t, challenge, `error="insufficient_scope"`)
}

const (
	resource    = "https://mcp.example.com/mcp"
	metadataURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// caller has the tool whoami.
type caller struct{}

// Whoami returns the caller's subject and scopes.
func (caller) Whoami(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	return id.Subject + " " + strings.Join(id.Scopes, ",")
}

// post sends body to url with token and headers, and returns the status,
// the challenge and the body.
func post(t *testing.T, url, token, body string, header map[string]string) (status int, challenge, answer string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}
