package auth

import (
	"strings"
)

// What a request's credentials are, as bearer parses them.
type credentials int

const (
	noCredentials  credentials = iota // no Authorization header, or another scheme's
	bearerToken                       // a well-formed bearer token
	malformedToken                    // "Bearer" and no token, or not a b64token
	longToken                         // a token longer than the bound
)

// bearer reads the credentials of an Authorization header's value (RFC
// 6750 §2.1): the scheme "Bearer", matched without regard to case (RFC
// 9110 §11.1), one or more spaces, and a b64token of at most max bytes.
// Another scheme is no credentials: the request "attempted an
// unsupported authentication method" (RFC 6750 §3.1), not a bad token.
// net/http has trimmed the value's leading and trailing white space.
func bearer(header string, max int) (string, credentials) {
	const scheme = "Bearer"
	if len(header) < len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", noCredentials
	}
	rest := header[len(scheme):]
	if rest == "" {
		return "", malformedToken
	}
	if rest[0] != ' ' {
		// "Bearerx": a scheme of another name.
		if isTokenChar(rest[0]) {
			return "", noCredentials
		}
		return "", malformedToken
	}
	token := strings.TrimLeft(rest, " ")
	if len(token) > max {
		return "", longToken
	}
	if !isB64Token(token) {
		return "", malformedToken
	}
	return token, bearerToken
}

// isB64Token reports whether s is a b64token (RFC 6750 §2.1):
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// isTokenChar reports whether c is a tchar (RFC 9110 §5.6.2), of which
// an auth-scheme is made.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// The error codes of a challenge (RFC 6750 §3.1).
const (
	invalidRequest    = "invalid_request"
	invalidToken      = "invalid_token"
	insufficientScope = "insufficient_scope"
)

// challenge returns a WWW-Authenticate value: the Bearer scheme, the
// protected resource metadata's URL (RFC 9728 §5.1), the scopes (if
// any), and the error code and its description (if any). Every value is
// checked, by NewResourceServer or here, to be one a quoted-string holds
// without escapes (RFC 6750 §3: no '"', no '\', printable ASCII).
func challenge(metadataURL, scope, code, description string) string {
	var b strings.Builder
	b.Grow(64 + len(metadataURL) + len(scope) + len(description))
	b.WriteString(`Bearer resource_metadata="`)
	b.WriteString(metadataURL)
	b.WriteByte('"')
	if scope != "" {
		b.WriteString(`, scope="`)
		b.WriteString(scope)
		b.WriteByte('"')
	}
	if code != "" {
		b.WriteString(`, error="`)
		b.WriteString(code)
		b.WriteByte('"')
		if description != "" {
			b.WriteString(`, error_description="`)
			b.WriteString(description)
			b.WriteByte('"')
		}
	}
	return b.String()
}
