package interop

import (
	"context"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// The official Go SDK's Streamable HTTP client against the example's tools
// served by mcp.HTTPHandler, in the modern era (stateless: its request
// headers are checked against the bodies) and in the legacy one (a
// session, ended by DELETE when the client closes): it connects, lists the
// tools, calls add, and gets count's progress over SSE.
func TestGoSDKStreamableHTTP(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			s := mcp.New(&mcp.Options{Name: "example", Version: "1.0.0"})
			require.NoError(t, s.Register("", tools.Tools{}))
			h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: discard}})
			srv := httptest.NewServer(h)
			defer func() {
				srv.Close()
				_ = h.Close()
			}()

			client, progress := progressClient()
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: srv.Client()},
				&sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			if version == mcp.LatestLegacy {
				assert.Equal(t, version, cs.InitializeResult().ProtocolVersion)
				assert.Equal(t, 1, h.Sessions())
			}

			list, err := cs.ListTools(ctx, nil)
			require.NoError(t, err)
			assert.Equal(t, []string{"add", "count", "sleep", "stats", "whoami"}, toolNames(list))

			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2.5}})
			require.NoError(t, err)
			assert.Equal(t, "3.5", res.Content[0].(*sdk.TextContent).Text)

			checkCount(ctx, t, cs, progress)

			require.NoError(t, cs.Close())
			assert.Equal(t, 0, h.Sessions())
		})
	}
}
