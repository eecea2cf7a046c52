package jwt

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolrpc/toolrpc/auth"
)

// aliceOf is the identity of as.Claims() changed by change, as a
// Verifier reads it.
func aliceOf(as *FakeAS, claims map[string]any) *auth.Identity {
	id := &auth.Identity{Subject: "alice", Issuer: as.URL, ClientID: "cli", Scopes: []string{"mcp", "read"},
		Expiry: time.Unix(claims["exp"].(int64), 0), Audience: []string{"https://mcp.example.com/mcp"},
		Claims: map[string]json.RawMessage{"iat": json.RawMessage(fmt.Sprint(claims["iat"])), "jti": json.RawMessage(`"j-1"`)}}
	return id
}

// changed returns as's claims, changed by f.
func changed(as *FakeAS, f func(map[string]any)) map[string]any {
	c := as.Claims()
	f(c)
	return c
}

// The verifier accepts the tokens of its authorization server's keys,
// for every algorithm, and reads them into exactly the identity they
// say; it refuses every token that is not one, saying why, never
// writing the token in its error.
func TestJWTVerifier(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, RSAKey("rsa-1", jose.RS256), RSAKey("pss-1", jose.PS256), ec, EdKey("ed-1"))
	v := NewFakeVerifier(t, as, nil)
	now := time.Now()
	good := as.Claims()
	rsa := RSAKey("rsa-1", jose.RS256)

	for _, tc := range []struct {
		name  string
		token string
		want  *auth.Identity // nil: refused with err
		err   string
	}{
		{"RS256", Sign(t, rsa, good, nil), aliceOf(as, good), ""},
		{"PS256", Sign(t, RSAKey("pss-1", jose.PS256), good, nil), aliceOf(as, good), ""},
		{"ES256", Sign(t, ec, good, nil), aliceOf(as, good), ""},
		{"EdDSA", Sign(t, EdKey("ed-1"), good, nil), aliceOf(as, good), ""},
		{"typ at+jwt", Sign(t, ec, good, map[jose.HeaderKey]any{"typ": "at+jwt"}), aliceOf(as, good), ""},
		{"typ application/at+jwt", Sign(t, ec, good, map[jose.HeaderKey]any{"typ": "application/AT+JWT"}), aliceOf(as, good), ""},
		{"typ JWT", Sign(t, ec, good, map[jose.HeaderKey]any{"typ": "JWT"}), aliceOf(as, good), ""},
		{"no kid, one key fits", Sign(t, EdKey("-"), good, nil), aliceOf(as, good), ""},
		{"nbf within the skew", Sign(t, ec, changed(as, func(c map[string]any) { c["nbf"] = now.Add(30 * time.Second).Unix() }),
			nil), func() *auth.Identity {
			c := changed(as, func(c map[string]any) {})
			id := aliceOf(as, c)
			id.Claims["nbf"] = json.RawMessage(fmt.Sprint(now.Add(30 * time.Second).Unix()))
			return id
		}(), ""},

		{"expired", Sign(t, ec, changed(as, func(c map[string]any) { c["exp"] = now.Add(-time.Second).Unix() }), nil), nil,
			"auth: invalid token: jwt: the token expired"},
		{"no exp", Sign(t, ec, changed(as, func(c map[string]any) { delete(c, "exp") }), nil), nil,
			`auth: invalid token: jwt: the token has no "exp"`},
		{"exp not a number", Sign(t, ec, changed(as, func(c map[string]any) { c["exp"] = "tomorrow" }), nil), nil,
			`auth: invalid token: jwt: the claim "exp" is not a time`},
		{"nbf in the future", Sign(t, ec, changed(as, func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() }), nil), nil,
			"auth: invalid token: jwt: the token is not valid yet (nbf)"},
		{"iat in the future", Sign(t, ec, changed(as, func(c map[string]any) { c["iat"] = now.Add(2 * time.Minute).Unix() }), nil), nil,
			"auth: invalid token: jwt: the token was issued in the future (iat)"},
		{"wrong iss", Sign(t, ec, changed(as, func(c map[string]any) { c["iss"] = "https://evil.example.com" }), nil), nil,
			`auth: invalid token: jwt: the token's iss is not the issuer "` + as.URL + `"`},
		{"iss with a slash more", Sign(t, ec, changed(as, func(c map[string]any) { c["iss"] = as.URL + "/" }), nil), nil,
			`auth: invalid token: jwt: the token's iss is not the issuer "` + as.URL + `"`},
		{"no iss", Sign(t, ec, changed(as, func(c map[string]any) { delete(c, "iss") }), nil), nil,
			`auth: invalid token: jwt: the token's iss is not the issuer "` + as.URL + `"`},
		{"no sub", Sign(t, ec, changed(as, func(c map[string]any) { delete(c, "sub") }), nil), nil,
			`auth: invalid token: jwt: the token has no "sub"`},
		{"sub a number", Sign(t, ec, changed(as, func(c map[string]any) { c["sub"] = 7 }), nil), nil,
			`auth: invalid token: jwt: the claim "sub" is not a string`},
		{"aud a number", Sign(t, ec, changed(as, func(c map[string]any) { c["aud"] = 7 }), nil), nil,
			`auth: invalid token: jwt: the claim "aud" is neither a string nor an array of strings`},
		{"claims twice", RawToken(`{"alg":"EdDSA","kid":"ed-1"}`, `{"iss":"`+as.URL+`","sub":"alice","sub":"root","exp":4102444800}`), nil,
			`auth: invalid token: jwt: the claims have two "sub" members`},
		{"claims not an object", RawToken(`{"alg":"EdDSA","kid":"ed-1"}`, `["sub"]`), nil,
			`auth: invalid token: jwt: the claims are not a JSON object`},
		{"header member twice", RawToken(`{"alg":"EdDSA","kid":"ed-1","kid":"rsa-1"}`, `{}`), nil,
			`auth: invalid token: jwt: the token is not a signed JWT (JWS compact serialization, three parts)`}, // go-jose's JSON refuses it first
		{"crit", RawToken(`{"alg":"EdDSA","kid":"ed-1","crit":["exp"],"exp":1}`, `{}`), nil,
			`auth: invalid token: jwt: the header has "crit", which this verifier does not accept`},
		{"b64 (RFC 7797)", RawToken(`{"alg":"EdDSA","kid":"ed-1","b64":true}`, `{}`), nil,
			`auth: invalid token: jwt: the header has "b64", which this verifier does not accept`},
		{"cty JWT (nested)", RawToken(`{"alg":"EdDSA","kid":"ed-1","cty":"JWT"}`, `{}`), nil,
			`auth: invalid token: jwt: the header has "cty", which this verifier does not accept`},
		{"typ of an ID token's logout", Sign(t, ec, good, map[jose.HeaderKey]any{"typ": "logout+jwt"}), nil,
			`auth: invalid token: jwt: the token's typ "logout+jwt" is not one this verifier accepts`},
		{"typ a number", RawToken(`{"alg":"EdDSA","kid":"ed-1","typ":1}`, `{}`), nil,
			`auth: invalid token: jwt: the header's "typ" is not a string`},
		{"unknown kid", Sign(t, NewECKey("ec-2"), good, nil), nil,
			`auth: invalid token: jwt: no key of the key set has the token's kid "ec-2" (and fits its alg)`},
		{"kid of a key of another type", Sign(t, &FakeKey{KID: "rsa-1", Alg: jose.ES256, priv: ec.priv}, good, nil), nil,
			`auth: invalid token: jwt: no key of the key set has the token's kid "rsa-1" (and fits its alg)`},
		{"RS256 by the key published for PS256", Sign(t, RSAKey("pss-1", jose.RS256), good, nil), nil,
			`auth: invalid token: jwt: no key of the key set has the token's kid "pss-1" (and fits its alg)`},
		{"no kid, RS256: one key is for RS256", Sign(t, RSAKey("-", jose.RS256), good, nil), aliceOf(as, good), ""},
		{"signed by another key of the kid", Sign(t, NewECKey("ec-1"), good, nil), nil,
			`auth: invalid token: jwt: the signature does not verify`},
		{"payload changed", func() string {
			token := Sign(t, ec, good, nil)
			parts := strings.Split(token, ".")
			forged, _ := json.Marshal(changed(as, func(c map[string]any) { c["sub"] = "root" }))
			return parts[0] + "." + b64(forged) + "." + parts[2]
		}(), nil, `auth: invalid token: jwt: the signature does not verify`},
		{"alg none", b64([]byte(`{"alg":"none","kid":"ed-1"}`)) + "." + b64(mustJSON(good)) + ".", nil,
			`auth: invalid token: jwt: the token's alg "none" is not one this verifier accepts`},
		{"HS256 with the RSA public key's bytes", hmacConfusion(t, good), nil,
			`auth: invalid token: jwt: the token's alg "HS256" is not one this verifier accepts`},
		{"garbage, three parts", "a.b.c", nil,
			`auth: invalid token: jwt: the token is not a signed JWT (JWS compact serialization, three parts)`},
		{"two parts", "eyJhbGciOiJFZERTQSJ9.e30", nil,
			`auth: invalid token: jwt: the token is not a signed JWT (JWS compact serialization, three parts)`},
		{"JWE, five parts", b64([]byte(`{"alg":"RSA-OAEP","enc":"A256GCM"}`)) + ".a.b.c.d", nil,
			`auth: invalid token: jwt: the token is not a signed JWT (JWS compact serialization, three parts)`},
		{"huge header", RawToken(`{"alg":"EdDSA","kid":"ed-1","x":"`+strings.Repeat("x", 64<<10)+`"}`, `{}`), nil,
			`auth: invalid token: jwt: the token's iss is not the issuer "` + as.URL + `"`},
		{"empty", "", nil,
			`auth: invalid token: jwt: the token is not a signed JWT (JWS compact serialization, three parts)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := v.Verify(context.Background(), tc.token)
			if tc.want != nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, id)
				return
			}
			require.Error(t, err)
			assert.Nil(t, id)
			assert.Equal(t, tc.err, err.Error())
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
			assert.NotErrorIs(t, err, auth.ErrUnavailable)
			if tc.token != "" {
				assert.NotContains(t, err.Error(), tc.token)
			}
		})
	}
	assert.Equal(t, int32(1), as.Discoveries.Load(), "the metadata is read once")
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// hmacConfusion is the classic attack: a token "signed" with HS256 under
// the bytes of the authorization server's public RSA key, which a
// verifier that lets the token choose the algorithm would check with
// those bytes as the HMAC secret.
func hmacConfusion(t *testing.T, claims map[string]any) string {
	der, err := x509.MarshalPKIXPublicKey(rsaKey().Public())
	require.NoError(t, err)
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", "rsa-1"))
	require.NoError(t, err)
	obj, err := signer.Sign(mustJSON(claims))
	require.NoError(t, err)
	token, err := obj.CompactSerialize()
	require.NoError(t, err)
	return token
}

// Types: by default at+jwt, JWT and none; Types narrows it.
func TestJWTTypes(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	lenient := NewFakeVerifier(t, as, nil)
	strict := NewFakeVerifier(t, as, func(o *Options) { o.Types = []string{"application/at+jwt"} })
	for _, tc := range []struct {
		typ             any // nil: none
		lenient, strict bool
	}{
		{nil, true, false}, {"at+jwt", true, true}, {"application/at+jwt", true, true}, {"AT+JWT", true, true},
		{"JWT", true, false}, {"jwt", true, false}, {"application/jwt", true, false},
		{"id+jwt", false, false}, {"", true, false}, {"secevent+jwt", false, false},
	} {
		headers := map[jose.HeaderKey]any{}
		if tc.typ != nil {
			headers["typ"] = tc.typ
		}
		token := Sign(t, ec, as.Claims(), headers)
		for _, v := range []struct {
			v    *Verifier
			want bool
		}{{lenient, tc.lenient}, {strict, tc.strict}} {
			_, err := v.v.Verify(context.Background(), token)
			if v.want {
				assert.NoError(t, err, "typ %v", tc.typ)
			} else {
				assert.ErrorIs(t, err, auth.ErrInvalidToken, "typ %v", tc.typ)
			}
		}
	}
}

// The scopes come from scope (a string), else scp (a string or an array,
// as Entra ID and Okta write it); client_id, else azp; aud a string or
// an array.
func TestJWTClaimForms(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	v := NewFakeVerifier(t, as, nil)
	for _, tc := range []struct {
		name    string
		change  func(map[string]any)
		scopes  []string
		client  string
		aud     []string
		claims  []string // the names in Claims
		invalid string
	}{
		{"scope", func(map[string]any) {}, []string{"mcp", "read"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti"}, ""},
		{"scope split at SP alone", func(c map[string]any) { c["scope"] = " a  b\tc\u00a0d " }, []string{"a", "b\tc\u00a0d"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti"}, ""},
		{"scope empty", func(c map[string]any) { c["scope"] = "" }, nil, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti"}, ""},
		{"scp an array", func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp", "files:write"} },
			[]string{"mcp", "files:write"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti", "scp"}, ""},
		{"scp a string", func(c map[string]any) { delete(c, "scope"); c["scp"] = "mcp read" },
			[]string{"mcp", "read"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti", "scp"}, ""},
		{"scope wins over scp", func(c map[string]any) { c["scp"] = []string{"admin"} },
			[]string{"mcp", "read"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"iat", "jti", "scp"}, ""},
		{"scp neither", func(c map[string]any) { delete(c, "scope"); c["scp"] = map[string]any{"a": 1} }, nil, "", nil, nil,
			`auth: invalid token: jwt: the claim "scp" is neither a string nor an array of strings`},
		{"scope an array", func(c map[string]any) { c["scope"] = []string{"mcp"} }, nil, "", nil, nil,
			`auth: invalid token: jwt: the claim "scope" is not a string`},
		{"azp", func(c map[string]any) { delete(c, "client_id"); c["azp"] = "web" },
			[]string{"mcp", "read"}, "web", []string{"https://mcp.example.com/mcp"}, []string{"azp", "iat", "jti"}, ""},
		{"client_id wins over azp", func(c map[string]any) { c["azp"] = "web" },
			[]string{"mcp", "read"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"azp", "iat", "jti"}, ""},
		{"aud an array", func(c map[string]any) { c["aud"] = []string{"api://x", "https://mcp.example.com/mcp"} },
			[]string{"mcp", "read"}, "cli", []string{"api://x", "https://mcp.example.com/mcp"}, []string{"iat", "jti"}, ""},
		{"no aud", func(c map[string]any) { delete(c, "aud") }, []string{"mcp", "read"}, "cli", nil, []string{"iat", "jti"}, ""},
		{"others kept", func(c map[string]any) { c["nbf"] = 1; c["roles"] = []string{"admin"}; c["acr"] = nil },
			[]string{"mcp", "read"}, "cli", []string{"https://mcp.example.com/mcp"}, []string{"acr", "iat", "jti", "nbf", "roles"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := v.Verify(context.Background(), Sign(t, ec, changed(as, tc.change), nil))
			if tc.invalid != "" {
				assert.ErrorIs(t, err, auth.ErrInvalidToken)
				assert.EqualError(t, err, tc.invalid)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.scopes, id.Scopes)
			assert.Equal(t, tc.client, id.ClientID)
			assert.Equal(t, tc.aud, id.Audience)
			assert.ElementsMatch(t, tc.claims, slices.Collect(maps.Keys(id.Claims)))
		})
	}
}

// ScopePrefix makes an Entra ID token's short scopes the long names
// clients ask for; a scope that has the prefix already keeps it.
func TestJWTScopePrefix(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	v := NewFakeVerifier(t, as, func(o *Options) { o.ScopePrefix = "api://c1/" })
	for _, tc := range []struct {
		change func(map[string]any)
		scopes []string
	}{
		{func(c map[string]any) { delete(c, "scope"); c["scp"] = "mcp.tools api://c1/files" }, []string{"api://c1/mcp.tools", "api://c1/files"}},
		{func(c map[string]any) { c["scope"] = "mcp" }, []string{"api://c1/mcp"}},
		{func(c map[string]any) { c["scope"] = "" }, nil},
	} {
		id, err := v.Verify(context.Background(), Sign(t, ec, changed(as, tc.change), nil))
		require.NoError(t, err)
		assert.Equal(t, tc.scopes, id.Scopes)
	}
}

// A token signed by a key the set lacks makes the verifier fetch the set
// again: a key the authorization server added is accepted, one it
// removed is refused.
func TestJWTKeyRotation(t *testing.T) {
	old, next := NewECKey("2025"), NewECKey("2026")
	as := NewFakeAS(t, old)
	v := NewFakeVerifier(t, as, func(o *Options) { o.MinRefreshInterval = time.Nanosecond })
	_, err := v.Verify(context.Background(), Sign(t, old, as.Claims(), nil))
	require.NoError(t, err)
	assert.Equal(t, int32(1), as.Fetches.Load())

	as.SetKeys(old, next)
	_, err = v.Verify(context.Background(), Sign(t, next, as.Claims(), nil))
	require.NoError(t, err, "a new key is fetched")
	assert.Equal(t, int32(2), as.Fetches.Load())
	_, err = v.Verify(context.Background(), Sign(t, old, as.Claims(), nil))
	require.NoError(t, err, "the old one still serves")
	_, err = v.Verify(context.Background(), Sign(t, &FakeKey{KID: "-", Alg: jose.ES256, priv: next.priv}, as.Claims(), nil))
	assert.EqualError(t, err, "auth: invalid token: jwt: the token has no kid, and not exactly one key of the key set fits its alg")
	assert.Equal(t, int32(3), as.Fetches.Load(), "two keys fit: fetched again, to no avail")

	as.SetKeys(next)
	_, err = v.Verify(context.Background(), Sign(t, NewECKey("2027"), as.Claims(), nil))
	assert.ErrorIs(t, err, auth.ErrInvalidToken, "a kid never published")
	assert.Equal(t, int32(4), as.Fetches.Load())
	_, err = v.Verify(context.Background(), Sign(t, old, as.Claims(), nil))
	assert.EqualError(t, err, `auth: invalid token: jwt: no key of the key set has the token's kid "2025" (and fits its alg)`, "the old key is gone")
	_, err = v.Verify(context.Background(), Sign(t, next, as.Claims(), nil))
	assert.NoError(t, err)
	_, err = v.Verify(context.Background(), Sign(t, &FakeKey{KID: "-", Alg: jose.ES256, priv: next.priv}, as.Claims(), nil))
	assert.NoError(t, err, "no kid, and one key fits")
	assert.Equal(t, int32(1), as.Discoveries.Load())
}

// An authorization server that hangs, floods, redirects, fails or
// answers nonsense leaves the verifier unavailable, never hanging,
// saying why; a document of another issuer is not used (mix-up); a key
// set of no usable key is not either.
func TestJWTVerifierHostileServers(t *testing.T) {
	meta := func(w http.ResponseWriter, r *http.Request, body string) bool {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			_, _ = w.Write([]byte(body))
			return true
		}
		return false
	}
	jwks := func(w http.ResponseWriter, r *http.Request, body string) bool {
		if r.URL.Path == "/jwks" {
			_, _ = w.Write([]byte(body))
			return true
		}
		return false
	}
	const wk, oidc = "AS/.well-known/oauth-authorization-server: ", "; AS/.well-known/openid-configuration: "
	both := func(why string) string {
		return `auth: verifier unavailable: jwks: no metadata of "AS": ` + wk + why + oidc + why
	}
	for _, tc := range []struct {
		name    string
		hostile func(as *FakeAS) func(w http.ResponseWriter, r *http.Request) bool
		err     string
	}{
		{"never answers", func(as *FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				select {
				case <-as.release:
				case <-r.Context().Done():
				}
				return true
			}
		}, `auth: verifier unavailable: jwks: no metadata of "AS": ` + wk + `Get "AS/.well-known/oauth-authorization-server": context deadline exceeded`},
		{"a huge metadata", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				_, _ = w.Write([]byte(`{"issuer":"` + strings.Repeat("x", 1<<20) + `"}`))
				return true
			}
		}, both("the answer is longer than 4096 bytes")},
		{"a huge key set", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				return jwks(w, r, `{"keys":[`+strings.Repeat(" ", 1<<20)+`]}`)
			}
		}, "auth: verifier unavailable: jwks: AS/jwks: the answer is longer than 4096 bytes"},
		{"garbage metadata", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool { return meta(w, r, "<html>") }
		}, both("the metadata is not a JSON object")},
		{"metadata with a member twice", func(as *FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				return meta(w, r, `{"issuer":"`+as.URL+`","jwks_uri":"`+as.URL+`/jwks","jwks_uri":"https://evil.example.com/jwks"}`)
			}
		}, both(`the metadata has two "jwks_uri" members`)},
		{"garbage key set", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool { return jwks(w, r, `{"keys":{}}`) }
		}, `auth: verifier unavailable: jwks: AS/jwks: the key set's "keys" is not an array`},
		{"no usable key", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool { return jwks(w, r, string(unusableKeys())) }
		}, `auth: verifier unavailable: jwks: AS/jwks: the key set has no key to verify signatures with`},
		{"too many keys", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				return jwks(w, r, `{"keys":[`+strings.Repeat(`{},`, 64)+`{}]}`)
			}
		}, `auth: verifier unavailable: jwks: AS/jwks: the key set has 65 keys, more than 64`},
		{"500", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool { w.WriteHeader(500); return true }
		}, both("answered 500")},
		{"a redirect loop", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				if r.URL.Path == "/jwks" {
					http.Redirect(w, r, "/jwks", http.StatusFound)
					return true
				}
				return false
			}
		}, `auth: verifier unavailable: jwks: AS/jwks: answered 302`},
		{"another issuer's metadata", func(*FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				return meta(w, r, `{"issuer":"https://evil.example.com","jwks_uri":"https://evil.example.com/jwks"}`)
			}
		}, both(`the metadata's issuer "https://evil.example.com" is not "AS" (RFC 8414 §3.3)`)},
		{"a jwks_uri not https", func(as *FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool {
				return meta(w, r, `{"issuer":"`+as.URL+`","jwks_uri":"http://keys.example.com/jwks"}`)
			}
		}, both(`the metadata's jwks_uri "http://keys.example.com/jwks" is not https (http is for a loopback host only)`)},
		{"no jwks_uri", func(as *FakeAS) func(w http.ResponseWriter, r *http.Request) bool {
			return func(w http.ResponseWriter, r *http.Request) bool { return meta(w, r, `{"issuer":"`+as.URL+`"}`) }
		}, both(`the metadata has no "jwks_uri"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ec := NewECKey("ec-1")
			as := NewFakeAS(t, ec)
			as.SetHostile(tc.hostile(as))
			v := NewFakeVerifier(t, as, func(o *Options) {
				o.Timeout = 200 * time.Millisecond
				o.MaxResponseBytes = 4096
			})
			token := Sign(t, ec, as.Claims(), nil)
			_, err := v.Verify(context.Background(), token)
			require.Error(t, err)
			assert.ErrorIs(t, err, auth.ErrUnavailable)
			assert.Equal(t, tc.err, strings.ReplaceAll(err.Error(), as.URL, "AS"))
			_, again := v.Verify(context.Background(), token)
			assert.Equal(t, err, again, "the next token within MinRefreshInterval fetches nothing")

			as.SetHostile(nil) // the server mends: Refresh fetches at once
			require.NoError(t, v.Refresh(context.Background()))
			_, err = v.Verify(context.Background(), token)
			assert.NoError(t, err)
		})
	}
}

// unusableKeys is a key set of keys the verifier must leave out: a
// symmetric key, a key for encryption, one for HS256, RSA of 1024 bits,
// a private key, an unknown type.
func unusableKeys() []byte {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		panic(err)
	}
	ec := NewECKey("x")
	keys := []jose.JSONWebKey{
		{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "oct"},
		{Key: ec.priv.Public(), KeyID: "enc", Use: "enc"},
		{Key: ec.priv.Public(), KeyID: "hs", Algorithm: "HS256"},
		{Key: small.Public(), KeyID: "small"},
		{Key: ec.priv, KeyID: "private"},
	}
	var raws []json.RawMessage
	for _, k := range keys {
		raws = append(raws, mustJSON(k))
	}
	raws = append(raws, json.RawMessage(`{"kty":"AKP","alg":"ML-DSA-44","pub":"AAAA"}`), json.RawMessage(`"a string"`))
	return mustJSON(map[string]any{"keys": raws})
}

// fakeClock is a clock the tests move.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// idle waits until v has no fetch under way.
func idle(t *testing.T, v *Verifier) {
	t.Helper()
	require.Eventually(t, func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.inflight == nil
	}, 10*time.Second, time.Millisecond)
}

// verifyAll verifies tokens at once, and returns their errors.
func verifyAll(v *Verifier, tokens []string) []error {
	errs := make([]error, len(tokens))
	var wg sync.WaitGroup
	for i, token := range tokens {
		wg.Go(func() { _, errs[i] = v.Verify(context.Background(), token) })
	}
	wg.Wait()
	return errs
}

// A flood of tokens naming keys the set lacks costs the authorization
// server one fetch per MinRefreshInterval; the keys keep serving while
// it is down, refreshed after RefreshInterval in the background; while
// the last fetch failed, an unknown key is unavailable, not invalid.
func TestJWTFetchesAreBounded(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	clock := &fakeClock{now: time.Now()}
	v := NewFakeVerifier(t, as, nil)
	v.now = clock.Now
	good := Sign(t, ec, as.Claims(), nil)
	_, err := v.Verify(context.Background(), good)
	require.NoError(t, err)
	require.Equal(t, int32(1), as.Fetches.Load())

	var flood []string
	for i := range 200 {
		flood = append(flood, Sign(t, NewECKey(fmt.Sprint("junk-", i)), as.Claims(), nil))
	}
	for _, err := range verifyAll(v, flood) {
		assert.ErrorIs(t, err, auth.ErrInvalidToken)
	}
	assert.Equal(t, int32(1), as.Fetches.Load(), "within MinRefreshInterval of the last fetch: none")
	clock.Add(DefaultJWKSMinInterval)
	for _, err := range verifyAll(v, flood) {
		assert.ErrorIs(t, err, auth.ErrInvalidToken)
	}
	idle(t, v)
	assert.Equal(t, int32(2), as.Fetches.Load(), "an interval later: one for the whole flood")

	// The server goes down; the keys serve on, past RefreshInterval.
	as.SetHostile(func(w http.ResponseWriter, r *http.Request) bool { w.WriteHeader(503); return true })
	clock.Add(DefaultJWKSRefresh)
	_, err = v.Verify(context.Background(), good)
	assert.NoError(t, err, "stale keys serve while they are fetched anew")
	idle(t, v)
	assert.Equal(t, int32(3), as.Fetches.Load())
	_, err = v.Verify(context.Background(), good)
	assert.NoError(t, err, "and after the fetch failed")
	_, err = v.Verify(context.Background(), flood[0])
	assert.EqualError(t, err, "auth: verifier unavailable: jwks: "+as.URL+"/jwks: answered 503", "the key may be new: cannot tell")
	assert.Equal(t, int32(3), as.Fetches.Load())

	// It mends, with a new key only: the next refresh drops the old one.
	next := NewECKey("ec-2")
	as.SetHostile(nil)
	as.SetKeys(next)
	clock.Add(DefaultJWKSMinInterval)
	_, err = v.Verify(context.Background(), good)
	assert.NoError(t, err, "served while the set is fetched")
	idle(t, v)
	_, err = v.Verify(context.Background(), good)
	assert.ErrorIs(t, err, auth.ErrInvalidToken, "the key removed")
	_, err = v.Verify(context.Background(), Sign(t, next, as.Claims(), nil))
	assert.NoError(t, err)
	assert.Equal(t, int32(4), as.Fetches.Load())
}

// Tokens that wait for the key set at once wait for one fetch; one
// whose context ends stops waiting, unavailable.
func TestJWTConcurrentMissesAreMerged(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	held := make(chan struct{})
	as.SetHostile(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/jwks" {
			<-held
		}
		return false
	})
	v := NewFakeVerifier(t, as, nil)
	tokens := make([]string, 50)
	for i := range tokens {
		tokens[i] = Sign(t, ec, as.Claims(), nil)
	}
	done := make(chan []error)
	go func() { done <- verifyAll(v, tokens) }()
	require.Eventually(t, func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.waiting == len(tokens)
	}, 10*time.Second, time.Millisecond)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := v.Verify(ctx, tokens[0])
	assert.EqualError(t, err, "auth: verifier unavailable: jwks: waiting for the key set: context canceled")
	assert.EqualError(t, v.Refresh(ctx), "auth: verifier unavailable: jwks: waiting for the key set: context canceled")

	close(held)
	for _, err := range <-done {
		assert.NoError(t, err)
	}
	assert.Equal(t, int32(1), as.Fetches.Load())
	assert.Equal(t, int32(1), as.Discoveries.Load())
	assert.Equal(t, 0, v.waiting)
}

// The metadata is looked for where MCP's discovery says, in its order.
func TestMetadataURLs(t *testing.T) {
	for issuer, want := range map[string][]string{
		"https://as.example.com":  {"https://as.example.com/.well-known/oauth-authorization-server", "https://as.example.com/.well-known/openid-configuration"},
		"https://as.example.com/": {"https://as.example.com/.well-known/oauth-authorization-server", "https://as.example.com/.well-known/openid-configuration"},
		"https://as.example.com:8443/tenant1": {"https://as.example.com:8443/.well-known/oauth-authorization-server/tenant1",
			"https://as.example.com:8443/.well-known/openid-configuration/tenant1", "https://as.example.com:8443/tenant1/.well-known/openid-configuration"},
		"https://as.example.com/realms/x/": {"https://as.example.com/.well-known/oauth-authorization-server/realms/x",
			"https://as.example.com/.well-known/openid-configuration/realms/x", "https://as.example.com/realms/x/.well-known/openid-configuration"},
	} {
		assert.Equal(t, want, metadataURLs(issuer), issuer)
	}
}

// An issuer under a path (Keycloak's realms) whose metadata is at
// OpenID Connect's appended URL alone is found there, the other two
// tried first.
func TestJWTDiscoveryUnderAPath(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec)
	var mu sync.Mutex
	var asked []string
	as.SetHostile(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/realms/x/.well-known/openid-configuration" {
			_, _ = w.Write([]byte(`{"issuer":"` + as.URL + `/realms/x","jwks_uri":"` + as.URL + `/jwks"}`))
			return true
		}
		return false
	})
	v := NewFakeVerifier(t, as, func(o *Options) { o.Issuer = as.URL + "/realms/x" })
	_, err := v.Verify(context.Background(), Sign(t, ec, changed(as, func(c map[string]any) { c["iss"] = as.URL + "/realms/x" }), nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"/.well-known/oauth-authorization-server/realms/x", "/.well-known/openid-configuration/realms/x",
		"/realms/x/.well-known/openid-configuration", "/jwks"}, asked)

	// With JWKSURL, no discovery.
	v = NewFakeVerifier(t, as, func(o *Options) { o.JWKSURL = as.URL + "/jwks" })
	_, err = v.Verify(context.Background(), Sign(t, ec, as.Claims(), nil))
	require.NoError(t, err)
	assert.Len(t, asked, 5)
}

// NewVerifier refuses options that would accept forged tokens, or
// none.
func TestNewJWTVerifierRefuses(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		err  string
	}{
		{Options{}, `jwt: Issuer "" is not an absolute URL with a host`},
		{Options{Issuer: "http://as.example.com"}, `jwt: Issuer "http://as.example.com" is not https (http is for a loopback host only)`},
		{Options{Issuer: "https://as.example.com?x=1"}, `jwt: Issuer "https://as.example.com?x=1" has a query (RFC 8414 §2: an issuer has none)`},
		{Options{Issuer: "https://as.example.com", JWKSURL: "http://keys.example.com"}, `jwt: JWKSURL "http://keys.example.com" is not https (http is for a loopback host only)`},
		{Options{Issuer: "https://as.example.com", Algorithms: []string{"RS256", "none"}}, `jwt: Algorithms holds "none": a resource server accepts no unsigned or HMAC token (it holds no secret of its authorization server)`},
		{Options{Issuer: "https://as.example.com", Algorithms: []string{"HS256"}}, `jwt: Algorithms holds "HS256": a resource server accepts no unsigned or HMAC token (it holds no secret of its authorization server)`},
		{Options{Issuer: "https://as.example.com", Algorithms: []string{"rs256"}}, `jwt: Algorithms holds "rs256", which is not one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA`},
		{Options{Issuer: "https://as.example.com", Algorithms: []string{}}, `jwt: Algorithms is empty: no token could be accepted`},
		{Options{Issuer: "https://as.example.com", Types: []string{}}, `jwt: Types is empty: no token could be accepted (a header without typ is "")`},
		{Options{Issuer: "https://as.example.com", ClockSkew: time.Hour}, `jwt: ClockSkew 1h0m0s is more than 5m0s`},
	} {
		_, err := NewVerifier(&tc.opts)
		assert.EqualError(t, err, tc.err)
	}
	_, err := NewVerifier(nil)
	assert.Error(t, err)
}

// Algorithms narrows what is accepted: an ES256 token to a verifier of
// RS256 alone is refused, though its key is in the set.
func TestJWTAlgorithms(t *testing.T) {
	ec := NewECKey("ec-1")
	as := NewFakeAS(t, ec, RSAKey("rsa-1", jose.RS256))
	v := NewFakeVerifier(t, as, func(o *Options) { o.Algorithms = []string{"RS256"} })
	_, err := v.Verify(context.Background(), Sign(t, ec, as.Claims(), nil))
	assert.EqualError(t, err, `auth: invalid token: jwt: the token's alg "ES256" is not one this verifier accepts`)
	_, err = v.Verify(context.Background(), Sign(t, RSAKey("rsa-1", jose.RS256), as.Claims(), nil))
	assert.NoError(t, err)
	_, err = v.Verify(context.Background(), Sign(t, RSAKey("rsa-1", jose.PS256), as.Claims(), nil))
	assert.EqualError(t, err, `auth: invalid token: jwt: the token's alg "PS256" is not one this verifier accepts`)
}

// BenchmarkJWTVerify: a token of 8 KiB (the default MaxTokenBytes),
// its key cached.
func BenchmarkJWTVerify(b *testing.B) {
	for _, k := range []*FakeKey{RSAKey("rsa-1", jose.RS256), NewECKey("ec-1"), EdKey("ed-1")} {
		b.Run(string(k.Alg), func(b *testing.B) {
			as := NewFakeAS(b, k)
			v := NewFakeVerifier(b, as, nil)
			claims := as.Claims()
			headers := map[jose.HeaderKey]any{"typ": "at+jwt"}
			claims["pad"] = ""
			short := Sign(b, k, claims, headers)
			claims["pad"] = strings.Repeat("x", (auth.DefaultMaxTokenBytes-len(short))*3/4-2)
			token := Sign(b, k, claims, headers)
			require.InDelta(b, auth.DefaultMaxTokenBytes, len(token), 8)
			require.LessOrEqual(b, len(token), auth.DefaultMaxTokenBytes)
			_, err := v.Verify(context.Background(), token)
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("garbage", func(b *testing.B) {
		as := NewFakeAS(b, EdKey("ed-1"))
		v := NewFakeVerifier(b, as, nil)
		token := RawToken(`{"alg":"EdDSA","kid":"ed-1"}`, `{"x":"`+strings.Repeat("x", 6000)+`"}`)
		token = token[:len(token)-4] + "AAAA"
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.Verify(context.Background(), token); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}
