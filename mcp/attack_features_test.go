package mcp_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// blocks returns one content block of each type.
type blocks struct{}

func (blocks) Blocks() *mcp.ToolResult {
	return &mcp.ToolResult{Content: []mcp.Content{
		mcp.TextContent{Text: "t"},
		mcp.AudioContent{Data: []byte{9}, MIMEType: "audio/wav"},
		mcp.ResourceLink{URI: "test://static-text", Name: "static-text", Title: "T", Description: "d"},
	}}
}

// A content block is sent as the session's revision has it: audio came in
// 2025-03-26, resource_link in 2025-06-18, and a revision's schema admits
// no other types (its clients refuse the whole result otherwise). A
// 2024-11-05 session gets audio as an embedded blob resource whose URI is
// the data: URI of the sound; a session before 2025-06-18 gets a
// resource link as a text block holding its URI. In tools/call and in
// prompts/get alike.
func TestAttackContentRevisions(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", blocks{}))
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	const (
		text  = `{"type":"text","text":"t"}`
		audio = `{"type":"audio","data":"CQ==","mimeType":"audio/wav"}`
		blob  = `{"type":"resource","resource":{"uri":"data:audio/wav;base64,CQ==","mimeType":"audio/wav","blob":"CQ=="}}`
		link  = `{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T","description":"d"}`
		asURI = `{"type":"text","text":"test://static-text"}`
	)
	for _, tc := range []struct{ version, audio, link, promptLink string }{
		{"2024-11-05", blob, asURI, asURI},
		{"2025-03-26", audio, asURI, asURI},
		{"2025-06-18", audio, link, `{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T"}`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + tc.version + `"}`
			wiretest.Serve(t, s.Handler(), fmt.Sprintf(`
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"blocks",%s},"id":1}
		<-- {"jsonrpc":"2.0","result":{"content":[%s,%s,%s]},"id":1}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go"},%s},"id":2}
		<-- {"jsonrpc":"2.0","result":{"description":"code in go","messages":[{"role":"assistant","content":{"type":"text","text":"I write go"}},{"role":"user","content":%s},{"role":"user","content":%s}]},"id":2}`,
				meta, text, tc.audio, tc.link, meta, tc.promptLink, tc.audio), nil)
		})
	}
}
