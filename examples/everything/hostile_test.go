package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// subscribeBatch is a batch of n resources/subscribe requests (ids 1 to
// n), each of a distinct URI of mcp.MaxURI bytes.
func subscribeBatch(n int) []byte {
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		prefix := fmt.Sprintf("test://watched/%d/", i)
		b = fmt.Appendf(b, `{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":"%s%s"}}`,
			i+1, prefix, strings.Repeat("u", mcp.MaxURI-len(prefix)))
	}
	return append(b, ']')
}

// Sixty-four legacy (2025-03-26) sessions each subscribe to 1,000 URIs of
// 8 KiB, each within its bound, in one batch (2025-03-26 has batches: the
// 1,000 in one POST). A session's subscriptions are bounded in bytes too
// (mcp.MaxSubscriptionBytes, 64 KiB), so that 8 are taken and the rest
// refused, and the server's peak RSS stays that of a batch or two,
// whatever the number of sessions (issue 23, defect 9: 128 sessions held
// 865 MB live, 1.45 GiB RSS; 64 here would hold 512 MiB of URIs).
func TestBinaryHTTPSubscriptionsAreBoundedInBytes(t *testing.T) {
	url, cmd, _ := wiretest.StartHTTP(t)
	const sessions, uris = 64, mcp.MaxSubscriptions
	taken := mcp.MaxSubscriptionBytes / mcp.MaxURI
	batch := subscribeBatch(uris)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	for range sessions {
		s := wiretest.OpenSession(t, client, url, "2025-03-26")
		resp := s.Post(t, bytes.NewReader(batch))
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, 200, resp.StatusCode)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var answers []json.RawMessage
		require.NoError(t, json.Unmarshal(b, &answers))
		require.Len(t, answers, uris)
		// Which 8 are taken is the workers' race; each answer is one of
		// the two, for its id.
		n := 0
		for _, a := range answers {
			var m struct{ ID int }
			require.NoError(t, json.Unmarshal(a, &m))
			if string(a) == fmt.Sprintf(`{"jsonrpc":"2.0","result":{},"id":%d}`, m.ID) {
				n++
				continue
			}
			require.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"65536","message":"a session subscribes to at most 65536 bytes of URIs: unsubscribe from one first"}]},"id":%d}`, m.ID), string(a))
		}
		assert.Equal(t, taken, n, "taken")
	}
	peak := wiretest.PeakRSS(t, cmd.Process.Pid)
	t.Logf("peak RSS %d MiB after %d sessions subscribed to %d URIs of %d bytes", peak>>20, sessions, uris, mcp.MaxURI)
	// A batch (8 MiB) and its requests decoded, twice over (the collector
	// lets the heap grow to twice what is live), the 4 MiB the sessions
	// hold, and the runtime's own: 64 to 78 MiB measured; 817 MiB
	// before, growing by the 8 MiB each session held.
	assert.Less(t, peak, 128<<20)
}
