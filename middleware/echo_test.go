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
	id1, id2 := `"a`+long+`"`, `"b`+long+`"` // two ids: the first may still be in flight
	var logs wiretest.Logs
	h := middleware.Default(logs.Logger())(probe)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"`+long+`","id":`+id1+`}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":`+id1+`}
		--> {"jsonrpc":"2.0","method":"panic","id":`+id2+`}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":`+id2+`}`, nil)
	recs := logs.Records(t)
	require.Len(t, recs, 3, "the unknown method, the panic, its call")
	cut := long[:codec.MaxEcho-2] + "…(1048579 bytes)"
	assert.Equal(t, long[:codec.MaxEcho]+"…(1048576 bytes)", recs[0]["method"])
	assert.Equal(t, `"a`+cut, recs[0]["id"])
	for _, r := range recs[1:] {
		assert.Equal(t, `"b`+cut, r["id"], r["msg"])
	}
}
