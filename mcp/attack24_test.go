package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// modernRequest is a 2026-07-28 request of method (name: its Mcp-Name)
// with params (members, no braces), and its headers with token.
func modernRequest(method, name, params, token string) (string, map[string]string) {
	h := modernHeaders(method, name)
	h["Accept"], h["Authorization"] = "application/json", "Bearer "+token
	return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + `,` + modernMeta + `}}`, h
}

// tables has a static resource that needs hr, a template that needs it,
// and templates that need nothing and whose URIs are spelled as theirs
// can be, with a percent-escape.
func tables(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "vault", Version: "1"})
	echo := func(_ context.Context, _ string, vars map[string]string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "read " + vars["name"] + vars["path"]}}, nil
	}
	require.NoError(t, s.AddResources(
		mcp.Resource{URI: "db://tables/salaries", Name: "salaries", Read: read("SALARIES"), Scopes: []string{"hr"}},
		mcp.Resource{Template: "db://tables/{name}", Name: "table", Read: echo},
		mcp.Resource{Template: "db://secret/{name}", Name: "secret", Read: read("SECRET"), Scopes: []string{"hr"}},
		mcp.Resource{Template: "db://{+path}", Name: "any", Read: echo}))
	return s
}

// A URI that percent-escapes an unreserved character is the URI without
// the escape (RFC 3986 §6.2.2.2): it names the same resource, and needs
// its scopes, rather than reaching another that needs none.
func TestAttack24PercentEscapedURIs(t *testing.T) {
	url := protectedVault(t, tables(t))
	for _, uri := range []string{"db://tables/salaries", "db://tables/%73alaries", "db://tables/%73%61laries", "db://%73ecret/x", "db://secre%74/x", "db://%53ecret/x"} {
		body, header := modernRequest("resources/read", uri, `"uri":`+quote(uri), tokenOf("mcp"))
		resp, answer := do(t, url, exchange{body: body, header: header})
		if uri == "db://%53ecret/x" { // another resource's: "S" is not "s"
			assert.Equal(t, 200, resp.StatusCode, uri)
			continue
		}
		assert.Equal(t, 403, resp.StatusCode, uri)
		assert.Equal(t, stepUp("mcp hr"), resp.Header.Get("WWW-Authenticate"), uri)
		assert.Empty(t, answer, uri)
	}
	// With the scope, the escaped URI is read as the resource it names,
	// its contents under the URI asked for.
	uri := "db://tables/%73alaries"
	body, header := modernRequest("resources/read", uri, `"uri":`+quote(uri), tokenOf("mcp", "hr"))
	check(t, url, exchange{body: body, header: header, status: 200,
		want: `{"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"db://tables/%73alaries","text":"SALARIES"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":7}` + "\n"})
	// A reserved character's escape is not the character: %2F is no "/".
	uri = "db://tables/a%2Fb"
	body, header = modernRequest("resources/read", uri, `"uri":`+quote(uri), tokenOf("mcp"))
	check(t, url, exchange{body: body, header: header, status: 200,
		want: `{"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"db://tables/a%2Fb","text":"read a/b"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":7}` + "\n"})
}

// board has a prompt that needs hr, whose argument is completed.
type board struct{}

// Review needs hr.
func (board) Review(p struct {
	Account string `json:"account"`
}) string {
	return "review " + p.Account
}

func (board) PromptScopes() map[string][]string { return map[string][]string{"Review": {"hr"}} }

// Completing an argument of a prompt, or a variable of a template, that
// needs a scope needs it too: the values may be what the scope guards
// (the accounts, the tables). 403 and the step-up challenge over HTTP,
// before the CompletionFunc runs; InsufficientScope in a batch.
func TestAttack24CompletionNeedsTheScopes(t *testing.T) {
	s := tables(t)
	require.NoError(t, s.RegisterPrompts("", board{}))
	var completed []string
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		completed = append(completed, req.Prompt+req.Template)
		return []string{"acme"}, nil
	})
	url := protectedVault(t, s)
	values := `{"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":["acme"],"total":1,"hasMore":false},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":7}` + "\n"
	for _, c := range []struct {
		ref, argument, token string
		status               int
		want                 string
	}{
		{`{"type":"ref/prompt","name":"review"}`, "account", tokenOf("mcp"), 403, ""},
		{`{"type":"ref/prompt","name":"rev\u0069ew"}`, "account", tokenOf("mcp"), 403, ""},
		{`{"type":"ref/resource","uri":"db://secret/{name}"}`, "name", tokenOf("mcp"), 403, ""},
		{`{"type":"ref/prompt","name":"review"}`, "account", tokenOf("mcp", "hr"), 200, values},
		{`{"type":"ref/resource","uri":"db://secret/{name}"}`, "name", tokenOf("mcp", "hr"), 200, values},
		{`{"type":"ref/resource","uri":"db://tables/{name}"}`, "name", tokenOf("mcp"), 200, values},
	} {
		body, header := modernRequest("completion/complete", "", `"ref":`+c.ref+`,"argument":{"name":"`+c.argument+`","value":"a"}`, c.token)
		challenge := ""
		if c.status == 403 {
			challenge = stepUp("mcp hr")
		}
		check(t, url, exchange{body: body, header: header, status: c.status, want: c.want, got: map[string]string{"WWW-Authenticate": challenge}})
	}
	assert.Equal(t, []string{"review", "db://secret/{name}", "db://tables/{name}"}, completed)

	session := batchSession(t, url, tokenOf("mcp"))
	check(t, url, exchange{body: `[{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"account","value":"a"}}}]`,
		header: session, status: 200,
		want: `[{"jsonrpc":"2.0","error":{"code":403,"message":"Insufficient scope: prompt review needs the scope hr, and the access token lacks hr","data":{"missing":["hr"],"scopes":["hr"]}},"id":1}]` + "\n"})
	assert.Len(t, completed, 3)
}

// identities are the principals of TestAttack24PrincipalsApart, by token.
var identities = map[string]*auth.Identity{
	"c1":    {ClientID: "client-1"}, // no subject nor issuer: an introspection response need not have them
	"c2":    {ClientID: "client-2"},
	"nul-a": {Issuer: "i\x00s", Subject: "u"},
	"nul-b": {Issuer: "i", Subject: "s\x00u"},
}

// Principals whose issuer, subject and client make different strings are
// different, however those are written: two clients' tokens without a
// subject, an issuer and subject that run together. One's legacy session
// is another's 404.
func TestAttack24PrincipalsApart(t *testing.T) {
	rs, err := auth.NewResourceServer(&auth.Options{Resource: scopedResource, AuthorizationServers: []string{"https://auth.example.com"},
		Verifier: auth.VerifierFunc(func(_ context.Context, token string) (*auth.Identity, error) {
			id := *identities[token]
			id.Audience = []string{scopedResource}
			return &id, nil
		}), Logger: wiretest.Quiet()})
	require.NoError(t, err)
	h := newVault(t, nil).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(rs.Require(h))
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	for _, pair := range [][2]string{{"c1", "c2"}, {"nul-a", "nul-b"}} {
		resp, _ := do(t, srv.URL, exchange{body: initBody, header: map[string]string{"Authorization": "Bearer " + pair[0]}})
		require.Equal(t, 200, resp.StatusCode)
		session := func(token string) map[string]string {
			return map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25",
				"Authorization": "Bearer " + token, "Accept": "application/json"}
		}
		check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"peek"}}`, header: session(pair[1]),
			status: 404, want: invalid("no such session: initialize opens a new one")})
		check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"peek"}}`, header: session(pair[0]),
			status: 200, want: `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"peek"}]},"id":2}` + "\n"})
	}
}

// ran counts the runs of guarded's Secret.
var ran atomic.Int64

// guarded has a tool that needs g:secret, which counts its runs, and one
// that needs nothing.
type guarded struct{}

// Secret needs g:secret.
func (guarded) Secret() string { ran.Add(1); return "secret" }

// Free needs nothing.
func (guarded) Free() string { return "free" }

func (guarded) ToolScopes() map[string][]string { return map[string][]string{"Secret": {"g:secret"}} }

// What tries to reach a scoped tool without its scope is refused, and the
// tool never runs: a name with escapes, a member given twice (params,
// name, method: refuseScope reads the last, as the dispatcher does), a
// name the Mcp-Name header disagrees with, a notification (no id), a
// batch of a 2025-03-26 session, a session opened with a token that had
// the scope, and a handler served both behind Require and without it.
func TestAttack24Refused(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "vault", Version: "1"})
	require.NoError(t, s.Register("", guarded{}))
	rs, err := auth.NewResourceServer(&auth.Options{Resource: scopedResource, AuthorizationServers: []string{"https://auth.example.com"},
		Verifier: scopeTokens, Scopes: []string{"mcp"}, Logger: wiretest.Quiet()})
	require.NoError(t, err)
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", rs.Require(h))
	mux.Handle("/open", h) // the same handler, unprotected: its sessions are none of the protected one's
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	url := srv.URL + "/mcp"
	token := tokenOf("mcp")
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + params + `,` + modernMeta + `}}`
	}
	modern := func(name string) map[string]string {
		h := modernHeaders("tools/call", name)
		h["Accept"], h["Authorization"] = "application/json", "Bearer "+token
		return h
	}
	up := stepUp("mcp g:secret")
	mismatched := func(header string) string {
		return `{"jsonrpc":"2.0","error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value \"` + header + `\" does not match body value params.name"},"id":7}` + "\n"
	}
	for _, c := range []struct {
		body      string
		header    map[string]string
		status    int
		challenge string
		want      string
	}{
		{call(`"name":"secr\u0065t"`), modern("secret"), 403, up, ""},
		{call(`"name":"\u0073\u0065\u0063\u0072\u0065\u0074"`), modern("secret"), 403, up, ""},
		{call(`"name":"free","name":"secret"`), modern("secret"), 403, up, ""},
		{call(`"name":"free","name":"secret"`), modern("free"), 403, up, ""}, // the body's last name, before the header is compared
		{call(`"name":"secret","name":"free"`), modern("free"), 200, "", modernText("free")},
		{call(`"name":"secret","name":"free"`), modern("secret"), 400, "", mismatched("secret")},
		{call(`"name":"free"`), modern("secret"), 400, "", mismatched("secret")},
		{call(`"NAME":"secret"`), modern("secret"), 400, "", mismatched("secret")},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"free",` + modernMeta + `},"params":{"name":"secret",` + modernMeta + `}}`, modern("free"), 403, up, ""},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","method":"tools/list","params":{"name":"secret",` + modernMeta + `}}`, modern(""), 400, "",
			`{"jsonrpc":"2.0","error":{"code":-32020,"message":"Header mismatch: Mcp-Method header value \"tools/call\" does not match body value \"tools/list\""},"id":7}` + "\n"},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secret",` + modernMeta + `}}`, modern("secret"), 202, "", ""},
		{`[` + call(`"name":"secret"`) + `]`, modern("secret"), 200, "",
			`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2026-07-28 has no JSON-RPC batches: send each message on its own"}},"id":7}]` + "\n"},
	} {
		check(t, url, exchange{body: c.body, header: c.header, status: c.status, want: c.want, got: map[string]string{"WWW-Authenticate": c.challenge}})
	}

	// A 2025-03-26 session opened with a token that has g:secret, used
	// with its principal's token that has not: the call's token decides.
	resp, _ := do(t, url, exchange{body: strings.Replace(initBody, "2025-11-25", "2025-03-26", 1), header: map[string]string{"Authorization": "Bearer " + tokenOf("mcp", "g:secret")}})
	require.Equal(t, 200, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	session := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26", "Authorization": "Bearer " + token, "Accept": "application/json"}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: session, status: 202})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret"}}`, header: session, status: 403, got: map[string]string{"WWW-Authenticate": up}})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secret"}}`, header: session, status: 202})
	check(t, url, exchange{body: `[{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secret"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secret"}}]`,
		header: session, status: 200,
		want: `[{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Insufficient scope: tool secret needs the scope g:secret, and the access token lacks g:secret"}],"isError":true},"id":2}]` + "\n"})

	// The protected session is no session of the unprotected route, and
	// an unprotected one none of the protected route.
	unknown := invalid("no such session: initialize opens a new one")
	open := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26", "Accept": "application/json"}
	check(t, srv.URL+"/open", exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"secret"}}`, header: open, status: 404, want: unknown})
	resp, _ = do(t, srv.URL+"/open", exchange{body: initBody})
	require.Equal(t, 200, resp.StatusCode)
	session["Mcp-Session-Id"], session["Mcp-Protocol-Version"] = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"free"}}`, header: session, status: 404, want: unknown})
	assert.Zero(t, ran.Load(), "the scoped tool ran")
}
