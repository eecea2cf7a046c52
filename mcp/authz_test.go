package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// vault has a tool anyone may call, one that needs a scope and one that
// needs two.
type vault struct{}

// Peek needs no scope of its own.
func (vault) Peek() string { return "peek" }

// OpenArgs are Open's arguments.
type OpenArgs struct {
	Code int `json:"code" validate:"required"`
}

// Open needs vault:open.
func (vault) Open(p OpenArgs) string { return "open" }

// Wipe needs vault:open and vault:admin.
func (vault) Wipe() string { return "wiped" }

func (vault) ToolScopes() map[string][]string {
	return map[string][]string{"Open": {"vault:open"}, "Wipe": {"vault:open", "vault:admin", "vault:open"}}
}

const (
	scopedResource = "https://mcp.example.com/mcp"
	scopedMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// tokenOf is a bearer token of alice's whose identity has scopes, for
// scopeTokens.
func tokenOf(scopes ...string) string { return tokenFor("alice", "a", scopes...) }

// tokenFor is a bearer token of subject, of the authorization server iss
// ("a" or "b"), whose identity has scopes.
func tokenFor(subject, iss string, scopes ...string) string {
	return subject + "." + iss + "." + strings.NewReplacer(":", "-").Replace(strings.Join(scopes, "."))
}

// scopeTokens verifies the tokens tokenFor makes, for scopedResource.
var scopeTokens = auth.VerifierFunc(func(_ context.Context, token string) (*auth.Identity, error) {
	parts := strings.Split(strings.ReplaceAll(token, "-", ":"), ".")
	if len(parts) < 3 {
		return nil, auth.ErrInvalidToken
	}
	var scopes []string
	if len(parts) > 3 || parts[2] != "" {
		scopes = parts[2:]
	}
	return &auth.Identity{Subject: parts[0], Issuer: "https://" + parts[1] + ".example.com", Scopes: scopes, Audience: []string{scopedResource}}, nil
})

// protectedVault serves s over Streamable HTTP behind a resource server
// whose every request needs the scope mcp.
func protectedVault(t *testing.T, s *mcp.Server) string {
	t.Helper()
	rs, err := auth.NewResourceServer(&auth.Options{Resource: scopedResource, AuthorizationServers: []string{"https://auth.example.com"},
		Verifier: scopeTokens, Scopes: []string{"mcp"}, Logger: wiretest.Quiet()})
	require.NoError(t, err)
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(rs.Require(h))
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	return srv.URL
}

func newVault(t *testing.T, opts *mcp.Options) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.Options{}
	}
	opts.Name, opts.Version = "vault", "1"
	s := mcp.New(opts)
	require.NoError(t, s.Register("", vault{}))
	return s
}

// modernCall is a 2026-07-28 tools/call of name with args, and its
// headers with token.
func modernCall(name, args, token string) (string, map[string]string) {
	h := modernHeaders("tools/call", name)
	h["Accept"] = "application/json"
	h["Authorization"] = "Bearer " + token
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + modernMeta + `}}`, h
}

// modernText is the answer of a modern call whose result is text.
func modernText(text string) string {
	return `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"` + text +
		`"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":7}` + "\n"
}

// stepUp is the challenge of a 403 for want.
func stepUp(want string) string {
	return `Bearer resource_metadata="` + scopedMetadata + `", scope="` + want +
		`", error="insufficient_scope", error_description="the access token lacks a scope this operation needs"`
}

// A tool's scopes are checked before its arguments are bound: a token
// without one is answered 403 with the step-up challenge naming every
// scope the call needs (the request's and the tool's), an empty body, in
// a 2026-07-28 request and in a legacy session; with them, the call runs.
func TestToolScopesOverHTTP(t *testing.T) {
	url := protectedVault(t, newVault(t, nil))
	for _, c := range []struct {
		name, args string
		token      string
		status     int
		challenge  string
		want       string
	}{
		{"open", `{}`, tokenOf("mcp"), 403, stepUp("mcp vault:open"), ""}, // before binding: no -32602 for the missing code
		{"open", `{"code":1}`, tokenOf("mcp", "vault:admin"), 403, stepUp("mcp vault:open"), ""},
		{"open", `{"code":1}`, tokenOf("mcp", "vault:open"), 200, "", modernText("open")},
		{"wipe", `{}`, tokenOf("mcp", "vault:open"), 403, stepUp("mcp vault:admin vault:open"), ""},
		{"wipe", `{}`, tokenOf("vault:open", "mcp", "vault:admin"), 200, "", modernText("wiped")},
		{"peek", `{}`, tokenOf("mcp"), 200, "", modernText("peek")},
		{"open", `{"code":1}`, tokenOf("vault:open"), 403, strings.Replace(stepUp("mcp"), "operation", "resource", 1), ""}, // Require's own, for mcp
	} {
		body, header := modernCall(c.name, c.args, c.token)
		check(t, url, exchange{body: body, header: header, status: c.status, want: c.want, got: map[string]string{"WWW-Authenticate": c.challenge}})
	}

	token := "Bearer " + tokenOf("mcp")
	resp, _ := do(t, url, exchange{body: initBody, header: map[string]string{"Authorization": token}})
	require.Equal(t, 200, resp.StatusCode)
	legacy := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25",
		"Authorization": token, "Accept": "application/json"}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: legacy, status: 202})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"op\u0065n","arguments":{"code":1}}}`,
		header: legacy, status: 403, got: map[string]string{"WWW-Authenticate": stepUp("mcp vault:open")}})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"peek"}}`, header: legacy, status: 200,
		want: `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"peek"}]},"id":4}` + "\n"})
}

// batchSession opens a 2025-03-26 session (whose requests may be batches)
// at url with token, and returns the headers of its requests.
func batchSession(t *testing.T, url, token string) map[string]string {
	t.Helper()
	resp, _ := do(t, url, exchange{body: strings.Replace(initBody, "2025-11-25", "2025-03-26", 1), header: map[string]string{"Authorization": "Bearer " + token}})
	require.Equal(t, 200, resp.StatusCode)
	session := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-03-26",
		"Authorization": "Bearer " + token, "Accept": "application/json"}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: session, status: 202})
	return session
}

// A call that cannot be answered 403, one of a batch (2025-03-26), is the
// tool's error result, its text naming the scopes; the other calls of
// the batch run.
func TestToolScopesInABatch(t *testing.T) {
	url := protectedVault(t, newVault(t, nil))
	session := batchSession(t, url, tokenOf("mcp"))
	check(t, url, exchange{body: `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"peek"}}]`, header: session, status: 200,
		want: `[{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Insufficient scope: tool open needs the scope vault:open, and the access token lacks vault:open"}],"isError":true},"id":1},` +
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"peek"}]},"id":2}]` + "\n"})
}

// Over stdio there is no verified identity, and so nothing to check: a
// scoped tool runs (MCP leaves a stdio server's authorization to its
// environment).
func TestToolScopesOverStdio(t *testing.T) {
	wiretest.Serve(t, newVault(t, nil).Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"wipe",`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"wiped"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":1}`, nil)
}

// toolsOf lists the tools of a modern tools/list with token, as a client
// reads them: each name and the scopes its _meta.securitySchemes name.
func toolsOf(t *testing.T, url, token string) map[string][]string {
	t.Helper()
	h := modernHeaders("tools/list", "")
	h["Accept"], h["Authorization"] = "application/json", "Bearer "+token
	resp, body := do(t, url, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`, header: h})
	require.Equal(t, 200, resp.StatusCode, body)
	var answer struct {
		Result struct {
			Tools []struct {
				Name string
				Meta *struct {
					SecuritySchemes []struct {
						Type   string
						Scopes []string
					}
				} `json:"_meta"`
			}
			CacheScope string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &answer))
	tools := map[string][]string{}
	for _, tool := range answer.Result.Tools {
		tools[tool.Name] = nil
		if tool.Meta != nil {
			require.Len(t, tool.Meta.SecuritySchemes, 1)
			require.Equal(t, "oauth2", tool.Meta.SecuritySchemes[0].Type)
			tools[tool.Name] = tool.Meta.SecuritySchemes[0].Scopes
		}
	}
	tools["(cacheScope)"] = []string{answer.Result.CacheScope}
	return tools
}

// Every scope a tool announces in tools/list is refused without it and
// accepted with it, read from the list as a client reads it: each tool,
// called with a token that has every scope it announces but one, is
// answered 403 naming that one; with them all, it runs.
func TestEveryAnnouncedScopeIsEnforced(t *testing.T) {
	s := newVault(t, nil)
	url := protectedVault(t, s)
	tools := toolsOf(t, url, tokenOf("mcp"))
	assert.Equal(t, map[string][]string{"open": {"vault:open"}, "peek": nil, "wipe": {"vault:admin", "vault:open"}, "(cacheScope)": {"public"}}, tools)
	args := map[string]string{"open": `{"code":1}`}
	announced := 0
	for name, scopes := range tools {
		if name == "(cacheScope)" {
			continue
		}
		for _, without := range scopes {
			announced++
			others := slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == without })
			body, header := modernCall(name, cmpOr(args[name], `{}`), tokenOf(append(others, "mcp")...))
			resp, _ := do(t, url, exchange{body: body, header: header})
			assert.Equal(t, 403, resp.StatusCode, "%s without %s", name, without)
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), without, "%s without %s", name, without)
		}
		body, header := modernCall(name, cmpOr(args[name], `{}`), tokenOf(append(scopes, "mcp")...))
		resp, _ := do(t, url, exchange{body: body, header: header})
		assert.Equal(t, 200, resp.StatusCode, "%s with %v", name, scopes)
	}
	assert.Equal(t, 3, announced)
	assert.Equal(t, []string{"vault:admin", "vault:open"}, s.Scopes())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// With FilterByScope, tools/list lists what the token may call, and the
// answer is private to it; a tool left out is still answered 403, for
// step-up.
func TestFilterByScope(t *testing.T) {
	url := protectedVault(t, newVault(t, &mcp.Options{FilterByScope: true}))
	assert.Equal(t, map[string][]string{"peek": nil, "(cacheScope)": {"private"}}, toolsOf(t, url, tokenOf("mcp")))
	assert.Equal(t, map[string][]string{"peek": nil, "open": {"vault:open"}, "(cacheScope)": {"private"}}, toolsOf(t, url, tokenOf("mcp", "vault:open")))
	assert.Len(t, toolsOf(t, url, tokenOf("mcp", "vault:open", "vault:admin")), 4)
	body, header := modernCall("wipe", `{}`, tokenOf("mcp"))
	check(t, url, exchange{body: body, header: header, status: 403, got: map[string]string{"WWW-Authenticate": stepUp("mcp vault:admin vault:open")}})
}

// Scopes are published in 2025-06-18 and later, where a tool has _meta;
// an earlier revision's entry has none.
func TestToolScopesPublished(t *testing.T) {
	wiretest.Serve(t, newVault(t, nil).Handler(), `
		--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-03-26","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"vault","version":"1"}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"open","inputSchema":{"type":"object","properties":{"code":{"type":"integer","not":{"const":0}}},"required":["code"],"additionalProperties":false}},{"name":"peek","inputSchema":{"type":"object","additionalProperties":false}},{"name":"wipe","inputSchema":{"type":"object","additionalProperties":false}}]},"id":2}`, nil)
	wiretest.Serve(t, newVault(t, nil).Handler(), `
		--> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","tools":[{"name":"open","inputSchema":{"type":"object","properties":{"code":{"type":"integer","not":{"const":0}}},"required":["code"],"additionalProperties":false},"_meta":{"securitySchemes":[{"type":"oauth2","scopes":["vault:open"]}]}},{"name":"peek","inputSchema":{"type":"object","additionalProperties":false}},{"name":"wipe","inputSchema":{"type":"object","additionalProperties":false},"_meta":{"securitySchemes":[{"type":"oauth2","scopes":["vault:admin","vault:open"]}]}}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"vault","version":"1"}}},"id":2}`, nil)
}

type badScopes struct{ scopes map[string][]string }

func (badScopes) Run() string                       { return "" }
func (b badScopes) ToolScopes() map[string][]string { return b.scopes }

type panickyScopes struct{}

func (panickyScopes) Run() string                     { return "" }
func (panickyScopes) ToolScopes() map[string][]string { panic("no") }

// Registration refuses scopes that name no tool, or that are not
// scope-tokens, and a ToolScopes that panics; it adds no tool then.
func TestToolScopesRefused(t *testing.T) {
	for _, c := range []struct {
		value any
		want  string
	}{
		{badScopes{map[string][]string{"Walk": {"a"}}}, `mcp: ToolScopes gives scopes to "Walk", which is not a tool of mcp_test.badScopes`},
		{badScopes{map[string][]string{"Run": {"a b"}}}, `mcp: ToolScopes gives Run the scope "a b", which is not a scope-token (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
		{badScopes{map[string][]string{"Run": {""}}}, `mcp: ToolScopes gives Run the scope "", which is not a scope-token (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
		{badScopes{map[string][]string{"Run": {`a"`}}}, `mcp: ToolScopes gives Run the scope "a\"", which is not a scope-token (RFC 6749 §3.3: printable ASCII, no space, '"' or '\')`},
		{panickyScopes{}, `mcp: mcp_test.panickyScopes.ToolScopes panicked: no`},
	} {
		s := mcp.New(nil)
		err := s.Register("", c.value)
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
		assert.Empty(t, s.Tools())
	}
	s := mcp.New(nil)
	require.NoError(t, s.Register("", badScopes{}))
	assert.Equal(t, []string{"run"}, s.Tools(), "ToolScopes is not a tool")
	assert.Empty(t, s.Scopes())
}

// confirmer has a tool that asks the client first (2026-07-28: an
// input_required answer with a requestState).
type confirmer struct{}

// Confirm asks first, then says what came back.
func (confirmer) Confirm(ctx context.Context) (string, error) {
	if state, ok := mcp.RequestState(ctx); ok {
		return "confirmed " + state, nil
	}
	return "", &mcp.InputRequired{State: "st-1"}
}

// A legacy session belongs to the principal that opened it (its token's
// issuer and subject): presented with another's token it is no session
// (404, as one unknown), for a POST, a GET and a DELETE alike, and it
// lives on for its own, whose token may change (a refresh, a step-up).
func TestSessionsBelongToTheirPrincipal(t *testing.T) {
	url := protectedVault(t, newVault(t, nil))
	alice := "Bearer " + tokenFor("alice", "a", "mcp")
	resp, _ := do(t, url, exchange{body: initBody, header: map[string]string{"Authorization": alice}})
	require.Equal(t, 200, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	session := func(token string) map[string]string {
		return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Authorization": token, "Accept": "application/json"}
	}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: session(alice), status: 202})
	unknown := invalid("no such session: initialize opens a new one")
	for _, other := range []string{tokenFor("bob", "a", "mcp"), tokenFor("alice", "b", "mcp")} {
		check(t, url, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"peek"}}`, header: session("Bearer " + other), status: 404, want: unknown})
		get := session("Bearer " + other)
		get["Accept"] = "text/event-stream"
		check(t, url, exchange{method: "GET", header: get, status: 404, want: unknown})
		check(t, url, exchange{method: "DELETE", header: session("Bearer " + other), status: 404, want: unknown})
	}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"open","arguments":{"code":1}}}`,
		header: session("Bearer " + tokenFor("alice", "a", "mcp", "vault:open")), status: 200,
		want: `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"open"}]},"id":3}` + "\n"})
	check(t, url, exchange{method: "DELETE", header: session(alice), status: 204})
}

// A 2026-07-28 requestState is bound to the principal of the call that
// got it: a retry with another principal's token is refused -32602, and
// with the same principal's it runs.
func TestRequestStateBelongsToItsPrincipal(t *testing.T) {
	s := newVault(t, nil)
	require.NoError(t, s.Register("", confirmer{}))
	url := protectedVault(t, s)
	body, header := modernCall("confirm", `{}`, tokenFor("alice", "a", "mcp"))
	resp, answer := do(t, url, exchange{body: body, header: header})
	require.Equal(t, 200, resp.StatusCode)
	var first struct {
		Result struct {
			ResultType   string
			RequestState string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(answer), &first), answer)
	require.Equal(t, "input_required", first.Result.ResultType)
	require.NotEmpty(t, first.Result.RequestState)
	retry := strings.Replace(body, `"arguments":{}`, `"arguments":{},"requestState":`+quote(first.Result.RequestState), 1)
	refused := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"requestState","rule":"requestState","message":"requestState is not one this server sent for this call, or it expired: call again without it"}]},"id":7}` + "\n"
	for _, other := range []string{tokenFor("bob", "a", "mcp"), tokenFor("alice", "b", "mcp")} {
		_, header := modernCall("confirm", `{}`, other)
		check(t, url, exchange{body: retry, header: header, status: 200, want: refused})
	}
	_, header = modernCall("confirm", `{}`, tokenFor("alice", "a", "mcp", "vault:open"))
	check(t, url, exchange{body: retry, header: header, status: 200, want: modernText("confirmed st-1")})
}

// ledger has prompts, one of which needs a scope.
type ledger struct{}

// Summary needs no scope.
func (ledger) Summary() string { return "summary" }

// Audit needs ledger:audit.
func (ledger) Audit() string { return "audit" }

func (ledger) PromptScopes() map[string][]string {
	return map[string][]string{"Audit": {"ledger:audit"}}
}

// ledgerServer has the ledger's prompts and a resource and a template
// that need ledger:read.
func ledgerServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "vault", Version: "1"})
	require.NoError(t, s.RegisterPrompts("", ledger{}))
	read := read("rows")
	require.NoError(t, s.AddResources(
		mcp.Resource{URI: "ledger://all", Name: "all", Read: read, Scopes: []string{"ledger:read"}},
		mcp.Resource{Template: "ledger://day/{day}", Name: "day", Read: read, Scopes: []string{"ledger:read", "ledger:read"}},
		mcp.Resource{URI: "ledger://about", Name: "about", Read: read}))
	return s
}

// A prompt's and a resource's scopes are published and checked as a
// tool's: 403 and the step-up challenge over HTTP, before anything runs;
// InsufficientScope (403) for one request of a batch.
func TestPromptAndResourceScopes(t *testing.T) {
	s := ledgerServer(t)
	assert.Equal(t, []string{"ledger:audit", "ledger:read"}, s.Scopes())
	url := protectedVault(t, s)
	modern := func(method, name, params, token string) (string, map[string]string) {
		h := modernHeaders(method, name)
		h["Accept"], h["Authorization"] = "application/json", "Bearer "+token
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + `,` + modernMeta + `}}`, h
	}
	for _, c := range []struct {
		method, name, params string
		token                string
		status               int
		challenge            string
	}{
		{"prompts/get", "audit", `"name":"audit"`, tokenOf("mcp"), 403, stepUp("mcp ledger:audit")},
		{"prompts/get", "audit", `"name":"audit"`, tokenOf("mcp", "ledger:audit"), 200, ""},
		{"prompts/get", "summary", `"name":"summary"`, tokenOf("mcp"), 200, ""},
		{"resources/read", "ledger://all", `"uri":"ledger://all"`, tokenOf("mcp"), 403, stepUp("mcp ledger:read")},
		{"resources/read", "ledger://day/2", `"uri":"ledger://day/2"`, tokenOf("mcp", "ledger:audit"), 403, stepUp("mcp ledger:read")},
		{"resources/read", "ledger://day/2", `"uri":"ledger://day/2"`, tokenOf("mcp", "ledger:read"), 200, ""},
		{"resources/read", "ledger://about", `"uri":"ledger://about"`, tokenOf("mcp"), 200, ""},
	} {
		body, header := modern(c.method, c.name, c.params, c.token)
		resp, answer := do(t, url, exchange{body: body, header: header})
		assert.Equal(t, c.status, resp.StatusCode, "%s %s", c.method, c.name)
		assert.Equal(t, c.challenge, resp.Header.Get("WWW-Authenticate"), "%s %s", c.method, c.name)
		if c.status == 403 {
			assert.Empty(t, answer)
		} else {
			assert.Contains(t, answer, `"result"`)
		}
	}

	body, header := modern("prompts/list", "", `"_":0`, tokenOf("mcp"))
	_, answer := do(t, url, exchange{body: strings.Replace(body, `"_":0,`, "", 1), header: header})
	assert.Contains(t, answer, `{"name":"audit","_meta":{"securitySchemes":[{"type":"oauth2","scopes":["ledger:audit"]}]}}`)
	assert.Contains(t, answer, `{"name":"summary"}`)
	body, header = modern("resources/list", "", `"_":0`, tokenOf("mcp"))
	_, answer = do(t, url, exchange{body: strings.Replace(body, `"_":0,`, "", 1), header: header})
	assert.Contains(t, answer, `{"uri":"ledger://all","name":"all","_meta":{"securitySchemes":[{"type":"oauth2","scopes":["ledger:read"]}]}}`)
	assert.Contains(t, answer, `{"uri":"ledger://about","name":"about"}`)

	session := batchSession(t, url, tokenOf("mcp"))
	check(t, url, exchange{body: `[{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"audit"}},` +
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"ledger://all"}}]`, header: session, status: 200,
		want: `[{"jsonrpc":"2.0","error":{"code":403,"message":"Insufficient scope: prompt audit needs the scope ledger:audit, and the access token lacks ledger:audit","data":{"missing":["ledger:audit"],"scopes":["ledger:audit"]}},"id":1},` +
			`{"jsonrpc":"2.0","error":{"code":403,"message":"Insufficient scope: resource ledger://all needs the scope ledger:read, and the access token lacks ledger:read","data":{"missing":["ledger:read"],"scopes":["ledger:read"]}},"id":2}]` + "\n"})
}

// Two instances of one server, behind one load balancer, with the same
// StateKeys: a 2026-07-28 retry answered by the other instance than the
// one that asked reaches the tool with its state.
func TestRetryOnAnotherInstance(t *testing.T) {
	keys := [][]byte{[]byte("0123456789abcdef0123456789abcdef")}
	var urls []string
	for range 2 {
		s := mcp.New(&mcp.Options{Name: "vault", Version: "1", StateKeys: keys})
		require.NoError(t, s.Register("", confirmer{}))
		urls = append(urls, protectedVault(t, s))
	}
	body, header := modernCall("confirm", `{}`, tokenFor("alice", "a", "mcp"))
	resp, answer := do(t, urls[0], exchange{body: body, header: header})
	require.Equal(t, 200, resp.StatusCode)
	var first struct{ Result struct{ RequestState string } }
	require.NoError(t, json.Unmarshal([]byte(answer), &first), answer)
	require.NotEmpty(t, first.Result.RequestState)
	retry := strings.Replace(body, `"arguments":{}`, `"arguments":{},"requestState":`+quote(first.Result.RequestState), 1)
	check(t, urls[1], exchange{body: retry, header: header, status: 200, want: modernText("confirmed st-1")})
}
