package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolrpc/toolrpc/internal/wiretest/httprec"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// serveDirect makes the request of x to h, without a network, and returns
// the response.
func serveDirect(h http.Handler, x exchange) *httptest.ResponseRecorder {
	method := x.method
	if method == "" {
		method = http.MethodPost
	}
	req := httptest.NewRequest(method, "/", strings.NewReader(x.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range x.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// newSteps is a Server of steps.
func newSteps(t testing.TB) *mcp.Server {
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	require.NoError(t, s.Register("", steps{}))
	return s
}

// The bound on live sessions, and their idle expiry: an initialize past
// MaxSessions ends the session least recently used with no request under
// way, one never used after its initialize first (issue 23, defect 7: a
// peer that kept 1,024 sessions alive locked every newcomer out), and is
// refused 503 only while every session has a request under way; a
// session idle for longer than SessionIdle is ended (its id then gets
// 404); a request keeps its session alive.
func TestHTTPSessionBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
			MaxSessions: 2, SessionIdle: time.Minute, RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		open := func() string {
			rec := serveDirect(h, exchange{body: initBody})
			require.Equal(t, 200, rec.Code, rec.Body.String())
			return rec.Header().Get("Mcp-Session-Id")
		}
		ping := func(sid string) int {
			return serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid}}).Code
		}
		a, b := open(), open()
		assert.Equal(t, 200, ping(b))
		time.Sleep(time.Second)
		assert.Equal(t, 200, ping(a)) // both used; b least recently
		c := open()
		assert.Equal(t, 2, h.Sessions())
		assert.Equal(t, 404, ping(b), "the least recently used session made room")
		assert.Equal(t, 200, ping(a))
		d := open() // c was never used: it goes before a
		assert.Equal(t, 404, ping(c))
		assert.Equal(t, 200, ping(a))
		assert.Equal(t, 200, ping(d))

		// Every session has a request under way: no room.
		holds := make(chan int, 2)
		for _, sid := range []string{a, d} {
			go func() {
				holds <- serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold"}}`, header: map[string]string{"Mcp-Session-Id": sid}}).Code
			}()
		}
		synctest.Wait()
		rec := serveDirect(h, exchange{body: initBody})
		assert.Equal(t, 503, rec.Code)
		assert.Equal(t, invalid("too many sessions: try again later"), rec.Body.String())
		assert.Empty(t, rec.Header().Get("Mcp-Session-Id"))
		for _, sid := range []string{a, d} {
			assert.Equal(t, 204, serveDirect(h, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": sid}}).Code)
		}
		<-holds
		<-holds
		assert.Equal(t, 0, h.Sessions())

		// Idle expiry.
		e, f := open(), open()
		time.Sleep(30 * time.Second)
		assert.Equal(t, 200, ping(e)) // e's idle time starts again
		time.Sleep(31 * time.Second)  // f: 61s idle; e: 31s
		g := open()
		assert.Equal(t, 2, h.Sessions())
		assert.Equal(t, 404, ping(f))
		assert.Equal(t, 200, ping(e))
		assert.Equal(t, 200, ping(g))
		time.Sleep(time.Minute + time.Second)
		assert.Equal(t, 404, ping(e)) // expired, ended when named
		synctest.Wait()
	})
}

// A long event stream (subscriptions/listen, 2026-07-28) gets a keep-alive
// comment each KeepAlive while it is quiet, and X-Accel-Buffering: no; the
// client that goes away ends it.
func TestHTTPKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range modernHeaders("subscriptions/listen", "") {
			req.Header.Set(k, v)
		}
		w := httprec.New()
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(w, req)
			close(done)
		}()
		synctest.Wait()
		ack := `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}` + "\n\n"
		assert.Equal(t, ack, w.String())
		assert.Equal(t, "no", w.Header().Get("X-Accel-Buffering"))
		time.Sleep(mcp.DefaultKeepAlive)
		synctest.Wait()
		assert.Equal(t, ack+":\n\n", w.String())
		time.Sleep(mcp.DefaultKeepAlive)
		synctest.Wait()
		assert.Equal(t, ack+":\n\n:\n\n", w.String())
		cancel()
		<-done
		time.Sleep(mcp.DefaultKeepAlive)
		synctest.Wait()
		// No keep-alive once the client left. (What rpc.HTTPHandler
		// makes of the cancelled call is its own: sometimes a
		// -32800 response nobody reads.)
		got := w.String()
		require.True(t, strings.HasPrefix(got, ack+":\n\n:\n\n"), got)
		tail := got[len(ack)+6:]
		assert.False(t, strings.HasPrefix(tail, ":") || strings.Contains(tail, "\n\n:"), "a keep-alive after the end: %q", tail)
	})
}

// A session with a request under way does not expire, however long the
// request (its idle time counts once the body is read: a slow upload
// holds no session); Close ends every session, and what comes after it is 503.
func TestHTTPSessionBusyAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
			SessionIdle: time.Minute, RPC: rpc.Options{Logger: wiretest.Quiet()}})
		rec := serveDirect(h, exchange{body: initBody})
		require.Equal(t, 200, rec.Code)
		sid := rec.Header().Get("Mcp-Session-Id")
		// A call that lasts until its client goes away.
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), req)
			close(done)
		}()
		synctest.Wait()
		time.Sleep(2 * time.Minute)
		rec = serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid}})
		assert.Equal(t, answered(1, `{"jsonrpc":"2.0","result":{},"id":2}`), rec.Body.String())
		cancel()
		<-done

		require.NoError(t, h.Close())
		assert.Equal(t, 0, h.Sessions())
		for _, x := range []exchange{
			{body: initBody},
			{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid}},
			{body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`, header: modernHeaders("server/discover", "")},
		} {
			rec := serveDirect(h, x)
			assert.Equal(t, 503, rec.Code)
			assert.Equal(t, invalid("the server is shutting down"), rec.Body.String())
		}
	})
}

// The bodies every session and request of the handler are served with
// are bounded together (RPC.MaxQueueBytes): a request past the bound, in
// another session, is answered 503 ServerBusy while the first is held.
func TestHTTPBoundsTheBodiesHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{}}}`
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
			RPC: rpc.Options{Logger: wiretest.Quiet(), MaxQueueBytes: len(hold) + 10}})
		defer h.Close()
		var sids []string
		for range 2 {
			rec := serveDirect(h, exchange{body: initBody})
			require.Equal(t, 200, rec.Code)
			sids = append(sids, rec.Header().Get("Mcp-Session-Id"))
		}
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(hold))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", sids[0])
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), req)
			close(done)
		}()
		synctest.Wait() // the first body is held while its call runs
		rec := serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sids[1]}})
		assert.Equal(t, 503, rec.Code)
		assert.Equal(t, "1", rec.Header().Get("Retry-After"))
		assert.Contains(t, rec.Body.String(), `"code":-32002`)
		cancel() // the client goes: its call goes on (2025-11-25), its body held
		<-done
		synctest.Wait()
		rec = serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sids[1]}})
		assert.Equal(t, 503, rec.Code)
		rec = serveDirect(h, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": sids[0]}})
		assert.Equal(t, 204, rec.Code)
		synctest.Wait() // the session's end cancels the call
		rec = serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sids[1]}})
		assert.Equal(t, answered(1, `{"jsonrpc":"2.0","result":{},"id":3}`), rec.Body.String(), "served once the first is done")
	})
}

// A legacy session that ends (DELETE, eviction, the handler's Close) is
// forgotten by its Server at once, its subscriptions with it. It was held
// until the next change or initialize: after Close, the Server kept every
// session the handler had had (found by the HTTP soak: up to MaxSessions
// of them, with up to MaxSubscriptionBytes of URIs each).
func TestHTTPEndedSessionsAreForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSteps(t)
		h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{MaxSessions: 2, RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		open := func() string {
			rec := serveDirect(h, exchange{body: initBody})
			require.Equal(t, 200, rec.Code, rec.Body.String())
			return rec.Header().Get("Mcp-Session-Id")
		}
		a := open()
		open()
		assert.Equal(t, 2, mcp.Sessions(s))
		assert.Equal(t, 204, serveDirect(h, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": a}}).Code)
		synctest.Wait()
		assert.Equal(t, 1, mcp.Sessions(s), "deleted")
		open()
		open() // evicts one
		synctest.Wait()
		assert.Equal(t, 2, mcp.Sessions(s), "evicted")
		require.NoError(t, h.Close())
		assert.Equal(t, 0, mcp.Sessions(s), "closed")
	})
}
