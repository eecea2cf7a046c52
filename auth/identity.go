package auth

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"
)

// Identity is what a verified bearer token says of its bearer: who it
// is, which client holds the token, what it may do, until when and for
// which resources. A Verifier makes one; ResourceServer.Require puts it
// in the request's context, where IdentityFrom finds it (in a tool's or
// a JSON-RPC method's context too). It is shared by every call of the
// request, and an Identity a Verifier caches by every request that
// presents the same token: read it, never modify it.
type Identity struct {
	// Subject is the principal the token was issued for (the sub claim):
	// a user, or the client itself for a client-credentials token. With
	// Issuer it names the principal: two tokens of one Issuer and Subject
	// are the same principal's.
	Subject string
	// Issuer is the authorization server that issued the token (the iss
	// claim), when the verifier knows it.
	Issuer string
	// ClientID is the OAuth client the token was issued to (client_id,
	// or a JWT's azp).
	ClientID string
	// Scopes are the token's scopes (the space-separated scope claim, as
	// a list).
	Scopes []string
	// Expiry is when the token stops being accepted (its exp); zero when
	// the verifier knows no expiry. ResourceServer.Require refuses an
	// identity whose Expiry has passed, whatever the verifier said.
	Expiry time.Time
	// Audience are the resources the token was issued for (the aud
	// claim: RFC 8707's resource indicators). ResourceServer.Require
	// refuses a token whose Audience does not name its Resource.
	Audience []string
	// Claims holds the other members of the token's claims (of a JWT's
	// payload, of an introspection response), each as its JSON text:
	// username, jti, an authorization server's own claims. Nil when there
	// are none.
	Claims map[string]json.RawMessage
}

// HasScope reports whether the identity's token has scope.
func (id *Identity) HasScope(scope string) bool {
	return id != nil && slices.Contains(id.Scopes, scope)
}

// clone returns a copy of id that shares nothing a caller could modify
// with it.
func (id *Identity) clone() *Identity {
	c := *id
	c.Scopes = slices.Clone(id.Scopes)
	c.Audience = slices.Clone(id.Audience)
	c.Claims = maps.Clone(id.Claims)
	return &c
}

// A Verifier turns a bearer token into the identity of its bearer: it
// checks the token (its signature, or with its authorization server),
// and that it is valid now (not expired, not before its time), and
// returns what it says. It need not check the token's audience or
// scopes: ResourceServer.Require does, by its Options.
//
// A token that is not valid is an error for which errors.Is(err,
// ErrInvalidToken) holds; a verifier that cannot tell, because what it
// needs is unreachable or answers nonsense (an introspection endpoint
// down, a key set that cannot be fetched), returns one for which
// errors.Is(err, ErrUnavailable) holds. Any other error counts as an
// invalid token. An error's text must never hold the token (it is
// logged); Verify is called concurrently and must return by ctx's end.
type Verifier interface {
	Verify(ctx context.Context, token string) (*Identity, error)
}

// VerifierFunc is a function as a Verifier.
type VerifierFunc func(ctx context.Context, token string) (*Identity, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*Identity, error) {
	return f(ctx, token)
}

var (
	// ErrInvalidToken is what a Verifier's error is when the token is
	// not valid: malformed, expired, revoked, not yet valid, signed by no
	// key it trusts. ResourceServer.Require answers 401, error
	// "invalid_token" (RFC 6750 §3.1).
	ErrInvalidToken = errors.New("auth: invalid token")
	// ErrUnavailable is what a Verifier's error is when it cannot tell
	// whether the token is valid: what it asks is down, slow past its
	// bound, or answers what it cannot read. ResourceServer.Require
	// answers 503 with Retry-After, not 401: the token may well be good,
	// and a 401 would send the client to get another for nothing.
	ErrUnavailable = errors.New("auth: verifier unavailable")
	// ErrNoIdentity is RequireScopes' error for a context that carries
	// no verified identity (a call not served behind
	// ResourceServer.Require, such as one over stdio).
	ErrNoIdentity = errors.New("auth: no verified identity")
)

// ScopeError is RequireScopes' error when the token lacks a scope the
// operation needs: over HTTP, a 403 with error "insufficient_scope" and
// the scopes in the challenge, so that the client can ask its
// authorization server for them (step-up authorization). Find it with
// errors.As.
type ScopeError struct {
	// Scopes are all the scopes the operation needs, those the token has
	// among them: the challenge names them all at once (MCP 2026-07-28,
	// Scope Challenge Handling).
	Scopes []string
	// Missing are those of Scopes the token lacks.
	Missing []string
}

// Error names the scopes missing (scope names are the server's, never
// the token's).
func (e *ScopeError) Error() string {
	return "auth: insufficient scope: the token lacks " + strings.Join(e.Missing, " ")
}

// grantKey is the context key of a grant.
type grantKey struct{}

// grant is what ResourceServer.Require puts in a request's context: the
// identity, and the server that verified it (for a challenge).
type grant struct {
	id *Identity
	rs *ResourceServer
}

// IdentityFrom returns the verified identity of the bearer of the request
// ctx belongs to (ResourceServer.Require put it there), or nil. The
// context of a call served by rpc.HTTPHandler or mcp.HTTPHandler behind
// Require (a tool's context) holds it too.
func IdentityFrom(ctx context.Context) *Identity {
	if g, ok := ctx.Value(grantKey{}).(*grant); ok {
		return g.id
	}
	return nil
}

// RequireScopes returns nil if ctx's identity has every one of scopes, a
// *ScopeError naming them if it lacks any, and ErrNoIdentity if ctx has
// no identity. A tool calls it to check the scopes it needs beyond those
// every request needs (Options.Scopes).
func RequireScopes(ctx context.Context, scopes ...string) error {
	id := IdentityFrom(ctx)
	if id == nil {
		return ErrNoIdentity
	}
	var missing []string
	for _, s := range scopes {
		if !id.HasScope(s) {
			missing = append(missing, s)
		}
	}
	if missing == nil {
		return nil
	}
	return &ScopeError{Scopes: slices.Clone(scopes), Missing: missing}
}
