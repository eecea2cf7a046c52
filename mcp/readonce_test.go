package mcp_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A POST's body is read once: serving a 4 MiB body allocates about 9 MiB
// (io.ReadAll's buffer grows to hold it), reading it twice about 19 MiB.
func TestHTTPBodyReadOnce(t *testing.T) {
	const size = 4 << 20
	h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet(), MaxFrameSize: 2 * size}})
	defer h.Close()
	sid := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", size) + `"}}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rec := serveDirect(h, exchange{body: body, header: map[string]string{"Mcp-Session-Id": sid}})
	runtime.ReadMemStats(&after)
	require.Equal(t, 200, rec.Code)
	t.Logf("allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(7*size/2), "the body was read more than once")
}
