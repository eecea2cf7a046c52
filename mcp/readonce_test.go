package mcp_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A POST's body is read once: serving a 4 MiB body allocates about what
// one io.ReadAll of it does (9 MiB, its buffer growing), not twice that.
func TestHTTPBodyReadOnce(t *testing.T) {
	const size = 4 << 20
	h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet(), MaxFrameSize: 2 * size}})
	defer h.Close()
	sid := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", size) + `"}}`
	oneRead := wiretest.Allocated(func() { _, _ = io.ReadAll(strings.NewReader(body)) })
	served := wiretest.Allocated(func() {
		rec := serveDirect(h, exchange{body: body, header: map[string]string{"Mcp-Session-Id": sid}})
		require.Equal(t, 200, rec.Code)
	})
	t.Logf("one read: %d MiB; served: %d MiB", oneRead>>20, served>>20)
	assert.Less(t, served, oneRead*3/2, "the body was read more than once")
}
