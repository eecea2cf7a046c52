package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// steps is a tool set for the transport's tests: count reports a progress
// notification per step.
type steps struct{}

type countArgs struct {
	N int `json:"n"`
}

func (steps) Count(ctx context.Context, p countArgs) (int, error) {
	for i := 1; i <= p.N; i++ {
		if err := middleware.ReportProgress(ctx, float64(i), float64(p.N), ""); err != nil {
			return 0, err
		}
	}
	return p.N, nil
}

// Hold waits for its context's end.
func (steps) Hold(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func (steps) Echo(p struct {
	S string `json:"s"`
}) string {
	return p.S
}

// newHTTP serves a Server of steps over Streamable HTTP on a test server.
func newHTTP(t *testing.T, opts *mcp.HTTPOptions) (*mcp.HTTPHandler, *httptest.Server) {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	require.NoError(t, s.Register("", steps{}))
	if opts == nil {
		opts = &mcp.HTTPOptions{}
	}
	opts.RPC.Logger = wiretest.Quiet()
	h := s.NewHTTPHandler(context.Background(), opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	return h, srv
}

// exchange is one HTTP request and what it gets.
type exchange struct {
	method string
	header map[string]string // "Content-Type" and "Accept" are set unless given ("-": none)
	body   string
	status int
	want   string            // the response's body
	got    map[string]string // response headers, "" for absent
}

// do makes the request of x, and returns the response and its body.
func do(t *testing.T, url string, x exchange) (*http.Response, string) {
	t.Helper()
	method := x.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, url, strings.NewReader(x.body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range x.header {
		if v == "-" {
			req.Header.Del(k)
			continue
		}
		for i, part := range strings.Split(v, "\x00") {
			if i == 0 {
				req.Header.Set(k, part)
			} else {
				req.Header.Add(k, part)
			}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp, string(b)
}

// check makes the request of x and asserts what it gets.
func check(t *testing.T, url string, x exchange) *http.Response {
	t.Helper()
	resp, body := do(t, url, x)
	assert.Equal(t, x.status, resp.StatusCode, "%s %s %v", x.method, x.body, x.header)
	assert.Equal(t, x.want, body, "%s %s %v", x.method, x.body, x.header)
	for k, v := range x.got {
		assert.Equal(t, v, resp.Header.Get(k), "header %s", k)
	}
	return resp
}

// A legacy initialize, and the headers of a modern request.
const (
	initBody   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initResult = `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"steps","version":"1.0.0"}},"id":1}` + "\n"
)

// initialize opens a legacy session, and returns its id.
func initialize(t *testing.T, url string) string {
	t.Helper()
	resp := check(t, url, exchange{body: initBody, status: 200, want: initResult,
		got: map[string]string{"Content-Type": "application/json"}})
	id := resp.Header.Get("Mcp-Session-Id")
	require.Len(t, id, 26) // 130 random bits
	for _, c := range id {
		require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII: %q", id)
	}
	return id
}

// modernHeaders are the headers of a modern request of method (and name).
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// refusal is the JSON-RPC error response line of a refusal.
func refusal(code int, msg, data string, id string) string {
	b := `{"jsonrpc":"2.0","error":{"code":` + json.Number(itoa(code)).String() + `,"message":` + quote(msg)
	if data != "" {
		b += `,"data":` + data
	}
	return b + `},"id":` + id + "}\n"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// invalid is rpc's refusal of a request it does not serve.
func invalid(reason string) string {
	return refusal(-32600, "Invalid Request", `{"reason":`+quote(reason)+`}`, "null")
}

// answered is the event stream that answers a POST of a session that
// negotiated 2025-11-25, from a client that accepts events, when its call
// sends nothing before its answer (line): stream no's priming event, then
// the answer's.
func answered(no int, line string) string {
	n := strconv.Itoa(no)
	return "id: " + n + "-0\nretry: 1000\ndata: \n\nid: " + n + "-1\ndata: " + line + "\n\n"
}

// streamed is the event stream that answers a 2026-07-28 request from a
// client that accepts events when its call sends nothing before its
// answer (line): the answer's event alone, no id (no resumption).
func streamed(line string) string { return "data: " + line + "\n\n" }

// Hostile and malformed requests, in both eras: each gets its status and
// a JSON-RPC error body, and the server goes on serving.
func TestHTTPHostile(t *testing.T) {
	_, srv := newHTTP(t, &mcp.HTTPOptions{RPC: rpc.Options{MaxFrameSize: 1024, AllowedOrigins: []string{"https://app.example.com"}}})
	url := srv.URL
	sid := initialize(t, url)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	call := func(name, meta string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":` + quote(name) + `,"arguments":{"s":"x"}` + meta + `}}`
	}
	meta := `,` + modernMeta
	evil := map[string]string{"Origin": "http://evil.example"}
	unsupported := refusal(-32022, "Unsupported protocol version",
		`{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1999-01-01"}`, "2")
	for _, x := range []exchange{
		// What rpc's handler judges, in both eras and for every method.
		{method: "GET", status: 400, want: invalid("one Mcp-Session-Id header is required: initialize opens a session")},
		{method: "GET", header: map[string]string{"Mcp-Session-Id": "nope"}, status: 404, want: invalid("no such session: initialize opens a new one")},
		{method: "GET", header: map[string]string{"Mcp-Session-Id": sid, "Accept": "application/json"}, status: 406, want: invalid("Accept must allow text/event-stream")},
		{method: "PUT", body: list, status: 405, want: invalid("the method must be POST or GET or DELETE"), got: map[string]string{"Allow": "POST, GET, DELETE"}},
		{body: list, header: map[string]string{"Content-Type": "text/plain", "Mcp-Session-Id": sid}, status: 415, want: invalid("the body must be application/json")},
		{body: list, header: map[string]string{"Accept": "text/html", "Mcp-Session-Id": sid}, status: 406, want: invalid("Accept must allow application/json or text/event-stream")},
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 1024) + `"}}`, header: map[string]string{"Mcp-Session-Id": sid},
			status: 413, want: invalid("frame larger than the limit of 1024 bytes")},
		{body: initBody, header: evil, status: 403, want: invalid("the Origin is not allowed")},
		{body: list, header: map[string]string{"Origin": "http://evil.example", "Mcp-Session-Id": sid}, status: 403, want: invalid("the Origin is not allowed")},
		{method: "GET", header: evil, status: 403, want: invalid("the Origin is not allowed")},
		{method: "DELETE", header: map[string]string{"Origin": "http://evil.example", "Mcp-Session-Id": sid}, status: 403, want: invalid("the Origin is not allowed")},
		{method: "DELETE", header: map[string]string{"Origin": "http://evil.example", "Mcp-Session-Id": "nope"}, status: 403, want: invalid("the Origin is not allowed")},
		// Sessions (2025-11-25).
		{body: list, status: 400, want: invalid("one Mcp-Session-Id header is required: initialize opens a session")},
		{body: list, header: map[string]string{"Mcp-Session-Id": sid + "\x00" + sid}, status: 400, want: invalid("one Mcp-Session-Id header is required: initialize opens a session")},
		{body: list, header: map[string]string{"Mcp-Session-Id": "AAAAAAAAAAAAAAAAAAAAAAAAAA"}, status: 404, want: invalid("no such session: initialize opens a new one")},
		{body: initBody, header: map[string]string{"Mcp-Session-Id": sid}, status: 400, want: invalid("initialize opens a session: it must not name one (Mcp-Session-Id)")},
		{method: "DELETE", status: 400, want: invalid("one Mcp-Session-Id header is required: initialize opens a session")},
		{method: "DELETE", header: map[string]string{"Mcp-Session-Id": "nope"}, status: 404, want: invalid("no such session: initialize opens a new one")},
		{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 400, want: invalid("one Mcp-Session-Id header is required: initialize opens a session")},
		// The protocol version header.
		{body: list, header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "1999-01-01"}, status: 400, want: unsupported},
		{body: list, header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25\x002025-11-25"}, status: 400,
			want: refusal(-32600, "Invalid Request", `{"reason":"one Mcp-Protocol-Version header at most"}`, "2")},
		// Stateless requests (2026-07-28): headers against the body.
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`, header: map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
			status: 400, want: refusal(-32020, "Header mismatch: the Mcp-Method header is required", "", "2")},
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`, header: modernHeaders("tools/call", ""),
			status: 400, want: refusal(-32020, `Header mismatch: Mcp-Method header value "tools/call" does not match body value "tools/list"`, "", "2")},
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`, header: map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list\x00tools/list"},
			status: 400, want: refusal(-32020, "Header mismatch: one Mcp-Method header at most", "", "2")},
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`, header: modernHeaders("tools/list", ""),
			status: 400, want: refusal(-32020, `Header mismatch: Mcp-Protocol-Version header value "2026-07-28" does not match body value _meta["io.modelcontextprotocol/protocolVersion"]`, "", "2")},
		// A required _meta field missing is -32602, 400 (2026-07-28, Per-request protocol fields).
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, header: modernHeaders("tools/list", ""),
			status: 400, want: refusal(-32602, "Invalid params", `[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]`, "2")},
		{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, header: modernHeaders("tools/list", ""),
			status: 400, want: refusal(-32602, "Invalid params", `[{"field":"_meta[\"io.modelcontextprotocol/clientCapabilities\"]","rule":"required","message":"the client's capabilities are required"}]`, "2")},
		{body: call("echo", meta), header: modernHeaders("tools/call", ""),
			status: 400, want: refusal(-32020, "Header mismatch: one Mcp-Name header is required for tools/call", "", "3")},
		{body: call("echo", meta), header: modernHeaders("tools/call", "count"),
			status: 400, want: refusal(-32020, `Header mismatch: Mcp-Name header value "count" does not match body value params.name`, "", "3")},
		{body: call("echo", meta), header: modernHeaders("tools/call", "=?base64?!!?="),
			status: 400, want: refusal(-32020, "Header mismatch: the Mcp-Name header value is not a valid header value", "", "3")},
		{body: `{"jsonrpc":"2.0","id":"p","method":"ping","params":{` + modernMeta + `}}`, header: modernHeaders("ping", ""),
			status: 404, want: refusal(-32601, "Method not found", "", `"p"`)},
		{body: `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{` + modernMeta + `}}`, header: modernHeaders("initialize", ""),
			status: 404, want: refusal(-32601, "Method not found", "", "4")},
		{body: `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///a",` + modernMeta + `}}`, header: modernHeaders("resources/read", "file:///a"),
			status: 404, want: refusal(-32601, "Method not found", "", "5")},
		// Origins on loopback, and those of RPC.AllowedOrigins, are served.
		{body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Origin": "http://localhost:6274", "Mcp-Session-Id": sid}, status: 200,
			want: answered(1, `{"jsonrpc":"2.0","result":{},"id":2}`)},
		{body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Origin": "https://app.example.com", "Mcp-Session-Id": sid}, status: 200,
			want: answered(2, `{"jsonrpc":"2.0","result":{},"id":2}`)},
		// And the server goes on: the session serves, the modern request
		// whose headers match is served (its name Base64-encoded).
		{body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}, status: 200,
			want: answered(3, `{"jsonrpc":"2.0","result":{},"id":2}`)},
		{body: call("echo", meta), header: modernHeaders("tools/call", "=?base64?ZWNobw==?="), status: 200,
			want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"x"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":3}`)},
	} {
		check(t, url, x)
	}
}

// A whole legacy session (2025-11-25): initialize issues a session id;
// the client's notifications and responses are answered 202; a request,
// from a client that accepts both JSON and events, is answered as
// Server-Sent Events, a priming event first (tools/list: then its answer;
// a tools/call with a progress token: then its progress, then its
// answer); DELETE ends the session, after which its id gets 404.
func TestHTTPLegacySession(t *testing.T) {
	h, srv := newHTTP(t, nil)
	url := srv.URL
	sid := initialize(t, url)
	assert.Equal(t, 1, h.Sessions())
	in := func(v string) map[string]string {
		return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": v}
	}
	check(t, url, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: in("2025-11-25"), status: 202})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","result":{},"id":"s1"}`, header: in("2025-11-25"), status: 202})
	resp, body := do(t, url, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, header: in("2025-11-25")})
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(body, "id: 1-0\nretry: 1000\ndata: \n\nid: 1-1\ndata: {"), body)
	assert.True(t, strings.HasSuffix(body, `,"id":2}`+"\n\n"), body)
	assert.Contains(t, body, `"name":"count"`)
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"n":2},"_meta":{"progressToken":"t"}}}`,
		header: in("2025-11-25"), status: 200,
		want: "id: 2-0\nretry: 1000\ndata: \n\n" +
			"id: 2-1\n" + `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}` + "\n\n" +
			"id: 2-2\n" + `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":2}}` + "\n\n" +
			"id: 2-3\n" + `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"2"}]},"id":3}` + "\n\n",
		got: map[string]string{"Content-Type": "text/event-stream", "X-Accel-Buffering": "no", "Mcp-Session-Id": ""}})
	// No header: 2025-03-26 assumed, and the session serves it (as the
	// revision it negotiated).
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":4,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid},
		status: 200, want: answered(3, `{"jsonrpc":"2.0","result":{},"id":4}`)})
	check(t, url, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": sid}, status: 204})
	assert.Equal(t, 0, h.Sessions())
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":5,"method":"ping"}`, header: in("2025-11-25"), status: 404,
		want: invalid("no such session: initialize opens a new one")})
	check(t, url, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": sid}, status: 404,
		want: invalid("no such session: initialize opens a new one")})
	// Each initialize opens a session of its own; one that fails opens none.
	other := initialize(t, url)
	assert.NotEqual(t, sid, other)
	resp = check(t, url, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, status: 200,
		want: `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"protocolVersion","rule":"required","message":"protocolVersion is required"},{"field":"capabilities","rule":"required","message":"capabilities is required"},{"field":"clientInfo","rule":"required","message":"clientInfo is required"}]},"id":1}` + "\n"})
	assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, 1, h.Sessions())
}

// A stateless exchange (2026-07-28), from a client that accepts both JSON
// and events: server/discover (its answer the stream's only event), and a
// tools/call with progress, as Server-Sent Events; a session id sent is
// ignored, and none is issued.
func TestHTTPModern(t *testing.T) {
	h, srv := newHTTP(t, nil)
	url := srv.URL
	hd := modernHeaders("server/discover", "")
	hd["Mcp-Session-Id"] = "whatever"
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`, header: hd, status: 200,
		want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":1}`),
		got:  map[string]string{"Mcp-Session-Id": "", "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}})
	check(t, url, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":1},"_meta":{"progressToken":7,` + modernMeta[len(`"_meta":{`):] + `}}`,
		header: modernHeaders("tools/call", "count"), status: 200,
		want: `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":1}}` + "\n\n" +
			`data: {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"1"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":2}` + "\n\n",
		got: map[string]string{"Content-Type": "text/event-stream", "X-Accel-Buffering": "no", "Mcp-Session-Id": ""}})
	assert.Equal(t, 0, h.Sessions())
}

// Stateless requests of different clients share nothing: one's id in
// flight does not refuse another's request with the same id, and one's
// notifications/cancelled does not reach another's call (here a
// subscriptions/listen, which hears of a change to the tools after it).
func TestHTTPModernIsolated(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	require.NoError(t, s.Register("", steps{}))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	req, err := http.NewRequest("POST", srv.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	line, err := events.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, "notifications/subscriptions/acknowledged")

	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},` + modernMeta + `}}`,
		header: modernHeaders("tools/call", "echo"), status: 200,
		want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"x"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":1}`)})
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		header: map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, status: 202})
	require.NoError(t, s.Register("", extra{}))
	for {
		line, err = events.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(line, "data: ") {
			break
		}
	}
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`+"\n", line)
}
