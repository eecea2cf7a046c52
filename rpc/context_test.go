package rpc_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// A handler learns whether its call came in a batch, on a stream and over
// HTTP alike (a lone message over HTTP is not a batch).
func TestInBatch(t *testing.T) {
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return rpc.InBatch(ctx), nil })
	in := `{"jsonrpc":"2.0","method":"m","id":1}` + "\n" +
		`[{"jsonrpc":"2.0","method":"m","id":2},{"jsonrpc":"2.0","method":"m","id":3}]` + "\n"
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: quiet, Sequential: true}))
	assert.Equal(t, `{"jsonrpc":"2.0","result":false,"id":1}`+"\n"+
		`[{"jsonrpc":"2.0","result":true,"id":2},{"jsonrpc":"2.0","result":true,"id":3}]`+"\n", out.String())

	hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: quiet})
	defer hh.Close()
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"m","id":1}`:   `{"jsonrpc":"2.0","result":false,"id":1}` + "\n",
		`[{"jsonrpc":"2.0","method":"m","id":1}]`: `[{"jsonrpc":"2.0","result":true,"id":1}]` + "\n",
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		hh.ServeHTTP(rec, req)
		assert.Equal(t, want, rec.Body.String(), body)
	}
	assert.False(t, rpc.InBatch(context.Background()))
}

// A call that waits on the peer ends when the input does: InputEnded is
// closed then, and the connection, which waits for its calls, finishes.
// Over HTTP there is no such moment: the channel is nil.
func TestInputEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			ended := rpc.InputEnded(ctx)
			if ended == nil {
				return "never", nil
			}
			select {
			case <-ended:
				return "ended", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		var out bytes.Buffer
		require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","method":"listen","id":1}`+"\n"), &out, h, &rpc.Options{Logger: quiet}))
		assert.Equal(t, `{"jsonrpc":"2.0","result":"ended","id":1}`+"\n", out.String())

		hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: quiet})
		defer hh.Close()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"listen","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		hh.ServeHTTP(rec, req)
		assert.Equal(t, `{"jsonrpc":"2.0","result":"never","id":1}`+"\n", rec.Body.String())
		assert.Nil(t, rpc.InputEnded(context.Background()))
	})
}
