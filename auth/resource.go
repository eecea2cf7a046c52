package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/callattrs"
	"github.com/toolrpc/toolrpc/internal/oauth"
)

// DefaultMaxTokenBytes is the default of Options.MaxTokenBytes: 8 KiB, a
// JWT with a few dozen claims, and the longest header line nginx takes by
// default.
const DefaultMaxTokenBytes = 8 << 10

// WellKnownPath is where protected resource metadata is served (RFC 9728
// §3): at this path for a resource at a host's root, and with the
// resource's path appended for one under a path.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Options configure a ResourceServer.
type Options struct {
	// Resource is this server's resource identifier (RFC 9728 §1.2; the
	// canonical URI of an MCP server): the URL clients call it at, such
	// as "https://mcp.example.com/mcp", and what a token's audience must
	// name. https, no fragment, no query (http only for a loopback host,
	// for tests), a clean path (no "." or ".." segment, no "//": its
	// metadata's path would be redirected). Required.
	Resource string
	// AuthorizationServers are the issuer identifiers (RFC 8414) of the
	// authorization servers whose tokens this server accepts, published in
	// the metadata. At least one is required (MCP: the metadata "MUST
	// include the authorization_servers field").
	AuthorizationServers []string
	// Verifier turns a request's bearer token into its identity.
	// Required.
	Verifier Verifier
	// Scopes are the scopes every request needs: a token without one of
	// them is answered 403, error "insufficient_scope", the challenge
	// naming them all; the 401 challenges name them too (MCP: servers
	// SHOULD say which scopes a request needs). Scopes a tool needs beyond
	// them it checks itself (RequireScopes).
	Scopes []string
	// ScopesSupported are the scopes published in the metadata
	// (scopes_supported): by MCP 2026-07-28, the minimal set for basic
	// functionality, which a client asks for when a challenge names none.
	// Default: Scopes.
	ScopesSupported []string
	// Audiences are other values a token's audience may name instead of
	// Resource: for an authorization server that names its resources by
	// an identifier of its own (an API identifier, an application id).
	// Resource is always accepted. None may be empty.
	Audiences []string
	// ResourceName is the metadata's resource_name: the server's name for
	// people (RFC 9728 RECOMMENDS one). Optional.
	ResourceName string
	// ResourceDocumentation is the metadata's resource_documentation: the
	// URL of a page for developers. Optional.
	ResourceDocumentation string
	// MaxTokenBytes bounds a bearer token's length: a longer one is
	// answered 401 "invalid_token" without being verified. Default
	// DefaultMaxTokenBytes.
	MaxTokenBytes int
	// Logger receives a record (warning) for each request answered 503
	// because the Verifier was unavailable, and at debug level one for
	// each token refused, with the reason; never a token. Default:
	// slog.Default().
	Logger *slog.Logger
}

// ResourceServer is an OAuth 2.1 resource server (RFC 6750, RFC 9728,
// RFC 8707; MCP's Authorization, 2025-06-18 to 2026-07-28) in front of
// any http.Handler: Require checks each request's bearer token and puts
// the verified Identity in its context; Metadata serves the protected
// resource metadata through which clients find the authorization server.
// It is safe for concurrent use, and holds no state per request.
type ResourceServer struct {
	resource    string
	audiences   []string // canonical forms of Resource and Options.Audiences
	metadataURL string
	path        string
	metadata    []byte // the document, encoded once
	verifier    Verifier
	scopes      []string
	scope       string // scopes, space-separated, for the challenges
	maxToken    int
	log         *slog.Logger
}

// metadataDoc is the protected resource metadata document (RFC 9728 §2);
// fields with no value are omitted (§3.2).
type metadataDoc struct {
	Resource              string   `json:"resource"`
	AuthorizationServers  []string `json:"authorization_servers"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	BearerMethods         []string `json:"bearer_methods_supported"`
	ResourceName          string   `json:"resource_name,omitempty"`
	ResourceDocumentation string   `json:"resource_documentation,omitempty"`
}

// NewResourceServer checks opts and returns the resource server they
// describe, or an error naming the first option that is wrong.
func NewResourceServer(opts *Options) (*ResourceServer, error) {
	if opts == nil {
		opts = &Options{}
	}
	u, err := checkURL("Resource", opts.Resource)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("auth: Resource %q has a query", opts.Resource)
	}
	if p := u.EscapedPath(); p != "" {
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		if clean != p {
			// http.ServeMux would answer MetadataPath with a redirect.
			return nil, fmt.Errorf("auth: Resource %q has a path that is not clean (its metadata's path would be redirected)", opts.Resource)
		}
	}
	if len(opts.AuthorizationServers) == 0 {
		return nil, errors.New("auth: AuthorizationServers is empty: the metadata must name one")
	}
	for _, as := range opts.AuthorizationServers {
		if _, err := checkURL("an authorization server", as); err != nil {
			return nil, err
		}
	}
	if opts.ResourceDocumentation != "" {
		if _, err := checkURL("ResourceDocumentation", opts.ResourceDocumentation); err != nil {
			return nil, err
		}
	}
	if slices.Contains(opts.Audiences, "") {
		return nil, errors.New(`auth: Audiences holds "": a token whose audience is empty would be accepted`)
	}
	if opts.Verifier == nil {
		return nil, errors.New("auth: no Verifier")
	}
	for _, s := range slices.Concat(opts.Scopes, opts.ScopesSupported) {
		if !oauth.IsScopeToken(s) {
			return nil, fmt.Errorf("auth: %q is not a scope (RFC 6749 §3.3: printable ASCII, no space, '\"' or '\\')", s)
		}
	}
	supported := opts.ScopesSupported
	if supported == nil {
		supported = opts.Scopes
	}
	rs := &ResourceServer{
		resource: opts.Resource,
		verifier: opts.Verifier,
		scopes:   slices.Clone(opts.Scopes),
		scope:    strings.Join(opts.Scopes, " "),
		maxToken: opts.MaxTokenBytes,
		log:      opts.Logger,
	}
	if rs.maxToken <= 0 {
		rs.maxToken = DefaultMaxTokenBytes
	}
	if rs.log == nil {
		rs.log = slog.Default()
	}
	rs.audiences = append(rs.audiences, canonical(opts.Resource))
	for _, a := range opts.Audiences {
		rs.audiences = append(rs.audiences, canonical(a))
	}
	// RFC 9728 §3: the well-known string goes between the host and the
	// path, a path of "/" alone dropped.
	rs.path = WellKnownPath
	if p := u.EscapedPath(); p != "" && p != "/" {
		rs.path += p
	}
	rs.metadataURL = u.Scheme + "://" + u.Host + rs.path
	rs.metadata, err = json.Marshal(metadataDoc{
		Resource:              opts.Resource,
		AuthorizationServers:  opts.AuthorizationServers,
		ScopesSupported:       supported,
		BearerMethods:         []string{"header"},
		ResourceName:          opts.ResourceName,
		ResourceDocumentation: opts.ResourceDocumentation,
	})
	if err != nil {
		return nil, fmt.Errorf("auth: the metadata: %w", err)
	}
	return rs, nil
}

// checkURL is oauth.CheckURL, its errors auth's.
func checkURL(what, s string) (*url.URL, error) {
	u, err := oauth.CheckURL(what, s)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return u, nil
}

// canonical returns the form of a resource identifier that audiences are
// compared in: the scheme and host in lower case, and a path of "/"
// alone dropped (MCP: the canonical form has no trailing slash, and
// servers SHOULD accept an upper-case scheme and host). A value that is
// not an absolute URL (an audience may be any string) is itself.
func canonical(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return s
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if u.Path == "/" && u.RawPath == "" && u.RawQuery == "" {
		u.Path = ""
	}
	return u.String()
}

// MetadataPath is the path Metadata is to be served at: WellKnownPath,
// followed by the path of Resource if it has one
// ("/.well-known/oauth-protected-resource/mcp" for
// "https://mcp.example.com/mcp").
func (rs *ResourceServer) MetadataPath() string { return rs.path }

// MetadataURL is the URL of the metadata, which the challenges name
// (resource_metadata): Resource's scheme and host, and MetadataPath.
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// Metadata returns the handler of the protected resource metadata (RFC
// 9728 §3), to serve at MetadataPath. It answers GET and HEAD with the
// document (200, application/json), OPTIONS (a CORS preflight) with 204,
// and any other method with 405. Every answer allows any origin: the
// document is public, and browser-based clients read it across origins.
// For older clients that look for the metadata of a resource under a
// path at WellKnownPath alone, serve it there too.
func (rs *ResourceServer) Metadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(len(rs.metadata)))
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(rs.metadata)
			}
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
}

// Require returns next behind the resource server: a request reaches next
// only with a valid bearer token, for this resource, with every one of
// Options.Scopes, and then with its Identity in the request's context
// (IdentityFrom). Others are answered, with an empty body, the
// WWW-Authenticate challenge naming the metadata (and Options.Scopes, if
// any):
//
//   - no Authorization header, or another scheme's credentials: 401, no
//     error code (RFC 6750 §3.1);
//   - a token that is malformed, longer than Options.MaxTokenBytes,
//     refused by the Verifier, expired, or whose audience does not name
//     Resource (RFC 8707): 401, error "invalid_token", with a fixed
//     description of which;
//   - a token without one of Options.Scopes: 403, error
//     "insufficient_scope";
//   - an access_token in the query string (MCP: tokens MUST NOT be sent
//     there; seen after a ';' or a bad escape too), or two Authorization
//     headers: 400, error "invalid_request"
//     (RFC 6750 §3.1: "uses more than one method", "repeats the same
//     parameter");
//   - a Verifier unavailable (ErrUnavailable, or its context's deadline
//     passed): 503, Retry-After: 1, no challenge.
//
// The token is never logged nor written anywhere. The Authorization
// header stays on the request that next gets (rpc.HTTPRequest shows it
// to a tool): never send it on to another service (MCP forbids token
// passthrough; a call upstream takes a token of its own).
func (rs *ResourceServer) Require(next http.Handler) http.Handler {
	missing := challenge(rs.metadataURL, rs.scope, "", "")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if queryHasToken(r.URL.RawQuery) {
			rs.refuse(w, r, http.StatusBadRequest, invalidRequest, "access tokens are not accepted in the query string", nil)
			return
		}
		headers := r.Header.Values("Authorization")
		if len(headers) > 1 {
			rs.refuse(w, r, http.StatusBadRequest, invalidRequest, "more than one Authorization header", nil)
			return
		}
		var token string
		var got credentials
		if len(headers) == 1 {
			token, got = bearer(headers[0], rs.maxToken)
		}
		switch got {
		case noCredentials:
			w.Header().Set("WWW-Authenticate", missing)
			w.WriteHeader(http.StatusUnauthorized)
			return
		case malformedToken:
			rs.refuse(w, r, http.StatusUnauthorized, invalidToken, "the access token is malformed", nil)
			return
		case longToken:
			rs.refuse(w, r, http.StatusUnauthorized, invalidToken, "the access token is too long", nil)
			return
		}
		id, err := rs.verifier.Verify(r.Context(), token)
		switch {
		case err != nil && (errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || r.Context().Err() != nil):
			if r.Context().Err() == nil { // else the client is gone
				rs.log.LogAttrs(r.Context(), slog.LevelWarn, "auth: the token verifier is unavailable",
					slog.String("error", err.Error()), slog.String("remote", r.RemoteAddr))
			}
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case err != nil || id == nil:
			rs.refuse(w, r, http.StatusUnauthorized, invalidToken, "the access token is not valid", err)
			return
		case !id.Expiry.IsZero() && !time.Now().Before(id.Expiry):
			rs.refuse(w, r, http.StatusUnauthorized, invalidToken, "the access token expired", nil)
			return
		case !rs.forUs(id.Audience):
			rs.refuse(w, r, http.StatusUnauthorized, invalidToken, "the access token is not for this resource", nil)
			return
		}
		for _, s := range rs.scopes {
			if !id.HasScope(s) {
				rs.refuse(w, r, http.StatusForbidden, insufficientScope, "the access token lacks a scope this resource needs", nil)
				return
			}
		}
		ctx := context.WithValue(r.Context(), grantKey{}, &grant{id: id, rs: rs})
		next.ServeHTTP(w, r.WithContext(callattrs.With(ctx, callerAttrs(id)...)))
	})
}

// callerAttrs are the log attributes of the calls of id's requests (the
// records of middleware.Logging): its subject and client id, if any;
// never its token, nor its claims.
func callerAttrs(id *Identity) []slog.Attr {
	attrs := make([]slog.Attr, 0, 2)
	if id.Subject != "" {
		attrs = append(attrs, slog.String("subject", id.Subject))
	}
	if id.ClientID != "" {
		attrs = append(attrs, slog.String("client_id", id.ClientID))
	}
	return attrs
}

// queryHasToken reports whether a query string has an access_token
// parameter (RFC 6750 §2.3), however the rest is written: url.ParseQuery
// drops a parameter after a ';' or with a bad escape, and so would let
// one through unseen.
func queryHasToken(query string) bool {
	for query != "" {
		var param string
		if i := strings.IndexAny(query, "&;"); i >= 0 {
			param, query = query[:i], query[i+1:]
		} else {
			param, query = query, ""
		}
		name, _, _ := strings.Cut(param, "=")
		if unescaped, err := url.QueryUnescape(name); err == nil {
			name = unescaped
		}
		if name == "access_token" {
			return true
		}
	}
	return false
}

// refuse answers a request status with a challenge of code and
// description (fixed texts: never the token, nor a verifier's words),
// and logs it at debug level with the verifier's error, if any.
func (rs *ResourceServer) refuse(w http.ResponseWriter, r *http.Request, status int, code, description string, err error) {
	if rs.log.Enabled(r.Context(), slog.LevelDebug) {
		attrs := []slog.Attr{slog.Int("status", status), slog.String("error", code),
			slog.String("reason", description), slog.String("remote", r.RemoteAddr)}
		if err != nil {
			attrs = append(attrs, slog.String("verifier", err.Error()))
		}
		rs.log.LogAttrs(r.Context(), slog.LevelDebug, "auth: request refused", attrs...)
	}
	w.Header().Set("WWW-Authenticate", challenge(rs.metadataURL, rs.scope, code, description))
	w.WriteHeader(status)
}

// forUs reports whether audience names this resource.
func (rs *ResourceServer) forUs(audience []string) bool {
	for _, a := range audience {
		if slices.Contains(rs.audiences, canonical(a)) {
			return true
		}
	}
	return false
}

// Challenge returns how a call served behind Require answers over HTTP
// the error it returned, when that error asks for more than the call's
// token has: for a *ScopeError (RequireScopes'), 403 and the
// WWW-Authenticate value, error "insufficient_scope", naming every scope
// the request needs (Options.Scopes and the error's), so that the client
// can step up at once. For any other error, or a ctx that did not pass
// through Require, it returns 0 and "". ctx is the call's.
func Challenge(ctx context.Context, err error) (status int, wwwAuthenticate string) {
	g, ok := ctx.Value(grantKey{}).(*grant)
	var se *ScopeError
	if !ok || !errors.As(err, &se) {
		return 0, ""
	}
	scopes := slices.Clone(g.rs.scopes)
	for _, s := range se.Scopes {
		if !slices.Contains(scopes, s) && oauth.IsScopeToken(s) {
			scopes = append(scopes, s)
		}
	}
	return http.StatusForbidden, challenge(g.rs.metadataURL, strings.Join(scopes, " "), insufficientScope,
		"the access token lacks a scope this operation needs")
}
