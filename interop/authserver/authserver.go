// Package authserver runs a real OAuth 2.1 / OpenID Connect authorization
// server for toolrpc's tests: zitadel's OpenID provider
// (github.com/zitadel/oidc/v3/pkg/op) over an in-memory storage, on a
// loopback listener (plain http: the resource server allows loopback
// http). Tokens are minted by zitadel's token endpoint, never by hand:
//
//   - discovery at /.well-known/openid-configuration and, with the same
//     document, RFC 8414's /.well-known/oauth-authorization-server;
//   - JWT access tokens (RS256) whose kid is in the JWKS (jwks_uri), with
//     key rotation on demand (Server.Rotate);
//   - the grants client_credentials (a confidential client), and
//     authorization_code with PKCE S256 for public or confidential
//     clients with loopback redirect URIs, whose login approves the test
//     user at once (a client follows the redirects with plain GETs), and
//     refresh_token (when offline_access is granted, as OpenID has it);
//   - RFC 8707 resource indicators: the resource parameter is checked
//     and made the access token's aud (zitadel parses none; see
//     Config.Resources), and the scope claim (zitadel puts none in a JWT
//     access token; the storage adds it);
//   - introspection (RFC 7662) for clients allowed to (Client.Introspect),
//     revocation (RFC 7009), and dynamic client registration (RFC 7591:
//     zitadel has none; a minimal endpoint here, /register).
//
// cmd/authserver runs one standalone. See interop/README.md.
package authserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The pre-registered clients of DefaultClients, and the test user.
const (
	// MachineClientID and MachineSecret are a confidential client that
	// may use the client_credentials grant.
	MachineClientID = "machine"
	MachineSecret   = "machine-secret"
	// PublicClientID is a public client (no secret: PKCE) that may use
	// authorization_code with a loopback redirect URI, any port:
	// http://127.0.0.1/callback or http://localhost/callback.
	PublicClientID = "mcp-client"
	// ResourceServerID and ResourceServerSecret are the MCP server's
	// credentials at the introspection endpoint.
	ResourceServerID     = "resource-server"
	ResourceServerSecret = "resource-server-secret"
	// DefaultUser is the subject the login approves.
	DefaultUser = "alice"
)

// Defaults of Config.
const (
	DefaultTokenLifetime    = 5 * time.Minute
	DefaultMaxRegistrations = 100
	maxRegistrationBytes    = 64 << 10
)

// Paths this package adds to zitadel's.
const (
	loginPath    = "/login"
	registerPath = "/register"
	oidcPath     = "/.well-known/openid-configuration"
	oauthPath    = "/.well-known/oauth-authorization-server"
)

// Client is a pre-registered client.
type Client struct {
	// ID is the client_id.
	ID string
	// Secret is the client_secret (client_secret_basic or _post); empty:
	// a public client, which authenticates with PKCE alone.
	Secret string
	// RedirectURIs allow the authorization_code grant (and refresh_token)
	// with these redirect URIs; a loopback http one matches on any port.
	RedirectURIs []string
	// ClientCredentials allows the client_credentials grant (to a
	// confidential client).
	ClientCredentials bool
	// Introspect allows the client to call the introspection endpoint
	// (a resource server); another one's introspections say inactive.
	Introspect bool
}

// DefaultClients returns the clients a Config without Clients has: the
// machine client, the public client and the resource server of the
// constants above.
func DefaultClients() []Client {
	return []Client{
		{ID: MachineClientID, Secret: MachineSecret, ClientCredentials: true},
		{ID: PublicClientID, RedirectURIs: []string{"http://127.0.0.1/callback", "http://localhost/callback"}},
		{ID: ResourceServerID, Secret: ResourceServerSecret, Introspect: true},
	}
}

// Config configures a Server. The zero Config is a server on a free
// loopback port with DefaultClients, the scope mcp, and any resource.
type Config struct {
	// Addr is the address to listen on; default 127.0.0.1:0 (a free
	// port). The issuer is http://Addr.
	Addr string
	// Resources are the resource indicators (RFC 8707) a client may ask
	// a token for, each an absolute http(s) URL without fragment: a
	// request naming another is refused (invalid_target). A request that
	// names none gets the first as its audience. Empty: any resource may
	// be asked for (the MCP server's URL may be known only after this
	// server starts), and a request that names none gets a token whose
	// audience is the client's ID, as zitadel does.
	Resources []string
	// Scopes are the scopes a client may ask for beyond OpenID's (openid,
	// profile, offline_access); default [mcp]. Another one is dropped
	// from an authorization request (as zitadel does), and refused in a
	// client_credentials one (invalid_scope).
	Scopes []string
	// Clients are the pre-registered clients; default DefaultClients().
	Clients []Client
	// User is the subject the login approves; default DefaultUser.
	User string
	// TokenLifetime is the access tokens' (and ID tokens'); default
	// DefaultTokenLifetime.
	TokenLifetime time.Duration
	// DisableRegistration turns off dynamic client registration: no
	// registration_endpoint in the metadata, 404 at /register.
	DisableRegistration bool
	// MaxRegistrations bounds the clients dynamic registration adds;
	// past it, 503. Default DefaultMaxRegistrations.
	MaxRegistrations int
}

// Server is a running authorization server. Its methods are safe for
// concurrent use.
type Server struct {
	cfg      Config
	issuer   string
	provider *op.Provider
	storage  *storage
	srv      *http.Server
	client   *http.Client
	served   chan struct{} // closed when Serve returns
	stop     func() bool   // of the AfterFunc on Start's ctx
	once     sync.Once
	err      error

	authorizePath, tokenPath string
}

// Start starts a server by cfg (nil: the zero Config), serving until
// Close or until ctx ends.
func Start(ctx context.Context, cfg *Config) (*Server, error) {
	c := Config{}
	if cfg != nil {
		c = *cfg
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.Scopes == nil {
		c.Scopes = []string{"mcp"}
	}
	c.Scopes = slices.Clone(c.Scopes)
	if c.Clients == nil {
		c.Clients = DefaultClients()
	}
	if c.User == "" {
		c.User = DefaultUser
	}
	if c.TokenLifetime <= 0 {
		c.TokenLifetime = DefaultTokenLifetime
	}
	if c.MaxRegistrations <= 0 {
		c.MaxRegistrations = DefaultMaxRegistrations
	}
	c.Resources = slices.Clone(c.Resources)
	for _, r := range c.Resources {
		if err := checkResourceURL(r); err != nil {
			return nil, fmt.Errorf("authserver: resource %q: %w", r, err)
		}
	}
	st, err := newStorage(&c)
	if err != nil {
		return nil, err
	}
	var key [32]byte
	_, _ = rand.Read(key[:])
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: c, issuer: "http://" + ln.Addr().String(), storage: st, served: make(chan struct{})}
	s.provider, err = op.NewProvider(&op.Config{
		CryptoKey:             key,
		CodeMethodS256:        true,
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       append([]string{oidc.ScopeOpenID, oidc.ScopeProfile, oidc.ScopeOfflineAccess}, c.Scopes...),
	}, st, op.StaticIssuer(s.issuer), op.WithAllowInsecure())
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.authorizePath = s.provider.AuthorizationEndpoint().Relative()
	s.tokenPath = s.provider.TokenEndpoint().Relative()

	mux := http.NewServeMux()
	mux.HandleFunc(oidcPath, s.metadata)
	mux.HandleFunc(oauthPath, s.metadata)
	mux.HandleFunc("GET "+loginPath, s.login)
	if !c.DisableRegistration {
		mux.HandleFunc(registerPath, s.register)
	}
	mux.Handle("/", s.resources(s.provider))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 30 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln)
	}()
	s.stop = context.AfterFunc(ctx, func() { _ = s.srv.Close() })
	return s, nil
}

// Close stops the server: its listener and connections are closed, and
// it returns once it no longer serves.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.stop()
		s.err = s.srv.Close()
		<-s.served
		s.client.CloseIdleConnections()
	})
	return s.err
}

// Issuer returns the issuer URL, http://127.0.0.1:port without a
// trailing slash: what a resource server names in its metadata's
// authorization_servers, and the tokens' iss.
func (s *Server) Issuer() string { return s.issuer }

// TokenEndpoint returns the token endpoint's URL.
func (s *Server) TokenEndpoint() string { return s.provider.TokenEndpoint().Absolute(s.issuer) }

// AuthorizationEndpoint returns the authorization endpoint's URL.
func (s *Server) AuthorizationEndpoint() string {
	return s.provider.AuthorizationEndpoint().Absolute(s.issuer)
}

// IntrospectionEndpoint returns the introspection endpoint's URL (for
// auth.IntrospectionOptions.Endpoint).
func (s *Server) IntrospectionEndpoint() string {
	return s.provider.IntrospectionEndpoint().Absolute(s.issuer)
}

// JWKSURI returns the JWKS's URL (the metadata's jwks_uri).
func (s *Server) JWKSURI() string { return s.provider.KeysEndpoint().Absolute(s.issuer) }

// Client returns the http.Client the helpers use; Close closes its idle
// connections.
func (s *Server) Client() *http.Client { return s.client }

// KeyID returns the kid of the current signing key.
func (s *Server) KeyID() string {
	k, _ := s.storage.SigningKey(context.Background())
	return k.ID()
}

// Rotate makes a new RSA key the current signing key and returns its
// kid: tokens issued from now on are signed with it. With keep the old
// keys stay in the JWKS (tokens they signed still verify, and introspect
// active); without, the JWKS holds the new key alone.
func (s *Server) Rotate(keep bool) (string, error) {
	k, err := newSigningKey()
	if err != nil {
		return "", err
	}
	s.storage.rotate(k, keep)
	return k.id, nil
}

// ClientCredentialsToken asks the token endpoint for an access token by
// the client_credentials grant (x/oauth2's clientcredentials, the
// credentials in the Authorization header), with the scopes and, unless
// empty, the resource (RFC 8707), and returns it.
func (s *Server) ClientCredentialsToken(ctx context.Context, clientID, secret string, scopes []string, resource string) (string, error) {
	cc := clientcredentials.Config{
		ClientID: clientID, ClientSecret: secret, TokenURL: s.TokenEndpoint(), Scopes: scopes,
		AuthStyle: oauth2.AuthStyleInHeader,
	}
	if resource != "" {
		cc.EndpointParams = url.Values{"resource": {resource}}
	}
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, s.client))
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// AuthorizationCodeToken runs the authorization code flow with PKCE
// (S256) as a client without a browser would: it GETs the authorization
// URL and follows the redirects (to the login, which approves the test
// user, and back) up to the one to redirectURI, checks its state, and
// exchanges the code at the token endpoint, as clientID (public: no
// secret) with the scopes and, unless empty, the resource in both
// requests. The token's RefreshToken is set when offline_access is among
// the scopes.
func (s *Server) AuthorizationCodeToken(ctx context.Context, clientID, redirectURI string, scopes []string, resource string) (*oauth2.Token, error) {
	conf := oauth2.Config{
		ClientID: clientID, RedirectURL: redirectURI, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: s.AuthorizationEndpoint(), TokenURL: s.TokenEndpoint(), AuthStyle: oauth2.AuthStyleInParams},
	}
	verifier := oauth2.GenerateVerifier()
	state := newID()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	var exchange []oauth2.AuthCodeOption
	if resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
		exchange = append(exchange, oauth2.SetAuthURLParam("resource", resource))
	}
	back, err := s.Follow(ctx, conf.AuthCodeURL(state, opts...), redirectURI)
	if err != nil {
		return nil, err
	}
	q := back.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authserver: the authorization failed: %s: %s", e, q.Get("error_description"))
	}
	if q.Get("state") != state {
		return nil, errors.New("authserver: the redirect's state is not the request's")
	}
	return conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, s.client), q.Get("code"), append(exchange, oauth2.VerifierOption(verifier))...)
}

// Follow GETs authURL and follows its redirects, at most 10, until one
// to redirectURI (compared without its query), which it returns without
// following: what a browser would hand the client back. Any other answer
// is an error.
func (s *Server) Follow(ctx context.Context, authURL, redirectURI string) (*url.URL, error) {
	c := *s.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	next, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	for range 10 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		_ = resp.Body.Close()
		loc, err := resp.Location()
		if resp.StatusCode/100 != 3 || err != nil {
			return nil, fmt.Errorf("authserver: %s answered %d, not a redirect: %s", next.Redacted(), resp.StatusCode, strings.TrimSpace(string(body)))
		}
		if u := *loc; withoutQuery(&u) == redirectURI {
			return loc, nil
		}
		next = loc
	}
	return nil, errors.New("authserver: more than 10 redirects")
}

// withoutQuery returns u without its query and fragment.
func withoutQuery(u *url.URL) string {
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// login is the login page: it approves the auth request of its id for
// the test user, at once, and sends the user agent back to zitadel's
// callback, which redirects to the client with the code.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if err := s.storage.approve(id); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := op.ContextWithIssuer(r.Context(), s.issuer)
	http.Redirect(w, r, op.AuthCallbackURL(s.provider)(ctx, id), http.StatusFound)
}

// metadata serves the authorization server's metadata at both
// well-known paths: zitadel's discovery document (it serves it at the
// OpenID path alone), with the registration_endpoint, without the
// implicit and the JWT bearer (RFC 7523) grants nor the response types
// other than code (zitadel lists them whatever the storage; no client
// here may use them), and without device_authorization_endpoint (the
// storage has no device flow).
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	doc := op.CreateDiscoveryConfig(op.ContextWithIssuer(r.Context(), s.issuer), s.provider, s.storage)
	doc.GrantTypesSupported = slices.DeleteFunc(doc.GrantTypesSupported, func(g oidc.GrantType) bool {
		return g == oidc.GrantTypeImplicit || g == oidc.GrantTypeBearer
	})
	doc.ResponseTypesSupported = []string{string(oidc.ResponseTypeCode)}
	doc.DeviceAuthorizationEndpoint = ""
	if !s.cfg.DisableRegistration {
		doc.RegistrationEndpoint = s.issuer + registerPath
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

// resources reads the resource parameters (RFC 8707) of authorization
// and token requests, which zitadel does not parse: each must be an
// absolute URL without fragment, among Config.Resources if set, and at
// the token endpoint for a code or a refresh token among those granted;
// else the answer is 400 invalid_target. The resources go to the request's
// context, where the storage finds them and makes them the audience.
func (s *Server) resources(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != s.authorizePath && r.URL.Path != s.tokenPath {
			next.ServeHTTP(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			op.RequestError(w, r, oidc.ErrInvalidRequest().WithDescription("the form cannot be parsed"), nil)
			return
		}
		asked := r.Form["resource"]
		if len(asked) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		var res []string
		for _, u := range asked {
			if err := checkResourceURL(u); err != nil {
				op.RequestError(w, r, oidc.ErrInvalidTarget().WithDescription("the resource %s", err), nil)
				return
			}
			if len(s.cfg.Resources) > 0 && !slices.Contains(s.cfg.Resources, u) {
				op.RequestError(w, r, oidc.ErrInvalidTarget().WithDescription("the resource is not one of this server's"), nil)
				return
			}
			if !slices.Contains(res, u) {
				res = append(res, u)
			}
		}
		if r.URL.Path == s.tokenPath {
			grant := r.PostForm.Get("grant_type")
			value := r.PostForm.Get("code")
			if grant == string(oidc.GrantTypeRefreshToken) {
				value = r.PostForm.Get("refresh_token")
			}
			if granted, ok := s.storage.grantedOf(grant, value); ok {
				for _, u := range res {
					if !slices.Contains(granted, u) {
						op.RequestError(w, r, oidc.ErrInvalidTarget().WithDescription("the resource was not granted"), nil)
						return
					}
				}
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), resourcesKey{}, res)))
	})
}

// checkResourceURL checks a resource indicator: an absolute http(s) URL
// without fragment (RFC 8707 §2).
func checkResourceURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("is not a URL")
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return errors.New("is not an absolute http(s) URL")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return errors.New("has a fragment")
	}
	return nil
}
