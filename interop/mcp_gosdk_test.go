package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// The official Go SDK's client (v1.8.0) against the example's tools served
// by package mcp over an in-process pipe, in the modern era (its default:
// server/discover first) and in the legacy one (initialize with
// 2025-11-25): it connects, lists the tools with their schemas, calls add
// and stats (structuredContent), sees arguments that fail validation as
// isError, gets count's progress, and cancels a sleep, after which the
// connection serves on and ends cleanly (it would not, were the sleep
// still running).
func TestGoSDKClient(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			cr, cw, ended, served := serveExample(ctx, t)

			client, progress := progressClient()
			cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			assert.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			assert.Equal(t, "example", cs.InitializeResult().ServerInfo.Name)

			list, err := cs.ListTools(ctx, nil)
			require.NoError(t, err)
			assert.Equal(t, []string{"add", "count", "sleep", "stats", "whoami"}, toolNames(list))
			in, err := json.Marshal(list.Tools[0].InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, `{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},
				"b":{"description":"the second addend","type":"number"}},"required":["a","b"],"additionalProperties":false}`, string(in))
			assert.True(t, *list.Tools[0].Annotations.OpenWorldHint == false && list.Tools[0].Annotations.ReadOnlyHint)
			assert.NotNil(t, list.Tools[3].OutputSchema, "stats has an outputSchema")

			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2.5}})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, "3.5", res.Content[0].(*sdk.TextContent).Text)

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"values": []float64{1, 2, 6}}})
			require.NoError(t, err)
			assert.Equal(t, map[string]any{"count": 3.0, "sum": 9.0, "mean": 3.0, "min": 1.0, "max": 6.0}, res.StructuredContent)

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1}})
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Equal(t, "Invalid arguments:\n- b is required", res.Content[0].(*sdk.TextContent).Text)

			_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"})
			assert.ErrorContains(t, err, "Unknown tool: nope")

			checkCount(ctx, t, cs, progress)

			// A sleep of ten minutes, cancelled once it reports its start.
			sleepCtx, cancel := context.WithCancel(ctx)
			params := &sdk.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 600000}}
			params.SetProgressToken("sleep")
			sleeping := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(sleepCtx, params)
				sleeping <- err
			}()
			assert.Equal(t, "sleeping", wiretest.Receive(t, progress, "sleep's start").Message)
			cancel()
			assert.ErrorIs(t, wiretest.Receive(t, sleeping, "the cancelled call"), context.Canceled)
			// The client sends notifications/cancelled in a goroutine of its
			// own: wait until the sleep has seen it and returned.
			assert.Contains(t, wiretest.Receive(t, ended, "the sleep's end"), `"name":"sleep"`)

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 0, "b": 0}})
			require.NoError(t, err)
			assert.Equal(t, "0", res.Content[0].(*sdk.TextContent).Text)

			require.NoError(t, cs.Close())
			assert.NoError(t, wiretest.Receive(t, served, "the end of serving"))
		})
	}
}

// extraTool is a tool registered while the Go SDK's client is connected.
type extraTool struct{}

// Extra says so.
func (extraTool) Extra() string { return "extra" }

// The Go SDK's client, given a ToolListChangedHandler, hears of the tools
// registered while it is connected: in the modern era it opens
// subscriptions/listen (the server announces tools.listChanged in
// server/discover) and gets the change on it; in the legacy one, the
// session's notification. Closing the client ends the listen and the
// connection.
func TestGoSDKClientListChanged(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			s := mcp.New(&mcp.Options{Name: "example", Version: "1.0.0"})
			require.NoError(t, s.Register("", tools.Tools{}))
			cr, cw, acked, served := serveWatched(ctx, s)

			changed := make(chan struct{}, 4)
			client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{
				Logger:                 discard,
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
			})
			cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			if version == mcp.Latest {
				// Connect does not wait for the listen's acknowledgment;
				// once it is written, the listen hears of every change.
				wiretest.Receive(t, acked.seen, "the listen's acknowledgment")
			}
			require.NoError(t, s.Register("", extraTool{}))
			wiretest.Receive(t, changed, "notifications/tools/list_changed")
			list, err := cs.ListTools(ctx, nil)
			require.NoError(t, err)
			assert.Len(t, list.Tools, 6)

			require.NoError(t, cs.Close())
			assert.NoError(t, wiretest.Receive(t, served, "the end of serving"))
		})
	}
}

// watchWriter writes to w, and closes seen once a write holds needle.
type watchWriter struct {
	w      io.Writer
	needle []byte
	seen   chan struct{}
	once   sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, w.needle) {
		w.once.Do(func() { close(w.seen) })
	}
	return w.w.Write(p)
}

// progressClient is the Go SDK's client, its progress notifications sent
// to the channel it returns.
func progressClient() (*sdk.Client, chan *sdk.ProgressNotificationParams) {
	progress := make(chan *sdk.ProgressNotificationParams, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{
		Logger: discard,
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})
	return client, progress
}

// toolNames are the names of a tools/list result's tools, in its order.
func toolNames(list *sdk.ListToolsResult) []string {
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// checkCount calls count with n 3 and a progress token: its result is 3,
// after three progress reports of 1, 2, 3 out of 3.
func checkCount(ctx context.Context, t *testing.T, cs *sdk.ClientSession, progress chan *sdk.ProgressNotificationParams) {
	t.Helper()
	params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"n": 3}}
	params.SetProgressToken("count")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, "3", res.Content[0].(*sdk.TextContent).Text)
	for i, p := range wiretest.ReceiveN(t, progress, 3, "count's progress") {
		assert.Equal(t, "count", p.ProgressToken)
		assert.Equal(t, float64(i+1), p.Progress)
		assert.Equal(t, 3.0, p.Total)
	}
}
