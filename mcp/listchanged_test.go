package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

type extra struct{}

func (extra) Extra() string { return "extra" }

// Tools registered or removed while a legacy session is under way are
// announced to it (notifications/tools/list_changed) and are in its next
// tools/list; once its connection ends, it is forgotten.
func TestToolsListChanged(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", fuzzKit{}))
	p := wiretest.NewPipe(s.Handler(), nil)
	line := pipeLines(t, p)
	names := func() string {
		l := line(`{"jsonrpc":"2.0","method":"tools/list","id":2}`)
		var out []string
		for _, part := range strings.Split(l, `{"name":"`)[1:] {
			out = append(out, part[:strings.IndexByte(part, '"')])
		}
		return strings.Join(out, " ")
	}

	assert.Equal(t, `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}`,
		line(`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`))
	assert.Equal(t, 1, mcp.Sessions(s))
	require.NoError(t, p.Write([]byte(initialized+"\n")))
	assert.Equal(t, "add boom point raw rich tags", names())

	require.NoError(t, s.Register("", extra{}))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, line(""))
	assert.Equal(t, "add boom extra point raw rich tags", names())

	assert.Equal(t, 0, s.Remove("nope"))
	assert.Equal(t, 2, s.Remove("extra", "boom", "nope"))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, line(""))
	assert.Equal(t, "add point raw rich tags", names())
	assert.Equal(t, []string{"add", "point", "raw", "rich", "tags"}, s.Tools())

	p.Close(t)
	<-p.Conn.Done()
	assert.Equal(t, 1, mcp.Sessions(s), "forgotten at the next change")
	require.NoError(t, s.Register("", extra{}))
	assert.Equal(t, 0, mcp.Sessions(s))
}
