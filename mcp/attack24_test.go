package mcp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/mcp"
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
