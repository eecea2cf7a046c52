package rpc_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// warnings returns the message and "dropped" count of each record at
// Warn or above that logs wrote (a JSON handler's lines).
func warnings(t *testing.T, logs *wiretest.Logs) []string {
	t.Helper()
	var got []string
	for _, r := range logs.Records(t) {
		if r["level"] == "WARN" || r["level"] == "ERROR" {
			got = append(got, fmt.Sprint(r["msg"], " ", r["dropped"]))
		}
	}
	return got
}

// sparse is what warnings says of n responses dropped: the 1st, 2nd,
// 4th, 8th... at Warn.
func sparse(n int) []string {
	var want []string
	for i := 1; i <= n; i *= 2 {
		want = append(want, fmt.Sprint("rpc: unexpected response dropped ", i))
	}
	return want
}

// A peer that sends responses to no call of ours (ids never used, a call
// answered twice, a string id, an id null that fails nothing) makes a
// record each, but at Warn only the 1st, 2nd, 4th, 8th... of a connection,
// saying how many so far; the rest are at Debug: 1,000 responses, loose or
// in batches, make 10 Warn records, not 1,000, and are never answered. On
// a stream and over HTTP (where the count is the handler's, all its
// clients together).
func TestDroppedResponsesAreLoggedSparsely(t *testing.T) {
	var in strings.Builder
	for i := range 400 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", 1000+i)
	}
	for range 100 {
		in.WriteString(`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":null,"result":1}` + "\n")
	}
	in.WriteString("[" + strings.Repeat(`{"jsonrpc":"2.0","id":7,"result":{}},`, 199) + `{"jsonrpc":"2.0","id":7,"result":{}}]` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"m","id":1}` + "\n")
	h := rpc.HandlerFunc(func(context.Context, *rpc.Request) (any, error) { return "ok", nil })
	var logs wiretest.Logs
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in.String()), &out, h, &rpc.Options{Logger: logs.Logger()}))
	assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n", out.String())
	assert.Equal(t, sparse(900), warnings(t, &logs))
	assert.Len(t, logs.Messages(t, "rpc: unexpected response dropped"), 800, "a record each, at Debug")
	assert.Len(t, logs.Messages(t, "rpc: error response with id null dropped"), 100)

	logs = wiretest.Logs{}
	hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: logs.Logger()})
	srv := httptest.NewServer(hh)
	defer srv.Close()
	defer hh.Close()
	batch := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":7,"result":{}},`, 499) + `{"jsonrpc":"2.0","id":7,"result":{}}]`
	for range 2 {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(batch))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusAccepted, resp.StatusCode)
		assert.Empty(t, body)
	}
	assert.Equal(t, sparse(1000), warnings(t, &logs))
}

// Cancelling what is not under way costs nothing but reading it: ids
// never used, in both styles, ids of calls answered, ids of every JSON
// type and a 1 MiB one, 20,000 of them, on a stream and over HTTP, make
// no answer and no log record (not even at Debug), and nothing is kept:
// the live heap is what it was.
func TestCancellingUnknownIDsCostsNothing(t *testing.T) {
	h := rpc.HandlerFunc(func(context.Context, *rpc.Request) (any, error) { return "ok", nil })
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","method":"m","id":1}` + "\n")
	for i := range 10_000 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", 1_000_000+i)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"u%d"}}`+"\n", i)
	}
	for _, id := range []string{`1`, `"1"`, `null`, `-1.5e300`, `"` + strings.Repeat("x", 1<<20) + `"`, strings.Repeat("9", 1<<20)} {
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","method":"m","id":2}` + "\n")
	input := in.String()
	var logs wiretest.Logs
	var out bytes.Buffer
	before := liveHeap()
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(input), &out, h, &rpc.Options{Logger: logs.Logger(), Sequential: true}))
	grown := int64(liveHeap()) - int64(before)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n"+`{"jsonrpc":"2.0","result":"ok","id":2}`+"\n", out.String())
	assert.Empty(t, logs.Records(t))
	assert.Less(t, grown, int64(1<<20), "live heap grown by %d bytes", grown)

	hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: logs.Logger()})
	srv := httptest.NewServer(hh)
	defer srv.Close()
	defer hh.Close()
	for _, line := range strings.Split(strings.TrimSuffix(input, "\n"), "\n")[1:300] {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(line))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
		require.Empty(t, body)
	}
	assert.Empty(t, logs.Records(t))
}
