package rpc_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// A batch whose answer the connection's own reader would refuse (more
// calls than its MaxBatch) is refused at once: a batch of 1,001 calls to a
// server that takes 5,000 waited for ever, its answer of 1,001 responses
// refused as too long a batch (issue 23's probe). One of MaxBatch calls
// is answered whole.
func TestBatchLongerThanItsAnswerCanBeIsRefused(t *testing.T) {
	echo := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return 1, nil })
	p := wiretest.NewPair(echo, &rpc.Options{MaxBatch: 5000}, nil, nil)
	defer p.Close(t)
	calls := func(n int) []rpc.BatchCall {
		cs := make([]rpc.BatchCall, n)
		for i := range cs {
			cs[i] = rpc.BatchCall{Method: "one", Result: new(int)}
		}
		return cs
	}
	err := p.Client.Batch(context.Background(), calls(1001))
	assert.EqualError(t, err, "rpc: a batch of 1001 calls is more than Options.MaxBatch (1000): its answer could not be read")
	ok := calls(1000)
	require.NoError(t, p.Client.Batch(context.Background(), ok))
	for _, c := range ok {
		require.NoError(t, c.Err)
		assert.Equal(t, 1, *c.Result.(*int))
	}
}
