package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/interop/authserver"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// authTools are the protected server's tools.
type authTools struct{}

// Whoami returns the caller's subject and scopes.
func (authTools) Whoami(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	return id.Subject + " " + strings.Join(id.Scopes, ",")
}

// Secret needs the scope stats beyond mcp, which every request needs.
func (authTools) Secret(ctx context.Context) (string, error) {
	if err := auth.RequireScopes(ctx, "stats"); err != nil {
		return "", err
	}
	return "42", nil
}

// bearer sends every request with its token.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(req)
}

// protected is an MCP server behind auth.ResourceServer, whose verifier
// introspects tokens at a real authorization server.
type protected struct {
	as       *authserver.Server
	url      string // the MCP endpoint: the resource
	srv      *httptest.Server
	verifier *auth.Introspector
}

// newProtected starts the authorization server (scopes mcp and stats)
// and the MCP server, its resource server, requiring mcp.
func newProtected(t *testing.T) *protected {
	t.Helper()
	as, err := authserver.Start(t.Context(), &authserver.Config{Scopes: []string{"mcp", "stats"}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, as.Close()) })

	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	p := &protected{as: as, url: srv.URL + "/mcp", srv: srv}
	verifier, err := auth.NewIntrospector(&auth.IntrospectionOptions{
		Endpoint: as.IntrospectionEndpoint(), ClientID: authserver.ResourceServerID, ClientSecret: authserver.ResourceServerSecret,
		Client: as.Client(),
	})
	require.NoError(t, err)
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource: p.url, AuthorizationServers: []string{as.Issuer()}, Verifier: verifier, Scopes: []string{"mcp"},
	})
	require.NoError(t, err)
	p.verifier = verifier
	s := mcp.New(&mcp.Options{Name: "protected", Version: "1.0.0"})
	require.NoError(t, s.Register("", authTools{}))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: discard}})
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	mux.Handle("/mcp", rs.Require(h))
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	return p
}

// connect connects the Go SDK's Streamable HTTP client to p in version's
// era, with token (none if empty).
func (p *protected) connect(ctx context.Context, token, version string) (*sdk.ClientSession, error) {
	hc := p.srv.Client()
	if token != "" {
		hc = &http.Client{Transport: bearer{token: token, base: p.srv.Client().Transport}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{Logger: discard})
	return client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.url, HTTPClient: hc, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
}

// The official Go SDK client against an MCP server whose tokens come from
// a real authorization server, introspected: without a token, with one
// for another resource, or one without the scope every request needs,
// it cannot connect (the SDK's error says the status text alone); with a
// client_credentials or an authorization-code token it lists and calls
// the tools, as its subject; a tool needing a scope the token lacks
// answers an error result (200: mcp does not yet turn a *auth.ScopeError
// into a 403 step-up), which a token with the scope passes.
func TestGoSDKClientAuthorized(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			p := newProtected(t)
			token := func(scopes []string, resource string) string {
				tok, err := p.as.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, scopes, resource)
				require.NoError(t, err)
				return tok
			}

			// The SDK tries server/discover (modern era) and falls back
			// to initialize, whose error names the status text only:
			// neither the status, the challenge nor the metadata URL.
			for _, tt := range []struct{ name, token, status string }{
				{"no token", "", "Unauthorized"},
				{"garbage", "garbage", "Unauthorized"},
				{"another resource", token([]string{"mcp"}, "https://other.example/mcp"), "Unauthorized"},
				{"without mcp", token([]string{"stats"}, p.url), "Forbidden"},
			} {
				_, err := p.connect(ctx, tt.token, version)
				require.Error(t, err, tt.name)
				assert.Equal(t, `calling "initialize": sending "initialize": `+tt.status, err.Error(), tt.name)
			}

			user, err := p.as.AuthorizationCodeToken(ctx, authserver.PublicClientID, "http://127.0.0.1:49152/callback", []string{"mcp"}, p.url)
			require.NoError(t, err)
			for _, tt := range []struct{ token, whoami, secret string }{
				{token([]string{"mcp"}, p.url), "machine mcp", "auth: insufficient scope: the token lacks stats"},
				{token([]string{"mcp", "stats"}, p.url), "machine mcp,stats", ""},
				{user.AccessToken, "alice mcp", "auth: insufficient scope: the token lacks stats"},
			} {
				cs, err := p.connect(ctx, tt.token, version)
				require.NoError(t, err)
				list, err := cs.ListTools(ctx, nil)
				require.NoError(t, err)
				assert.Equal(t, []string{"secret", "whoami"}, toolNames(list))
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"})
				require.NoError(t, err)
				assert.Equal(t, tt.whoami, res.Content[0].(*sdk.TextContent).Text)
				res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "secret"})
				require.NoError(t, err)
				if tt.secret == "" {
					assert.False(t, res.IsError)
					assert.Equal(t, "42", res.Content[0].(*sdk.TextContent).Text)
				} else {
					assert.True(t, res.IsError, tt.whoami)
					assert.Equal(t, tt.secret, res.Content[0].(*sdk.TextContent).Text)
				}
				require.NoError(t, cs.Close())
			}
			p.as.Client().CloseIdleConnections()
		})
	}
}

// The Go SDK's own OAuth client (auth.AuthorizationCodeHandler) finds
// the authorization server from the 401's challenge (RFC 9728 metadata,
// then RFC 8414's), registers itself (RFC 7591), runs the code flow with
// PKCE and the resource through the auto-approving login (its
// AuthorizationCodeFetcher follows the redirects with plain GETs),
// exchanges the code and connects with the token, with the scopes the
// metadata lists.
func TestGoSDKOAuthHandler(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			p := newProtected(t)
			const redirect = "http://127.0.0.1:49153/callback"
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			fetched := 0
			h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
				DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
					RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
					GrantTypes: []string{"authorization_code", "refresh_token"}, ClientName: "go-sdk",
				}},
				RedirectURL: redirect,
				AuthorizationCodeFetcher: func(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
					fetched++
					back, err := p.as.Follow(ctx, args.URL, redirect)
					if err != nil {
						return nil, err
					}
					q := back.Query()
					return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
				},
				Client: hc,
			})
			require.NoError(t, err)
			client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{Logger: discard})
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: p.url, HTTPClient: hc, OAuthHandler: h, DisableStandaloneSSE: true},
				&sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"})
			require.NoError(t, err)
			assert.Equal(t, "alice mcp", res.Content[0].(*sdk.TextContent).Text, "the resource metadata's scopes_supported: mcp")
			assert.Equal(t, 1, fetched)
			ts, err := h.TokenSource(ctx)
			require.NoError(t, err)
			tok, err := ts.Token()
			require.NoError(t, err)
			id, err := p.verifier.Verify(ctx, tok.AccessToken)
			require.NoError(t, err)
			assert.Equal(t, []string{p.url}, id.Audience)
			assert.NotEqual(t, authserver.PublicClientID, id.ClientID, "a client registered dynamically")
			require.NoError(t, cs.Close())
			p.as.Client().CloseIdleConnections()
		})
	}
}
