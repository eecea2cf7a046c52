package interop

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// serveExample serves the example's tools with package mcp over a pair of
// pipes, and returns the client's ends, a channel that hears of each call
// the peer cancelled once its tool has returned, and one that gets what
// serving returned.
func serveExample(ctx context.Context, t *testing.T) (r io.ReadCloser, w io.WriteCloser, ended chan string, served chan error) {
	ended, served = make(chan string, 1), make(chan error, 1)
	s := mcp.New(&mcp.Options{Name: "example", Version: "1.0.0", Middleware: []middleware.Middleware{
		func(next rpc.Handler) rpc.Handler {
			return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				res, err := next.Handle(ctx, req)
				if rpc.CancelledSilently(ctx) {
					ended <- string(req.Params)
				}
				return res, err
			})
		},
	}})
	require.NoError(t, s.Register("", tools.Tools{}))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go func() {
		served <- s.Serve(ctx, sr, sw, &rpc.Options{Logger: discard})
		sw.Close()
	}()
	return cr, cw, ended, served
}

// mark3labs/mcp-go's client (v1.2.1) against the example's tools served by
// package mcp, in the modern era (its default: server/discover first) and
// the legacy one (initialize with 2025-11-25): list, call, structured
// content, a validation failure as isError, an unknown tool, progress, and
// a cancelled sleep, after which the connection serves on and ends cleanly.
func TestMCPGoClient(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			cr, cw, ended, served := serveExample(ctx, t)
			c := mcpclient.NewClient(transport.NewIO(cr, cw, io.NopCloser(eofReader{})))
			progress := make(chan mcpgo.JSONRPCNotification, 16)
			c.OnNotification(func(n mcpgo.JSONRPCNotification) {
				if n.Method == "notifications/progress" {
					progress <- n
				}
			})
			require.NoError(t, c.Start(ctx))
			init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ProtocolVersion: version, ClientInfo: mcpgo.Implementation{Name: "interop", Version: "1.0.0"}}})
			require.NoError(t, err)
			assert.Equal(t, version, init.ProtocolVersion)
			assert.Equal(t, "example", init.ServerInfo.Name)

			list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
			require.NoError(t, err)
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			assert.Equal(t, []string{"add", "count", "sleep", "stats", "whoami"}, names)
			assert.Equal(t, []string{"a", "b"}, list.Tools[0].InputSchema.Required)

			call := func(ctx context.Context, name string, args any, meta *mcpgo.Meta) (*mcpgo.CallToolResult, error) {
				return c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args, Meta: meta}})
			}
			text := func(res *mcpgo.CallToolResult) string {
				tc, ok := mcpgo.AsTextContent(res.Content[0])
				require.True(t, ok)
				return tc.Text
			}
			res, err := call(ctx, "add", map[string]any{"a": 1, "b": 2.5}, nil)
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, "3.5", text(res))

			res, err = call(ctx, "stats", map[string]any{"values": []float64{1, 2, 6}}, nil)
			require.NoError(t, err)
			got, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.JSONEq(t, `{"count":3,"sum":9,"mean":3,"min":1,"max":6}`, string(got))

			res, err = call(ctx, "add", map[string]any{"a": 1}, nil)
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Equal(t, "Invalid arguments:\n- b is required", text(res))

			_, err = call(ctx, "nope", nil, nil)
			assert.ErrorContains(t, err, "Unknown tool: nope")

			res, err = call(ctx, "count", map[string]any{"n": 3}, &mcpgo.Meta{ProgressToken: "count"})
			require.NoError(t, err)
			assert.Equal(t, "3", text(res))
			for i, n := range wiretest.ReceiveN(t, progress, 3, "count's progress") {
				assert.Equal(t, "count", n.Params.AdditionalFields["progressToken"])
				assert.Equal(t, float64(i+1), n.Params.AdditionalFields["progress"])
			}

			// A sleep of ten minutes, cancelled once it reports its start.
			sleepCtx, cancel := context.WithCancel(ctx)
			sleeping := make(chan error, 1)
			go func() {
				_, err := call(sleepCtx, "sleep", map[string]any{"ms": 600000}, &mcpgo.Meta{ProgressToken: "sleep"})
				sleeping <- err
			}()
			assert.Equal(t, "sleeping", wiretest.Receive(t, progress, "sleep's start").Params.AdditionalFields["message"])
			cancel()
			assert.ErrorIs(t, wiretest.Receive(t, sleeping, "the cancelled call"), context.Canceled)
			assert.Contains(t, wiretest.Receive(t, ended, "the sleep's end"), `"name":"sleep"`)

			res, err = call(ctx, "add", map[string]any{"a": 0, "b": 0}, nil)
			require.NoError(t, err)
			assert.Equal(t, "0", text(res))

			require.NoError(t, c.Close())
			assert.NoError(t, wiretest.Receive(t, served, "the end of serving"))
		})
	}
}

// eofReader is an empty stderr.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
