package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolrpc/toolrpc/internal/wiretest/httprec"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// lagging is a tool set for the attacks on event streams: slow reports a
// progress step, counts itself in running, and waits for release or its
// cancellation.
type lagging struct {
	release chan struct{}
	running *atomic.Int32
	most    *atomic.Int32 // the most calls running at once
}

func (l lagging) Slow(ctx context.Context) (string, error) {
	n := l.running.Add(1)
	defer l.running.Add(-1)
	for {
		m := l.most.Load()
		if n <= m || l.most.CompareAndSwap(m, n) {
			break
		}
	}
	if err := middleware.ReportProgress(ctx, 1, 2, ""); err != nil {
		return "", err
	}
	select {
	case <-l.release:
		return "slow done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Stubborn reports a progress step, then waits for release alone: it
// ignores its cancellation.
func (l lagging) Stubborn(ctx context.Context) string {
	_ = middleware.ReportProgress(ctx, 1, 2, "")
	<-l.release
	return "stubborn done"
}

// newLaggingRig is a handler serving lagging, with a session of revision.
func newLaggingRig(t *testing.T, opts *mcp.HTTPOptions, revision string) (*sseRig, lagging) {
	s := mcp.New(&mcp.Options{Name: "lagging", Version: "1.0.0"})
	l := lagging{release: make(chan struct{}), running: new(atomic.Int32), most: new(atomic.Int32)}
	require.NoError(t, s.Register("", l))
	if opts == nil {
		opts = &mcp.HTTPOptions{}
	}
	opts.RPC.Logger = wiretest.Quiet()
	h := s.NewHTTPHandler(context.Background(), opts)
	r := &sseRig{t: t, s: s, h: h}
	r.sid = r.initialize(revision)
	return r, l
}

// initialize opens another session of revision on r's handler.
func (r *sseRig) initialize(revision string) string {
	rec := serveDirect(r.h, exchange{body: strings.Replace(initBody, "2025-11-25", revision, 1)})
	require.Equal(r.t, 200, rec.Code, rec.Body.String())
	return rec.Header().Get("Mcp-Session-Id")
}

// slowCall is a tools/call of slow with id, and a progress token.
func slowCall(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t` + strconv.Itoa(id) + `"}}}`
}

// A batch (2025-03-26) is bound as its requests are: a session's calls
// run at most SessionConcurrency at once, all sessions' at most
// RPC.Concurrency, however they come.
func TestAttackSSEBatchConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 1, RPC: rpcConcurrency(2)}, "2025-03-26")
		defer r.h.Close()
		batch := "[" + slowCall(1) + "," + slowCall(2) + "," + slowCall(3) + "]"
		other := &sseRig{t: t, s: r.s, h: r.h, sid: r.initialize("2025-03-26")}
		third := &sseRig{t: t, s: r.s, h: r.h, sid: r.initialize("2025-03-26")}
		var dones []chan struct{}
		var ws []*httprec.Recorder
		for _, x := range []*sseRig{r, other, third} {
			w, _, done := x.open(http.MethodPost, batch, nil)
			dones, ws = append(dones, done), append(ws, w)
		}
		synctest.Wait()
		assert.Equal(t, int32(2), l.most.Load(), "RPC.Concurrency: 2, one call of each of two sessions")
		close(l.release)
		for _, d := range dones {
			<-d
		}
		assert.Equal(t, int32(2), l.most.Load(), "RPC.Concurrency: 2")
		for _, w := range ws {
			assert.Equal(t, 3, strings.Count(w.String(), "slow done"), "every call answered: %s", w.String())
		}
	})
}

// A batch takes as many of the handler's slots as it has requests, up to
// SessionConcurrency: a batch of one slow call holds one, not
// SessionConcurrency, so that batches of one cannot take every slot.
func TestAttackSSEBatchOfOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 2, RPC: rpcConcurrency(4)}, "2025-03-26")
		defer r.h.Close()
		var dones []chan struct{}
		for i := range 4 {
			x := &sseRig{t: t, s: r.s, h: r.h, sid: r.initialize("2025-03-26")}
			body := slowCall(1)
			if i < 2 {
				body = "[" + body + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`
			}
			_, _, done := x.open(http.MethodPost, body, nil)
			dones = append(dones, done)
		}
		synctest.Wait()
		assert.Equal(t, int32(4), l.running.Load(), "two batches of one call, two calls")
		close(l.release)
		for _, d := range dones {
			<-d
		}
	})
}

// A batch of one session runs its calls at most SessionConcurrency at
// once.
func TestAttackSSEBatchSessionConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 1, RPC: rpcConcurrency(4)}, "2025-03-26")
		defer r.h.Close()
		w, _, done := r.open(http.MethodPost, "["+slowCall(1)+","+slowCall(2)+","+slowCall(3)+"]", nil)
		synctest.Wait()
		assert.Equal(t, int32(1), l.most.Load(), "SessionConcurrency: 1")
		close(l.release)
		<-done
		assert.Equal(t, int32(1), l.most.Load(), "SessionConcurrency: 1")
		assert.Equal(t, 3, strings.Count(w.String(), "slow done"), w.String())
	})
}

// A client that opens POSTs of slow tools and leaves each at once costs
// a bounded amount: the requests waiting for a slot of their session are
// bounded (SessionConcurrency), those past it answered 503 at once, not
// held with a goroutine each.
func TestAttackSSEDetachedWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 2, RPC: rpcConcurrency(4)}, "2025-11-25")
		defer r.h.Close()
		before := runtime.NumGoroutine()
		busy := 0
		for i := range 2000 {
			w, leave, done := r.open(http.MethodPost, slowCall(i), nil)
			synctest.Wait()
			if closed(done) {
				require.Equal(t, 503, w.Status(), w.String())
				assert.Equal(t, "1", w.Header().Get("Retry-After"))
				assert.Equal(t, refusal(-32002, "Server busy", `{"reason":"too many requests of the session are waiting: try again"}`, strconv.Itoa(i)), w.String())
				busy++
			}
			leave()
			<-done
		}
		synctest.Wait()
		assert.Equal(t, 2000-4, busy, "two running, two waiting, the others refused")
		assert.Less(t, runtime.NumGoroutine()-before, 40, "a goroutine per request held")
		assert.Equal(t, int32(2), l.running.Load())
		close(l.release)
		synctest.Wait()
		assert.Equal(t, int32(0), l.running.Load())
	})
}

// rpcConcurrency is rpc.Options of Concurrency n.
func rpcConcurrency(n int) rpc.Options { return rpc.Options{Concurrency: n} }

// What a client POSTs that is not a request never waits and runs nothing
// past the bounds: a response that matches no request of the server's, a
// tools/call sent as a notification (no id). Each is answered at once,
// 202 with no body (2025-11-25: "If the server accepts the input, the
// server MUST return HTTP status code 202 Accepted with no body"); what is
// neither a request nor accepted (malformed, not a message) gets an HTTP
// error status ("If the server cannot accept the input, it MUST return an
// HTTP error status code (e.g., 400 Bad Request)"), with its JSON-RPC
// error.
func TestAttackSSENotRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 1, RPC: rpcConcurrency(2)}, "2025-11-25")
		defer r.h.Close()
		for _, x := range []struct {
			body   string
			status int
			want   string
		}{
			{`{"jsonrpc":"2.0","id":1,"result":{}}`, 202, ""},
			{`{"jsonrpc":"2.0","id":"nobody","error":{"code":-1,"message":"x"}}`, 202, ""},
			{`{"jsonrpc":"2.0","id":null,"result":{}}`, 202, ""},
			{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow"}}`, 202, ""},
			{`{"jsonrpc":"2.0","id":1}`, 400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"method is required"}},"id":1}` + "\n"},
			{`{"jsonrpc":"2.0","method":"x"`, 400, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}` + "\n"},
			{`{"jsonrpc":"1.0","method":"notifications/initialized"}`, 400, invalid("jsonrpc must be the string 2.0")},
			{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, invalid("an MCP request's id must not be null")},
			{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, 400, invalid("id must be a string, a number or null")},
		} {
			for range 50 {
				w, _, done := r.open(http.MethodPost, x.body, nil)
				synctest.Wait()
				require.True(t, closed(done), x.body)
				assert.Equal(t, x.status, w.Status(), x.body)
				assert.Equal(t, x.want, w.String(), x.body)
			}
		}
		synctest.Wait()
		assert.Equal(t, int32(0), l.most.Load(), "a notification runs no tool")
		close(l.release)
	})
}

// The events a session holds for resumption are bounded in memory, not
// in bytes of wire alone: a client that makes many small event streams
// (a progress step each) holds no more than four times ReplayBytes of
// memory, the streams' bookkeeping counted.
func TestAttackSSEManySmallStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, nil, "2025-11-25")
		defer r.h.Close()
		close(l.release) // slow returns at once, after its progress step
		call := func(i int) {
			rec := serveDirect(r.h, exchange{body: slowCall(i), header: map[string]string{"Mcp-Session-Id": r.sid}})
			require.Contains(t, rec.Body.String(), "slow done")
		}
		call(0)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range 4000 {
			call(i)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		t.Logf("held %d bytes; heap %d -> %d", mcp.HeldBytes(r.h, r.sid), before.HeapAlloc, after.HeapAlloc)
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 4*mcp.DefaultReplayBytes)
		assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(4*mcp.DefaultReplayBytes)*5/4, "memory held")
	})
}

// DELETE racing with the session's GET, POSTs and resumptions: every
// request ends (with its stream, or 404), nothing hangs or leaks, and
// nothing more is served on the session.
func TestAttackSSEDeleteRaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, nil, "2025-11-25")
		defer r.h.Close()
		_, _, postDone := r.open(http.MethodPost, slowCall(1), nil)
		synctest.Wait() // stream 1: priming, the step
		var dones []chan struct{}
		for i := range 8 {
			switch i % 4 {
			case 0:
				_, _, d := r.get("")
				dones = append(dones, d)
			case 1:
				_, _, d := r.get("1-0")
				dones = append(dones, d)
			case 2:
				_, _, d := r.open(http.MethodPost, slowCall(10+i), nil)
				dones = append(dones, d)
			case 3:
				_, _, d := r.open(http.MethodDelete, "", nil)
				dones = append(dones, d)
			}
		}
		for _, d := range append(dones, postDone) {
			<-d
		}
		assert.Equal(t, 0, r.h.Sessions())
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			w, _, d := r.open(method, slowCall(99), map[string]string{"Accept": "application/json, text/event-stream"})
			<-d
			assert.Equal(t, 404, w.Status(), method)
		}
		synctest.Wait()
		assert.Equal(t, int32(0), l.running.Load())
	})
}

// A session whose server stream is open does not expire: the stream is a
// request under way. Once it ends, the session expires after SessionIdle,
// and a resumption of its streams is answered 404.
func TestAttackSSEExpiryWithStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := newLaggingRig(t, &mcp.HTTPOptions{SessionIdle: time.Minute}, "2025-11-25")
		defer r.h.Close()
		w, leave, done := r.get("")
		synctest.Wait()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		assert.False(t, closed(done))
		assert.Equal(t, 1, r.h.Sessions())
		assert.Equal(t, "id: 1-0\nretry: 1000\ndata: \n\n"+strings.Repeat(":\n\n", 40), w.String())
		leave()
		<-done
		time.Sleep(time.Minute + time.Second)
		w2, _, done2 := r.get("1-0")
		<-done2
		assert.Equal(t, 404, w2.Status())
		assert.Equal(t, invalid("no such session: initialize opens a new one"), w2.String())
	})
}

// Close gives up the sessions' calls that ignore their cancellation
// together, after ShutdownGrace, not one session after another: a
// handler with many such sessions closes in the time of one.
func TestAttackSSECloseStuckSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{RPC: rpc.Options{ShutdownGrace: time.Second}})
		var dones []chan struct{}
		for i := range 4 {
			x := r
			if i > 0 {
				x = &sseRig{t: t, s: r.s, h: r.h, g: r.g, sid: r.initialize("2025-11-25")}
			}
			_, _, done := x.open(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck"}}`, nil)
			dones = append(dones, done)
		}
		for range 3 { // and stateless requests (2026-07-28)
			_, _, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck",`+modernMeta+`}}`,
				modernHeaders("tools/call", "stuck"))
			dones = append(dones, done)
		}
		synctest.Wait()
		start := time.Now()
		require.NoError(t, r.h.Close())
		assert.LessOrEqual(t, time.Since(start), 2*time.Second, "the grace of one session (its handler's, then its streams'), of one request")
		close(r.g.release) // a stateless request's handler returns with its call
		for _, d := range dones {
			<-d
		}
	})
}

// A notifications/cancelled reaches a call while the session's calls take
// every slot it has (SessionConcurrency): notifications never wait.
func TestAttackSSECancelWhileFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{SessionConcurrency: 1}, "2025-11-25")
		defer r.h.Close()
		w, _, done := r.open(http.MethodPost, slowCall(1), nil)
		synctest.Wait()
		require.Equal(t, int32(1), l.running.Load())
		rec := serveDirect(r.h, exchange{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			header: map[string]string{"Mcp-Session-Id": r.sid}})
		assert.Equal(t, 202, rec.Code)
		<-done
		assert.Equal(t, int32(0), l.running.Load())
		assert.Equal(t, "id: 1-0\nretry: 1000\ndata: \n\n"+"id: 1-1\n"+`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2}}`+"\n\n", w.String(), "a cancelled request gets no answer")
	})
}

// A client that stops reading its POST's event stream while the call
// pours out progress: what is held is bounded (ReplayBytes), the call is
// not held up, the connection ends after twice KeepAlive, and the answer
// is still there for a resumption.
func TestAttackSSEPostSlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 4096})
		defer r.h.Close()
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{"n":5000},"_meta":{"progressToken":"t"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", r.sid)
		w := &blockedWriter{header: http.Header{}, unblock: make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.h.ServeHTTP(w, req)
		}()
		synctest.Wait()
		close(r.g.release)
		require.NoError(t, <-r.g.ended)
		synctest.Wait()
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 4096)
		time.Sleep(2*mcp.DefaultKeepAlive + time.Second)
		<-done
		w2, _, done2 := r.get("1-5000")
		<-done2
		assert.Equal(t, "id: 1-5001\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"flooded"}]},"id":2}`+"\n\n", w2.String())
		close(w.unblock)
	})
}

// slowDone is a request context whose Done waits for gate: its handler
// reaches its select only when the test says.
type slowDone struct {
	context.Context
	gate chan struct{}
}

func (c slowDone) Done() <-chan struct{} {
	<-c.gate
	return c.Context.Done()
}

// A POST whose event stream began while its session was ending (DELETE)
// is answered 404 once it looks, not attached to a stream the session no
// longer holds, where it would wait for its call (one that ignores its
// cancellation: for ever) with keep-alives.
func TestAttackSSEStreamOfEndedSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, &mcp.HTTPOptions{RPC: rpc.Options{ShutdownGrace: time.Second}}, "2025-11-25")
		defer r.h.Close()
		ctx := slowDone{Context: context.Background(), gate: make(chan struct{})}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stubborn","_meta":{"progressToken":"t"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", r.sid)
		w := httprec.New()
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.h.ServeHTTP(w, req)
		}()
		synctest.Wait() // the call sent its step: the stream began
		rec := serveDirect(r.h, exchange{method: http.MethodDelete, header: map[string]string{"Mcp-Session-Id": r.sid}})
		require.Equal(t, 204, rec.Code)
		time.Sleep(3 * time.Second) // both graces: the session has ended
		synctest.Wait()
		close(ctx.gate)
		synctest.Wait()
		assert.True(t, closed(done), "answered")
		assert.Equal(t, 404, w.Status())
		assert.Equal(t, invalid("the session ended before the request was answered"), w.String())
		close(l.release)
		<-done
	})
}
