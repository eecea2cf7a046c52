package interop

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// jrpc2's LSP framing (channel.LSP: Content-Length and a Content-Type
// header) against toolrpc's FramingLSP, both ways: a jrpc2 client calling
// the calculator, and a toolrpc client calling a jrpc2 server.
func TestLSPFramingJRPC2(t *testing.T) {
	t.Run("jrpc2 client, toolrpc server", func(t *testing.T) {
		h, err := calc.Server().Handler(&calc.Calculator{})
		require.NoError(t, err)
		c2sR, c2sW := io.Pipe()
		s2cR, s2cW := io.Pipe()
		served := make(chan error, 1)
		go func() {
			err := rpc.Serve(context.Background(), c2sR, s2cW, h, &rpc.Options{Framing: rpc.FramingLSP, Logger: discard})
			_ = s2cW.Close()
			served <- err
		}()
		cli := jrpc2.NewClient(channel.LSP(s2cR, c2sW), nil)
		ctx := testContext(t)

		var diff float64
		require.NoError(t, cli.CallResult(ctx, "subtract", map[string]int{"minuend": 42, "subtrahend": 23}, &diff))
		assert.Equal(t, 19.0, diff)
		require.NoError(t, cli.CallResult(ctx, "subtract", []int{42, 23}, &diff))
		assert.Equal(t, 19.0, diff)
		_, err = cli.Call(ctx, "divide", map[string]int{"a": 1, "b": 0})
		wantJRPC2Error(t, err, -32602, "Invalid params")
		require.NoError(t, cli.Notify(ctx, "notify_sum", []int{1, 2}))
		rsps, err := cli.Batch(ctx, []jrpc2.Spec{{Method: "sum", Params: []int{1, 2}}, {Method: "sum", Params: []int{3, 4}}})
		require.NoError(t, err)
		require.Len(t, rsps, 2)
		var a, b int
		require.NoError(t, rsps[0].UnmarshalResult(&a))
		require.NoError(t, rsps[1].UnmarshalResult(&b))
		assert.Equal(t, []int{3, 7}, []int{a, b})

		require.NoError(t, cli.Close())
		assert.NoError(t, wiretest.Receive(t, served, "rpc.Serve to return"))
	})

	t.Run("toolrpc client, jrpc2 server", func(t *testing.T) {
		c2sR, c2sW := io.Pipe()
		s2cR, s2cW := io.Pipe()
		srv := jrpc2.NewServer(handler.Map{
			"upper": handler.New(func(_ context.Context, s []string) string { return strings.ToUpper(strings.Join(s, " ")) }),
		}, nil)
		srv.Start(channel.LSP(c2sR, s2cW))
		conn := rpc.NewConn(context.Background(), s2cR, c2sW, nil, &rpc.Options{Framing: rpc.FramingLSP, Logger: discard})
		var got string
		require.NoError(t, conn.Call(testContext(t), "upper", []string{"content", "length"}, &got))
		assert.Equal(t, "CONTENT LENGTH", got)
		var e *rpc.Error
		require.ErrorAs(t, conn.Call(testContext(t), "nope", nil, nil), &e)
		assert.Equal(t, rpc.Code(-32601), e.Code)
		require.NoError(t, conn.Close())
		assert.NoError(t, conn.Wait())
		srv.Stop()
		_ = srv.Wait()
	})
}
