package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A response POSTed in 2026-07-28, where servers send no requests, answers
// none: accepted (202) and dropped, logged at Debug as a legacy session's
// response to no request waiting, never at Warn, however many POSTs (each
// stateless request has an rpc handler of its own, whose count of
// dropped responses would start anew each time).
func TestAttackModernResponsesLogNothing(t *testing.T) {
	var logs wiretest.Logs
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: logs.Logger()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	hd := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	for i := range 100 {
		for _, body := range []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`, i),
			`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		} {
			check(t, srv.URL, exchange{body: body, header: hd, status: http.StatusAccepted})
		}
	}
	for _, r := range logs.Records(t) {
		require.Equal(t, "DEBUG", r["level"], "%v", r)
	}
	assert.Len(t, logs.Messages(t, "mcp: a response to no request waiting"), 300)
}
