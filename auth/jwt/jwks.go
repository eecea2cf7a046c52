package jwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/oauth"
)

// jwtKey is a public key of the key set, and what it is for.
type jwtKey struct {
	kid string
	alg jose.SignatureAlgorithm // the JWK's own alg, or ""
	key any                     // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// fits reports whether k may verify a signature of alg: its type is
// alg's (its curve too), and its own alg, if any, is alg.
func (k *jwtKey) fits(alg jose.SignatureAlgorithm) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch key := k.key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(string(alg), "RS") || strings.HasPrefix(string(alg), "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case jose.ES256:
			return key.Curve == elliptic.P256()
		case jose.ES384:
			return key.Curve == elliptic.P384()
		case jose.ES512:
			return key.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	}
	return false
}

// match returns the keys of set that may verify a token of kid and alg:
// those of that kid that fit alg; for a token without kid, the one key
// that fits alg, if only one does.
func match(set []jwtKey, kid string, alg jose.SignatureAlgorithm) []jwtKey {
	var found []jwtKey
	for _, k := range set {
		if (kid == "" || k.kid == kid) && k.fits(alg) {
			found = append(found, k)
		}
	}
	if kid == "" && len(found) > 1 {
		return nil
	}
	return found
}

// jwksUnavailable returns an error that is auth.ErrUnavailable, with why.
func jwksUnavailable(format string, args ...any) error {
	return fmt.Errorf("%w: jwks: %w", auth.ErrUnavailable, fmt.Errorf(format, args...))
}

// keysFor returns the keys that may verify a token of kid and alg,
// fetching the key set if it has none, or none such (and the last fetch
// started MinRefreshInterval ago or more), waiting for the fetch within
// ctx. With a set fetched RefreshInterval ago, it starts a fetch and
// returns at once.
func (v *Verifier) keysFor(ctx context.Context, kid string, alg jose.SignatureAlgorithm) ([]jwtKey, error) {
	v.mu.Lock()
	now := v.now()
	if found := match(v.keys, kid, alg); found != nil {
		if now.Sub(v.fetched) >= v.refresh {
			v.startLocked(now, false)
		}
		v.mu.Unlock()
		return found, nil
	}
	f := v.startLocked(now, false)
	if f == nil { // not yet: MinRefreshInterval
		keys, err := v.keys, v.lastErr
		v.mu.Unlock()
		return nil, v.missing(keys, err, kid)
	}
	v.waiting++
	v.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		v.mu.Lock()
		v.waiting--
		v.mu.Unlock()
		return nil, jwksUnavailable("waiting for the key set: %w", context.Cause(ctx))
	}
	v.mu.Lock()
	v.waiting--
	keys := v.keys
	v.mu.Unlock()
	if found := match(keys, kid, alg); found != nil {
		return found, nil
	}
	return nil, v.missing(keys, f.err, kid)
}

// missing is the error for a token whose key is not in the key set keys,
// the last fetch of which ended in err: unavailable if there is no set or
// the last fetch failed (the key may be one the set has gained since),
// else an invalid token.
func (v *Verifier) missing(keys []jwtKey, err error, kid string) error {
	switch {
	case keys == nil && err == nil:
		return jwksUnavailable("no key set fetched yet")
	case keys == nil || err != nil:
		return err
	case kid == "":
		return jwtInvalid("the token has no kid, and not exactly one key of the key set fits its alg")
	default:
		return jwtInvalid("no key of the key set has the token's kid %s (and fits its alg)", shown(kid))
	}
}

// startLocked returns the fetch under way, else starts one, unless
// force is false and the last started within MinRefreshInterval of now:
// then it returns nil. v.mu is held.
func (v *Verifier) startLocked(now time.Time, force bool) *keysFetch {
	if v.inflight != nil {
		return v.inflight
	}
	if !force && !v.started.IsZero() && now.Sub(v.started) < v.minInterval {
		return nil
	}
	f := &keysFetch{done: make(chan struct{})}
	v.inflight, v.started = f, now
	go v.fetch(f, v.jwksURL)
	return f
}

// Refresh fetches the key set now (the metadata first, if the key set's
// URL is not known yet), or waits for the fetch under way, whatever
// MinRefreshInterval says, and returns its error (auth.ErrUnavailable), or
// ctx's. A server that would rather not start while its authorization
// server is unreachable calls it before serving; Verify needs no call of
// it.
func (v *Verifier) Refresh(ctx context.Context) error {
	v.mu.Lock()
	f := v.startLocked(v.now(), true)
	v.mu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return jwksUnavailable("waiting for the key set: %w", context.Cause(ctx))
	}
}

// fetch fetches the key set from jwksURL (found by discovery if it is
// ""), within Timeout, and ends f with the outcome: the new set replaces
// the old one only if it was fetched and has a key to use.
func (v *Verifier) fetch(f *keysFetch, jwksURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), v.timeout)
	defer cancel()
	var keys []jwtKey
	var err error
	if jwksURL == "" {
		jwksURL, err = v.discover(ctx)
	}
	if err == nil {
		keys, err = v.fetchKeys(ctx, jwksURL)
	}
	v.mu.Lock()
	if jwksURL != "" {
		v.jwksURL = jwksURL
	}
	if err == nil {
		v.keys, v.fetched = keys, v.now()
	}
	v.lastErr, f.err = err, err
	v.inflight = nil
	v.mu.Unlock()
	close(f.done)
}

// metadataURLs are the URLs the metadata of issuer is looked for at, in
// order (MCP 2025-11-25, Authorization Server Metadata Discovery): RFC
// 8414's well-known string inserted before the path, then OpenID
// Connect's inserted, then appended; for an issuer without a path, the
// first two alone. A terminating "/" of the path is dropped (RFC 8414
// §3.1, OpenID Connect Discovery §4.1).
func metadataURLs(issuer string) []string {
	scheme, rest, _ := strings.Cut(issuer, "://")
	host, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], strings.TrimSuffix(rest[i:], "/")
	}
	origin := scheme + "://" + host
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}
}

// discover reads the authorization server's metadata at the first of
// its URLs that serves it, and returns its jwks_uri. A document whose
// issuer is not Issuer exactly (RFC 8414 §3.3: a mix-up) is not used.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	var why []string
	for _, u := range metadataURLs(v.issuer) {
		body, err := v.get(ctx, u)
		if err == nil {
			var jwksURL string
			if jwksURL, err = readMetadata(body, v.issuer); err == nil {
				return jwksURL, nil
			}
		}
		why = append(why, u+": "+err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	return "", jwksUnavailable("no metadata of %q: %s", v.issuer, strings.Join(why, "; "))
}

// readMetadata reads an authorization server's metadata (RFC 8414 §2)
// and returns its jwks_uri, if its issuer is issuer.
func readMetadata(body []byte, issuer string) (string, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return "", errors.New("the metadata is not a JSON object")
	}
	if name, ok := oauth.Twice(body); ok {
		return "", fmt.Errorf("the metadata has two %s members", shown(name))
	}
	var iss, jwksURL string
	if oauth.Optional(members["issuer"], &iss) != nil || oauth.Optional(members["jwks_uri"], &jwksURL) != nil {
		return "", errors.New(`the metadata's "issuer" or "jwks_uri" is not a string`)
	}
	if iss != issuer {
		return "", fmt.Errorf("the metadata's issuer %.200q is not %q (RFC 8414 §3.3)", iss, issuer)
	}
	if jwksURL == "" {
		return "", errors.New(`the metadata has no "jwks_uri"`)
	}
	if _, err := oauth.CheckURL("the metadata's jwks_uri", jwksURL); err != nil {
		return "", err
	}
	return jwksURL, nil
}

// get fetches url, and returns its body: at most MaxResponseBytes, of a
// 200 answer.
func (v *Verifier) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(v.maxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > v.maxBytes {
		return nil, fmt.Errorf("the answer is longer than %d bytes", v.maxBytes)
	}
	return body, nil
}

// fetchKeys fetches the key set at url and returns the keys it can use.
func (v *Verifier) fetchKeys(ctx context.Context, url string) ([]jwtKey, error) {
	body, err := v.get(ctx, url)
	if err == nil {
		var keys []jwtKey
		if keys, err = readKeySet(body, v.algs, v.maxKeys); err == nil {
			return keys, nil
		}
	}
	return nil, jwksUnavailable("%s: %w", url, err)
}

// readKeySet reads a JSON Web Key Set (RFC 7517 §5) of at most max keys
// and returns those usable to verify signatures of algs: public keys of
// type RSA (2048 to 8192 bits), EC (P-256, P-384, P-521) or OKP
// (Ed25519), whose use, if any, is "sig", and whose alg, if any, is
// among algs. Others are left out: symmetric keys (oct) always, and keys
// it cannot read. A set without one key to use is an error.
func readKeySet(body []byte, algs []jose.SignatureAlgorithm, max int) ([]jwtKey, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return nil, errors.New("the key set is not a JSON object")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(members["keys"], &raws); err != nil || raws == nil {
		return nil, errors.New(`the key set's "keys" is not an array`)
	}
	if len(raws) > max {
		return nil, fmt.Errorf("the key set has %d keys, more than %d", len(raws), max)
	}
	var keys []jwtKey
	for _, raw := range raws {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
			continue
		}
		alg := jose.SignatureAlgorithm(k.Algorithm)
		if alg != "" && !slices.Contains(algs, alg) {
			continue
		}
		switch key := k.Key.(type) {
		case *rsa.PublicKey:
			if n := key.N.BitLen(); n < 2048 || n > 8192 {
				continue
			}
		case *ecdsa.PublicKey, ed25519.PublicKey:
		default: // []byte (oct), and any other
			continue
		}
		keys = append(keys, jwtKey{kid: k.KeyID, alg: alg, key: k.Key})
	}
	if len(keys) == 0 {
		return nil, errors.New("the key set has no key to verify signatures with")
	}
	return keys, nil
}
