package rpc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// The ids and method names a peer sends are repeated in log records at most
// codec.MaxEcho bytes at a time; the id of a response is echoed whole.
// Before, each record held the whole 1 MiB.
func TestPeerStringsAreCutInLogs(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	id := `"` + long + `"`
	cutID := `"` + long[:codec.MaxEcho-1] + "…(1048578 bytes)"
	cutMethod := "p" + long[:codec.MaxEcho-1] + "…(1048577 bytes)"
	gate := make(chan struct{})
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		switch req.Method[0] {
		case 'p':
			panic("boom")
		case 'f':
			return nil, errors.New("failed")
		}
		<-gate
		return 1, nil
	})
	var logs wiretest.Logs
	pr, pw := io.Pipe()
	var out wiretest.Buffer
	c := rpc.NewConn(context.Background(), pr, &out, h, &rpc.Options{Logger: logs.Logger()})

	wiretest.Send(t, pw, `{"jsonrpc":"2.0","result":1,"id":`+id+`}`)
	r := logs.Wait(t, 1)[0]
	assert.Equal(t, "rpc: unexpected response dropped", r["msg"])
	assert.Equal(t, cutID, r["id"])

	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"p`+long+`","id":`+id+`}`)
	r = logs.Wait(t, 2)[1]
	assert.Equal(t, "rpc: handler panicked", r["msg"])
	assert.Equal(t, cutMethod, r["method"])
	assert.Equal(t, cutID, r["id"])
	wiretest.WaitForLines(t, &out, 1)

	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"f`+long+`"}`)
	r = logs.Wait(t, 3)[2]
	assert.Equal(t, "rpc: notification handler failed", r["msg"])
	assert.Equal(t, "f"+cutMethod[1:], r["method"])

	// An id in flight, sent again: the log record says which, cut; the id of
	// the answer is whole.
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"wait","id":`+id+`}`)
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"wait","id":`+id+`}`)
	r = logs.Wait(t, 4)[3]
	assert.Equal(t, "rpc: invalid message", r["msg"])
	assert.Equal(t, cutID, r["id"])
	wiretest.WaitForLines(t, &out, 2)
	close(gate)
	require.NoError(t, pw.Close())
	require.NoError(t, c.Wait())
	lines := wiretest.Lines(t, out.String())
	require.Len(t, lines, 3)
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":`+id+`}`, lines[1])
}

// An error response with id null that could be any of several calls' is
// logged with its message cut.
func TestLongErrorWithIDNullIsCutInTheLog(t *testing.T) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	fromClient := bufio.NewScanner(tr)
	var logs wiretest.Logs
	c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{Logger: logs.Logger()})
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan error, 2)
	for range 2 {
		go func() { calls <- c.Call(ctx, "m", nil, nil) }()
		require.True(t, fromClient.Scan())
	}
	long := strings.Repeat("x", 1<<20)
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"`+long+`"},"id":null}`)
	r := logs.Wait(t, 1)[0]
	assert.Equal(t, "rpc: error response with id null dropped", r["msg"])
	assert.Equal(t, "jsonrpc error -32600: "+long[:codec.MaxEcho-22]+"…(1048598 bytes)", r["error"])
	cancel()
	go func() { _, _ = io.Copy(io.Discard, tr) }() // the cancellations
	for range 2 {
		assert.ErrorIs(t, <-calls, context.Canceled)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, c.Wait())
	_ = cw.Close()
}
