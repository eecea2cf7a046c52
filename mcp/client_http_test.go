package mcp_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// askHTTP serves the askers over Streamable HTTP, with no keep-alive
// comment to come in the middle of a stream, and opens a session whose
// client declares sampling and elicitation.
func askHTTP(t *testing.T, maxFrame int) (*mcp.HTTPHandler, string, string) {
	t.Helper()
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour,
		RPC: rpc.Options{Logger: wiretest.Quiet(), MaxFrameSize: maxFrame}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	resp := check(t, srv.URL, exchange{body: askInit, status: 200,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	return h, srv.URL, resp.Header.Get("Mcp-Session-Id")
}

// stream is the event stream of a POST under way.
type stream struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

// post starts a POST of body in the session, and returns its event
// stream, once its header came. A stream that is still open after
// wiretest.Hang is cut, so that a test waiting on it fails rather than
// hangs.
func post(t *testing.T, url, session, body string) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wiretest.Hang)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	s := &stream{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(func() {
		cancel()
		_ = resp.Body.Close()
	})
	return s
}

// event reads the next event of the stream but priming ones (an id, a
// retry, no data: the event streams' own), and returns it whole but for
// its id line, which it must have.
func (s *stream) event(t *testing.T) string {
	t.Helper()
	for {
		var ev strings.Builder
		for {
			line, err := s.r.ReadString('\n')
			require.NoError(t, err, "after %q", ev.String())
			ev.WriteString(line)
			if line == "\n" {
				break
			}
		}
		id, rest, ok := strings.Cut(ev.String(), "\n")
		require.True(t, ok && eventID.MatchString(id), "an event with an id: %q", ev.String())
		if strings.HasPrefix(rest, "retry: ") || rest == "data: \n\n" {
			continue // priming
		}
		return rest
	}
}

// eventID is the id line of an event.
var eventID = regexp.MustCompile(`^id: [0-9]+-[0-9]+$`)

// answer posts the client's response in the session: accepted, 202.
func answer(t *testing.T, url, session, body string) {
	t.Helper()
	check(t, url, exchange{body: body, header: map[string]string{"Mcp-Session-Id": session}, status: http.StatusAccepted})
}

// Over Streamable HTTP, a tool's request goes to the client as an event of
// the response to its tools/call, and the client's response, POSTed in
// the session (202), is routed to it; the call's result follows on the
// same stream. An error response of the client is the tool's error.
func TestAskOverHTTP(t *testing.T) {
	h, url, sid := askHTTP(t, 0)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	assert.Equal(t, 1, mcp.Waiting(h))
	answer(t, url, sid, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m1"}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m1 says hello"}]},"id":2}`+"\n\n", s.event(t))

	s = post(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"form"}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","maxLength":20,"default":"Ann"},"age":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":false},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},"old":{"type":"string","enum":["a"],"enumNames":["A"]},"tags":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]},"default":["x"]},"sizes":{"type":"array","items":{"anyOf":[{"const":"s","title":"Small"}]}}},"required":["name"]}},"id":2}`+"\n\n", s.event(t))
	answer(t, url, sid, `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"the user said no","data":{"why":"busy"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"the user said no"}],"isError":true},"id":3}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}

// impatient asks its client, and gives up when told.
type impatient struct{ giveUp chan struct{} }

func (i impatient) Impatient(ctx context.Context) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-i.giveUp:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err := mcp.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1,
		Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent{Text: "?"}}}})
	return "gave up: " + err.Error(), nil
}

// The responses a client POSTs are routed to the requests waiting for
// them, and to nothing else: a response to an id never sent (a number
// not ours, a string, a fraction), a second response to the same
// request, a response to a request whose tool gave up, are accepted
// (202) and dropped; one longer than the frame limit is refused (413);
// none is kept, and the request still waiting gets the right one.
func TestAttackAskResponses(t *testing.T) {
	h, url, sid := askHTTP(t, 4096)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	for _, id := range []string{`99`, `0`, `-1`, `"1"`, `1.0`, `1e0`, `null`, `{}`, `9223372036854775808`} {
		answer(t, url, sid, `{"jsonrpc":"2.0","id":`+id+`,"result":{"role":"assistant","content":{"type":"text","text":"wrong"},"model":"x"}}`)
	}
	for range 1000 {
		answer(t, url, sid, `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"flood"}}`)
	}
	// Not JSON: not a response, answered as rpc answers what it cannot
	// parse, with 400: input the server cannot accept (2025-11-25,
	// Transports: "it MUST return an HTTP error status code").
	resp, body := do(t, url, exchange{body: `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"},}`, header: map[string]string{"Mcp-Session-Id": sid}})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`+"\n", body)
	huge := `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"` + strings.Repeat("x", 8192) + `"},"model":"x"}}`
	resp, _ = do(t, url, exchange{body: huge, header: map[string]string{"Mcp-Session-Id": sid}})
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, 1, mcp.Waiting(h))
	answer(t, url, sid, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"right"},"model":"m"}}`)
	answer(t, url, sid, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"again"},"model":"m"}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says right"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}

// A tool that gives up waiting forgets its request: the answer that comes
// after is dropped.
func TestAttackAskAfterGivingUp(t *testing.T) {
	srv := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	giveUp := make(chan struct{})
	require.NoError(t, srv.Register("", impatient{giveUp}))
	h := srv.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: wiretest.Quiet()}})
	ts := httptest.NewServer(h)
	defer func() {
		ts.Close()
		_ = h.Close()
	}()
	resp := check(t, ts.URL, exchange{body: askInit, status: 200,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	sid := resp.Header.Get("Mcp-Session-Id")
	s := post(t, ts.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"impatient"}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"?"}}],"maxTokens":1},"id":1}`+"\n\n", s.event(t))
	close(giveUp)
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"gave up: context canceled"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
	answer(t, ts.URL, sid, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}`)
	assert.Equal(t, 0, mcp.Waiting(h))
}

// Over Streamable HTTP, a 2026-07-28 call whose tool needs a capability
// the client did not declare is answered 400, -32021 in the body, as JSON
// or as the event stream's one event; one the client can answer is
// input_required, 200.
func TestAskModernHTTP(t *testing.T) {
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	call := func(caps string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	}
	missing := `{"jsonrpc":"2.0","error":{"code":-32021,"message":"Missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}},"id":1}`
	for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
		header := modernHeaders("tools/call", "sample")
		header["Accept"] = accept
		check(t, srv.URL, exchange{body: call(`{}`), header: header, status: http.StatusBadRequest, want: missing + "\n"})
	}
	check(t, srv.URL, exchange{body: call(`{"sampling":{}}`), header: modernHeaders("tools/call", "sample"),
		status: http.StatusOK, want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"input_required","inputRequests":{"sampling-2a5d62d36af8ea92":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":1}`)})
}

// In 2025-03-26, the one revision with batches, the client may answer in
// an array of responses: each goes to its call. In the others an array is
// no answer of theirs, and routes nothing.
func TestAskBatchedAnswers(t *testing.T) {
	h, url, sid := askHTTP(t, 0)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	batch := `[{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"batched"},"model":"m"}},{"jsonrpc":"2.0","id":9,"result":{}}]`
	check(t, url, exchange{body: batch, header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}, status: http.StatusAccepted})
	assert.Equal(t, 1, mcp.Waiting(h))
	check(t, url, exchange{body: batch, header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26"}, status: http.StatusAccepted})
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says batched"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}
