package interop

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/interop/authserver"
	"github.com/toolrpc/toolrpc/mcp"
)

// protectedExample is the built examples/mcp serving as a protected
// resource (-issuer, -resource) of a real authorization server, which
// runs in the test's process.
type protectedExample struct {
	as  *authserver.Server
	url string // the example's MCP endpoint: the resource
}

// challenge is the WWW-Authenticate of the example's answers naming
// scope, without a token (401), or with one that lacks it (403, error
// insufficient_scope).
func (p *protectedExample) challenge(status int, scope string) string {
	metadata := p.url[:len(p.url)-len("/mcp")] + "/.well-known/oauth-protected-resource/mcp"
	c := fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, metadata, scope)
	if status == http.StatusForbidden {
		c += `, error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
	}
	return c
}

// startProtectedExample starts the authorization server (scopes mcp and
// stats, tokens for the example's URL alone) and the built example bin at
// a free loopback port, with -issuer, -resource and -http. Its port must
// be known before it starts (the resource names it): it is one that was
// free a moment before, which another process could take meanwhile; the
// example would then fail to start, and the test say so. Both are stopped
// at the test's end; the example must exit 0 at SIGTERM.
func startProtectedExample(t *testing.T, bin string) *protectedExample {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	resource := "http://" + addr + "/mcp"
	as, err := authserver.Start(t.Context(), &authserver.Config{Scopes: []string{"mcp", "stats"}, Resources: []string{resource}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, as.Close()) })
	base, stop := startExample(t, bin, "-issuer", as.Issuer(), "-resource", resource, "-http", addr)
	require.Equal(t, "http://"+addr, base)
	t.Cleanup(stop)
	return &protectedExample{as: as, url: resource}
}

// seen is a RoundTripper that sends every request with its token (if
// any) and records the status and WWW-Authenticate of every answer that
// is not a success: what the SDK got, which its errors do not say.
type seen struct {
	token string
	base  http.RoundTripper
	mu    sync.Mutex
	got   []string
}

func (s *seen) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.base.RoundTrip(req)
	if err == nil && resp.StatusCode/100 != 2 {
		s.mu.Lock()
		s.got = append(s.got, fmt.Sprintf("%s %d %s", req.Method, resp.StatusCode, resp.Header.Get("WWW-Authenticate")))
		s.mu.Unlock()
	}
	return resp, err
}

// refusals returns the answers recorded since the last call, and forgets
// them.
func (s *seen) refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.got
	s.got = nil
	return got
}

// The official Go SDK's client against the built examples/mcp as a
// protected resource of a real authorization server (JWT access tokens,
// checked against its key set), in both eras: without a token it cannot
// connect (401, the challenge naming the metadata and mcp); with a
// client_credentials token of scope mcp it lists the tools, whoami
// answers the machine's subject and scopes, and stats is refused before
// it runs (403, insufficient_scope, naming mcp and stats: every scope the
// call needs); with a token of mcp and stats, stats answers.
func TestGoSDKClientAgainstProtectedExample(t *testing.T) {
	checkLeaks(t)
	p := startProtectedExample(t, buildExample(t, "mcp"))
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			defer p.as.Client().CloseIdleConnections()
			connect := func(rt *seen) (*sdk.ClientSession, error) {
				client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{Logger: discard})
				return client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true},
					&sdk.ClientSessionOptions{ProtocolVersion: version})
			}
			token := func(scopes ...string) string {
				tok, err := p.as.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, scopes, p.url)
				require.NoError(t, err)
				return tok
			}

			// No token: the modern era's server/discover is refused, then
			// the initialize the SDK falls back to; its error says the
			// status text alone.
			anonymous := &seen{base: base}
			_, err := connect(anonymous)
			require.Error(t, err)
			assert.Equal(t, `calling "initialize": sending "initialize": Unauthorized`, err.Error())
			want := []string{"POST 401 " + p.challenge(401, "mcp")}
			if version == mcp.Latest {
				want = append(want, want[0])
			}
			assert.Equal(t, want, anonymous.refusals())

			// mcp: the tools, whoami; stats refused before it runs.
			machine := &seen{token: token("mcp"), base: base}
			cs, err := connect(machine)
			require.NoError(t, err)
			list, err := cs.ListTools(ctx, nil)
			require.NoError(t, err)
			assert.Equal(t, []string{"add", "count", "sleep", "stats", "whoami"}, toolNames(list))
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"})
			require.NoError(t, err)
			assert.Equal(t, "machine: mcp", res.Content[0].(*sdk.TextContent).Text)
			_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"values": []float64{1, 2}}})
			require.Error(t, err)
			assert.Equal(t, `calling "tools/call": sending "tools/call": Forbidden`, err.Error())
			assert.Equal(t, []string{"POST 403 " + p.challenge(403, "mcp stats")}, machine.refusals())
			_ = cs.Close() // the SDK may have ended the session at the 403: its error is not the test's

			// mcp and stats: stats answers.
			stepped := &seen{token: token("mcp", "stats"), base: base}
			cs, err = connect(stepped)
			require.NoError(t, err)
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"values": []float64{1, 2}}})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, map[string]any{"count": 2.0, "sum": 3.0, "mean": 1.5, "min": 1.0, "max": 2.0}, res.StructuredContent)
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"})
			require.NoError(t, err)
			assert.Equal(t, "machine: mcp stats", res.Content[0].(*sdk.TextContent).Text)
			require.NoError(t, cs.Close())
			assert.Empty(t, stepped.refusals())
		})
	}
}

// The official MCP TypeScript SDK's OAuth client runs ts/oauth_client.mjs
// against the built examples/mcp as a protected resource of
// interop/authserver, with its ClientCredentialsProvider and with an
// authorization code provider (registered dynamically): each goes
// through the 401, the discovery (RFC 9728, then RFC 8414) and the token
// request, and lists or calls the tools as its subject; then stats is
// refused 403 and the SDK steps up. The authorization code provider
// authorizes anew with the challenge's scopes (mcp stats), and stats
// answers; ClientCredentialsProvider asks for its own scope (mcp) again,
// so the SDK gives up at the second 403 ("Server returned 403 after
// trying upscoping"): SDK 1.32.2's fetchToken takes the client's
// configured scope, never the challenge's. The script's output, every
// exchange of the authorization in order, is compared exactly.
func TestTypeScriptSDKOAuth(t *testing.T) {
	checkLeaks(t)
	node, bin := typeScriptSDK(t)
	p := startProtectedExample(t, bin)
	out, err := exec.CommandContext(testContext(t), node, "ts/oauth_client.mjs", p.url, p.as.Issuer()).CombinedOutput()
	require.NoError(t, err, "%s", out)
	unauthorized, forbidden := "POST /mcp 401 "+p.challenge(401, "mcp"), "POST /mcp 403 "+p.challenge(403, "mcp stats")
	const discovery = "GET /.well-known/oauth-protected-resource/mcp 200\nGET /.well-known/oauth-authorization-server 200"
	ccToken := "POST /oauth/token 200 (client_credentials, scope mcp, resource " + p.url + ")"
	codeToken := "POST /oauth/token 200 (authorization_code, scope (none), resource " + p.url + ")"
	const login = "GET /authorize 302\nGET /login 302\nGET /authorize/callback 302"
	assert.Equal(t, strings.Join([]string{
		"# client_credentials",
		unauthorized, discovery, ccToken,
		"tools: add count sleep stats whoami",
		"whoami: machine: mcp",
		// The step-up: the provider asks for its own scope again.
		forbidden, discovery, ccToken, forbidden,
		"stats: StreamableHTTPError 403: Streamable HTTP error: Server returned 403 after trying upscoping",
		"# authorization_code",
		unauthorized, discovery, "POST /register 201", "authorize: scope mcp", login,
		"connect: UnauthorizedError",
		discovery, codeToken,
		"whoami: alice: mcp",
		// The step-up: the challenge's scopes asked for.
		forbidden, discovery, "authorize: scope mcp stats", login,
		"stats: UnauthorizedError",
		discovery, codeToken,
		`stats: {"count":2,"sum":3,"mean":1.5,"min":1,"max":2}`,
		"whoami: alice: mcp stats",
		"ok",
	}, "\n")+"\n", string(out))
}
