package mcp_test

import (
	"context"
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

// The _meta of a modern request, in the tests of subscriptions/listen.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// subscriptions/listen (2026-07-28) on the wire: it is acknowledged first
// (notifications/subscriptions/acknowledged, with the notifications the
// server honors: toolsListChanged alone), every message of it carrying its
// id as the subscriptionId; one that asks for nothing the server honors is
// answered at once; one the client cancels gets no answer, and the
// connection goes on; one still open when the input ends is torn down by
// the server (notifications/cancelled naming it, then the completion
// result) and Serve returns. Its params are checked; it is not a method of
// the legacy revisions. server/discover announces tools.listChanged.
func TestListen(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
	wiretest.Steps(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"server/discover","params":{`+modernMeta+`},"id":0}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":0}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":true}},"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":false,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a"],"future":1}},"id":2}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2,"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":2}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"done"}}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`},"id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications","rule":"required","message":"notifications is required"}]},"id":3}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":true},"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications","rule":"type","param":"object","message":"notifications must be an object"}]},"id":4}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":1,"promptsListChanged":null,"resourcesListChanged":"true","resourceSubscriptions":[1]}},"id":5}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications.toolsListChanged","rule":"type","param":"boolean","message":"notifications.toolsListChanged must be a boolean"},{"field":"notifications.promptsListChanged","rule":"type","param":"boolean","message":"notifications.promptsListChanged must be a boolean"},{"field":"notifications.resourcesListChanged","rule":"type","param":"boolean","message":"notifications.resourcesListChanged must be a boolean"},{"field":"notifications.resourceSubscriptions","rule":"type","param":"array","message":"notifications.resourceSubscriptions must be an array of strings"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"notifications":{"toolsListChanged":true}},"id":6}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":6}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{"notifications":{ "toolsListChanged" : true },`+modernMeta+`},"id":"L\u0031"}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L\u0031"},"notifications":{"toolsListChanged":true}}}
		<-- {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L\u0031","reason":"the input ended"}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"L\u0031","io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":"L\u0031"}`, nil)
	assert.Equal(t, 0, mcp.Listeners(s))
}

// serveSynctest serves s in the bubble of a synctest test, on a pipe it
// returns the writing end of, writing to out; served gets what Serve
// returns.
func serveSynctest(ctx context.Context, s *mcp.Server, out io.Writer) (in *io.PipeWriter, served chan error) {
	pr, pw := io.Pipe()
	served = make(chan error, 1)
	go func() {
		served <- s.Serve(ctx, pr, out, &rpc.Options{Logger: wiretest.Quiet()})
		pr.Close()
	}()
	return pw, served
}

// A listen waits for changes to the tools: each Register and Remove is
// told to every listen open for it, and to nothing else; a listen
// cancelled is told nothing more, and gets no answer; one open when the
// input ends is torn down, and Serve returns. A listen open when the
// connection shuts down gets the completion result.
func TestListenWaitsForChanges(t *testing.T) {
	changed := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`
	}
	ack := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `},"notifications":{"toolsListChanged":true}}}`
	}
	listen := func(id string) string {
		return `{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"toolsListChanged":true}},"id":` + id + `}`
	}
	result := func(id string) string {
		return `{"jsonrpc":"2.0","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `,"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":` + id + `}`
	}

	t.Run("input ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
			var out wiretest.Buffer
			in, served := serveSynctest(context.Background(), s, &out)
			lines := func() []string { return wiretest.Lines(t, out.String()) }

			wiretest.Send(t, in, listen("1"))
			synctest.Wait()
			wiretest.Send(t, in, listen(`"two"`))
			synctest.Wait()
			assert.Equal(t, []string{ack("1"), ack(`"two"`)}, lines())
			assert.Equal(t, 2, mcp.Listeners(s))

			require.NoError(t, s.Register("", extra{}))
			synctest.Wait()
			require.Len(t, lines(), 4)
			assert.ElementsMatch(t, []string{changed("1"), changed(`"two"`)}, lines()[2:])

			wiretest.Send(t, in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
			synctest.Wait()
			assert.Len(t, lines(), 4, "a cancelled listen gets no answer")
			assert.Equal(t, 1, mcp.Listeners(s))

			assert.Equal(t, 1, s.Remove("extra"))
			synctest.Wait()
			require.Len(t, lines(), 5)
			assert.Equal(t, []string{changed(`"two"`)}, lines()[4:])

			require.NoError(t, in.Close())
			require.NoError(t, wiretest.Receive(t, served, "Serve to return at the end of the input"))
			require.Len(t, lines(), 7)
			assert.Equal(t, []string{
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"two","reason":"the input ended"}}`,
				result(`"two"`),
			}, lines()[5:])
			assert.Equal(t, 0, mcp.Listeners(s))
		})
	})

	// Each open listen holds one of the connection's Concurrency slots: a
	// peer that opens more costs no more than that many at once.
	t.Run("bounded", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
			var out wiretest.Buffer
			pr, in := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- s.Serve(context.Background(), pr, &out, &rpc.Options{Logger: wiretest.Quiet(), Concurrency: 2})
			}()
			for _, id := range []string{"1", "2", "3"} {
				wiretest.Send(t, in, listen(id))
				synctest.Wait()
			}
			assert.Equal(t, 2, mcp.Listeners(s))
			assert.Equal(t, []string{ack("1"), ack("2")}, wiretest.Lines(t, out.String()))
			wiretest.Send(t, in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
			synctest.Wait()
			assert.Equal(t, 2, mcp.Listeners(s), "the third takes the first's slot")
			assert.Equal(t, []string{ack("1"), ack("2"), ack("3")}, wiretest.Lines(t, out.String()))
			require.NoError(t, in.Close())
			require.NoError(t, wiretest.Receive(t, served, "Serve to return at the end of the input"))
			assert.Equal(t, 0, mcp.Listeners(s))
		})
	})

	t.Run("shutdown", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
			var out wiretest.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			in, served := serveSynctest(ctx, s, &out)
			defer in.Close()
			wiretest.Send(t, in, listen("7"))
			synctest.Wait()
			cancel()
			assert.ErrorIs(t, wiretest.Receive(t, served, "Serve to return when its context ends"), context.Canceled)
			assert.Equal(t, []string{ack("7"), result("7")}, wiretest.Lines(t, out.String()))
			assert.Equal(t, 0, mcp.Listeners(s))
		})
	})
}

// Legacy sessions and listens are told of the same change, each its own
// way.
func TestListenAndLegacySession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
		var modern, legacy wiretest.Buffer
		in1, served1 := serveSynctest(context.Background(), s, &modern)
		in2, served2 := serveSynctest(context.Background(), s, &legacy)
		wiretest.Send(t, in1, `{"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":true}},"id":1}`)
		wiretest.Send(t, in2, `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`)
		wiretest.Send(t, in2, initialized)
		synctest.Wait()
		require.NoError(t, s.Register("", extra{}))
		synctest.Wait()
		require.NoError(t, in1.Close())
		require.NoError(t, in2.Close())
		require.NoError(t, wiretest.Receive(t, served1, "Serve to return"))
		require.NoError(t, wiretest.Receive(t, served2, "Serve to return"))
		require.Len(t, wiretest.Lines(t, modern.String()), 4)
		require.Len(t, wiretest.Lines(t, legacy.String()), 2)
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`, wiretest.Lines(t, modern.String())[1])
		assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, wiretest.Lines(t, legacy.String())[1])
		assert.True(t, strings.HasPrefix(wiretest.Lines(t, legacy.String())[0], `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18"`))
	})
}
