package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/oauth"
)

// Scoped is implemented by a registered value whose tools need OAuth
// scopes (RFC 6749 §3.3) beyond those every request needs
// (auth.Options.Scopes). ToolScopes is called once, at registration; its
// keys are Go method names, as Annotated's are, each must name a tool of
// the value, and each scope must be a scope-token; it is not a tool
// itself.
//
// A tool's scopes are published in its tools/list entry, as
// _meta.securitySchemes (2025-06-18 and later; the form of SEP-1488 and
// of OpenAI's Apps SDK): [{"type":"oauth2","scopes":[...]}]. They are
// checked against the verified identity of the request (auth.IdentityFrom)
// before the tool's arguments are bound: over Streamable HTTP behind
// auth.ResourceServer.Require, a token that lacks one is answered 403,
// error "insufficient_scope", its challenge naming every scope the call
// needs, so that the client can step up (MCP's Scope Challenge Handling);
// a call that cannot be answered so (one of a batch) is the tool's error
// result. A request with no verified identity (over stdio, where MCP
// leaves authorization to the environment, or served without Require) is
// not checked: authorization is the resource server's, and without one
// there is none.
type Scoped interface {
	ToolScopes() map[string][]string
}

// scopesOf returns the scopes of value's tools, if it declares any,
// each list sorted and without repeats.
func scopesOf(value any) (scopes map[string][]string, err error) {
	sc, ok := value.(Scoped)
	if !ok {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			scopes, err = nil, fmt.Errorf("mcp: %T.ToolScopes panicked: %v", value, r)
		}
	}()
	declared := sc.ToolScopes()
	scopes = make(map[string][]string, len(declared))
	for goName, list := range declared {
		for _, s := range list {
			if !oauth.IsScopeToken(s) {
				return nil, fmt.Errorf("mcp: ToolScopes gives %s the scope %q, which is not a scope-token (RFC 6749 §3.3: printable ASCII, no space, '\"' or '\\')", goName, s)
			}
		}
		scopes[goName] = slices.Compact(slices.Sorted(slices.Values(list)))
	}
	return scopes, nil
}

// securitySchemes is the _meta of a tools/list entry of a tool that needs
// scopes.
type securitySchemes struct {
	Schemes []securityScheme `json:"securitySchemes"`
}

// securityScheme is an entry of securitySchemes.
type securityScheme struct {
	Type   string   `json:"type"`
	Scopes []string `json:"scopes"`
}

// Scopes returns every scope a tool declares (Scoped), sorted: with the
// scopes every request needs, what a protected server publishes as its
// metadata's scopes_supported (auth.Options.ScopesSupported).
func (s *Server) Scopes() []string {
	var all []string
	cat := s.cat.Load()
	for _, name := range cat.names {
		all = append(all, cat.items[name].scopes...)
	}
	return slices.Compact(slices.Sorted(slices.Values(all)))
}

// permitted reports whether id, a request's verified identity, has every
// one of scopes; with no identity (nil), there is nothing to check.
func permitted(id *auth.Identity, scopes []string) bool {
	if id == nil {
		return true
	}
	for _, sc := range scopes {
		if !id.HasScope(sc) {
			return false
		}
	}
	return true
}

// principalOf names the principal of r's verified identity (callerOf).
func principalOf(r *http.Request) string { return callerOf(r.Context()) }

// callerOf names the principal of ctx's verified identity, its issuer and
// subject (auth.Identity: two tokens of one issuer and subject are one
// principal's); "" when it has none.
func callerOf(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	if id == nil {
		return ""
	}
	return id.Issuer + "\x00" + id.Subject
}

// refuseScope answers, before it is served, a lone tools/call (env) of a
// tool whose scopes the request's verified identity lacks: 403 and the
// step-up challenge (auth.Challenge), an empty body, as
// auth.ResourceServer.Require refuses. It reports whether it answered.
func (h *HTTPHandler) refuseScope(w http.ResponseWriter, r *http.Request, env envelope) bool {
	if env.name == nil || env.id == nil {
		return false
	}
	method, _ := stringValue(env.method)
	if string(method) != methodToolsCall {
		return false
	}
	name, ok := stringValue(env.name)
	if !ok {
		return false
	}
	t := h.s.cat.Load().items[string(name)]
	if t == nil || len(t.scopes) == 0 {
		return false
	}
	err := auth.RequireScopes(r.Context(), t.scopes...)
	var se *auth.ScopeError
	if !errors.As(err, &se) {
		return false // granted, or no identity to check
	}
	status, challenge := auth.Challenge(r.Context(), err)
	if status == 0 {
		return false
	}
	w.Header().Set("WWW-Authenticate", challenge)
	w.WriteHeader(status)
	return true
}

// scopeErrorText is the text of the error result of a call refused for
// se.
func scopeErrorText(t *tool, se *auth.ScopeError) string {
	return "Insufficient scope: tool " + jsonx.Shorten(t.name, MaxToolName) + " needs the scope " + strings.Join(se.Scopes, " ") +
		", and the access token lacks " + strings.Join(se.Missing, " ")
}
