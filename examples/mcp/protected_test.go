package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// The issuer and the resource of the tests' protected servers.
const (
	testIssuer   = "https://auth.example.com"
	testResource = "http://127.0.0.1:8080/mcp"
)

// metadata is the protected resource metadata of testResource and
// testIssuer: the scopes supported are those every request needs (mcp)
// and the tools' (stats).
const metadata = `{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp","stats"],"bearer_methods_supported":["header"]}`

// challenge is the WWW-Authenticate of a 401 without a token.
const challenge = `Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", scope="mcp"`

// A call of tool, stateless (2026-07-28), and its answers.
func toolCall(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// toolAnswer is the answer of a call with result, from the server named
// name (a server names itself after its program: mcp, or in this
// process the test's).
func toolAnswer(name, result string) string {
	return `{"jsonrpc":"2.0","result":{"resultType":"complete",` + result + `,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"` + name + `","version":"(devel)"}}},"id":1}`
}

// exchange is a request to a protected server and its answer, exactly.
type exchange struct {
	name, method, path, token, body string

	status          int
	contentType     string
	wwwAuthenticate string
	want            string
}

// do sends tt's request to the server at base and checks its answer.
func (tt exchange) do(t *testing.T, base string) {
	t.Helper()
	var body io.Reader
	if tt.body != "" {
		body = strings.NewReader(tt.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), tt.method, base+tt.path, body)
	require.NoError(t, err)
	if tt.body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", strings.Split(strings.Split(tt.body, `"name":"`)[1], `"`)[0])
	}
	if tt.token != "" {
		req.Header.Set("Authorization", "Bearer "+tt.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, tt.name)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, tt.status, resp.StatusCode, tt.name)
	assert.Equal(t, tt.contentType, resp.Header.Get("Content-Type"), tt.name)
	assert.Equal(t, tt.wwwAuthenticate, resp.Header.Get("WWW-Authenticate"), tt.name)
	assert.Equal(t, tt.want, strings.TrimSuffix(string(got), "\n"), tt.name)
}

// The protected server (the handler -issuer and -resource serve), its
// tokens read by a verifier of fixed identities: the metadata at the
// resource's well-known URL and the root one; a request without a token,
// with one the verifier refuses, or without mcp is refused with the
// challenge; whoami answers the token's subject and scopes; stats needs
// stats too, and a token without it gets the 403 that names mcp and
// stats, before its arguments are bound.
func TestProtected(t *testing.T) {
	identity := func(subject string, scopes ...string) *auth.Identity {
		return &auth.Identity{Subject: subject, Issuer: testIssuer, Scopes: scopes, Audience: []string{testResource}}
	}
	tokens := map[string]*auth.Identity{
		"mcp":       identity("machine", "mcp"),
		"mcp-stats": identity("machine", "mcp", "stats"),
		"stats":     identity("alice", "stats"),
	}
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*auth.Identity, error) {
		if id, ok := tokens[token]; ok {
			return id, nil
		}
		return nil, auth.ErrInvalidToken
	})
	h, err := protected(t.Context(), testIssuer, testResource, verifier)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		assert.NoError(t, h.Close())
	}()

	name := filepath.Base(os.Args[0])
	const stats = `"content":[{"type":"text","text":"{\"count\":2,\"sum\":3,\"mean\":1.5,\"min\":1,\"max\":2}"}],"structuredContent":{"count":2,"sum":3,"mean":1.5,"min":1,"max":2}`
	for _, tt := range []exchange{
		{name: "metadata", method: "GET", path: "/.well-known/oauth-protected-resource/mcp", status: 200, contentType: "application/json", want: metadata},
		{name: "metadata at the root", method: "GET", path: "/.well-known/oauth-protected-resource", status: 200, contentType: "application/json", want: metadata},
		{name: "no token", method: "POST", path: "/mcp", body: toolCall("whoami", "{}"), status: 401, wwwAuthenticate: challenge},
		{name: "a token refused", method: "POST", path: "/mcp", token: "garbage", body: toolCall("whoami", "{}"), status: 401,
			wwwAuthenticate: challenge + `, error="invalid_token", error_description="the access token is not valid"`},
		{name: "without mcp", method: "POST", path: "/mcp", token: "stats", body: toolCall("whoami", "{}"), status: 403,
			wwwAuthenticate: challenge + `, error="insufficient_scope", error_description="the access token lacks a scope this resource needs"`},
		{name: "whoami", method: "POST", path: "/mcp", token: "mcp", body: toolCall("whoami", "{}"), status: 200, contentType: "application/json",
			want: toolAnswer(name, `"content":[{"type":"text","text":"machine: mcp"}]`)},
		{name: "stats without stats", method: "POST", path: "/mcp", token: "mcp", body: toolCall("stats", `{"values":"not bound"}`), status: 403,
			wwwAuthenticate: `Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", scope="mcp stats", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`},
		{name: "stats", method: "POST", path: "/mcp", token: "mcp-stats", body: toolCall("stats", `{"values":[1,2]}`), status: 200, contentType: "application/json",
			want: toolAnswer(name, stats)},
		{name: "whoami with stats", method: "POST", path: "/mcp", token: "mcp-stats", body: toolCall("whoami", "{}"), status: 200, contentType: "application/json",
			want: toolAnswer(name, `"content":[{"type":"text","text":"machine: mcp stats"}]`)},
		{name: "another path", method: "POST", path: "/", token: "mcp", body: toolCall("whoami", "{}"), status: 404,
			contentType: "text/plain; charset=utf-8", want: "404 page not found"},
	} {
		tt.do(t, srv.URL)
	}
	http.DefaultClient.CloseIdleConnections()
}

// The built program with -issuer and -resource serves the protected
// server at -http, logs where, and exits 0 at SIGTERM. It fetches the
// authorization server's keys at the first token, not at its start: with
// an authorization server that answers nothing but 500, it serves the
// metadata and the challenges, and a token is answered 503 (the verifier
// is unavailable, the token may be good).
func TestBinaryProtected(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	defer down.Close()
	url, _, stop := wiretest.StartHTTP(t, "-issuer", down.URL, "-resource", testResource)
	// A JWT's form, RS256 by a key named k1: its key is to be fetched.
	const unverified = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0.e30.c2ln"
	base := strings.TrimSuffix(url, "/mcp")
	for _, tt := range []exchange{
		{name: "metadata", method: "GET", path: "/.well-known/oauth-protected-resource/mcp", status: 200, contentType: "application/json",
			want: strings.Replace(metadata, testIssuer, down.URL, 1)},
		{name: "no token", method: "POST", path: "/mcp", body: toolCall("whoami", "{}"), status: 401, wwwAuthenticate: challenge},
		{name: "a token, no keys", method: "POST", path: "/mcp", token: unverified, body: toolCall("whoami", "{}"), status: 503},
	} {
		tt.do(t, base)
	}
	http.DefaultClient.CloseIdleConnections()
	assert.NoError(t, stop(), "exits 0 at SIGTERM")
}

// -issuer and -resource go together: one alone is a usage error (exit 2,
// the usage on stderr); a resource that cannot be one exits 1, saying why.
func TestBinaryUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, tt := range []struct {
		args   []string
		status int
		stderr string // its first line
	}{
		{[]string{"-issuer", testIssuer}, 2, "mcp: -issuer and -resource go together"},
		{[]string{"-resource", testResource}, 2, "mcp: -issuer and -resource go together"},
		{[]string{"-issuer", testIssuer, "-resource", "ftp://127.0.0.1/mcp", "-http", "127.0.0.1:0"}, 1, `mcp: auth: Resource "ftp://127.0.0.1/mcp" is not https`},
		{[]string{"-issuer", "not a url", "-resource", testResource, "-http", "127.0.0.1:0"}, 1, `mcp: jwt: Issuer "not a url" is not an absolute URL with a host`},
	} {
		cmd := exec.CommandContext(t.Context(), bin, tt.args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%q", tt.args)
		assert.Equal(t, tt.status, exit.ExitCode(), "%q", tt.args)
		assert.Empty(t, stdout.String())
		first, rest, _ := strings.Cut(stderr.String(), "\n")
		assert.Equal(t, tt.stderr, first, "%q", tt.args)
		if tt.status == 2 {
			assert.True(t, strings.HasPrefix(rest, "Usage of "+bin+":\n"), "%q", rest)
			assert.Contains(t, rest, "-issuer string")
		}
	}
}
