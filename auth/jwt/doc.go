// Package jwt checks JWT access tokens (RFC 9068's profile of RFC 7519)
// for package auth: its Verifier is an auth.Verifier that verifies a
// token's signature against its authorization server's JSON Web Key Set
// (RFC 7517), found through the server's metadata (RFC 8414, or OpenID
// Connect Discovery), fetched lazily, cached, refreshed and bounded, and
// checks its header and claims (issuer, subject, expiry, not-before,
// audience and scope types). Algorithms are allow-listed: every
// asymmetric one by default, never none nor HMAC.
//
// It is apart from package auth because it depends on go-jose
// (github.com/go-jose/go-jose/v4), which nothing else in the module
// does. See docs/auth.md.
package jwt
