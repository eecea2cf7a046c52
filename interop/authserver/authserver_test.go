package authserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/interop/authserver"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The MCP server's URL the tests' tokens are for.
const resource = "http://127.0.0.1:8080/mcp"

// start starts a server by cfg for the test, checking that it leaves no
// goroutine behind, and returns it with a context bounded by
// wiretest.Hang.
func start(t *testing.T, cfg *authserver.Config) (*authserver.Server, context.Context) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	ctx, cancel := context.WithTimeout(t.Context(), wiretest.Hang)
	t.Cleanup(cancel)
	s, err := authserver.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s, ctx
}

// get returns the status and body of a GET of u.
func get(t *testing.T, s *authserver.Server, u string) (int, []byte) {
	t.Helper()
	resp, err := s.Client().Get(u)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// post returns the status and body of a POST of body to u.
func post(t *testing.T, s *authserver.Server, u, contentType, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// introspector returns an auth.Introspector of s as its resource server,
// without a cache (each Verify asks s).
func introspector(t *testing.T, s *authserver.Server) *auth.Introspector {
	t.Helper()
	v, err := auth.NewIntrospector(&auth.IntrospectionOptions{
		Endpoint: s.IntrospectionEndpoint(), ClientID: authserver.ResourceServerID, ClientSecret: authserver.ResourceServerSecret,
		Client: s.Client(), CacheSize: -1,
	})
	require.NoError(t, err)
	return v
}

// jwt is a JWT access token's header and claims, read without checking
// its signature.
type jwt struct {
	Header map[string]any
	Claims map[string]any
}

func readJWT(t *testing.T, token string) jwt {
	t.Helper()
	parts := strings.Split(token, ".")
	require.Len(t, parts, 3, "a JWS in compact form")
	var j jwt
	for i, to := range []*map[string]any{&j.Header, &j.Claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, to))
	}
	return j
}

// jwks returns the kids of s's JWKS, in order, and checks token verifies
// with the key of its kid if it is there.
func jwks(t *testing.T, s *authserver.Server, token string) (kids []string, verified bool) {
	t.Helper()
	status, b := get(t, s, s.JWKSURI())
	require.Equal(t, 200, status)
	var set jose.JSONWebKeySet
	require.NoError(t, json.Unmarshal(b, &set))
	sig, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	require.NoError(t, err)
	for _, k := range set.Keys {
		kids = append(kids, k.KeyID)
		assert.Equal(t, "RS256", k.Algorithm)
		assert.Equal(t, "sig", k.Use)
		if k.KeyID == sig.Signatures[0].Header.KeyID {
			_, err := sig.Verify(k.Key)
			verified = err == nil
		}
	}
	return kids, verified
}

// The metadata is served at the OpenID and the RFC 8414 paths alike, and
// says what the server does.
func TestDiscovery(t *testing.T) {
	s, _ := start(t, nil)
	var docs []map[string]any
	for _, path := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		status, b := get(t, s, s.Issuer()+path)
		require.Equal(t, 200, status, path)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(b, &doc))
		docs = append(docs, doc)
	}
	assert.Equal(t, docs[0], docs[1])
	doc := docs[0]
	is := s.Issuer()
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, is)
	for member, want := range map[string]any{
		"issuer":                                        s.Issuer(),
		"authorization_endpoint":                        is + "/authorize",
		"token_endpoint":                                is + "/oauth/token",
		"introspection_endpoint":                        is + "/oauth/introspect",
		"revocation_endpoint":                           is + "/revoke",
		"jwks_uri":                                      is + "/keys",
		"registration_endpoint":                         is + "/register",
		"grant_types_supported":                         []any{"authorization_code", "refresh_token", "client_credentials"},
		"response_types_supported":                      []any{"code"},
		"code_challenge_methods_supported":              []any{"S256"},
		"token_endpoint_auth_methods_supported":         []any{"none", "client_secret_basic", "client_secret_post"},
		"introspection_endpoint_auth_methods_supported": []any{"client_secret_basic"},
		"scopes_supported":                              []any{"openid", "profile", "offline_access", "mcp"},
		"id_token_signing_alg_values_supported":         []any{"RS256"},
	} {
		assert.Equal(t, want, doc[member], member)
	}
	assert.Equal(t, s.TokenEndpoint(), doc["token_endpoint"])
	assert.Equal(t, s.IntrospectionEndpoint(), doc["introspection_endpoint"])
	assert.Equal(t, s.JWKSURI(), doc["jwks_uri"])
	assert.NotContains(t, doc, "device_authorization_endpoint")

	off, _ := start(t, &authserver.Config{DisableRegistration: true})
	status, b := get(t, off, off.Issuer()+"/.well-known/oauth-authorization-server")
	require.Equal(t, 200, status)
	assert.NotContains(t, string(b), "registration_endpoint")
	status, _ = post(t, off, off.Issuer()+"/register", "application/json", `{"redirect_uris":["http://127.0.0.1/cb"]}`, nil)
	assert.Equal(t, 404, status)
}

// A client_credentials token is a JWT signed with the current key, for
// the resource asked, with the scope claim; toolrpc's Introspector reads
// it as active, with its subject, client, scopes, audience and expiry; a
// garbage token, one revoked, or one introspected by a client that may
// not, is inactive.
func TestClientCredentialsIntrospected(t *testing.T) {
	s, ctx := start(t, &authserver.Config{Scopes: []string{"mcp", "stats"}, TokenLifetime: time.Minute})
	before := time.Now().Truncate(time.Second)
	token, err := s.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, []string{"mcp", "stats"}, resource)
	require.NoError(t, err)

	j := readJWT(t, token)
	assert.Equal(t, "RS256", j.Header["alg"])
	assert.Equal(t, s.KeyID(), j.Header["kid"])
	assert.Equal(t, s.Issuer(), j.Claims["iss"])
	assert.Equal(t, authserver.MachineClientID, j.Claims["sub"])
	assert.Equal(t, authserver.MachineClientID, j.Claims["client_id"])
	assert.Equal(t, []any{resource}, j.Claims["aud"])
	assert.Equal(t, "mcp stats", j.Claims["scope"])
	assert.NotEmpty(t, j.Claims["jti"])
	kids, verified := jwks(t, s, token)
	assert.Equal(t, []string{s.KeyID()}, kids)
	assert.True(t, verified)

	v := introspector(t, s)
	id, err := v.Verify(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, authserver.MachineClientID, id.Subject)
	assert.Equal(t, authserver.MachineClientID, id.ClientID)
	assert.Equal(t, s.Issuer(), id.Issuer)
	assert.Equal(t, []string{"mcp", "stats"}, id.Scopes)
	assert.Equal(t, []string{resource}, id.Audience)
	assert.False(t, id.Expiry.Before(before.Add(time.Minute)), "expires %v", id.Expiry)
	assert.False(t, id.Expiry.After(time.Now().Add(time.Minute)), "expires %v", id.Expiry)
	assert.Equal(t, `"Bearer"`, string(id.Claims["token_type"]))
	assert.Equal(t, `"`+j.Claims["jti"].(string)+`"`, string(id.Claims["jti"]))

	_, err = v.Verify(ctx, "garbage")
	assert.ErrorIs(t, err, auth.ErrInvalidToken)
	_, err = v.Verify(ctx, token[:len(token)-4]+"AAAA")
	assert.ErrorIs(t, err, auth.ErrInvalidToken, "a signature that does not verify")

	// The machine client may not introspect: inactive to it.
	other, err := auth.NewIntrospector(&auth.IntrospectionOptions{Endpoint: s.IntrospectionEndpoint(),
		ClientID: authserver.MachineClientID, ClientSecret: authserver.MachineSecret, Client: s.Client()})
	require.NoError(t, err)
	_, err = other.Verify(ctx, token)
	assert.ErrorIs(t, err, auth.ErrInvalidToken)
	// Wrong credentials: zitadel answers 401, which the introspector
	// reads as unavailable.
	wrong, err := auth.NewIntrospector(&auth.IntrospectionOptions{Endpoint: s.IntrospectionEndpoint(),
		ClientID: authserver.ResourceServerID, ClientSecret: "wrong", Client: s.Client()})
	require.NoError(t, err)
	_, err = wrong.Verify(ctx, token)
	assert.ErrorIs(t, err, auth.ErrUnavailable)

	// Revoked (RFC 7009) by the client it was issued to.
	status, body := post(t, s, s.Issuer()+"/revoke", "application/x-www-form-urlencoded",
		url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode(),
		map[string]string{"Authorization": basic(authserver.MachineClientID, authserver.MachineSecret)})
	require.Equal(t, 200, status, body)
	_, err = v.Verify(ctx, token)
	assert.ErrorIs(t, err, auth.ErrInvalidToken)
}

func basic(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}

// tokenError returns the OAuth error code of a failed token request.
func tokenError(t *testing.T, err error) string {
	t.Helper()
	var re *oauth2.RetrieveError
	require.True(t, errors.As(err, &re), "%v", err)
	return re.ErrorCode
}

// The token endpoint refuses what it must: a scope or a resource not the
// server's, a resource that is not an absolute URL, wrong credentials, a
// grant the client may not use.
func TestTokenRequestsRefused(t *testing.T) {
	s, ctx := start(t, &authserver.Config{Resources: []string{resource, "https://other.example/mcp"}})
	for _, tt := range []struct {
		name, id, secret string
		scopes           []string
		resource         string
		code             string
	}{
		{"unknown scope", authserver.MachineClientID, authserver.MachineSecret, []string{"mcp", "admin"}, resource, "invalid_scope"},
		{"unknown resource", authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, "https://evil.example/mcp", "invalid_target"},
		{"relative resource", authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, "/mcp", "invalid_target"},
		{"resource with fragment", authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, resource + "#x", "invalid_target"},
		{"wrong secret", authserver.MachineClientID, "nope", []string{"mcp"}, resource, "invalid_client"},
		{"public client", authserver.PublicClientID, "", []string{"mcp"}, resource, "invalid_client"},
		{"not a client_credentials client", authserver.ResourceServerID, authserver.ResourceServerSecret, []string{"mcp"}, resource, "unauthorized_client"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.ClientCredentialsToken(ctx, tt.id, tt.secret, tt.scopes, tt.resource)
			require.Error(t, err)
			assert.Equal(t, tt.code, tokenError(t, err))
		})
	}
	// No resource named: the first configured one.
	token, err := s.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, "")
	require.NoError(t, err)
	assert.Equal(t, []any{resource}, readJWT(t, token).Claims["aud"])
	token, err = s.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, nil, "https://other.example/mcp")
	require.NoError(t, err)
	assert.Equal(t, []any{"https://other.example/mcp"}, readJWT(t, token).Claims["aud"])
	assert.NotContains(t, readJWT(t, token).Claims, "scope", "no scope asked, none granted")
}

// The authorization code flow with PKCE, as a client without a browser
// runs it: GETs through the auto-approving login back to the loopback
// redirect URI (any port), the code exchanged for a token of the test
// user, for the resource; with offline_access, a refresh token, which is
// rotated when used, its old access token revoked.
func TestAuthorizationCode(t *testing.T) {
	s, ctx := start(t, &authserver.Config{Scopes: []string{"mcp", "stats"}})
	v := introspector(t, s)
	const redirect = "http://127.0.0.1:49152/callback"
	tok, err := s.AuthorizationCodeToken(ctx, authserver.PublicClientID, redirect, []string{"mcp", "offline_access"}, resource)
	require.NoError(t, err)
	assert.Equal(t, "Bearer", tok.TokenType)
	assert.NotEmpty(t, tok.RefreshToken)
	assert.Equal(t, "mcp offline_access", tok.Extra("scope"))
	j := readJWT(t, tok.AccessToken)
	assert.Equal(t, authserver.DefaultUser, j.Claims["sub"])
	assert.Equal(t, authserver.PublicClientID, j.Claims["client_id"])
	assert.Equal(t, []any{resource}, j.Claims["aud"])
	assert.Equal(t, "mcp offline_access", j.Claims["scope"])
	id, err := v.Verify(ctx, tok.AccessToken)
	require.NoError(t, err)
	assert.Equal(t, authserver.DefaultUser, id.Subject)
	assert.Equal(t, authserver.PublicClientID, id.ClientID)
	assert.Equal(t, []string{"mcp", "offline_access"}, id.Scopes)
	assert.Equal(t, []string{resource}, id.Audience)
	assert.Equal(t, `"`+authserver.DefaultUser+`"`, string(id.Claims["username"]))

	conf := oauth2.Config{ClientID: authserver.PublicClientID, Endpoint: oauth2.Endpoint{TokenURL: s.TokenEndpoint(), AuthStyle: oauth2.AuthStyleInParams}}
	old := *tok
	old.Expiry = time.Now().Add(-time.Second) // make the source refresh
	refreshed, err := conf.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, s.Client()), &old).Token()
	require.NoError(t, err)
	assert.NotEqual(t, tok.AccessToken, refreshed.AccessToken)
	assert.NotEqual(t, tok.RefreshToken, refreshed.RefreshToken, "rotated")
	assert.Equal(t, []any{resource}, readJWT(t, refreshed.AccessToken).Claims["aud"])
	_, err = v.Verify(ctx, refreshed.AccessToken)
	require.NoError(t, err)
	_, err = v.Verify(ctx, tok.AccessToken)
	assert.ErrorIs(t, err, auth.ErrInvalidToken, "the access token of a used refresh token is revoked")
	_, err = conf.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, s.Client()), &old).Token()
	assert.Equal(t, "invalid_grant", tokenError(t, err), "a used refresh token is spent")

	// With openid the aud names the client too (an ID token's must), and
	// an ID token comes with the access token.
	tok, err = s.AuthorizationCodeToken(ctx, authserver.PublicClientID, "http://localhost:1234/callback", []string{"openid", "mcp"}, resource)
	require.NoError(t, err)
	assert.Equal(t, []any{resource, authserver.PublicClientID}, readJWT(t, tok.AccessToken).Claims["aud"])
	assert.NotEmpty(t, tok.Extra("id_token"))
	assert.Empty(t, tok.RefreshToken, "no offline_access, no refresh token")
}

// What the authorization endpoint refuses: a request without PKCE, or
// with the plain method (both redirected back with invalid_request), a
// redirect URI not registered (answered, not redirected), a wrong
// verifier, a resource at the token endpoint not granted at the
// authorization endpoint.
func TestAuthorizationRefused(t *testing.T) {
	s, ctx := start(t, nil)
	const redirect = "http://127.0.0.1:49152/callback"
	authURL := func(extra url.Values) string {
		q := url.Values{"response_type": {"code"}, "client_id": {authserver.PublicClientID}, "redirect_uri": {redirect}, "scope": {"mcp"}, "state": {"s1"}}
		for k, v := range extra {
			q[k] = v
		}
		return s.AuthorizationEndpoint() + "?" + q.Encode()
	}
	for _, tt := range []struct {
		name  string
		extra url.Values
	}{
		{"no PKCE", nil},
		{"plain PKCE", url.Values{"code_challenge": {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr"}, "code_challenge_method": {"plain"}}},
		{"PKCE without method", url.Values{"code_challenge": {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqr"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			back, err := s.Follow(ctx, authURL(tt.extra), redirect)
			require.NoError(t, err)
			assert.Equal(t, "invalid_request", back.Query().Get("error"))
			assert.Equal(t, "s1", back.Query().Get("state"))
			assert.Empty(t, back.Query().Get("code"))
		})
	}
	_, err := s.Follow(ctx, strings.Replace(authURL(nil), url.QueryEscape(redirect), url.QueryEscape("https://evil.example/cb"), 1), "https://evil.example/cb")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "answered 400, not a redirect")

	verifier := oauth2.GenerateVerifier()
	challenge := url.Values{"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "resource": {resource}}
	conf := oauth2.Config{ClientID: authserver.PublicClientID, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{TokenURL: s.TokenEndpoint(), AuthStyle: oauth2.AuthStyleInParams}}
	hc := context.WithValue(ctx, oauth2.HTTPClient, s.Client())
	for _, tt := range []struct {
		name string
		opts []oauth2.AuthCodeOption
		code string
	}{
		{"wrong verifier", []oauth2.AuthCodeOption{oauth2.VerifierOption(oauth2.GenerateVerifier())}, "invalid_grant"},
		{"resource not granted", []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", "https://other.example/mcp")}, "invalid_target"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			back, err := s.Follow(ctx, authURL(challenge), redirect)
			require.NoError(t, err)
			require.NotEmpty(t, back.Query().Get("code"))
			_, err = conf.Exchange(hc, back.Query().Get("code"), tt.opts...)
			assert.Equal(t, tt.code, tokenError(t, err))
		})
	}
	// The code is good for one exchange.
	back, err := s.Follow(ctx, authURL(challenge), redirect)
	require.NoError(t, err)
	_, err = conf.Exchange(hc, back.Query().Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	require.NoError(t, err)
	_, err = conf.Exchange(hc, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	assert.Equal(t, "invalid_grant", tokenError(t, err))
}

// After Rotate, tokens have the new kid and verify with the JWKS; kept,
// the old key stays in the JWKS (new first) and its tokens introspect
// active; dropped, it leaves the JWKS, and its tokens are inactive.
func TestRotate(t *testing.T) {
	s, ctx := start(t, nil)
	v := introspector(t, s)
	issue := func() string {
		token, err := s.ClientCredentialsToken(ctx, authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, resource)
		require.NoError(t, err)
		return token
	}
	first := s.KeyID()
	t1 := issue()

	second, err := s.Rotate(true)
	require.NoError(t, err)
	assert.NotEqual(t, first, second)
	assert.Equal(t, second, s.KeyID())
	t2 := issue()
	assert.Equal(t, second, readJWT(t, t2).Header["kid"])
	kids, verified := jwks(t, s, t2)
	assert.Equal(t, []string{second, first}, kids)
	assert.True(t, verified)
	_, verified = jwks(t, s, t1)
	assert.True(t, verified, "the old key still verifies its tokens")
	_, err = v.Verify(ctx, t1)
	assert.NoError(t, err)

	third, err := s.Rotate(false)
	require.NoError(t, err)
	t3 := issue()
	assert.Equal(t, third, readJWT(t, t3).Header["kid"])
	kids, verified = jwks(t, s, t3)
	assert.Equal(t, []string{third}, kids)
	assert.True(t, verified)
	_, verified = jwks(t, s, t2)
	assert.False(t, verified, "the dropped key is not in the JWKS")
	for _, old := range []string{t1, t2} {
		_, err = v.Verify(ctx, old)
		assert.ErrorIs(t, err, auth.ErrInvalidToken)
	}
	_, err = v.Verify(ctx, t3)
	assert.NoError(t, err)
}

// Dynamic client registration (RFC 7591): a public client registered
// with its loopback redirect URI runs the code flow; a confidential one
// gets a secret it authenticates with; bad metadata and registrations
// past the bound are refused.
func TestRegistration(t *testing.T) {
	s, ctx := start(t, &authserver.Config{MaxRegistrations: 2})
	register := func(body string) (int, map[string]any) {
		status, b := post(t, s, s.Issuer()+"/register", "application/json", body, nil)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(b), &m), b)
		return status, m
	}
	status, pub := register(`{"redirect_uris":["http://127.0.0.1:9999/callback"],"token_endpoint_auth_method":"none",` +
		`"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"client_name":"ts","scope":"mcp"}`)
	require.Equal(t, 201, status, pub)
	id, _ := pub["client_id"].(string)
	require.NotEmpty(t, id)
	assert.NotContains(t, pub, "client_secret")
	assert.Equal(t, "none", pub["token_endpoint_auth_method"])
	assert.Equal(t, []any{"http://127.0.0.1:9999/callback"}, pub["redirect_uris"])
	assert.Equal(t, "ts", pub["client_name"])
	tok, err := s.AuthorizationCodeToken(ctx, id, "http://127.0.0.1:3333/callback", []string{"mcp"}, resource)
	require.NoError(t, err, "a loopback redirect URI matches on any port")
	assert.Equal(t, id, readJWT(t, tok.AccessToken).Claims["client_id"])

	status, conf := register(`{"redirect_uris":["https://app.example/cb"],"grant_types":["authorization_code","client_credentials"]}`)
	require.Equal(t, 201, status, conf)
	assert.Equal(t, "client_secret_basic", conf["token_endpoint_auth_method"], "RFC 7591's default")
	assert.Equal(t, float64(0), conf["client_secret_expires_at"])
	token, err := s.ClientCredentialsToken(ctx, conf["client_id"].(string), conf["client_secret"].(string), []string{"mcp"}, resource)
	require.NoError(t, err)
	assert.Equal(t, conf["client_id"], readJWT(t, token).Claims["sub"])

	for _, tt := range []struct{ body, code string }{
		{`{"redirect_uris":["http://app.example/cb"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb#f"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":[]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"none","grant_types":["client_credentials"]}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/cb"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/cb"],"response_types":["token"]}`, "invalid_client_metadata"},
		{`[1]`, "invalid_client_metadata"},
	} {
		status, m := register(tt.body)
		assert.Equal(t, 400, status, tt.body)
		assert.Equal(t, tt.code, m["error"], tt.body)
	}
	status, m := register(`{"redirect_uris":["https://app.example/cb"]}`)
	assert.Equal(t, 503, status)
	assert.Equal(t, "temporarily_unavailable", m["error"])
	status, body := post(t, s, s.Issuer()+"/register", "application/json", `{"redirect_uris":["`+strings.Repeat("a", 70<<10)+`"]}`, nil)
	assert.Equal(t, 400, status, body)
	assert.True(t, slices.Contains([]string{"invalid_client_metadata"}, jsonError(t, body)))
}

func jsonError(t *testing.T, body string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	e, _ := m["error"].(string)
	return e
}
