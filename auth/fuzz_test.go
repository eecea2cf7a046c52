package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// FuzzBearer: reading any Authorization header never panics; a token it
// finds is a b64token within the bound, the header is "Bearer", spaces
// and the token, and the token reads back from the header written anew;
// a scope that passes isScopeToken makes a challenge whose quotes are
// its delimiters alone.
func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  a.b-c_~+/==", "Bearer", "Bearer ", "Basic x", "Bearerx y", "Bearer\ta",
		"Bearer a b", `Bearer "a"`, "Bearer ==", "BEARER a=b", "Bearer " + strings.Repeat("a", 40)} {
		f.Add(s, 32)
	}
	f.Fuzz(func(t *testing.T, header string, max int) {
		if max <= 0 || max > 1<<16 {
			max = 32
		}
		token, got := bearer(header, max)
		if got != bearerToken {
			if token != "" {
				t.Fatalf("%q: no token, yet %q", header, token)
			}
		} else {
			if !isB64Token(token) || len(token) > max {
				t.Fatalf("%q: token %q", header, token)
			}
			if !strings.EqualFold(header[:6], "Bearer") || strings.Trim(header[6:len(header)-len(token)], " ") != "" || header[6] != ' ' {
				t.Fatalf("%q: token %q from more than spaces", header, token)
			}
			if again, got := bearer("Bearer "+token, max); got != bearerToken || again != token {
				t.Fatalf("%q: token %q reads back as %q (%d)", header, token, again, got)
			}
		}
		if isScopeToken(header) {
			c := challenge("https://x", header, invalidToken, "d")
			if n := strings.Count(c, `"`); n != 8 {
				t.Fatalf("%q: %d quotes in %s", header, n, c)
			}
		}
	})
}

// FuzzJWT: verifying any string against a fixed key set never panics,
// never fetches, and fails only as an invalid token, whose error never
// holds the token; a token it accepts has an identity of the issuer, with
// a subject and an expiry.
func FuzzJWT(f *testing.F) {
	ec, ed := NewECKey("ec-1"), EdKey("ed-1")
	v, err := NewJWTVerifier(&JWTOptions{Issuer: "https://as.example.com", JWKSURL: "https://as.invalid/jwks", MinRefreshInterval: 1000 * time.Hour})
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
			if !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrUnavailable) {
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
