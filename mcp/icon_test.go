package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// gallery has a tool with icons.
type gallery struct{}

// Paint paints.
func (gallery) Paint() string { return "painted" }

func (gallery) ToolIcons() map[string][]mcp.Icon {
	return map[string][]mcp.Icon{"Paint": {{Src: "https://example.com/brush.svg", MIMEType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"}}}
}

// sketches has a prompt with icons.
type sketches struct{}

// Sketch is a prompt.
func (sketches) Sketch() string { return "sketch" }

func (sketches) PromptIcons() map[string][]mcp.Icon {
	return map[string][]mcp.Icon{"Sketch": {{Src: "data:image/png;base64,iVBORw0KGgo="}}}
}

// newGallery is a Server whose implementation, tool, prompt, resource and
// template have icons.
func newGallery(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "gallery", Version: "1", Title: "Gallery", Description: "Paints.",
		WebsiteURL: "https://example.com", Icons: []mcp.Icon{{Src: "https://example.com/g.png", Sizes: []string{"48x48", "96x96"}}}})
	require.NoError(t, s.Register("", gallery{}))
	require.NoError(t, s.RegisterPrompts("", sketches{}))
	icon := []mcp.Icon{{Src: "https://example.com/frame.png", Theme: "light"}}
	require.NoError(t, s.AddResources(mcp.Resource{URI: "art://one", Name: "one", Read: read("1"), Icons: icon},
		mcp.Resource{Template: "art://{n}", Name: "any", Read: read("n"), Icons: icon}))
	return s
}

// Icons, the server's description and websiteUrl are sent in 2025-11-25
// and 2026-07-28, where the protocol has them, and in no earlier
// revision.
func TestIcons(t *testing.T) {
	const (
		serverIcons = `"description":"Paints.","websiteUrl":"https://example.com","icons":[{"src":"https://example.com/g.png","sizes":["48x48","96x96"]}]`
		toolIcons   = `"icons":[{"src":"https://example.com/brush.svg","mimeType":"image/svg+xml","sizes":["any"],"theme":"dark"}]`
		frame       = `"icons":[{"src":"https://example.com/frame.png","theme":"light"}]`
	)
	wiretest.Serve(t, newGallery(t).Handler(), `
		--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"gallery","title":"Gallery","version":"1",`+serverIcons+`}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"paint","inputSchema":{"type":"object","additionalProperties":false},`+toolIcons+`}]},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"prompts/list"}
		<-- {"jsonrpc":"2.0","result":{"prompts":[{"name":"sketch","icons":[{"src":"data:image/png;base64,iVBORw0KGgo="}]}]},"id":3}
		--> {"jsonrpc":"2.0","id":4,"method":"resources/list"}
		<-- {"jsonrpc":"2.0","result":{"resources":[{"uri":"art://one","name":"one",`+frame+`}]},"id":4}
		--> {"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}
		<-- {"jsonrpc":"2.0","result":{"resourceTemplates":[{"uriTemplate":"art://{n}","name":"any",`+frame+`}]},"id":5}`, nil)
	wiretest.Serve(t, newGallery(t).Handler(), `
		--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"gallery","title":"Gallery","version":"1"}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"paint","inputSchema":{"type":"object","additionalProperties":false}}]},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"prompts/list"}
		<-- {"jsonrpc":"2.0","result":{"prompts":[{"name":"sketch"}]},"id":3}
		--> {"jsonrpc":"2.0","id":4,"method":"resources/list"}
		<-- {"jsonrpc":"2.0","result":{"resources":[{"uri":"art://one","name":"one"}]},"id":4}`, nil)
	wiretest.Serve(t, newGallery(t).Handler(), `
		--> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMeta+`}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","tools":[{"name":"paint","inputSchema":{"type":"object","additionalProperties":false},`+toolIcons+`}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gallery","title":"Gallery","version":"1",`+serverIcons+`}}},"id":2}`, nil)
}

type badIcons struct{ icons map[string][]mcp.Icon }

func (badIcons) Run() string                        { return "" }
func (b badIcons) ToolIcons() map[string][]mcp.Icon { return b.icons }

// Icons that are not valid are refused at registration (New panics for
// the server's own), and no tool is added.
func TestIconsRefused(t *testing.T) {
	for _, c := range []struct {
		icons map[string][]mcp.Icon
		want  string
	}{
		{map[string][]mcp.Icon{"Walk": {{Src: "https://example.com/a.png"}}}, `mcp: ToolIcons gives icons to "Walk", which is not a tool of mcp_test.badIcons`},
		{map[string][]mcp.Icon{"Run": {{Src: "javascript:alert(1)"}}}, `mcp: icon 0 of Run: src "javascript:alert(1)" is neither an https URL nor a data: URI`},
		{map[string][]mcp.Icon{"Run": {{Src: "http://example.com/a.png"}}}, `mcp: icon 0 of Run: src "http://example.com/a.png" is not https`},
		{map[string][]mcp.Icon{"Run": {{Src: "data:text/html,<script>"}}}, `mcp: icon 0 of Run: src is a data: URI of no image`},
		{map[string][]mcp.Icon{"Run": {{Src: ""}}}, `mcp: icon 0 of Run: src "" is neither an https URL nor a data: URI`},
		{map[string][]mcp.Icon{"Run": {{Src: "https://example.com/a.png", Theme: "blue"}}}, `mcp: icon 0 of Run: theme "blue" is neither light nor dark`},
		{map[string][]mcp.Icon{"Run": {{Src: "https://example.com/a.png", Sizes: []string{"48 x 48"}}}}, `mcp: icon 0 of Run: size "48 x 48" is not WxH or any`},
	} {
		s := mcp.New(nil)
		err := s.Register("", badIcons{c.icons})
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
		assert.Empty(t, s.Tools())
	}
	s := mcp.New(nil)
	require.NoError(t, s.Register("", badIcons{map[string][]mcp.Icon{"Run": {{Src: "http://127.0.0.1:8080/a.png"}}}}), "http on loopback")
	assert.Equal(t, []string{"run"}, s.Tools(), "ToolIcons is not a tool")
	assert.PanicsWithValue(t, `mcp: icon 0 of the server: theme "x" is neither light nor dark`, func() {
		mcp.New(&mcp.Options{Icons: []mcp.Icon{{Src: "https://example.com/a.png", Theme: "x"}}})
	})
	assert.PanicsWithValue(t, `mcp: Options.WebsiteURL "example.com" is not an absolute http(s) URL`, func() {
		mcp.New(&mcp.Options{WebsiteURL: "example.com"})
	})
	err := mcp.New(nil).AddResources(mcp.Resource{URI: "a://b", Name: "b", Read: read(""), Icons: []mcp.Icon{{Src: "ftp://x/y"}}})
	assert.EqualError(t, err, `mcp: icon 0 of resource a://b: src "ftp://x/y" is not https`)
}
