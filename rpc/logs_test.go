package rpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// The records a connection writes of its own.

var echoMethod = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return req.Method, nil })

// A message answered -32600 is logged at Debug with the rule it broke, and
// with its id when the id is known.
func TestInvalidMessagesAreLoggedWithTheirReason(t *testing.T) {
	var logs wiretest.Logs
	why := func(reason string) string {
		return `{"code":-32600,"message":"Invalid Request","data":{"reason":"` + reason + `"}}`
	}
	wiretest.Serve(t, echoMethod, `
		--> {"jsonrpc":"2.0","method":"m","params":null,"id":1}
		<-- {"jsonrpc":"2.0","error":`+why("params must be an object or an array")+`,"id":1}
		--> {"jsonrpc":"2.0","method":"m","id":"a","id":"b"}
		<-- {"jsonrpc":"2.0","error":`+why("id given more than once")+`,"id":null}
		--> []
		<-- {"jsonrpc":"2.0","error":`+why("a batch must not be empty")+`,"id":null}
		--> [{"jsonrpc":"2.0","method":"m","id":7},{"jsonrpc":"2.0","method":"m","id":7}]
		<-- [{"jsonrpc":"2.0","result":"m","id":7},{"jsonrpc":"2.0","error":`+why("id already in use by a request in flight")+`,"id":7}]
		--> {"jsonrpc":"2.0","method":"m","params":["`+strings.Repeat("x", 100)+`"],"id":2}
		<-- {"jsonrpc":"2.0","error":`+why("frame larger than the limit of 100 bytes")+`,"id":null}`,
		&rpc.Options{Sequential: true, MaxFrameSize: 100, Logger: logs.Logger()})

	type record struct{ level, reason, id string }
	var got []record
	for _, r := range logs.Messages(t, "rpc: invalid message") {
		assert.Equal(t, float64(-32600), r["code"])
		level, _ := r["level"].(string)
		reason, _ := r["reason"].(string)
		id, _ := r["id"].(string)
		got = append(got, record{level, reason, id})
	}
	assert.Equal(t, []record{
		{"DEBUG", "params must be an object or an array", "1"},
		{"DEBUG", "id given more than once", ""},
		{"DEBUG", "a batch must not be empty", ""},
		{"DEBUG", "id already in use by a request in flight", "7"},
		{"DEBUG", "frame larger than the limit of 100 bytes", ""},
	}, got)
}
