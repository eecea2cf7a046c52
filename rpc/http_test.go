package rpc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/listen"
	"github.com/toolrpc/toolrpc/rpc"
)

// httpMethods serves the methods the HTTP tests call.
var httpMethods = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "note":
		if err := rpc.Notify(ctx, "note", map[string]int{"n": 1}); err != nil {
			return nil, err
		}
		return "ok", nil
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, rpc.NewError(rpc.MethodNotFound, "")
})

// post sends body to url with the headers given (name, value, ...) and
// returns the status, the content type and the body.
func post(t *testing.T, client *http.Client, method, url, body string, headers ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

const jsonType = "application/json"

// Every kind of request, answered with its HTTP status and exact body.
func TestHTTPHandler(t *testing.T) {
	h := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet, MaxFrameSize: 256})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	const sse = "text/event-stream"
	invalid := func(reason string) string {
		return `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"` + reason + `"}},"id":null}` + "\n"
	}
	tests := []struct {
		name     string
		method   string
		body     string
		headers  []string
		status   int
		ctype    string
		response string
	}{
		{"a request", "POST", `{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}`, []string{"Content-Type", jsonType},
			200, jsonType, `{"jsonrpc":"2.0","result":[1],"id":1}` + "\n"},
		{"a batch", "POST", `[{"jsonrpc":"2.0","method":"echo","params":[1],"id":1},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"x","id":2}]`,
			[]string{"Content-Type", "application/json; charset=utf-8"},
			200, jsonType, `[{"jsonrpc":"2.0","result":[1],"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}]` + "\n"},
		{"a notification", "POST", `{"jsonrpc":"2.0","method":"echo"}`, []string{"Content-Type", jsonType}, 202, "", ""},
		{"notifications alone", "POST", `[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"note"}]`,
			[]string{"Content-Type", jsonType}, 202, "", ""},
		{"not JSON", "POST", `{"jsonrpc":`, []string{"Content-Type", jsonType},
			200, jsonType, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}` + "\n"},
		{"an empty body", "POST", ``, []string{"Content-Type", jsonType},
			200, jsonType, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}` + "\n"},
		{"the reserved names", "POST", `{"jsonrpc":"2.0","method":"rpc.x","id":1}`, []string{"Content-Type", jsonType},
			200, jsonType, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}` + "\n"},
		{"JSON only: the answer alone", "POST", `{"jsonrpc":"2.0","method":"note","id":1}`, []string{"Content-Type", jsonType, "Accept", jsonType},
			200, jsonType, `{"jsonrpc":"2.0","result":"ok","id":1}` + "\n"},
		{"events: notifications, then the answer", "POST", `{"jsonrpc":"2.0","method":"note","id":1}`,
			[]string{"Content-Type", jsonType, "Accept", jsonType + ", " + sse},
			200, sse, "data: {\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{\"n\":1}}\n\ndata: {\"jsonrpc\":\"2.0\",\"result\":\"ok\",\"id\":1}\n\n"},
		{"events accepted, none sent: JSON", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`,
			[]string{"Content-Type", jsonType, "Accept", jsonType + ", " + sse},
			200, jsonType, `{"jsonrpc":"2.0","result":null,"id":1}` + "\n"},
		{"events only", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`, []string{"Content-Type", jsonType, "Accept", sse},
			200, sse, "data: {\"jsonrpc\":\"2.0\",\"result\":null,\"id\":1}\n\n"},
		{"GET", "GET", ``, nil, 405, jsonType, invalid("the method must be POST")},
		{"no content type", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`, nil, 415, jsonType, invalid("the body must be application/json")},
		{"another content type", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`, []string{"Content-Type", "text/plain"},
			415, jsonType, invalid("the body must be application/json")},
		{"an Accept of neither", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`, []string{"Content-Type", jsonType, "Accept", "text/html"},
			406, jsonType, invalid("Accept must allow application/json or text/event-stream")},
		{"JSON refused by q=0", "POST", `{"jsonrpc":"2.0","method":"echo","id":1}`, []string{"Content-Type", jsonType, "Accept", "application/json;q=0"},
			406, jsonType, invalid("Accept must allow application/json or text/event-stream")},
		{"a body over the limit", "POST", `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 256) + `"],"id":1}`,
			[]string{"Content-Type", jsonType}, 413, jsonType, invalid("frame larger than the limit of 256 bytes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, ctype, body := post(t, srv.Client(), tt.method, srv.URL, tt.body, tt.headers...)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.ctype, ctype)
			assert.Equal(t, tt.response, body)
		})
	}
	status, _, _ := post(t, srv.Client(), "GET", srv.URL, "")
	require.Equal(t, 405, status)
}

// A client that goes away cancels the calls of its request; a closed
// handler answers what still comes 503 and the calls it had cancelled.
func TestHTTPHandlerCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan context.Context, 1)
		h := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			started <- ctx
			<-ctx.Done()
			return nil, ctx.Err()
		}), &rpc.Options{Logger: quiet})
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":1}`))
		req.Header.Set("Content-Type", jsonType)
		rec := httptest.NewRecorder()
		served := make(chan struct{})
		go func() {
			h.ServeHTTP(rec, req)
			close(served)
		}()
		callCtx := <-started
		cancel() // the client goes away
		<-served
		<-callCtx.Done()
		assert.ErrorIs(t, context.Cause(callCtx), context.Canceled)
		assert.ErrorIs(t, context.Cause(callCtx), rpc.ErrCancelled, "as by the peer")

		go func() {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":2}`))
			req.Header.Set("Content-Type", jsonType)
			h.ServeHTTP(rec, req)
			assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":2}`+"\n", rec.Body.String())
		}()
		callCtx = <-started
		require.NoError(t, h.Close())
		assert.ErrorIs(t, context.Cause(callCtx), rpc.ErrShutdown)

		rec = httptest.NewRecorder()
		req = httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":3}`))
		req.Header.Set("Content-Type", jsonType)
		h.ServeHTTP(rec, req)
		assert.Equal(t, 503, rec.Code)
		synctest.Wait()
	})
}

// Options.Sequential is the stream's: over HTTP every request runs in the
// workers, within Concurrency, whatever it says.
func TestHTTPHandlerKeepsConcurrencyWhenSequential(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var running, peak atomic.Int32
		h := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			n := running.Add(1)
			defer running.Add(-1)
			if n > peak.Load() {
				peak.Store(n)
			}
			<-gate
			return "ok", nil
		}), &rpc.Options{Logger: quiet, Concurrency: 1, Sequential: true})
		done := make(chan string, 3)
		for i := range 3 {
			go func() {
				req := httptest.NewRequest("POST", "/", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","method":"m","id":%d}`, i)))
				req.Header.Set("Content-Type", jsonType)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				done <- rec.Body.String()
			}()
		}
		synctest.Wait()
		assert.Equal(t, int32(1), peak.Load(), "handlers at once with Concurrency 1")
		close(gate)
		for range 3 {
			assert.Contains(t, <-done, `"result":"ok"`)
		}
		require.NoError(t, h.Close())
	})
}

// A browser's request (it has an Origin) from a page of another origin is
// refused 403, which defeats DNS rebinding; programs (no Origin), pages on
// loopback and the origins allowed are served.
func TestHTTPHandlerOrigins(t *testing.T) {
	h := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet, AllowedOrigins: []string{"https://app.example.com"}})
	defer h.Close()
	open := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet, AllowedOrigins: []string{"*"}})
	defer open.Close()
	const refused = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"the Origin is not allowed"}},"id":null}` + "\n"
	const served = `{"jsonrpc":"2.0","result":null,"id":1}` + "\n"
	tests := []struct {
		name    string
		handler *rpc.HTTPHandler
		origins []string
		status  int
		body    string
	}{
		{"no Origin", h, nil, 200, served},
		{"loopback, any port", h, []string{"http://localhost:3000"}, 200, served},
		{"127.0.0.1", h, []string{"http://127.0.0.1:8080"}, 200, served},
		{"[::1]", h, []string{"http://[::1]:9"}, 200, served},
		{"an allowed origin, any case", h, []string{"https://APP.example.com"}, 200, served},
		{"another origin (DNS rebinding: its name resolves to us)", h, []string{"http://evil.example:8080"}, 403, refused},
		{"an allowed host over another scheme", h, []string{"http://app.example.com"}, 403, refused},
		{"localhost as a subdomain", h, []string{"http://localhost.evil.example"}, 403, refused},
		{"null (a sandboxed page)", h, []string{"null"}, 403, refused},
		{"two Origins", h, []string{"http://localhost", "http://evil.example"}, 403, refused},
		{"anything, with *", open, []string{"http://evil.example"}, 200, served},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"echo","id":1}`))
			req.Header.Set("Content-Type", jsonType)
			for _, o := range tt.origins {
				req.Header.Add("Origin", o)
			}
			rec := httptest.NewRecorder()
			tt.handler.ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.body, rec.Body.String())
		})
	}
}

// The bodies served at once are bounded in bytes (MaxQueueBytes): past the
// bound a request is answered 503 ServerBusy, known length or chunked; one
// alone is always served, however large.
func TestHTTPHandlerBoundsTheBodiesHeld(t *testing.T) {
	pad := func(n int) string { return `,"params":["` + strings.Repeat("x", n) + `"]` }
	first := `{"jsonrpc":"2.0","method":"wait","id":1` + pad(40) + `}`
	small := `{"jsonrpc":"2.0","method":"m","id":3}`
	larger := `{"jsonrpc":"2.0","method":"m","id":2` + pad(10) + `}` // past the bound with first
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			if req.Method == "wait" {
				<-gate
			}
			return "ok", nil
		}), &rpc.Options{Logger: quiet, MaxQueueBytes: len(first) + len(small)})
		defer h.Close()
		post := func(body string, chunked bool) *httptest.ResponseRecorder {
			var r io.Reader = strings.NewReader(body)
			if chunked {
				r = io.MultiReader(r) // no length known: read, then counted
			}
			req := httptest.NewRequest("POST", "/", r)
			req.Header.Set("Content-Type", jsonType)
			if chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		waiting := make(chan *httptest.ResponseRecorder)
		go func() { waiting <- post(first, false) }()
		synctest.Wait() // first is held
		busy := `{"jsonrpc":"2.0","error":{"code":-32002,"message":"Server busy","data":{"reason":"too many request bodies are being served: try again"}},"id":null}` + "\n"
		for _, chunked := range []bool{false, true} {
			rec := post(larger, chunked)
			assert.Equal(t, 503, rec.Code, "chunked %v", chunked)
			assert.Equal(t, "1", rec.Header().Get("Retry-After"))
			assert.Equal(t, busy, rec.Body.String())
		}
		assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":3}`+"\n", post(small, false).Body.String(), "small enough to fit")
		close(gate)
		assert.Equal(t, 200, (<-waiting).Code)
		rec := post(`{"jsonrpc":"2.0","method":"m","id":4`+pad(200)+`}`, false)
		assert.Equal(t, 200, rec.Code, "alone, a body over the bound is served")
	})
}

// listen.TCP listens on loopback when the address names no host, and
// ServeListener serves a handler there until its context ends, closing it
// and returning the cause.
func TestServeListenerOnLoopback(t *testing.T) {
	ln, err := listen.TCP(":0")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(ln.Addr().String(), "127.0.0.1:"), ln.Addr().String())
	h := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet})
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- rpc.ServeListener(ctx, ln, h, &rpc.Options{Logger: quiet}) }()
	var got []int
	require.NoError(t, rpc.NewHTTPClient("http://"+ln.Addr().String(), nil).Call(context.Background(), "echo", []int{7}, &got))
	assert.Equal(t, []int{7}, got)
	stop := errors.New("stop")
	cancel(stop)
	assert.ErrorIs(t, <-served, stop)
	_, err = listen.TCP("8080")
	assert.EqualError(t, err, `rpc: the address "8080": address 8080: missing port in address`)
}

// A request that came to loopback is answered only when its Host names
// loopback or a host allowed: a page whose name an attacker rebinds to
// 127.0.0.1 gets its own name in Host, Origin or not (issue 23, defect 11).
// On another address any Host is answered, unless AllowedHosts lists them.
func TestHTTPHandlerHosts(t *testing.T) {
	h := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet})
	defer h.Close()
	listed := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet, AllowedHosts: []string{"tools.example.com"}})
	defer listed.Close()
	open := rpc.NewHTTPHandler(context.Background(), httpMethods, &rpc.Options{Logger: quiet, AllowedHosts: []string{"*"}})
	defer open.Close()
	const refused = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"the Host is not allowed"}},"id":null}` + "\n"
	const served = `{"jsonrpc":"2.0","result":null,"id":1}` + "\n"
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 443}
	tests := []struct {
		name    string
		handler *rpc.HTTPHandler
		local   net.Addr
		host    string
		status  int
		body    string
	}{
		{"loopback: localhost", h, loopback, "localhost:8080", 200, served},
		{"loopback: LOCALHOST, no port", h, loopback, "LOCALHOST", 200, served},
		{"loopback: 127.0.0.1", h, loopback, "127.0.0.1:8080", 200, served},
		{"loopback: 127.1.2.3", h, loopback, "127.1.2.3", 200, served},
		{"loopback: [::1]", h, loopback, "[::1]:8080", 200, served},
		{"loopback: a rebound name", h, loopback, "evil.example:8080", 403, refused},
		{"loopback: [::1] and more", h, loopback, "[::1]evil.example", 403, refused},
		{"loopback: localhost as a subdomain", h, loopback, "localhost.evil.example", 403, refused},
		{"loopback: no Host", h, loopback, "", 403, refused},
		{"loopback: a host allowed", listed, loopback, "TOOLS.example.com:8080", 200, served},
		{"loopback: anything, with *", open, loopback, "evil.example", 200, served},
		{"public: any name", h, public, "tools.example.com", 200, served},
		{"public: a host allowed", listed, public, "tools.example.com", 200, served},
		{"public: a host not listed", listed, public, "evil.example", 403, refused},
		{"public: loopback's name", listed, public, "localhost", 200, served},
		{"unknown address (no server): any name", h, nil, "example.com", 200, served},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"echo","id":1}`))
			req.Header.Set("Content-Type", jsonType)
			req.Host = tt.host
			if tt.local != nil {
				req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, tt.local))
			}
			rec := httptest.NewRecorder()
			tt.handler.ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.body, rec.Body.String())
		})
	}

	// End to end: a real listener on loopback, a raw request naming
	// another host.
	srv := httptest.NewServer(h)
	defer srv.Close()
	for host, want := range map[string]string{"evil.example": "403 Forbidden", srv.Listener.Addr().String(): "200 OK"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		body := `{"jsonrpc":"2.0","method":"echo","id":1}`
		_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", host, len(body), body)
		require.NoError(t, err)
		status, err := bufio.NewReader(conn).ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "HTTP/1.1 "+want+"\r\n", status, host)
		conn.Close()
	}
}
