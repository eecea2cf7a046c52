package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// echoer is a tool that returns its text.
type echoer struct{}

type echoArgs struct {
	Text string `json:"text"`
}

func (echoer) Echo(p echoArgs) string { return p.Text }

// A long text result (written in pieces when the output is free) is the
// line a short one would be: legacy, modern, and in a batch of
// 2025-03-26 (made whole, as every batch answer is), escapes included.
func TestLongTextResult(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", echoer{}))
	chunk := strings.Repeat("plain text, 8 bytes at a time ", 100)
	// The JSON string's body, as the request has it and the answer too.
	text := strings.Repeat(chunk+`\"quoted\" \\ \n\t \u2028 é`, 40)
	require.Greater(t, len(text), 64<<10, "long enough to be written in pieces")
	call := func(id, meta string) string {
		return `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}` + meta + `},"id":` + id + `}`
	}
	modern := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}
		--> `+call("2", "")+`
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`+text+`"}]},"id":2}
		--> `+call("3", modern)+`
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"`+text+`"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":3}
		--> [`+call("4", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}`)+`]
		<-- [{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`+text+`"}]},"id":4}]`, nil)
}
