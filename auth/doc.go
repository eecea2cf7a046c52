// Package auth makes an HTTP server an OAuth 2.1 resource server, as the
// MCP specification's Authorization asks of a remote MCP server
// (2025-06-18, 2025-11-25, 2026-07-28), in front of mcp.HTTPHandler,
// rpc.HTTPHandler or any http.Handler:
//
//   - ResourceServer.Require lets a request through only with a valid
//     bearer token (RFC 6750, in the Authorization header only), issued
//     for this server (its audience: RFC 8707), with the scopes every
//     request needs; it answers the others 401 or 403 with the
//     WWW-Authenticate challenge that names the metadata and the scopes.
//   - ResourceServer.Metadata serves the protected resource metadata
//     (RFC 9728) through which a client finds the authorization server.
//   - IdentityFrom reads the verified Identity (subject, client, scopes,
//     expiry, audience, claims) from a request's context, and so from the
//     context of every JSON-RPC method or MCP tool the request carries;
//     RequireScopes checks a tool's own scopes, its *ScopeError being
//     what Challenge turns into a 403 step-up.
//   - A Verifier turns a token into an Identity: Introspector asks the
//     authorization server (RFC 7662), with a bounded cache; package
//     auth/jwt's Verifier checks JWT access tokens (RFC 9068) against the
//     authorization server's key set, found through its metadata
//     (RFC 8414), with go-jose.
//
// Package auth depends on the standard library alone, so that package
// mcp can read a call's identity without growing a stdio server's
// dependencies; auth/jwt holds the JOSE library.
//
// Tokens are never logged, never put in an error's text, and never
// passed on. See docs/auth.md.
package auth
