package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/oauth"
	"github.com/toolrpc/toolrpc/rpc"
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

// ScopedPrompts is [Scoped] for a value registered by
// [Server.RegisterPrompts]: PromptScopes gives the scopes its prompts
// need, by Go method name; prompts/get with a token that lacks one is
// answered 403 over HTTP (InsufficientScope in a batch), and the
// prompt's prompts/list entry publishes them as a tool's does.
type ScopedPrompts interface {
	PromptScopes() map[string][]string
}

// InsufficientScope (403) is the JSON-RPC error of a prompts/get or
// resources/read refused for a scope its token lacks where no HTTP
// status can say so (one request of a batch): an application code, out
// of JSON-RPC's reserved range, after HTTP's 403. Its data names the
// scopes needed ("scopes") and those the token lacks ("missing").
const InsufficientScope rpc.Code = 403

// scopesOf returns the scopes of value's tools, if it declares any,
// each list sorted and without repeats.
func scopesOf(value any) (map[string][]string, error) {
	sc, ok := value.(Scoped)
	if !ok {
		return nil, nil
	}
	return declaredScopes(value, "ToolScopes", sc.ToolScopes)
}

// promptScopesOf is scopesOf for prompts.
func promptScopesOf(value any) (map[string][]string, error) {
	sc, ok := value.(ScopedPrompts)
	if !ok {
		return nil, nil
	}
	return declaredScopes(value, "PromptScopes", sc.PromptScopes)
}

// declaredScopes calls value's method (called name), checks what it
// declares, and returns it, each list sorted and without repeats.
func declaredScopes(value any, name string, method func() map[string][]string) (map[string][]string, error) {
	given, err := declared(value, name, method)
	if err != nil {
		return nil, err
	}
	scopes := make(map[string][]string, len(given))
	for goName, list := range given {
		for _, s := range list {
			if !oauth.IsScopeToken(s) {
				return nil, fmt.Errorf("mcp: %s gives %s the scope %q, which is not a scope-token (RFC 6749 §3.3: printable ASCII, no space, '\"' or '\\')", name, goName, s)
			}
		}
		scopes[goName] = slices.Compact(slices.Sorted(slices.Values(list)))
	}
	return scopes, nil
}

// lacking returns the InsufficientScope error of a call, in ctx, of what
// (a tool, a prompt, a resource) that needs scopes, if ctx's verified identity
// lacks one of them; nil if it has them all, or has none.
func lacking(ctx context.Context, what string, scopes []string) error {
	if len(scopes) == 0 {
		return nil
	}
	var se *auth.ScopeError
	if !errors.As(auth.RequireScopes(ctx, scopes...), &se) {
		return nil
	}
	return rpc.NewError(InsufficientScope, "Insufficient scope: "+jsonx.Shorten(what, 256)+" needs the scope "+strings.Join(se.Scopes, " ")+
		", and the access token lacks "+strings.Join(se.Missing, " ")).
		WithData(map[string][]string{"scopes": se.Scopes, "missing": se.Missing})
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

// schemesOf is the _meta of an entry of something that needs scopes, nil
// for none.
func schemesOf(scopes []string) *securitySchemes {
	if len(scopes) == 0 {
		return nil
	}
	return &securitySchemes{Schemes: []securityScheme{{Type: "oauth2", Scopes: scopes}}}
}

// Scopes returns every scope a tool, prompt or resource declares
// ([Scoped], [ScopedPrompts], Resource.Scopes), sorted: with the scopes
// every request needs, what a protected server publishes as its
// metadata's scopes_supported (auth.Options.ScopesSupported).
func (s *Server) Scopes() []string {
	var all []string
	cat := s.cat.Load()
	for _, name := range cat.names {
		all = append(all, cat.items[name].scopes...)
	}
	if prompts := s.feat.prompts.Load(); prompts != nil {
		for _, name := range prompts.names {
			all = append(all, prompts.items[name].scopes...)
		}
	}
	if set := s.feat.resources.Load(); set != nil {
		for _, c := range []*catalog[*resource]{set.static, set.templates} {
			if c != nil {
				for _, key := range c.names {
					all = append(all, c.items[key].Scopes...)
				}
			}
		}
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

// callerOf names the principal of ctx's verified identity: its issuer,
// subject (auth.Identity: two tokens of one issuer and subject are one
// principal's) and client (for a token that has no subject, the client is
// who holds it), each after its length, so that no two identities that
// differ in one make the same name; "" when it has none.
func callerOf(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	if id == nil {
		return ""
	}
	b := make([]byte, 0, len(id.Issuer)+len(id.Subject)+len(id.ClientID)+12)
	for _, part := range [...]string{id.Issuer, id.Subject, id.ClientID} {
		b = append(strconv.AppendInt(b, int64(len(part)), 10), ':')
		b = append(b, part...)
	}
	return string(b)
}

// refuseScope answers, before it is served, a lone tools/call,
// prompts/get, resources/read or completion/complete (env) of a tool,
// prompt or resource (template) whose
// scopes the request's verified identity lacks: 403 and the step-up
// challenge (auth.Challenge), an empty body, as
// auth.ResourceServer.Require refuses. It reports whether it answered.
func (h *HTTPHandler) refuseScope(w http.ResponseWriter, r *http.Request, env envelope) bool {
	if env.id == nil || auth.IdentityFrom(r.Context()) == nil {
		return false
	}
	scopes := h.s.scopesOfCall(env)
	if len(scopes) == 0 {
		return false
	}
	err := auth.RequireScopes(r.Context(), scopes...)
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

// refMembers are the members of completion/complete's ref that
// scopesOfCall reads.
var refMembers = []string{"type", "name", "uri"}

// scopesOfCall returns the scopes of what the request env calls, if it is
// a tools/call, prompts/get or resources/read of something that needs
// some, or a completion/complete for a prompt or template that does.
func (s *Server) scopesOfCall(env envelope) []string {
	method, _ := stringValue(env.method)
	switch string(method) {
	case methodToolsCall:
		if name, ok := stringValue(env.name); ok {
			if t := s.cat.Load().items[string(name)]; t != nil {
				return t.scopes
			}
		}
	case methodPromptsGet:
		if name, ok := stringValue(env.name); ok {
			if p, ok := s.feat.prompts.Load().get(string(name)); ok {
				return p.scopes
			}
		}
	case methodResourcesRead:
		if uri, ok := stringValue(env.uri); ok && len(uri) <= MaxURI {
			if res, _ := s.feat.resources.Load().lookup(string(uri)); res != nil {
				return res.Scopes
			}
		}
	case methodComplete:
		var ref [3][]byte
		if !jsonx.Members(env.ref, refMembers, ref[:]) {
			return nil
		}
		kind, _ := stringValue(ref[0])
		switch name, ok := stringValue(ref[1]); {
		case string(kind) == "ref/prompt" && ok:
			if p, ok := s.feat.prompts.Load().get(string(name)); ok {
				return p.scopes
			}
		case string(kind) == "ref/resource":
			if uri, ok := stringValue(ref[2]); ok {
				if set := s.feat.resources.Load(); set != nil {
					if t, ok := set.templates.get(string(uri)); ok {
						return t.Scopes
					}
				}
			}
		}
	}
	return nil
}
