package jwt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/oauth"
	"github.com/toolrpc/toolrpc/internal/option"
)

// The defaults and bounds of Options.
const (
	DefaultJWKSTimeout     = 5 * time.Second
	DefaultJWKSBytes       = 256 << 10
	DefaultJWKSKeys        = 64
	DefaultJWKSRefresh     = 15 * time.Minute
	DefaultJWKSMinInterval = 10 * time.Second
	// MaxClockSkew is the largest Options.ClockSkew accepted.
	MaxClockSkew = 5 * time.Minute
)

// The signature algorithms a Verifier can accept, and does by
// default: every asymmetric one of RFC 7518 and EdDSA (RFC 8037).
var jwtAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// The token types (typ) a Verifier accepts by default, in the form
// they are compared in: RFC 9068's, JWT, and none.
var defaultJWTTypes = []string{"at+jwt", "jwt", ""}

// Options configure a Verifier.
type Options struct {
	// Issuer is the authorization server's issuer identifier (RFC 8414
	// §2), as it writes it: every token's iss must be exactly it, and its
	// metadata's issuer too. https (http for a loopback host only), no
	// query, no fragment. Required.
	Issuer string
	// JWKSURL is the URL of the authorization server's JSON Web Key Set
	// (its metadata's jwks_uri): https (http for a loopback host only).
	// Default: read from the authorization server's metadata at the first
	// fetch (discovery: RFC 8414's well-known URL, then OpenID Connect's,
	// as MCP's Authorization Server Metadata Discovery lists them).
	JWKSURL string
	// Algorithms are the signature algorithms (the JWS header's alg) a
	// token may be signed with, among RS256, RS384, RS512, PS256, PS384,
	// PS512, ES256, ES384, ES512 and EdDSA; a key is used only for the
	// algorithms of its type (and its own alg, if it names one). "none"
	// and HMAC (HS256, HS384, HS512) are refused: a resource server holds
	// no secret of its authorization server, and a token "signed" with
	// HMAC under the bytes of a public key is the classic confusion.
	// Default: all ten.
	Algorithms []string
	// Types are the token types (the JWS header's typ) accepted, compared
	// without regard to case and with any "application/" prefix dropped
	// (RFC 7515 §4.1.9); "" stands for a header without typ. RFC 9068
	// asks for "at+jwt"; many authorization servers (Keycloak, Entra ID,
	// Auth0, ZITADEL) write "JWT" or nothing. Default: "at+jwt", "JWT"
	// and "". Set []string{"at+jwt"} for RFC 9068's rule, which keeps the
	// authorization server's other JWTs (ID tokens) out by their type; by
	// default ResourceServer.Require's audience check keeps them out (an
	// ID token's aud is a client, not this resource).
	Types []string
	// ScopePrefix, if not empty, is put before each of a token's scopes
	// that does not start with it: for an authorization server that grants
	// a scope asked for by a long name but writes it short in the token,
	// as Microsoft Entra ID does (asked for as "api://CLIENT-ID/mcp.tools",
	// written "mcp.tools" in scp): with "api://CLIENT-ID/", the identity's
	// scopes are the names clients ask for, and auth.Options.Scopes and a
	// tool's scopes name them so.
	ScopePrefix string
	// ClockSkew is how far a token's nbf and iat may be ahead of this
	// server's clock. Its exp is taken as it is, as Introspector does: a
	// token stops being accepted at its exp by this server's clock (and
	// ResourceServer.Require refuses an identity past its Expiry by its
	// own). Default auth.DefaultClockSkew (1 min); negative: none; at most
	// MaxClockSkew.
	ClockSkew time.Duration
	// Client sends the requests for the metadata and the key set (its
	// Transport, Jar and Timeout), never following a redirect, whatever
	// its CheckRedirect: a URL that redirects is unavailable. Default:
	// http.DefaultTransport's.
	Client *http.Client
	// Timeout bounds one fetch: the metadata (each URL discovery tries)
	// and the key set, to the last byte. Default DefaultJWKSTimeout (5 s).
	Timeout time.Duration
	// MaxResponseBytes bounds the body of each response (the metadata, the
	// key set); a longer one is not read further, and the fetch fails.
	// Default DefaultJWKSBytes (256 KiB).
	MaxResponseBytes int
	// MaxKeys bounds the keys of the key set: a set of more fails the
	// fetch. Default DefaultJWKSKeys (64).
	MaxKeys int
	// RefreshInterval is how long a key set serves before it is fetched
	// anew, in the background, the old set serving until the new one
	// comes: a key the authorization server removed is refused after it
	// at the latest. Default DefaultJWKSRefresh (15 min).
	RefreshInterval time.Duration
	// MinRefreshInterval is the least time from the start of one fetch to
	// the start of the next, whatever asks for it (a token whose key is
	// not in the set, a refresh, a fetch that failed): a flood of tokens
	// naming unknown keys costs the authorization server one fetch an
	// interval. Default DefaultJWKSMinInterval (10 s).
	MinRefreshInterval time.Duration
}

// Verifier is a Verifier of JWT access tokens (RFC 9068's profile of
// RFC 7519), signed (JWS compact serialization) by a key of the
// authorization server's key set (JWKS, RFC 7517). It checks the
// signature (alg among Algorithms, the key found by kid, or the one key
// that fits a token without kid), the header's typ (Types; no crit, no
// cty), and the claims: iss is Issuer exactly, sub is there, exp is there
// and has not passed, nbf and iat are not ahead of this server's clock by
// more than ClockSkew, and the registered claims have their types. It
// fills the auth.Identity from iss, sub, client_id (else azp), scope (else
// scp, a string or an array), exp and aud (a string or an array), every
// other claim in Claims. The audience and the scopes are
// ResourceServer.Require's to check.
//
// The key set is fetched at the first token (never by NewVerifier: a
// server starts while its authorization server is down; Refresh fetches
// at once), then again after RefreshInterval, and when a token names a
// key the set lacks, at most once per MinRefreshInterval, one fetch
// serving every token that waits for it. A fetch that fails (the
// endpoint down, slow past Timeout, redirecting, longer than
// MaxResponseBytes, answering other than 200 or what is not a key set,
// or a set with no key this verifier can use) leaves the keys it had
// serving. A token whose key is not in a set just fetched is invalid;
// with no key set yet, or while the last fetch failed, Verify is
// unavailable (auth.ErrUnavailable: 503), never a hang. No error holds the
// token. It is safe for concurrent use.
type Verifier struct {
	issuer      string
	algs        []jose.SignatureAlgorithm
	types       []string // in the form compared
	skew        time.Duration
	scopePrefix string
	client      *http.Client
	timeout     time.Duration
	maxBytes    int
	maxKeys     int
	refresh     time.Duration
	minInterval time.Duration
	now         func() time.Time // time.Now; the tests' clock

	mu       sync.Mutex
	jwksURL  string     // JWKSURL, or the one discovered; "" until then
	keys     []jwtKey   // the key set; nil until a fetch succeeded
	fetched  time.Time  // when keys came
	started  time.Time  // when the last fetch started; zero: never
	lastErr  error      // the last fetch's error
	inflight *keysFetch // the fetch under way, or nil
	waiting  int        // Verify calls waiting for inflight (for tests)
}

// keysFetch is a fetch of the key set: done is closed when it is over,
// err set before.
type keysFetch struct {
	done chan struct{}
	err  error
}

// NewVerifier checks opts and returns the verifier they describe. It
// fetches nothing: the first token does (or Refresh).
func NewVerifier(opts *Options) (*Verifier, error) {
	if opts == nil {
		opts = &Options{}
	}
	u, err := oauth.CheckURL("Issuer", opts.Issuer)
	if err != nil {
		return nil, fmt.Errorf("jwt: %w", err)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("jwt: Issuer %q has a query (RFC 8414 §2: an issuer has none)", opts.Issuer)
	}
	if opts.JWKSURL != "" {
		if _, err := oauth.CheckURL("JWKSURL", opts.JWKSURL); err != nil {
			return nil, fmt.Errorf("jwt: %w", err)
		}
	}
	v := &Verifier{
		issuer:      opts.Issuer,
		jwksURL:     opts.JWKSURL,
		algs:        slices.Clone(jwtAlgorithms),
		types:       defaultJWTTypes,
		skew:        opts.ClockSkew,
		scopePrefix: opts.ScopePrefix,
		timeout:     option.PositiveOr(opts.Timeout, DefaultJWKSTimeout),
		maxBytes:    option.PositiveOr(opts.MaxResponseBytes, DefaultJWKSBytes),
		maxKeys:     option.PositiveOr(opts.MaxKeys, DefaultJWKSKeys),
		refresh:     option.PositiveOr(opts.RefreshInterval, DefaultJWKSRefresh),
		minInterval: option.PositiveOr(opts.MinRefreshInterval, DefaultJWKSMinInterval),
		now:         time.Now,
	}
	if opts.Algorithms != nil {
		if len(opts.Algorithms) == 0 {
			return nil, errors.New("jwt: Algorithms is empty: no token could be accepted")
		}
		v.algs = nil
		for _, a := range opts.Algorithms {
			alg := jose.SignatureAlgorithm(a)
			switch {
			case a == "none" || strings.HasPrefix(a, "HS"):
				return nil, fmt.Errorf("jwt: Algorithms holds %q: a resource server accepts no unsigned or HMAC token (it holds no secret of its authorization server)", a)
			case !slices.Contains(jwtAlgorithms, alg):
				return nil, fmt.Errorf("jwt: Algorithms holds %q, which is not one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA", a)
			}
			if !slices.Contains(v.algs, alg) {
				v.algs = append(v.algs, alg)
			}
		}
	}
	if opts.Types != nil {
		if len(opts.Types) == 0 {
			return nil, errors.New(`jwt: Types is empty: no token could be accepted (a header without typ is "")`)
		}
		v.types = nil
		for _, t := range opts.Types {
			v.types = append(v.types, tokenType(t))
		}
	}
	switch {
	case opts.ClockSkew > MaxClockSkew:
		return nil, fmt.Errorf("jwt: ClockSkew %v is more than %v", opts.ClockSkew, MaxClockSkew)
	case opts.ClockSkew == 0:
		v.skew = auth.DefaultClockSkew
	case opts.ClockSkew < 0:
		v.skew = 0
	}
	var c http.Client
	if opts.Client != nil {
		c = *opts.Client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	v.client = &c
	return v, nil
}

// tokenType is the form a typ is compared in (RFC 7515 §4.1.9): in lower
// case, without "application/".
func tokenType(t string) string {
	t = strings.ToLower(t)
	return strings.TrimPrefix(t, "application/")
}

// jwtInvalid returns an error that is auth.ErrInvalidToken, with why.
func jwtInvalid(format string, args ...any) error {
	return fmt.Errorf("%w: jwt: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

// shown is s quoted if it is short printable ASCII, for an error's text:
// a header's value is the sender's to choose.
func shown(s string) string {
	if len(s) > 32 || !oauth.IsScopeToken(s) {
		return "(not shown)"
	}
	return fmt.Sprintf("%q", s)
}

// Verify checks token and returns what its claims say. It fetches the
// key set first if it has none, or none with the token's key.
func (v *Verifier) Verify(ctx context.Context, token string) (*auth.Identity, error) {
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		if e := (*jose.ErrUnexpectedSignatureAlgorithm)(nil); errors.As(err, &e) {
			return nil, jwtInvalid("the token's alg %s is not one this verifier accepts", shown(string(e.Got)))
		}
		return nil, jwtInvalid("the token is not a signed JWT (JWS compact serialization, three parts)")
	}
	if err := v.checkHeader(token); err != nil {
		return nil, err
	}
	head := jws.Signatures[0].Header
	alg := jose.SignatureAlgorithm(head.Algorithm)
	keys, err := v.keysFor(ctx, head.KeyID, alg)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if payload, err := jws.Verify(k.key); err == nil {
			return v.readClaims(payload, v.now())
		}
	}
	return nil, jwtInvalid("the signature does not verify")
}

// checkHeader checks the protected header of token (a JWS compact
// serialization go-jose parsed): a JSON object with each member once, a
// typ among v.types, and neither crit (no extension is understood here)
// nor cty (a nested JWT is not an access token).
func (v *Verifier) checkHeader(token string) error {
	head, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return jwtInvalid("the header is not base64url")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return jwtInvalid("the header is not a JSON object")
	}
	if name, ok := oauth.Twice(raw); ok {
		return jwtInvalid("the header has two %s members", shown(name))
	}
	for _, name := range []string{"crit", "cty", "b64"} {
		if _, ok := members[name]; ok {
			return jwtInvalid("the header has %q, which this verifier does not accept", name)
		}
	}
	var typ string
	if err := oauth.Optional(members["typ"], &typ); err != nil {
		return jwtInvalid(`the header's "typ" is not a string`)
	}
	if !slices.Contains(v.types, tokenType(typ)) {
		return jwtInvalid("the token's typ %s is not one this verifier accepts", shown(typ))
	}
	return nil
}

// The claims auth.Identity has fields for; the others go to auth.Identity.Claims.
// azp and scp, read when client_id and scope are absent, stay there too.
var jwtFields = map[string]bool{
	"iss": true, "sub": true, "exp": true, "aud": true, "client_id": true, "scope": true,
}

// readClaims reads a verified payload at now: the identity, or
// auth.ErrInvalidToken for claims that are not an access token's, or not
// valid now.
func (v *Verifier) readClaims(payload []byte, now time.Time) (*auth.Identity, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(payload, &members); err != nil || members == nil {
		return nil, jwtInvalid("the claims are not a JSON object")
	}
	if name, ok := oauth.Twice(payload); ok {
		return nil, jwtInvalid("the claims have two %s members", shown(name))
	}
	id := &auth.Identity{}
	var scope, azp string
	for _, f := range []struct {
		name string
		to   *string
	}{{"iss", &id.Issuer}, {"sub", &id.Subject}, {"client_id", &id.ClientID}, {"azp", &azp}, {"scope", &scope}} {
		if err := oauth.Optional(members[f.name], f.to); err != nil {
			return nil, jwtInvalid("the claim %q is not a string", f.name)
		}
	}
	if id.Issuer != v.issuer {
		return nil, jwtInvalid("the token's iss is not the issuer %q", v.issuer)
	}
	if id.Subject == "" {
		return nil, jwtInvalid(`the token has no "sub"`)
	}
	if id.ClientID == "" {
		id.ClientID = azp
	}
	dates := map[string]time.Time{}
	for _, name := range []string{"exp", "nbf", "iat"} {
		t, err := oauth.NumericDate(members[name])
		if err != nil {
			return nil, jwtInvalid("the claim %q is not a time", name)
		}
		dates[name] = t
	}
	switch exp := dates["exp"]; {
	case exp.IsZero():
		return nil, jwtInvalid(`the token has no "exp"`)
	case !now.Before(exp):
		return nil, jwtInvalid("the token expired")
	case !dates["nbf"].IsZero() && now.Add(v.skew).Before(dates["nbf"]):
		return nil, jwtInvalid("the token is not valid yet (nbf)")
	case !dates["iat"].IsZero() && now.Add(v.skew).Before(dates["iat"]):
		return nil, jwtInvalid("the token was issued in the future (iat)")
	}
	id.Expiry = dates["exp"]
	var err error
	if id.Audience, err = strings1(members["aud"]); err != nil {
		return nil, jwtInvalid(`the claim "aud" is neither a string nor an array of strings`)
	}
	if raw, ok := members["scope"]; ok && string(raw) != "null" {
		id.Scopes = splitScope(scope)
	} else if scp, err := strings1(members["scp"]); err != nil {
		return nil, jwtInvalid(`the claim "scp" is neither a string nor an array of strings`)
	} else {
		for _, s := range scp {
			id.Scopes = append(id.Scopes, splitScope(s)...)
		}
	}
	if v.scopePrefix != "" {
		for i, s := range id.Scopes {
			if !strings.HasPrefix(s, v.scopePrefix) {
				id.Scopes[i] = v.scopePrefix + s
			}
		}
	}
	id.Claims = oauth.OtherClaims(members, jwtFields)
	return id, nil
}

// splitScope splits a scope claim at SP alone (RFC 6749 §3.3), as
// readIntrospection does; nil for none.
func splitScope(scope string) []string {
	if scopes := strings.FieldsFunc(scope, func(r rune) bool { return r == ' ' }); len(scopes) > 0 {
		return scopes
	}
	return nil
}

// strings1 reads a claim that is a string or an array of strings (aud,
// scp) as a list: nil if raw is absent or null.
func strings1(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	return list, nil
}
