package middleware_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/middleware"
)

// A call's record, and a panic's, repeat its method and id at most
// codec.MaxEcho bytes each; the answer's id is whole. Before, each record
// held the whole 1 MiB of both.
func TestRecordsCutPeerStrings(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	id := `"` + long + `"`
	var logs wiretest.Logs
	h := middleware.Default(logs.Logger())(probe)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"`+long+`","id":`+id+`}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":`+id+`}
		--> {"jsonrpc":"2.0","method":"panic","id":`+id+`}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":`+id+`}`, nil)
	recs := logs.Records(t)
	require.Len(t, recs, 3, "the unknown method, the panic, its call")
	cutID := `"` + long[:codec.MaxEcho-1] + "…(1048578 bytes)"
	assert.Equal(t, long[:codec.MaxEcho]+"…(1048576 bytes)", recs[0]["method"])
	for _, r := range recs {
		assert.Equal(t, cutID, r["id"], r["msg"])
	}
}
