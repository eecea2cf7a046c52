package auth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aliceOf is the identity of as.Claims() changed by change, as a
// JWTVerifier reads it.
func aliceOf(as *FakeAS, claims map[string]any) *Identity {
	id := &Identity{Subject: "alice", Issuer: as.URL, ClientID: "cli", Scopes: []string{"mcp", "read"},
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
		want  *Identity // nil: refused with err
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
			nil), func() *Identity {
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
			assert.ErrorIs(t, err, ErrInvalidToken)
			assert.NotErrorIs(t, err, ErrUnavailable)
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
