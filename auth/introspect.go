package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/oauth"
	"github.com/toolrpc/toolrpc/internal/option"
)

// The defaults of IntrospectionOptions.
const (
	DefaultIntrospectionTimeout = 5 * time.Second
	DefaultIntrospectionBytes   = 64 << 10
	DefaultIntrospectionCache   = 1024
	DefaultIntrospectionTTL     = time.Minute
	DefaultIntrospections       = 16
	DefaultClockSkew            = time.Minute
)

// IntrospectionOptions configure an Introspector.
type IntrospectionOptions struct {
	// Endpoint is the authorization server's introspection endpoint (its
	// metadata's introspection_endpoint): https (http for a loopback host
	// only). Required.
	Endpoint string
	// ClientID and ClientSecret are this resource server's credentials at
	// the authorization server, sent with HTTP Basic authentication
	// (client_secret_basic, each form-encoded: RFC 6749 §2.3.1). RFC 7662
	// §2.1 requires the caller to authenticate; ClientID is required.
	ClientID, ClientSecret string
	// Client sends the requests (its Transport, Jar and Timeout), never
	// following a redirect, whatever its CheckRedirect: an endpoint that
	// redirects is unavailable, so that the token and the credentials go
	// to the Endpoint only. Default: http.DefaultTransport's.
	Client *http.Client
	// Timeout bounds one introspection, from waiting for a slot
	// (MaxConcurrent) to the response's last byte; the request's own
	// context bounds it too. Past it the token's verifier is unavailable
	// (503). Default DefaultIntrospectionTimeout (5 s).
	Timeout time.Duration
	// MaxResponseBytes bounds the response's body; a longer one is not
	// read further, and the verifier is unavailable. Default
	// DefaultIntrospectionBytes (64 KiB).
	MaxResponseBytes int
	// MaxConcurrent bounds the introspections under way at once: more
	// wait, within Timeout, for one to end, so that a flood of requests
	// makes no flood at the authorization server. Default
	// DefaultIntrospections (16).
	MaxConcurrent int
	// CacheSize bounds the active tokens whose identity is remembered
	// (by the token's SHA-256, never the token); when full, an entry is
	// dropped to make room, expired ones first. Default
	// DefaultIntrospectionCache (1024); negative: no cache. Inactive
	// tokens are not remembered.
	CacheSize int
	// CacheTTL is how long an identity is remembered, never past its
	// token's exp: a token revoked at the authorization server is
	// accepted up to that long after. Default DefaultIntrospectionTTL
	// (1 min).
	CacheTTL time.Duration
	// ClockSkew is how far a token's nbf may be ahead of this server's
	// clock. Its exp is taken as it is: a token stops being accepted at
	// its exp by this server's clock. Default DefaultClockSkew (1 min);
	// negative: none.
	ClockSkew time.Duration
}

// Introspector is a Verifier that asks the authorization server about
// each token (OAuth 2.0 Token Introspection, RFC 7662): a POST of the
// token to its endpoint, authenticated with this server's credentials.
// A response whose active member is false, or that says the token
// expired (exp) or is not valid yet (nbf), is an invalid token; an
// endpoint that is down, slow past Timeout, redirects, answers other than
// 200, or answers what is not an introspection response (not a JSON
// object, active missing or not a boolean, a member of the wrong type,
// a member twice, longer than MaxResponseBytes) leaves the verifier
// unavailable (ErrUnavailable: 503), never a hang. The scope member is
// split at spaces (SP) alone. No error holds the token or the
// credentials, even one the endpoint wrote back. Active tokens are
// cached; introspections of one token at once are not merged, each takes
// a slot. It is safe for concurrent use.
type Introspector struct {
	endpoint   string
	id, secret string
	client     *http.Client
	timeout    time.Duration
	maxBytes   int
	slots      chan struct{}
	skew       time.Duration
	ttl        time.Duration
	cache      *idCache
}

// NewIntrospector checks opts and returns the introspector they
// describe.
func NewIntrospector(opts *IntrospectionOptions) (*Introspector, error) {
	if opts == nil {
		opts = &IntrospectionOptions{}
	}
	if _, err := checkURL("Endpoint", opts.Endpoint); err != nil {
		return nil, err
	}
	if opts.ClientID == "" {
		return nil, errors.New("auth: no ClientID: the introspection endpoint needs this server's credentials")
	}
	v := &Introspector{
		endpoint: opts.Endpoint, id: opts.ClientID, secret: opts.ClientSecret,
		timeout:  option.PositiveOr(opts.Timeout, DefaultIntrospectionTimeout),
		maxBytes: option.PositiveOr(opts.MaxResponseBytes, DefaultIntrospectionBytes),
		slots:    make(chan struct{}, option.PositiveOr(opts.MaxConcurrent, DefaultIntrospections)),
		skew:     opts.ClockSkew,
		ttl:      option.PositiveOr(opts.CacheTTL, DefaultIntrospectionTTL),
	}
	if opts.ClockSkew == 0 {
		v.skew = DefaultClockSkew
	} else if opts.ClockSkew < 0 {
		v.skew = 0
	}
	// A copy of the client, that follows no redirect.
	var c http.Client
	if opts.Client != nil {
		c = *opts.Client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	v.client = &c
	if opts.CacheSize >= 0 {
		v.cache = &idCache{max: option.PositiveOr(opts.CacheSize, DefaultIntrospectionCache), m: map[[sha256.Size]byte]cached{}}
	}
	return v, nil
}

// Verify introspects token, or finds it in the cache.
func (v *Introspector) Verify(ctx context.Context, token string) (*Identity, error) {
	key := sha256.Sum256([]byte(token))
	if id := v.cache.get(key, time.Now()); id != nil {
		return id, nil
	}
	id, err := v.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	v.remember(key, id)
	return id.clone(), nil
}

// remember caches id for CacheTTL, never past its Expiry.
func (v *Introspector) remember(key [sha256.Size]byte, id *Identity) {
	until := time.Now().Add(v.ttl)
	if !id.Expiry.IsZero() && id.Expiry.Before(until) {
		until = id.Expiry
	}
	v.cache.put(key, cached{id: id, until: until})
}

// unavailable returns an error that is ErrUnavailable, with why.
func unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: introspection: %w", ErrUnavailable, fmt.Errorf(format, args...))
}

// invalid returns an error that is ErrInvalidToken, with why.
func invalid(why string) error {
	return fmt.Errorf("%w: introspection: %s", ErrInvalidToken, why)
}

// introspect asks the endpoint about token. No error it returns holds
// the token: the request's is the endpoint's URL and net/http's reason,
// the response's are this file's fixed texts.
func (v *Introspector) introspect(ctx context.Context, token string) (*Identity, error) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	select {
	case v.slots <- struct{}{}:
		defer func() { <-v.slots }()
	case <-ctx.Done():
		return nil, unavailable("waiting for one of %d introspections under way to end: %w", cap(v.slots), context.Cause(ctx))
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.endpoint, strings.NewReader(form))
	if err != nil {
		return nil, unavailable("%w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.id), url.QueryEscape(v.secret))
	resp, err := v.client.Do(req)
	if err != nil {
		// net/http quotes in its errors the lines of a response it cannot
		// read, and a broken endpoint may write back what it was sent.
		return nil, unavailable("%w", redact(err, token, req.Header.Get("Authorization")))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable("the endpoint answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(v.maxBytes)+1))
	if err != nil {
		return nil, unavailable("reading the response: %w", redact(err, token, req.Header.Get("Authorization")))
	}
	if len(body) > v.maxBytes {
		return nil, unavailable("the response is longer than %d bytes", v.maxBytes)
	}
	return readIntrospection(body, time.Now(), v.skew)
}

// redact returns err with its text rid of token and of the request's
// Authorization value (credentials: its own, and once decoded), which it
// still unwraps to.
func redact(err error, token, authorization string) error {
	text := err.Error()
	if token != "" {
		text = strings.ReplaceAll(text, token, "[token]")
	}
	if cred, ok := strings.CutPrefix(authorization, "Basic "); ok && cred != "" {
		text = strings.ReplaceAll(text, cred, "[credentials]")
		if raw, err := base64.StdEncoding.DecodeString(cred); err == nil && len(raw) > 0 {
			text = strings.ReplaceAll(text, string(raw), "[credentials]")
		}
	}
	if text == err.Error() {
		return err
	}
	return &redacted{text: text, err: err}
}

// redacted is an error whose text is not its cause's.
type redacted struct {
	text string
	err  error
}

func (e *redacted) Error() string { return e.text }
func (e *redacted) Unwrap() error { return e.err }

// The members of an introspection response that Identity has fields for
// (RFC 7662 §2.2); the others go to Identity.Claims.
var introspectionFields = map[string]bool{
	"active": true, "scope": true, "client_id": true, "sub": true, "iss": true, "exp": true, "aud": true,
}

// readIntrospection reads an introspection response (RFC 7662 §2.2) at
// now: the identity of an active token, ErrInvalidToken for an inactive
// one (or one the response says expired or not valid yet, by skew), or
// ErrUnavailable for a body that is not an introspection response.
func readIntrospection(body []byte, now time.Time, skew time.Duration) (*Identity, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return nil, unavailable("the response is not a JSON object")
	}
	if name, ok := oauth.Twice(body); ok {
		// encoding/json keeps the last; another reader, the first: which
		// "active" is meant is not for this server to guess.
		return nil, unavailable("the response has two %q members", name)
	}
	var active bool
	switch string(bytes.TrimSpace(members["active"])) {
	case "true":
		active = true
	case "false":
	default:
		return nil, unavailable(`the response's "active" is not a boolean`)
	}
	if !active {
		return nil, invalid("the token is not active")
	}
	id := &Identity{}
	var scope string
	for _, f := range []struct {
		name string
		to   *string
	}{{"scope", &scope}, {"client_id", &id.ClientID}, {"sub", &id.Subject}, {"iss", &id.Issuer}} {
		if err := oauth.Optional(members[f.name], f.to); err != nil {
			return nil, unavailable("the response's %q is not a string", f.name)
		}
	}
	// Split on SP alone (RFC 6749 §3.3): strings.Fields would split at
	// a tab or a Unicode space too, making "x\u00a0mcp" the scope mcp.
	if scopes := strings.FieldsFunc(scope, func(r rune) bool { return r == ' ' }); len(scopes) > 0 {
		id.Scopes = scopes
	}
	if raw, ok := members["aud"]; ok && string(raw) != "null" {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			id.Audience = []string{one}
		} else if err := json.Unmarshal(raw, &id.Audience); err != nil {
			return nil, unavailable(`the response's "aud" is neither a string nor an array of strings`)
		}
	}
	exp, err := oauth.NumericDate(members["exp"])
	if err != nil {
		return nil, unavailable(`the response's "exp" is not a time`)
	}
	nbf, err := oauth.NumericDate(members["nbf"])
	if err != nil {
		return nil, unavailable(`the response's "nbf" is not a time`)
	}
	if !exp.IsZero() && !now.Before(exp) {
		return nil, invalid("the token expired")
	}
	if !nbf.IsZero() && now.Add(skew).Before(nbf) {
		return nil, invalid("the token is not valid yet")
	}
	id.Expiry = exp
	id.Claims = oauth.OtherClaims(members, introspectionFields)
	return id, nil
}

// idCache remembers the identities of active tokens by their SHA-256,
// each until its time; it holds at most max.
type idCache struct {
	mu  sync.Mutex
	max int
	m   map[[sha256.Size]byte]cached
}

// cached is an identity and the time it is forgotten.
type cached struct {
	id    *Identity
	until time.Time
}

// get returns a copy of the identity remembered for key at now, or nil.
// A nil cache remembers nothing.
func (c *idCache) get(key [sha256.Size]byte, now time.Time) *Identity {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil
	}
	if !now.Before(e.until) {
		delete(c.m, key)
		return nil
	}
	return e.id.clone()
}

// put remembers e for key. When the cache is full it drops an entry
// first: of the first few the map's (random) order gives, an expired one
// if there is one, else the first.
func (c *idCache) put(key [sha256.Size]byte, e cached) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok && len(c.m) >= c.max {
		now := time.Now()
		var victim [sha256.Size]byte
		n := 0
		for k, old := range c.m {
			if n == 0 || !now.Before(old.until) {
				victim = k
			}
			if n++; n == 8 || !now.Before(old.until) {
				break
			}
		}
		delete(c.m, victim)
	}
	c.m[key] = e
}

// len returns how many identities the cache holds.
func (c *idCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
