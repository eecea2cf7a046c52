package rpc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"net/http/httptest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// entries is an array of n responses, the i-th made by f.
func entries(n int, f func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f(i))
	}
	b.WriteByte(']')
	return b.String()
}

// What the HTTP client holds of an answer is bounded by what it asked: the
// body, at most MaxFrameSize bytes, and, of an array, at most as many
// entries as the batch has calls, or 1,000 when it has fewer; a longer
// array fails the batch at once with ErrBadResponse saying so (300,000
// entries, 11 MB, allocate about twice that, the body's buffer growing),
// as does an array for a single call, never decoded. Entries
// for ids never sent, or twice for one, are dropped. A batch of more
// calls than 1,000 is answered whole by a server that takes it, each
// answer found by its id.
func TestHTTPClientBatchAnswersBounded(t *testing.T) {
	one := func(int) string { return `{"jsonrpc":"2.0","id":1,"result":1}` }
	many := entries(300_000, one)
	for _, c := range []struct {
		name, answer string
		calls        int // 0: a single call
		want         string
	}{
		{"300,000 entries", many, 2, "rpc: malformed response: the answer to a batch of 2 calls: batch longer than the limit of 1000 entries"},
		{"300,000 entries, one call", many, 0, "rpc: malformed response: the answer is not what was asked for"},
		{"an array of one, one call", entries(1, one), 0, "rpc: malformed response: the answer is not what was asked for"},
		{"ids never sent, twice", entries(1000, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":1}`, 1000+i%3) }), 2, "<nil>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := cannedServer(t, "application/json", c.answer)
			client := rpc.NewHTTPClient(srv.URL, nil)
			calls := make([]rpc.BatchCall, c.calls)
			for i := range calls {
				calls[i] = rpc.BatchCall{Method: "m"}
			}
			var err error
			allocated := wiretest.Allocated(func() {
				if c.calls == 0 {
					err = client.Call(context.Background(), "m", nil, nil)
					return
				}
				err = client.Batch(context.Background(), calls)
			})
			assert.Equal(t, c.want, fmt.Sprint(err))
			if err != nil {
				assert.ErrorIs(t, err, rpc.ErrBadResponse)
			}
			for _, bc := range calls {
				assert.ErrorIs(t, bc.Err, rpc.ErrBadResponse, "no answer to it")
			}
			t.Logf("%d bytes: %d allocated (%.1f times)", len(c.answer), allocated, float64(allocated)/float64(len(c.answer)))
			// io.ReadAll's buffer grows by a quarter at a time: 2.2 times
			// the body in all, 4.5 under the race detector.
			assert.Less(t, allocated, uint64(6*len(c.answer)+1<<20), "allocated for the answer")
		})
	}

	h := rpc.NewHTTPHandler(context.Background(), clientMethods, &rpc.Options{Logger: quiet, MaxBatch: 3000})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	calls := make([]rpc.BatchCall, 2500)
	for i := range calls {
		calls[i] = rpc.BatchCall{Method: "echo", Params: []int{i}, Result: new([]int)}
	}
	require.NoError(t, rpc.NewHTTPClient(srv.URL, nil).Batch(context.Background(), calls))
	for i, bc := range calls {
		require.NoError(t, bc.Err)
		require.Equal(t, []int{i}, *bc.Result.(*[]int))
	}
}
