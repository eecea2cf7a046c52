package mcp_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
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

// gated is an output whose writes wait until open is closed.
type gated struct {
	open chan struct{}
	wiretest.Buffer
}

func (g *gated) Write(p []byte) (int, error) {
	<-g.open
	return g.Buffer.Write(p)
}

// A legacy session that stops reading, while it subscribes, is told of an
// update and unsubscribes, again and again, is owed no update of a
// resource it unsubscribed from: what it is owed stays bounded by its
// subscriptions (MaxSubscriptions), not by the number of resources it
// ever subscribed to. Once it reads again it is told of the one resource
// it still subscribes to (and of the update already being written).
func TestAttackUnsubscribeWhileStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
		require.NoError(t, s.Register("", hostile{}))
		require.NoError(t, s.AddResources(fixtureResources()...))
		in, w := io.Pipe()
		out := &gated{open: make(chan struct{})}
		served := make(chan error, 1)
		go func() {
			served <- rpc.Serve(context.Background(), in, out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
		}()
		wiretest.Send(t, w, legacyInit)
		synctest.Wait()
		// More than the output queues: every line after it waits for the
		// output to take it.
		wiretest.Send(t, w, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fill"},"id":"fill"}`)
		synctest.Wait()
		wiretest.Send(t, w, `{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://kept"},"id":"kept"}`)
		synctest.Wait()
		const n = 20
		for i := range n {
			uri := fmt.Sprintf("test://r%d", i)
			wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":%q},"id":%d}`, uri, 2*i))
			synctest.Wait()
			s.ResourceUpdated(uri)
			s.ResourceUpdated("test://kept")
			wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":%q},"id":%d}`, uri, 2*i+1))
			synctest.Wait()
		}
		close(out.open)
		synctest.Wait()
		lines := wiretest.Lines(t, out.String())
		require.NoError(t, w.Close())
		require.NoError(t, wiretest.Receive(t, served, "Serve to return"))
		told := map[string]int{}
		for _, l := range lines {
			if strings.Contains(l, `"notifications/resources/updated"`) {
				told[l]++
			}
		}
		// The first update is being written when the output stalls: r0's,
		// or kept's if r0's was unsubscribed from first.
		first := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r0"}}`
		kept := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://kept"}}`
		assert.Equal(t, 2, told[first]+told[kept], "the update being written, and kept's owed")
		delete(told, first)
		delete(told, kept)
		assert.Empty(t, told, "no update of a resource unsubscribed from")
	})
}
