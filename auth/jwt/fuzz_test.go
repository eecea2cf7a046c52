package jwt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/toolrpc/toolrpc/auth"
)

// FuzzJWT: verifying any string against a fixed key set never panics,
// never fetches, and fails only as an invalid token, whose error never
// holds the token; a token it accepts has an identity of the issuer, with
// a subject and an expiry.
func FuzzJWT(f *testing.F) {
	ec, ed := NewECKey("ec-1"), EdKey("ed-1")
	v, err := NewVerifier(&Options{Issuer: "https://as.example.com", JWKSURL: "https://as.invalid/jwks", MinRefreshInterval: 1000 * time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range []*FakeKey{ec, ed} {
		v.keys = append(v.keys, jwtKey{kid: k.KID, alg: k.Alg, key: k.priv.Public()})
	}
	v.fetched, v.started = time.Now(), time.Now()
	v.refresh = 1000 * time.Hour
	claims := map[string]any{"iss": "https://as.example.com", "sub": "alice", "exp": 4102444800, "scope": "a b", "aud": []string{"x"}, "scp": []string{"c"}}
	for _, k := range []*FakeKey{ec, ed} {
		f.Add(Sign(f, k, claims, nil))
		f.Add(Sign(f, k, claims, map[jose.HeaderKey]any{"typ": "at+jwt"}))
	}
	f.Add(RawToken(`{"alg":"EdDSA","kid":"ed-1"}`, `{"iss":"https://as.example.com","sub":"a","exp":4102444800,"nbf":1,"iat":1.5,"client_id":"c","azp":"d"}`))
	f.Add(RawToken(`{"alg":"EdDSA"}`, `{"iss":"https://as.example.com","sub":"a","exp":4102444800,"scope":null,"scp":"x y"}`))
	for _, s := range []string{"", ".", "..", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "eyJhbGciOiJFZERTQSJ9.e30.AAAA", "a.b.c.d.e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		id, err := v.Verify(context.Background(), token)
		if err != nil {
			if !errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrUnavailable) {
				t.Fatalf("%q: %v", token, err)
			}
			if len(token) > 8 && strings.Contains(err.Error(), token) {
				t.Fatalf("the error holds the token: %v", err)
			}
			return
		}
		if id.Issuer != "https://as.example.com" || id.Subject == "" || id.Expiry.IsZero() || !time.Now().Before(id.Expiry) {
			t.Fatalf("%q: %+v", token, id)
		}
	})
}
