package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// Over Streamable HTTP, a client's answer nested deeper than the session's
// MaxDepth (128), alone or in a batch of answers (2025-03-26), is still the
// answer: routed to the tool's request (202), which fails at once, as over
// stdio, rather than waits for an answer that came (one deeper than
// encoding/json reads, 10000 levels, went to no request; a batch was
// answered -32600 to null, as a batch of requests too deep; one 200 deep
// was used, where stdio refuses it).
func TestAttackAskDeepAnswer(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deep200 := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	const tooDeep = `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"rpc: malformed response: response nested more than 128 levels deep"}],"isError":true},"id":2}` + "\n\n"
	batch := func(entry string) string {
		return `[{"jsonrpc":"2.0","id":9,"result":{}}, ` + entry + "]"
	}
	for _, tt := range []struct{ name, version, answer, want string }{
		{"result", "", `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","x":` + deep + `}}`, tooDeep},
		{"result 200 deep", "", `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","x":` + deep200 + `}}`, tooDeep},
		{"error", "", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"no","data":` + deep + `}}`, tooDeep},
		{"shallow, for comparison", "", `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","x":[[1]]}}`,
			`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says x"}]},"id":2}` + "\n\n"},
		{"in a batch", "2025-03-26", batch(`{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","x":` + deep + `}}`), tooDeep},
		{"in a batch, shallow", "2025-03-26", batch(`{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`),
			`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says x"}]},"id":2}` + "\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, url, sid := askHTTP(t, 0)
			s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
			assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
			header := map[string]string{"Mcp-Session-Id": sid}
			if tt.version != "" {
				header["Mcp-Protocol-Version"] = tt.version
			}
			check(t, url, exchange{body: tt.answer, header: header, status: http.StatusAccepted})
			assert.Equal(t, tt.want, s.event(t))
			assert.Equal(t, 0, mcp.Waiting(h))
		})
	}
}

// Over stdio, a client's answer nested deeper than the connection's
// MaxDepth fails the tool's request at once (rpc's ErrBadResponse), and is
// never answered.
func TestAskDeepAnswerOverStdio(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	serveSteps(t, newAskers(t), `
		--> `+askInit+`
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}
		<-- {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}
		--> {"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","x":`+deep+`}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"rpc: malformed response: response nested more than 128 levels deep"}],"isError":true},"id":2}
	`)
}

// In 2025-03-26 a batch may mix the client's answers with its requests:
// each answer goes to the tool's request waiting for it, the requests are
// served as any batch's (the answer was dropped with them before, and the
// tool waited).
func TestAskAnswerInAMixedBatch(t *testing.T) {
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	url := srv.URL
	resp := check(t, url, exchange{body: strings.Replace(askInit, "2025-11-25", "2025-03-26", 1), status: 200,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-03-26","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	sid := resp.Header.Get("Mcp-Session-Id")
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	check(t, url, exchange{
		body:   `[{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26"},
		status: http.StatusOK, want: `[{"jsonrpc":"2.0","result":{},"id":5}]` + "\n"})
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says x"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}
