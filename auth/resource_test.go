package auth_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
)

const (
	resource    = "https://mcp.example.com/mcp"
	metadataURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	issuer      = "https://auth.example.com"
)

// tokens is a Verifier of fixed tokens: each names what Verify answers.
type tokens map[string]func() (*auth.Identity, error)

func (ts tokens) Verify(_ context.Context, token string) (*auth.Identity, error) {
	if f, ok := ts[token]; ok {
		return f()
	}
	return nil, fmt.Errorf("%w: unknown", auth.ErrInvalidToken)
}

// alice is the identity of a good token: for this resource, with the
// scope "mcp", for another hour.
func alice() *auth.Identity {
	return &auth.Identity{Subject: "alice", Issuer: issuer, ClientID: "cli", Scopes: []string{"mcp", "read"},
		Expiry: time.Now().Add(time.Hour), Audience: []string{resource}}
}

// with returns a token's answer: alice changed by f.
func with(f func(*auth.Identity)) func() (*auth.Identity, error) {
	return func() (*auth.Identity, error) { id := alice(); f(id); return id, nil }
}

// long is a token of n bytes.
func long(n int) string { return strings.Repeat("A", n) }

// testTokens are the tokens of the tests; each is a secret that no log
// and no answer may hold.
var testTokens = tokens{
	"good-secret-1":      with(func(*auth.Identity) {}),
	"expired-secret-2":   with(func(id *auth.Identity) { id.Expiry = time.Now().Add(-time.Second) }),
	"elsewhere-secret-3": with(func(id *auth.Identity) { id.Audience = []string{"https://other.example.com/mcp"} }),
	"noaud-secret-4":     with(func(id *auth.Identity) { id.Audience = nil }),
	"upper-secret-5":     with(func(id *auth.Identity) { id.Audience = []string{"x", "HTTPS://MCP.Example.COM/mcp"} }),
	"api-secret-6":       with(func(id *auth.Identity) { id.Audience = []string{"api://mcp"} }),
	"noscope-secret-7":   with(func(id *auth.Identity) { id.Scopes = []string{"read"} }),
	"down-secret-8": func() (*auth.Identity, error) {
		return nil, fmt.Errorf("%w: the endpoint is down", auth.ErrUnavailable)
	},
	"slow-secret-9":                 func() (*auth.Identity, error) { return nil, context.DeadlineExceeded },
	"odd-secret-10":                 func() (*auth.Identity, error) { return nil, errors.New("an error of no kind") },
	"nil-secret-11":                 func() (*auth.Identity, error) { return nil, nil },
	"b64+/token.~_-secret-12==":     with(func(*auth.Identity) {}),
	"noexpiry-secret-13":            with(func(id *auth.Identity) { id.Expiry = time.Time{} }),
	long(auth.DefaultMaxTokenBytes): with(func(*auth.Identity) {}),
}

// newServer returns a resource server of the tests' tokens, logging at
// debug level to log.
func newServer(t *testing.T, log *bytes.Buffer) *auth.ResourceServer {
	t.Helper()
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		Verifier:             testTokens,
		Scopes:               []string{"mcp"},
		Audiences:            []string{"api://mcp"},
		ResourceName:         "Example",
		Logger:               slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	require.NoError(t, err)
	return rs
}

// whoami answers with the identity in the request's context.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	id := auth.IdentityFrom(r.Context())
	if id == nil {
		http.Error(w, "no identity", 500)
		return
	}
	fmt.Fprintf(w, "%s %s %v", id.Subject, id.ClientID, id.Scopes)
})

// Every request reaches the handler with its identity, or is answered
// exactly as RFC 6750 §3, RFC 9728 §5.1 and MCP's Authorization say:
// the status, the WWW-Authenticate challenge, an empty body; and no
// token is ever logged.
func TestRequire(t *testing.T) {
	const (
		missing      = `Bearer resource_metadata="` + metadataURL + `", scope="mcp"`
		invalidToken = missing + `, error="invalid_token", error_description=`
	)
	tests := []struct {
		name      string
		target    string
		auth      []string
		status    int
		challenge string
		body      string
	}{
		{name: "no credentials", status: 401, challenge: missing},
		{name: "another scheme", auth: []string{"Basic dXNlcjpwYXNz"}, status: 401, challenge: missing},
		{name: "a scheme named Bearerx", auth: []string{"Bearerx good-secret-1"}, status: 401, challenge: missing},
		{name: "a good token", auth: []string{"Bearer good-secret-1"}, status: 200, body: "alice cli [mcp read]"},
		{name: "the scheme in lower case", auth: []string{"bearer good-secret-1"}, status: 200, body: "alice cli [mcp read]"},
		{name: "spaces after the scheme", auth: []string{"BEARER   good-secret-1"}, status: 200, body: "alice cli [mcp read]"},
		{name: "every b64token character", auth: []string{"Bearer b64+/token.~_-secret-12=="}, status: 200, body: "alice cli [mcp read]"},
		{name: "no expiry", auth: []string{"Bearer noexpiry-secret-13"}, status: 200, body: "alice cli [mcp read]"},
		{name: "the audience in upper case", auth: []string{"Bearer upper-secret-5"}, status: 200, body: "alice cli [mcp read]"},
		{name: "another accepted audience", auth: []string{"Bearer api-secret-6"}, status: 200, body: "alice cli [mcp read]"},
		{name: "a token at the bound", auth: []string{"Bearer " + long(auth.DefaultMaxTokenBytes)}, status: 200, body: "alice cli [mcp read]"},
		{name: "a token past the bound", auth: []string{"Bearer " + long(auth.DefaultMaxTokenBytes+1)}, status: 401,
			challenge: invalidToken + `"the access token is too long"`},
		{name: "Bearer alone", auth: []string{"Bearer"}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "a tab after the scheme", auth: []string{"Bearer\tgood-secret-1"}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "two tokens", auth: []string{"Bearer good-secret-1 good-secret-1"}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "a quote in the token", auth: []string{`Bearer good"secret`}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "padding alone", auth: []string{"Bearer =="}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "padding inside", auth: []string{"Bearer a=b"}, status: 401, challenge: invalidToken + `"the access token is malformed"`},
		{name: "an unknown token", auth: []string{"Bearer unknown-secret-0"}, status: 401, challenge: invalidToken + `"the access token is not valid"`},
		{name: "an error of no kind", auth: []string{"Bearer odd-secret-10"}, status: 401, challenge: invalidToken + `"the access token is not valid"`},
		{name: "no identity and no error", auth: []string{"Bearer nil-secret-11"}, status: 401, challenge: invalidToken + `"the access token is not valid"`},
		{name: "expired", auth: []string{"Bearer expired-secret-2"}, status: 401, challenge: invalidToken + `"the access token expired"`},
		{name: "for another resource", auth: []string{"Bearer elsewhere-secret-3"}, status: 401,
			challenge: invalidToken + `"the access token is not for this resource"`},
		{name: "no audience", auth: []string{"Bearer noaud-secret-4"}, status: 401, challenge: invalidToken + `"the access token is not for this resource"`},
		{name: "without the scope", auth: []string{"Bearer noscope-secret-7"}, status: 403,
			challenge: missing + `, error="insufficient_scope", error_description="the access token lacks a scope this resource needs"`},
		{name: "the verifier down", auth: []string{"Bearer down-secret-8"}, status: 503},
		{name: "the verifier past its deadline", auth: []string{"Bearer slow-secret-9"}, status: 503},
		{name: "a token in the query", target: "/mcp?access_token=good-secret-1", status: 400,
			challenge: missing + `, error="invalid_request", error_description="access tokens are not accepted in the query string"`},
		{name: "a token in the query and the header", target: "/mcp?x=1&access_token=good-secret-1", auth: []string{"Bearer good-secret-1"}, status: 400,
			challenge: missing + `, error="invalid_request", error_description="access tokens are not accepted in the query string"`},
		{name: "a token in the query after a semicolon", target: "/mcp?x=1;access_token=good-secret-1", auth: []string{"Bearer good-secret-1"}, status: 400,
			challenge: missing + `, error="invalid_request", error_description="access tokens are not accepted in the query string"`},
		{name: "a token in the query, badly escaped", target: "/mcp?access_token=good-secret-1%zz", auth: []string{"Bearer good-secret-1"}, status: 400,
			challenge: missing + `, error="invalid_request", error_description="access tokens are not accepted in the query string"`},
		{name: "a token in the query, its name escaped", target: "/mcp?access%5Ftoken=good-secret-1", status: 400,
			challenge: missing + `, error="invalid_request", error_description="access tokens are not accepted in the query string"`},
		{name: "another parameter of a name alike", target: "/mcp?access_tokens=1&Access_Token=2&x=access_token", auth: []string{"Bearer good-secret-1"},
			status: 200, body: "alice cli [mcp read]"},
		{name: "two Authorization headers", auth: []string{"Bearer good-secret-1", "Bearer good-secret-1"}, status: 400,
			challenge: missing + `, error="invalid_request", error_description="more than one Authorization header"`},
	}
	var log bytes.Buffer
	h := newServer(t, &log).Require(whoami)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.target
			if target == "" {
				target = "/mcp"
			}
			r := httptest.NewRequest("POST", target, strings.NewReader(`{}`))
			for _, a := range tt.auth {
				r.Header.Add("Authorization", a)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.challenge, w.Header().Get("WWW-Authenticate"))
			assert.Len(t, w.Header().Values("WWW-Authenticate"), min(1, len(tt.challenge)))
			if tt.status == 503 {
				assert.Equal(t, "1", w.Header().Get("Retry-After"))
			} else {
				assert.Empty(t, w.Header().Get("Retry-After"))
			}
			assert.Equal(t, tt.body, w.Body.String())
		})
	}
	assert.Contains(t, log.String(), `level=WARN msg="auth: the token verifier is unavailable" error="auth: verifier unavailable: the endpoint is down"`)
	assert.Contains(t, log.String(), `level=DEBUG msg="auth: request refused" status=401 error=invalid_token reason="the access token is not valid" remote=192.0.2.1:1234 verifier="an error of no kind"`)
	for token := range testTokens {
		assert.NotContains(t, log.String(), token)
	}
	assert.NotContains(t, log.String(), "secret")
}

// The metadata (RFC 9728 §3.2): the document to GET and HEAD, from any
// origin, with a preflight's answer; other methods 405.
func TestMetadata(t *testing.T) {
	const doc = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp"],` +
		`"bearer_methods_supported":["header"],"resource_name":"Example"}`
	tests := []struct {
		method string
		status int
		header map[string]string
		body   string
	}{
		{"GET", 200, map[string]string{"Access-Control-Allow-Origin": "*", "Content-Type": "application/json", "Content-Length": fmt.Sprint(len(doc))}, doc},
		{"HEAD", 200, map[string]string{"Access-Control-Allow-Origin": "*", "Content-Type": "application/json", "Content-Length": fmt.Sprint(len(doc))}, ""},
		{"OPTIONS", 204, map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Headers": "*", "Access-Control-Max-Age": "86400"}, ""},
		{"POST", 405, map[string]string{"Access-Control-Allow-Origin": "*", "Allow": "GET, HEAD, OPTIONS"}, ""},
		{"DELETE", 405, map[string]string{"Access-Control-Allow-Origin": "*", "Allow": "GET, HEAD, OPTIONS"}, ""},
	}
	rs := newServer(t, &bytes.Buffer{})
	assert.Equal(t, "/.well-known/oauth-protected-resource/mcp", rs.MetadataPath())
	assert.Equal(t, metadataURL, rs.MetadataURL())
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, rs.MetadataURL(), nil)
			r.Header.Set("Origin", "https://inspector.example")
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code)
			got := map[string]string{}
			for k := range w.Header() {
				got[k] = w.Header().Get(k)
			}
			assert.Equal(t, tt.header, got)
			assert.Equal(t, tt.body, w.Body.String())
		})
	}
}

// Where the metadata of a resource is (RFC 9728 §3: the well-known
// string between the host and the path), and what its challenges name.
func TestMetadataPath(t *testing.T) {
	tests := []struct{ resource, path, url string }{
		{"https://mcp.example.com", "/.well-known/oauth-protected-resource", "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com/", "/.well-known/oauth-protected-resource", "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com:8443", "/.well-known/oauth-protected-resource", "https://mcp.example.com:8443/.well-known/oauth-protected-resource"},
		{"https://example.com/public/mcp", "/.well-known/oauth-protected-resource/public/mcp",
			"https://example.com/.well-known/oauth-protected-resource/public/mcp"},
		{"https://example.com/a%20b/", "/.well-known/oauth-protected-resource/a%20b/", "https://example.com/.well-known/oauth-protected-resource/a%20b/"},
		{"http://127.0.0.1:8080/mcp", "/.well-known/oauth-protected-resource/mcp", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"},
		{"http://localhost/mcp", "/.well-known/oauth-protected-resource/mcp", "http://localhost/.well-known/oauth-protected-resource/mcp"},
		{"http://[::1]:9/", "/.well-known/oauth-protected-resource", "http://[::1]:9/.well-known/oauth-protected-resource"},
	}
	for _, tt := range tests {
		rs, err := auth.NewResourceServer(&auth.Options{Resource: tt.resource, AuthorizationServers: []string{issuer}, Verifier: testTokens})
		require.NoError(t, err, tt.resource)
		assert.Equal(t, tt.path, rs.MetadataPath(), tt.resource)
		assert.Equal(t, tt.url, rs.MetadataURL(), tt.resource)
		w := httptest.NewRecorder()
		rs.Require(whoami).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, `Bearer resource_metadata="`+tt.url+`"`, w.Header().Get("WWW-Authenticate"), "no scope= without Scopes")
	}
}

// Options that cannot make a resource server are refused, each naming
// what is wrong.
func TestNewResourceServerRefuses(t *testing.T) {
	good := func() auth.Options {
		return auth.Options{Resource: resource, AuthorizationServers: []string{issuer}, Verifier: testTokens, Scopes: []string{"mcp"}}
	}
	tests := []struct {
		name   string
		change func(*auth.Options)
		want   string
	}{
		{"no options", nil, `auth: Resource "" is not an absolute URL with a host`},
		{"no resource", func(o *auth.Options) { o.Resource = "" }, `auth: Resource "" is not an absolute URL with a host`},
		{"no scheme", func(o *auth.Options) { o.Resource = "mcp.example.com" }, `auth: Resource "mcp.example.com" is not an absolute URL with a host`},
		{"http elsewhere", func(o *auth.Options) { o.Resource = "http://mcp.example.com" }, `auth: Resource "http://mcp.example.com" is not https (http is for a loopback host only)`},
		{"another scheme", func(o *auth.Options) { o.Resource = "ftp://mcp.example.com" }, `auth: Resource "ftp://mcp.example.com" is not https`},
		{"a fragment", func(o *auth.Options) { o.Resource = "https://mcp.example.com#f" }, `auth: Resource "https://mcp.example.com#f" has a fragment`},
		{"an empty fragment", func(o *auth.Options) { o.Resource = "https://mcp.example.com/#" }, `auth: Resource "https://mcp.example.com/#" has a fragment`},
		{"a query", func(o *auth.Options) { o.Resource = "https://mcp.example.com/?a=1" }, `auth: Resource "https://mcp.example.com/?a=1" has a query`},
		{"an empty query", func(o *auth.Options) { o.Resource = "https://mcp.example.com/?" }, `auth: Resource "https://mcp.example.com/?" has a query`},
		{"a user", func(o *auth.Options) { o.Resource = "https://u@mcp.example.com" }, `auth: Resource "https://u@mcp.example.com" has user information`},
		{"a quote", func(o *auth.Options) { o.Resource = `https://mcp.example.com/"` }, `auth: Resource "https://mcp.example.com/\"" has a character a URL cannot`},
		{"a path not clean", func(o *auth.Options) { o.Resource = "https://mcp.example.com/a/../mcp" },
			`auth: Resource "https://mcp.example.com/a/../mcp" has a path that is not clean (its metadata's path would be redirected)`},
		{"an empty path segment", func(o *auth.Options) { o.Resource = "https://mcp.example.com//mcp" },
			`auth: Resource "https://mcp.example.com//mcp" has a path that is not clean (its metadata's path would be redirected)`},
		{"a dot segment", func(o *auth.Options) { o.Resource = "https://mcp.example.com/./" },
			`auth: Resource "https://mcp.example.com/./" has a path that is not clean (its metadata's path would be redirected)`},
		{"an empty audience", func(o *auth.Options) { o.Audiences = []string{"api://mcp", ""} },
			`auth: Audiences holds "": a token whose audience is empty would be accepted`},
		{"no authorization server", func(o *auth.Options) { o.AuthorizationServers = nil }, `auth: AuthorizationServers is empty: the metadata must name one`},
		{"a bad authorization server", func(o *auth.Options) { o.AuthorizationServers = []string{issuer, "auth.example.com"} },
			`auth: an authorization server "auth.example.com" is not an absolute URL with a host`},
		{"a bad documentation URL", func(o *auth.Options) { o.ResourceDocumentation = "/docs" }, `auth: ResourceDocumentation "/docs" is not an absolute URL with a host`},
		{"no verifier", func(o *auth.Options) { o.Verifier = nil }, `auth: no Verifier`},
		{"a scope with a space", func(o *auth.Options) { o.Scopes = []string{"a b"} }, `auth: "a b" is not a scope (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
		{"an empty scope", func(o *auth.Options) { o.ScopesSupported = []string{""} }, `auth: "" is not a scope (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
		{"a quote in a scope", func(o *auth.Options) { o.Scopes = []string{`a"`} }, `auth: "a\"" is not a scope (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
	}
	for _, tt := range tests {
		var opts *auth.Options
		if tt.change != nil {
			o := good()
			tt.change(&o)
			opts = &o
		}
		rs, err := auth.NewResourceServer(opts)
		assert.Nil(t, rs, tt.name)
		assert.EqualError(t, err, tt.want, tt.name)
	}
}

// A tool checks its own scopes: RequireScopes' *ScopeError names them,
// and Challenge makes of it the 403 step-up challenge naming every scope
// the request needs, the resource's and the tool's.
func TestRequireScopes(t *testing.T) {
	var got struct {
		read, write, none error
		status            int
		challenge         string
	}
	h := newServer(t, &bytes.Buffer{}).Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		got.read = auth.RequireScopes(ctx, "read", "mcp")
		got.write = auth.RequireScopes(ctx, "read", "write", "admin")
		got.none = auth.RequireScopes(ctx)
		got.status, got.challenge = auth.Challenge(ctx, fmt.Errorf("the tool: %w", got.write))
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer good-secret-1")
	h.ServeHTTP(httptest.NewRecorder(), r)
	assert.NoError(t, got.read)
	assert.NoError(t, got.none)
	var se *auth.ScopeError
	require.ErrorAs(t, got.write, &se)
	assert.Equal(t, &auth.ScopeError{Scopes: []string{"read", "write", "admin"}, Missing: []string{"write", "admin"}}, se)
	assert.EqualError(t, se, "auth: insufficient scope: the token lacks write admin")
	assert.Equal(t, 403, got.status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp read write admin", error="insufficient_scope", `+
		`error_description="the access token lacks a scope this operation needs"`, got.challenge)

	assert.ErrorIs(t, auth.RequireScopes(context.Background(), "read"), auth.ErrNoIdentity)
	assert.Nil(t, auth.IdentityFrom(context.Background()))
	status, challenge := auth.Challenge(context.Background(), se)
	assert.Equal(t, 0, status, "no resource server: no challenge")
	assert.Empty(t, challenge)
	status, _ = auth.Challenge(context.Background(), errors.New("x"))
	assert.Equal(t, 0, status)
}

// Identity.HasScope, on a nil identity too.
func TestHasScope(t *testing.T) {
	assert.True(t, alice().HasScope("mcp"))
	assert.False(t, alice().HasScope("mc"))
	assert.False(t, (*auth.Identity)(nil).HasScope("mcp"))
}
