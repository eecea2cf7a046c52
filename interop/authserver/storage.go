package authserver

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The bounds of what the storage holds, so that a client looping on the
// endpoints cannot grow it without end: past them a request is refused
// (server_error), until expired entries are swept.
const (
	maxAuthRequests = 1000   // auth requests not yet exchanged for tokens
	maxTokens       = 10_000 // access and refresh tokens not yet expired
	authRequestTTL  = 10 * time.Minute
	refreshTTL      = time.Hour
)

// storage is the op.Storage of a Server: clients, auth requests, codes,
// tokens and signing keys, in memory.
type storage struct {
	cfg *Config

	mu           sync.Mutex
	clients      map[string]*client
	registered   int // clients added by dynamic registration
	authRequests map[string]*authRequest
	codes        map[string]string // code → auth request id
	tokens       map[string]*token // access token id (jti) → token
	refresh      map[string]*refreshToken
	keys         []*signingKey // the JWKS; the last is the current signing key
}

var (
	_ op.Storage                        = (*storage)(nil)
	_ op.ClientCredentialsStorage       = (*storage)(nil)
	_ op.CanGetPrivateClaimsFromRequest = (*storage)(nil)
	_ op.CanSetUserinfoFromRequest      = (*storage)(nil)
)

func newStorage(cfg *Config) (*storage, error) {
	s := &storage{
		cfg:          cfg,
		clients:      map[string]*client{},
		authRequests: map[string]*authRequest{},
		codes:        map[string]string{},
		tokens:       map[string]*token{},
		refresh:      map[string]*refreshToken{},
	}
	for _, c := range cfg.Clients {
		if c.ID == "" {
			return nil, errors.New("authserver: a client without an ID")
		}
		if _, ok := s.clients[c.ID]; ok {
			return nil, errors.New("authserver: two clients with ID " + c.ID)
		}
		s.clients[c.ID] = newClient(c, cfg)
	}
	key, err := newSigningKey()
	if err != nil {
		return nil, err
	}
	s.keys = []*signingKey{key}
	return s, nil
}

// resourcesKey is the context key of the resource indicators (RFC 8707)
// a request names, which Server.resources checked and put there: zitadel
// parses no resource parameter, so the storage reads it from the context.
type resourcesKey struct{}

func resourcesFrom(ctx context.Context) []string {
	r, _ := ctx.Value(resourcesKey{}).([]string)
	return r
}

// audience returns the audience of a grant asked for in ctx: the
// resources the request names, else the configured default (the first of
// Config.Resources), else none (zitadel then makes the client's ID the
// access token's audience); and the client's ID too when scopes hold
// openid, since an ID token's aud must name its client (OIDC Core §2).
func (s *storage) audience(ctx context.Context, clientID string, scopes []string) []string {
	aud := slices.Clone(resourcesFrom(ctx))
	if len(aud) == 0 && len(s.cfg.Resources) > 0 {
		aud = []string{s.cfg.Resources[0]}
	}
	if slices.Contains(scopes, oidc.ScopeOpenID) && !slices.Contains(aud, clientID) {
		aud = append(aud, clientID)
	}
	return aud
}

// newID returns a random identifier (of a token, a request, a client).
func newID() string { return rand.Text() }

// Auth requests.

// authRequest is an authorization request (op.AuthRequest), from its
// creation at /authorize to its exchange for tokens.
type authRequest struct {
	id            string
	created       time.Time
	clientID      string
	redirectURI   string
	state, nonce  string
	scopes        []string
	audience      []string
	responseType  oidc.ResponseType
	responseMode  oidc.ResponseMode
	codeChallenge *oidc.CodeChallenge
	subject       string
	authTime      time.Time
	done          bool
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAudience() []string                 { return a.audience }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.codeChallenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}

// CreateAuthRequest stores a validated authorization request. PKCE with
// S256 is required of every client (OAuth 2.1 §4.1.1; MCP requires S256):
// zitadel takes a request without code_challenge, or with the plain
// method, from a confidential client.
func (s *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	if req.CodeChallenge == "" || req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE is required, with code_challenge_method S256")
	}
	a := &authRequest{
		id:            newID(),
		created:       time.Now(),
		clientID:      req.ClientID,
		redirectURI:   req.RedirectURI,
		state:         req.State,
		nonce:         req.Nonce,
		scopes:        slices.Clone(req.Scopes),
		audience:      s.audience(ctx, req.ClientID, req.Scopes),
		responseType:  req.ResponseType,
		responseMode:  req.ResponseMode,
		codeChallenge: &oidc.CodeChallenge{Challenge: req.CodeChallenge, Method: req.CodeChallengeMethod},
		subject:       userID,
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(time.Now())
	if len(s.authRequests) >= maxAuthRequests {
		return nil, oidc.ErrServerError().WithDescription("too many authorization requests under way")
	}
	s.authRequests[a.id] = a
	return a, nil
}

// approve marks the auth request id as authenticated by the test user:
// the auto-approving login.
func (s *storage) approve(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authRequests[id]
	if !ok {
		return errors.New("no such authorization request")
	}
	// A copy: zitadel reads the requests the storage returned without
	// its lock, so a stored request is never modified.
	c := *a
	c.subject, c.authTime, c.done = s.cfg.User, time.Now(), true
	s.authRequests[id] = &c
	return nil
}

// register adds a client registered dynamically, unless max are.
func (s *storage) register(c Client, max int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.registered >= max {
		return false
	}
	s.registered++
	s.clients[c.ID] = newClient(c, s.cfg)
	return true
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authRequests[id]
	if !ok {
		return nil, errors.New("no such authorization request")
	}
	return a, nil
}

// AuthRequestByCode returns the request of code; when the token request
// names resources (Server.resources checked they are among those
// granted), a copy whose audience is those alone (RFC 8707 §2.2).
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	a, err := s.requestOfCode(code)
	if err != nil {
		return nil, err
	}
	if r := resourcesFrom(ctx); len(r) > 0 {
		c := *a
		c.audience = s.audience(ctx, a.clientID, a.scopes)
		return &c, nil
	}
	return a, nil
}

func (s *storage) requestOfCode(code string) (*authRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.authRequests[s.codes[code]]
	if !ok {
		return nil, errors.New("no such code")
	}
	return a, nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.authRequests[id]; !ok {
		return errors.New("no such authorization request")
	}
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest forgets a request and its code once exchanged: a
// code is good for one exchange.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.authRequests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// Tokens.

// token is an access token issued (a JWT; its id is the jti).
type token struct {
	id, clientID, subject string
	refreshID             string
	audience, scopes      []string
	issued, expiry        time.Time
}

// refreshToken is a refresh token (opaque: its value is its id).
type refreshToken struct {
	id, clientID, subject string
	accessID              string
	audience, scopes      []string
	authTime, expiry      time.Time
	amr                   []string
}

// refreshRequest is the op.RefreshTokenRequest of a refresh token.
type refreshRequest struct {
	*refreshToken
}

func (r *refreshRequest) GetAMR() []string             { return r.amr }
func (r *refreshRequest) GetAudience() []string        { return r.audience }
func (r *refreshRequest) GetAuthTime() time.Time       { return r.authTime }
func (r *refreshRequest) GetClientID() string          { return r.clientID }
func (r *refreshRequest) GetScopes() []string          { return r.scopes }
func (r *refreshRequest) GetSubject() string           { return r.subject }
func (r *refreshRequest) SetCurrentScopes(sc []string) { r.scopes = sc }

// clientCredentialsRequest is the op.TokenRequest of a client_credentials
// grant: the client is its own subject.
type clientCredentialsRequest struct {
	clientID         string
	audience, scopes []string
}

func (r *clientCredentialsRequest) GetSubject() string    { return r.clientID }
func (r *clientCredentialsRequest) GetAudience() []string { return r.audience }
func (r *clientCredentialsRequest) GetScopes() []string   { return r.scopes }

// clientOf returns the client a token request is of.
func clientOf(req op.TokenRequest) string {
	switch r := req.(type) {
	case *authRequest:
		return r.clientID
	case *refreshRequest:
		return r.clientID
	case *clientCredentialsRequest:
		return r.clientID
	}
	return ""
}

// sweepLocked forgets what expired by now. s.mu is held.
func (s *storage) sweepLocked(now time.Time) {
	for id, t := range s.tokens {
		if !now.Before(t.expiry) {
			delete(s.tokens, id)
		}
	}
	for id, r := range s.refresh {
		if !now.Before(r.expiry) {
			delete(s.refresh, id)
		}
	}
	for id, a := range s.authRequests {
		if now.Sub(a.created) > authRequestTTL {
			delete(s.authRequests, id)
		}
	}
	for code, id := range s.codes {
		if _, ok := s.authRequests[id]; !ok {
			delete(s.codes, code)
		}
	}
}

// newTokenLocked records an access token for req. s.mu is held.
func (s *storage) newTokenLocked(req op.TokenRequest, refreshID string) (*token, error) {
	now := time.Now()
	if len(s.tokens)+len(s.refresh) >= maxTokens {
		s.sweepLocked(now)
		if len(s.tokens)+len(s.refresh) >= maxTokens {
			return nil, oidc.ErrServerError().WithDescription("too many tokens")
		}
	}
	t := &token{
		id: newID(), clientID: clientOf(req), subject: req.GetSubject(), refreshID: refreshID,
		audience: slices.Clone(req.GetAudience()), scopes: slices.Clone(req.GetScopes()),
		issued: now, expiry: now.Add(s.cfg.TokenLifetime),
	}
	s.tokens[t.id] = t
	return t, nil
}

func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.newTokenLocked(req, "")
	if err != nil {
		return "", time.Time{}, err
	}
	return t.id, t.expiry, nil
}

// CreateAccessAndRefreshTokens issues an access token and a refresh
// token; a refresh token used is replaced (rotation), and the access
// token it had issued revoked.
func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := &refreshToken{id: newID(), clientID: clientOf(req), subject: req.GetSubject(),
		audience: slices.Clone(req.GetAudience()), scopes: slices.Clone(req.GetScopes()), expiry: time.Now().Add(refreshTTL)}
	switch r := req.(type) {
	case *authRequest:
		rt.authTime, rt.amr = r.authTime, r.GetAMR()
	case *refreshRequest:
		rt.authTime, rt.amr = r.authTime, r.amr
	}
	if current != "" {
		old, ok := s.refresh[current]
		if !ok {
			return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("the refresh token is not valid")
		}
		delete(s.refresh, current)
		delete(s.tokens, old.accessID)
	}
	t, err := s.newTokenLocked(req, rt.id)
	if err != nil {
		return "", "", time.Time{}, err
	}
	rt.accessID = t.id
	s.refresh[rt.id] = rt
	return t.id, rt.id, t.expiry, nil
}

// TokenRequestByRefreshToken returns the grant of a refresh token, with
// the audience narrowed to the resources the request names, if any.
func (s *storage) TokenRequestByRefreshToken(ctx context.Context, value string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.refresh[value]
	if !ok || !time.Now().Before(rt.expiry) {
		return nil, oidc.ErrInvalidGrant().WithDescription("the refresh token is not valid")
	}
	c := *rt
	c.scopes, c.audience = slices.Clone(rt.scopes), slices.Clone(rt.audience)
	if r := resourcesFrom(ctx); len(r) > 0 {
		c.audience = s.audience(ctx, rt.clientID, rt.scopes)
	}
	return &refreshRequest{&c}, nil
}

// grantedOf returns the audience granted to a code or a refresh token,
// for Server.resources to check a token request's resources against.
func (s *storage) grantedOf(grantType, value string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch oidc.GrantType(grantType) {
	case oidc.GrantTypeCode:
		if a, ok := s.authRequests[s.codes[value]]; ok {
			return a.audience, true
		}
	case oidc.GrantTypeRefreshToken:
		if rt, ok := s.refresh[value]; ok {
			return rt.audience, true
		}
	}
	return nil, false
}

func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.tokens {
		if t.subject == userID && t.clientID == clientID {
			delete(s.tokens, id)
		}
	}
	for id, rt := range s.refresh {
		if rt.subject == userID && rt.clientID == clientID {
			delete(s.refresh, id)
		}
	}
	return nil
}

// RevokeToken revokes an access token (by its id) or a refresh token (by
// its value, with the access token it issued), if the client holds it.
func (s *storage) RevokeToken(_ context.Context, tokenOrID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[tokenOrID]; ok {
		if t.clientID != clientID {
			return oidc.ErrInvalidClient().WithDescription("the token was not issued to this client")
		}
		delete(s.tokens, tokenOrID)
		return nil
	}
	if rt, ok := s.refresh[tokenOrID]; ok {
		if rt.clientID != clientID {
			return oidc.ErrInvalidClient().WithDescription("the token was not issued to this client")
		}
		delete(s.refresh, tokenOrID)
		delete(s.tokens, rt.accessID)
	}
	return nil // an unknown token is as good as revoked (RFC 7009 §2.2)
}

func (s *storage) GetRefreshTokenInfo(_ context.Context, _, value string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.refresh[value]
	if !ok {
		return "", "", op.ErrInvalidRefreshToken
	}
	return rt.subject, rt.id, nil
}

// Keys.

// signingKey is an RSA key of the JWKS, RS256.
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func newSigningKey() (*signingKey, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &signingKey{id: newID(), key: k}, nil
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.id }

// publicKey is a signing key's public half, as the JWKS lists it.
type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }

// rotate makes key the current signing key, keeping the others in the
// JWKS if keep, else dropping them.
func (s *storage) rotate(key *signingKey, keep bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if keep {
		s.keys = append(s.keys, key)
	} else {
		s.keys = []*signingKey{key}
	}
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1], nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet returns the JWKS, the current key first.
func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]op.Key, 0, len(s.keys))
	for i := len(s.keys) - 1; i >= 0; i-- {
		keys = append(keys, publicKey{s.keys[i]})
	}
	return keys, nil
}

// Clients.

func (s *storage) client(id string) (*client, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	return c, ok
}

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	c, ok := s.client(id)
	if !ok {
		return nil, errors.New("no such client")
	}
	return c, nil
}

// authenticate checks a confidential client's secret, in constant time.
func (s *storage) authenticate(id, secret string) (*client, error) {
	c, ok := s.client(id)
	if !ok || c.public || subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return nil, errors.New("unknown client or wrong secret")
	}
	return c, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	_, err := s.authenticate(id, secret)
	return err
}

func (s *storage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	c, err := s.authenticate(id, secret)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ClientCredentialsTokenRequest is the grant of a client_credentials
// request: scopes among Config.Scopes (another is invalid_scope), the
// audience the request's resources.
func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	for _, sc := range scopes {
		if !slices.Contains(s.cfg.Scopes, sc) {
			return nil, oidc.ErrInvalidScope().WithDescription("the scope %s is not one of this server's", sc)
		}
	}
	return &clientCredentialsRequest{clientID: id, scopes: slices.Clone(scopes), audience: s.audience(ctx, id, nil)}, nil
}

// Claims.

// GetPrivateClaimsFromRequest adds the scope claim (RFC 9068 §2.2.3, a
// space-separated string) to a JWT access token: zitadel's CreateJWT
// leaves AccessTokenClaims.Scopes empty, so its tokens carry no scope.
// All the grant's scopes are listed, openid and offline_access among
// them if granted (the restricted list zitadel passes drops profile,
// email, phone and address).
func (s *storage) GetPrivateClaimsFromRequest(_ context.Context, req op.TokenRequest, _ []string) (map[string]any, error) {
	if sc := req.GetScopes(); len(sc) > 0 {
		return map[string]any{"scope": strings.Join(sc, " ")}, nil
	}
	return nil, nil
}

// GetPrivateClaimsFromScopes is not called: GetPrivateClaimsFromRequest
// is.
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// setUserinfo fills in what the test user's userinfo says: its subject,
// and with profile its name.
func (s *storage) setUserinfo(info *oidc.UserInfo, subject string, scopes []string) {
	info.Subject = subject
	if slices.Contains(scopes, oidc.ScopeProfile) && subject == s.cfg.User {
		info.PreferredUsername = subject
		info.Name = subject
	}
}

func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	s.setUserinfo(info, req.GetSubject(), scopes)
	return nil
}

func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, _, _ string) error {
	t, ok := s.liveToken(tokenID)
	if !ok {
		return errors.New("the token is not active")
	}
	s.setUserinfo(info, t.subject, t.scopes)
	return nil
}

// liveToken returns the access token of id if it is not expired nor
// revoked.
func (s *storage) liveToken(id string) (*token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[id]
	if !ok || !time.Now().Before(t.expiry) {
		return nil, false
	}
	return t, true
}

// SetIntrospectionFromToken answers an introspection (RFC 7662) by
// caller, which must be a client allowed to introspect (Client.
// Introspect); zitadel has checked the JWT's signature, issuer and
// expiry. The token must also not be revoked. An error makes the
// answer {"active":false}.
func (s *storage) SetIntrospectionFromToken(ctx context.Context, resp *oidc.IntrospectionResponse, tokenID, _, caller string) error {
	if c, ok := s.client(caller); !ok || !c.introspect {
		return errors.New("the client may not introspect")
	}
	t, ok := s.liveToken(tokenID)
	if !ok {
		return errors.New("the token is not active")
	}
	resp.Scope = slices.Clone(t.scopes)
	resp.ClientID = t.clientID
	resp.TokenType = oidc.BearerToken
	resp.Expiration = oidc.FromTime(t.expiry)
	resp.IssuedAt = oidc.FromTime(t.issued)
	resp.NotBefore = oidc.FromTime(t.issued)
	resp.Subject = t.subject
	resp.Audience = slices.Clone(t.audience)
	resp.Issuer = op.IssuerFromContext(ctx)
	resp.JWTID = t.id
	if t.subject == s.cfg.User {
		resp.Username = t.subject
	}
	return nil
}

// GetKeyByIDAndClientID: no client authenticates with a key of its own
// (private_key_jwt, the JWT profile grant are not offered).
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("no client keys")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the JWT profile grant is not offered")
}

func (s *storage) Health(context.Context) error { return nil }

// Client is an op.Client.

// client is a registered client, as op.Client.
type client struct {
	id, secret   string
	public       bool
	redirectURIs []string
	grants       []oidc.GrantType
	introspect   bool
	scopes       []string
	lifetime     time.Duration
}

func newClient(c Client, cfg *Config) *client {
	nc := &client{id: c.ID, secret: c.Secret, public: c.Secret == "", redirectURIs: slices.Clone(c.RedirectURIs),
		introspect: c.Introspect, scopes: cfg.Scopes, lifetime: cfg.TokenLifetime}
	if len(c.RedirectURIs) > 0 {
		nc.grants = append(nc.grants, oidc.GrantTypeCode, oidc.GrantTypeRefreshToken)
	}
	if c.ClientCredentials && !nc.public {
		nc.grants = append(nc.grants, oidc.GrantTypeClientCredentials)
	}
	return nc
}

func (c *client) GetID() string                    { return c.id }
func (c *client) RedirectURIs() []string           { return c.redirectURIs }
func (c *client) PostLogoutRedirectURIs() []string { return nil }

// ApplicationType is native for every client: zitadel then takes a
// loopback http redirect URI on any port (RFC 8252 §7.3), https and
// private-use schemes; a web client must redirect to https.
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeNative }

func (c *client) AuthMethod() oidc.AuthMethod {
	if c.public {
		return oidc.AuthMethodNone
	}
	return oidc.AuthMethodBasic
}

func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType { return c.grants }

// LoginURL is the auto-approving login's: Server.login.
func (c *client) LoginURL(id string) string           { return loginPath + "?id=" + id }
func (c *client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c *client) IDTokenLifetime() time.Duration      { return c.lifetime }
func (c *client) DevMode() bool                       { return false }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) IsScopeAllowed(scope string) bool     { return slices.Contains(c.scopes, scope) }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }
