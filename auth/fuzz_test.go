package auth

import (
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/oauth"
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
		if oauth.IsScopeToken(header) {
			c := challenge("https://x", header, invalidToken, "d")
			if n := strings.Count(c, `"`); n != 8 {
				t.Fatalf("%q: %d quotes in %s", header, n, c)
			}
		}
	})
}
