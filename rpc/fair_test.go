package rpc_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// sleepy sleeps 2 s for "sleep", and answers "echo" at once.
var sleepy = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	if req.Method == "sleep" {
		select {
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return req.Method, nil
})

// sleeps is a batch of n "sleep" requests, ids from first.
func sleeps(first, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"sleep","id":%d}`, first+i)
	}
	b.WriteByte(']')
	return b.String()
}

// A request that comes while batches hold every worker gets the first
// worker that finishes a call: workers take the requests handed to them
// before more of a batch's, and the batches in turn. Two batches of 100
// calls of 2 s on 4 workers kept a request waiting for the 100 s they
// took (issue 23, defect 6: two 2025-03-26 batches of 1,000 such calls,
// a 63 s outage). In a synctest bubble: the times are the bubble's.
func TestHTTPBatchesDoNotStarveOtherRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := rpc.NewHTTPHandler(context.Background(), sleepy, &rpc.Options{Concurrency: 4, Logger: quiet})
		post := func(body string) string {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest("POST", "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			s.ServeHTTP(rec, r)
			return rec.Body.String()
		}
		var wg sync.WaitGroup
		answers := make([]string, 2)
		for i := range answers {
			wg.Go(func() { answers[i] = post(sleeps(1+100*i, 100)) })
		}
		synctest.Wait() // every worker sleeps
		// Every 2 s the four workers finish a call each; a request that
		// came meanwhile is answered then.
		start := time.Now()
		for i := range 3 {
			assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","result":"echo","id":%d}`+"\n", 1000+i),
				post(fmt.Sprintf(`{"jsonrpc":"2.0","method":"echo","id":%d}`, 1000+i)))
			assert.Equal(t, time.Duration(2+2*i)*time.Second, time.Since(start), "answered by the first worker free")
			time.Sleep(time.Second) // in the middle of the batches' next round
		}
		wg.Wait()
		for i, a := range answers {
			require.Equal(t, 100, strings.Count(a, `"result":"sleep"`), "batch %d answered whole", i)
		}
		require.NoError(t, s.Close())
	})
}
