package mcp_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
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

// gated is a tool set whose calls wait for the test: wait reports a
// progress step, then waits for release; poll closes its stream first
// (mcp.CloseStream); flood waits, then reports n steps.
type gated struct {
	release chan struct{}
	ended   chan error // what each call's wait ended with
}

func (g gated) Wait(ctx context.Context) (string, error) {
	if err := middleware.ReportProgress(ctx, 1, 2, ""); err != nil {
		return "", err
	}
	return g.wait(ctx)
}

func (g gated) Poll(ctx context.Context) (string, error) {
	if !mcp.CloseStream(ctx) {
		return "not closed", nil
	}
	return g.wait(ctx)
}

func (g gated) Flood(ctx context.Context, p countArgs) (string, error) {
	if _, err := g.wait(ctx); err != nil {
		return "", err
	}
	for i := 1; i <= p.N; i++ {
		if err := middleware.ReportProgress(ctx, float64(i), float64(p.N), ""); err != nil {
			return "", err
		}
	}
	return "flooded", nil
}

// Stuck waits for release alone: it ignores its cancellation.
func (g gated) Stuck() string {
	<-g.release
	return "unstuck"
}

func (g gated) wait(ctx context.Context) (string, error) {
	select {
	case <-g.release:
		g.ended <- nil
		return "done", nil
	case <-ctx.Done():
		g.ended <- ctx.Err()
		return "", ctx.Err()
	}
}

// sseRig is a handler serving gated, driven without a network, in a
// synctest bubble.
type sseRig struct {
	t   *testing.T
	s   *mcp.Server
	h   *mcp.HTTPHandler
	g   gated
	sid string
}

func newSSERig(t *testing.T, opts *mcp.HTTPOptions) *sseRig {
	s := mcp.New(&mcp.Options{Name: "gated", Version: "1.0.0"})
	g := gated{release: make(chan struct{}), ended: make(chan error, 16)}
	require.NoError(t, s.Register("", g))
	if opts == nil {
		opts = &mcp.HTTPOptions{}
	}
	opts.RPC.Logger = wiretest.Quiet()
	h := s.NewHTTPHandler(context.Background(), opts)
	rec := serveDirect(h, exchange{body: initBody})
	require.Equal(t, 200, rec.Code, rec.Body.String())
	sid := rec.Header().Get("Mcp-Session-Id")
	require.Equal(t, 202, serveDirect(h, exchange{body: initialized, header: map[string]string{"Mcp-Session-Id": sid}}).Code)
	return &sseRig{t: t, s: s, h: h, g: g, sid: sid}
}

// open starts a request of the session, and returns its recorder, the
// function that makes its client go away, and a channel closed when its
// handler returns.
func (r *sseRig) open(method, body string, header map[string]string) (*httprec.Recorder, context.CancelFunc, chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, method, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", r.sid)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httprec.New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.h.ServeHTTP(w, req)
	}()
	return w, cancel, done
}

// get makes a GET of the session; last, if not "", is its Last-Event-ID.
func (r *sseRig) get(last string) (*httprec.Recorder, context.CancelFunc, chan struct{}) {
	hd := map[string]string{"Accept": "text/event-stream"}
	if last != "" {
		hd["Last-Event-ID"] = last
	}
	return r.open(http.MethodGet, "", hd)
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

const (
	priming    = "id: 1-0\nretry: 1000\ndata: \n\n"
	waitCall   = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"t"}}}`
	waitStep   = "id: 1-1\n" + `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}` + "\n\n"
	waitAnswer = "id: 1-2\n" + `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"done"}]},"id":7}` + "\n\n"
)

// A client that goes away from a POST's event stream does not cancel its
// call (2025-11-25): the answer is held, and a GET with the Last-Event-ID
// it saw gets the events after it, the answer included, and ends there;
// the stream is held still, for a client that did not get it all.
func TestHTTPStreamResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		w, leave, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		assert.Equal(t, priming+waitStep, w.String())
		assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
		leave()
		<-done
		synctest.Wait()
		assert.Empty(t, r.g.ended, "the call goes on")
		close(r.g.release)
		require.NoError(t, <-r.g.ended)
		synctest.Wait()
		assert.Equal(t, priming+waitStep, w.String(), "nothing after the client left")

		w2, _, done2 := r.get("1-1")
		<-done2 // the stream ends with its answer
		assert.Equal(t, 200, w2.Status())
		assert.Equal(t, "text/event-stream", w2.Header().Get("Content-Type"))
		assert.Equal(t, waitAnswer, w2.String())

		// Held still: the client may not have got what was written.
		w3, _, done3 := r.get("1-1")
		<-done3
		assert.Equal(t, waitAnswer, w3.String())
		w4, _, done4 := r.get("1-2")
		<-done4
		assert.Equal(t, "", w4.String())
	})
}

// A resumption from the priming event gets every event after it; one
// that comes while the POST's connection still writes takes it over.
func TestHTTPStreamTakeOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		w, _, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		w2, _, done2 := r.get("1-0")
		synctest.Wait()
		assert.True(t, closed(done), "the POST's connection ends when another takes its stream")
		assert.Equal(t, priming+waitStep, w.String())
		assert.Equal(t, waitStep, w2.String())
		close(r.g.release)
		<-done2
		assert.Equal(t, waitStep+waitAnswer, w2.String())
	})
}

// A tool may close its POST's connection before its answer (SEP-1699,
// polling): the client gets the priming event (with its retry field) and
// the end of the response, and comes back for the answer with GET and
// Last-Event-ID.
func TestHTTPCloseStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{Retry: 250 * time.Millisecond})
		defer r.h.Close()
		w, _, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"poll"}}`, nil)
		<-done
		prime := "id: 1-0\nretry: 250\ndata: \n\n"
		assert.Equal(t, prime, w.String())
		assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
		w2, _, done2 := r.get("1-0")
		synctest.Wait()
		assert.Equal(t, "", w2.String())
		close(r.g.release)
		<-done2
		assert.Equal(t, "id: 1-1\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"done"}]},"id":"p"}`+"\n\n", w2.String())
	})
}

// CloseStream closes nothing for a session of a revision before
// 2025-11-25 (its clients know no priming event), and its streams start
// without one.
func TestHTTPCloseStreamOlderRevision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "gated", Version: "1.0.0"})
		g := gated{release: make(chan struct{}), ended: make(chan error, 16)}
		require.NoError(t, s.Register("", g))
		h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		rec := serveDirect(h, exchange{body: strings.Replace(initBody, "2025-11-25", "2025-06-18", 1)})
		sid := rec.Header().Get("Mcp-Session-Id")
		rec = serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll"}}`, header: map[string]string{"Mcp-Session-Id": sid}})
		assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"not closed"}]},"id":1}`+"\n", rec.Body.String())
		r := &sseRig{t: t, s: s, h: h, g: g, sid: sid}
		w, _, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		step := "id: 1-0\n" + waitStep[len("id: 1-1\n"):]
		assert.Equal(t, step, w.String())
		close(g.release)
		<-done
		assert.Equal(t, step+"id: 1-1\n"+waitAnswer[len("id: 1-2\n"):], w.String())
	})
}

// The session's server stream (GET) carries what the server sends outside
// any request (the tools' list_changed), with keep-alive comments while
// quiet; a second GET while it is open takes it over; a resumption takes
// it over and gets what it missed; what comes while no GET is open waits for
// the next one.
func TestHTTPServerStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		serverPriming := "id: 1-0\nretry: 1000\ndata: \n\n"
		changed := func(n int) string {
			return "id: 1-" + strconv.Itoa(n) + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n\n"
		}
		w, leave, done := r.get("")
		synctest.Wait()
		assert.Equal(t, 200, w.Status())
		assert.Equal(t, "no", w.Header().Get("X-Accel-Buffering"))
		assert.Equal(t, serverPriming, w.String())
		require.NoError(t, r.s.Register("x", steps{}))
		synctest.Wait()
		assert.Equal(t, serverPriming+changed(1), w.String())
		time.Sleep(mcp.DefaultKeepAlive)
		synctest.Wait()
		assert.Equal(t, serverPriming+changed(1)+":\n\n", w.String())

		// Another GET takes the stream over from there on (with a priming
		// event of its own); the connection before it ends. Each event
		// goes on one connection.
		priming := func(n int) string { return "id: 1-" + strconv.Itoa(n) + "\nretry: 1000\ndata: \n\n" }
		prev, prevDone := w, done
		for i := range 3 {
			w2, _, done2 := r.get("")
			synctest.Wait()
			assert.True(t, closed(prevDone), "taken over")
			assert.False(t, closed(done2))
			assert.Equal(t, 200, w2.Status())
			assert.Equal(t, priming(2+i), w2.String())
			prev, prevDone = w2, done2
		}
		assert.Equal(t, serverPriming+changed(1)+":\n\n", w.String(), "the first connection got nothing more")
		w3, _, done3 := r.get("1-0")
		synctest.Wait()
		assert.True(t, closed(prevDone), "taken over")
		assert.Equal(t, priming(4), prev.String())
		assert.Equal(t, changed(1)+priming(2)+priming(3)+priming(4), w3.String())
		leave()
		require.Equal(t, 1, r.s.Remove("x.count"))
		synctest.Wait()
		assert.Equal(t, changed(1)+priming(2)+priming(3)+priming(4)+changed(5), w3.String())
		require.NoError(t, r.h.Close())
		<-done3 // the session's end ends its stream
	})
}

// What the server stream gets while no GET is open waits for the next one.
func TestHTTPServerStreamHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		// The session is told once it is initialized; nothing is open.
		require.NoError(t, r.s.Register("x", steps{}))
		synctest.Wait()
		w, leave, done := r.get("")
		synctest.Wait()
		assert.Equal(t, "id: 1-0\n"+`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`+"\n\n"+
			"id: 1-1\nretry: 1000\ndata: \n\n", w.String())
		leave()
		<-done
	})
}

// The events held for resumption are bounded (ReplayBytes): past it the
// oldest go, the answer stays, and a resumption after an event no longer
// held gets 410.
func TestHTTPReplayBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 300})
		defer r.h.Close()
		w, leave, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{"n":5},"_meta":{"progressToken":"t"}}}`, nil)
		synctest.Wait()
		assert.Equal(t, priming, w.String(), "the priming event at once: the answer is resumable from it")
		leave() // the client goes; five steps and the answer come after
		<-done
		close(r.g.release)
		require.NoError(t, <-r.g.ended)
		synctest.Wait()
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 300)
		w2, _, done2 := r.get("1-3")
		<-done2
		assert.Equal(t, 410, w2.Status())
		assert.Equal(t, invalid("the events after Last-Event-ID are no longer held (bound: ReplayBytes): the stream cannot be resumed"), w2.String())
		w3, _, done3 := r.get("1-4")
		<-done3
		step := func(n int) string {
			return "id: 1-" + strconv.Itoa(n) + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + strconv.Itoa(n) + `,"total":5}}` + "\n\n"
		}
		assert.Equal(t, step(5)+"id: 1-6\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"flooded"}]},"id":2}`+"\n\n", w3.String())
	})
}

// Forged, malformed and foreign Last-Event-IDs are refused, each with 400,
// and the stream they aim at goes on.
func TestHTTPLastEventIDAttack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		other := newSSERig(t, nil) // another handler's session: its stream 1 is not ours
		defer other.h.Close()
		w, _, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		// A stream of a second session of the same handler: number 2.
		r2 := &sseRig{t: t, s: r.s, h: r.h, g: r.g, sid: serveDirect(r.h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")}
		w2, _, done2 := r2.open(http.MethodPost, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"t"}}}`, nil)
		synctest.Wait()
		assert.True(t, strings.HasPrefix(w2.String(), "id: 2-0\n"), w2.String())
		noEvent := invalid("Last-Event-ID names no event of this session's streams held for resumption")
		for _, last := range []string{
			"x", "1", "1-", "-1", "1--1", "01-0", "1-01", "+1-0", "1-+0", " 1-0", "1-0 ", "1-2", "1-99",
			"18446744073709551616-0", "1-18446744073709551616", "99999999999999999999999999-0",
			"2-0", "2-1", // the other session's stream
			"0-0", "3-0",
			strings.Repeat("9", 4000),
		} {
			wx, _, dx := r.get(last)
			<-dx
			assert.Equal(t, 400, wx.Status(), "%q", last)
			assert.Equal(t, noEvent, wx.String(), "%q", last)
		}
		wx, _, dx := r.open(http.MethodGet, "", map[string]string{"Accept": "text/event-stream", "Last-Event-ID": "1-0"})
		_ = wx
		synctest.Wait()
		// The protocol version, as a POST's.
		for _, x := range []struct {
			version string
			status  int
			want    string
		}{
			{"1999-01-01", 400, refusal(-32022, "Unsupported protocol version", `{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1999-01-01"}`, "null")},
			{"2026-07-28", 405, invalid("2026-07-28 has no GET: a request is a POST")},
		} {
			wv, _, dv := r.open(http.MethodGet, "", map[string]string{"Accept": "text/event-stream", "Mcp-Protocol-Version": x.version})
			<-dv
			assert.Equal(t, x.status, wv.Status(), x.version)
			assert.Equal(t, x.want, wv.String(), x.version)
		}
		// Two headers.
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Mcp-Session-Id", r.sid)
		req.Header.Add("Last-Event-ID", "1-0")
		req.Header.Add("Last-Event-ID", "1-0")
		rec := httptest.NewRecorder()
		r.h.ServeHTTP(rec, req)
		assert.Equal(t, 400, rec.Code)
		assert.Equal(t, invalid("one Last-Event-ID header at most"), rec.Body.String())
		close(r.g.release)
		<-dx
		<-done
		<-done2
		assert.Equal(t, priming+waitStep, w.String())
		assert.Equal(t, waitStep+waitAnswer, wx.String())
	})
}

// A client that reads its server stream slowly (its connection blocks)
// holds up nobody: changes are told at once, what waits for it is
// bounded, and its connection ends after twice KeepAlive.
func TestHTTPServerStreamSlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 1000})
		defer r.h.Close()
		ctx, leave := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		req.Header.Set("Mcp-Session-Id", r.sid)
		req.Header.Set("Accept", "text/event-stream")
		w := &blockedWriter{header: http.Header{}, unblock: make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.h.ServeHTTP(w, req)
		}()
		synctest.Wait()
		for i := range 200 {
			require.NoError(t, r.s.Register("x"+strconv.Itoa(i), steps{}))
			synctest.Wait()
		}
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 1000)
		// A write blocked for twice KeepAlive ends the connection; the
		// client may open the stream again.
		time.Sleep(2*mcp.DefaultKeepAlive + time.Second)
		synctest.Wait()
		assert.True(t, closed(done), "the connection of a client that stopped reading ends")
		leave()
		close(w.unblock)
		w2, leave2, done2 := r.get("") // the server stream is free again
		synctest.Wait()
		assert.Equal(t, 200, w2.Status())
		assert.Contains(t, w2.String(), "retry: 1000\ndata: \n\n")
		leave2()
		<-done2
	})
}

// blockedWriter is a ResponseWriter whose writes block until unblock, or
// until the write deadline passes.
type blockedWriter struct {
	header   http.Header
	unblock  chan struct{}
	deadline time.Time
}

func (w *blockedWriter) Header() http.Header { return w.header }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) SetWriteDeadline(t time.Time) error {
	w.deadline = t
	return nil
}
func (w *blockedWriter) Write(p []byte) (int, error) {
	var timeout <-chan time.Time
	if !w.deadline.IsZero() {
		timeout = time.After(time.Until(w.deadline))
	}
	select {
	case <-w.unblock:
		return len(p), nil
	case <-timeout:
		return 0, os.ErrDeadlineExceeded
	}
}

// A session that sends nothing after its initialize ends after InitIdle,
// making room for another (MaxSessions); one that goes on lives
// SessionIdle.
func TestHTTPBareInitialize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
			MaxSessions: 2, RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		bare := serveDirect(h, exchange{body: initBody})
		require.Equal(t, 200, bare.Code)
		used := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
		rec := serveDirect(h, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: map[string]string{"Mcp-Session-Id": used}})
		require.Equal(t, 202, rec.Code)
		time.Sleep(mcp.DefaultInitIdle + time.Second)
		third := serveDirect(h, exchange{body: initBody})
		assert.Equal(t, 200, third.Code, "the bare session made room")
		assert.Equal(t, 404, serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": bare.Header().Get("Mcp-Session-Id")}}).Code)
		assert.Equal(t, 200, serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": used}}).Code)
		assert.Equal(t, 2, h.Sessions(), "ended by expiry, not evicted: the table was not full")
		synctest.Wait()
	})
}

// Close waits for the sessions being ended (DELETE, expiry): their calls
// have returned when it does.
func TestHTTPCloseWaitsForEndingSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		_, _, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		rec := serveDirect(r.h, exchange{method: "DELETE", header: map[string]string{"Mcp-Session-Id": r.sid}})
		require.Equal(t, 204, rec.Code)
		require.NoError(t, r.h.Close())
		select {
		case err := <-r.g.ended:
			assert.ErrorIs(t, err, context.Canceled)
		default:
			t.Fatal("Close returned before the ended session's call")
		}
		<-done
	})
}

// FuzzEventID: an event id is accepted only as the server writes it.
func FuzzEventID(f *testing.F) {
	for _, s := range []string{"1-0", "0-0", "18446744073709551615-18446744073709551615", "01-1", "1-", "-", "", "1-2-3", "9999999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		no, n, ok := mcp.ParseEventID(s)
		if !ok {
			return
		}
		if got := string(mcp.AppendEventID(nil, no, n)); got != s {
			t.Fatalf("%q parsed as %d-%d, written %q", s, no, n, got)
		}
	})
}

// A session's requests are served at most SessionConcurrency at once
// (default: half of RPC.Concurrency), and all sessions' together at most
// RPC.Concurrency: one session leaves room for the others. Notifications
// and responses never wait.
func TestHTTPSessionConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{RPC: rpc.Options{Concurrency: 2}})
		defer r.h.Close()
		call := func(id int) string {
			return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"t"}}}`
		}
		started := func(w *httprec.Recorder) bool { return strings.Contains(w.String(), "notifications/progress") }
		a1, _, _ := r.open(http.MethodPost, call(1), nil)
		a2, _, _ := r.open(http.MethodPost, call(2), nil)
		synctest.Wait()
		assert.True(t, started(a1) != started(a2), "one of the session's calls runs, the other waits")
		// A notification and a ping are not held up.
		rec := serveDirect(r.h, exchange{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: map[string]string{"Mcp-Session-Id": r.sid}})
		assert.Equal(t, 202, rec.Code)
		rec = serveDirect(r.h, exchange{body: `{"jsonrpc":"2.0","result":{},"id":"s1"}`, header: map[string]string{"Mcp-Session-Id": r.sid}})
		assert.Equal(t, 202, rec.Code, "a response (to a request of the server's) never waits")

		b := &sseRig{t: t, s: r.s, h: r.h, g: r.g, sid: serveDirect(r.h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")}
		c := &sseRig{t: t, s: r.s, h: r.h, g: r.g, sid: serveDirect(r.h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")}
		b1, _, _ := b.open(http.MethodPost, call(1), nil)
		synctest.Wait()
		assert.True(t, started(b1), "another session has room")
		c1, _, _ := c.open(http.MethodPost, call(1), nil)
		synctest.Wait()
		assert.False(t, started(c1), "the handler's bound is reached")
		r.g.release <- struct{}{} // one call ends: one waiting starts
		<-r.g.ended
		synctest.Wait()
		assert.Equal(t, 3, count(started, a1, a2, b1, c1), "the one that ended, and two running")
		close(r.g.release)
		for range 3 {
			<-r.g.ended
		}
		synctest.Wait()
		assert.Equal(t, 4, count(started, a1, a2, b1, c1))
	})
}

func count(f func(*httprec.Recorder) bool, ws ...*httprec.Recorder) int {
	n := 0
	for _, w := range ws {
		if f(w) {
			n++
		}
	}
	return n
}

// A session holds at most four times ReplayBytes of events for all its
// streams: the streams that ended first go first, and a resumption of one
// of them is then refused, while the latest is resumed.
func TestHTTPReplayBoundPerSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 300})
		defer r.h.Close()
		require.NoError(t, r.s.Register("s", steps{})) // the server stream, 1, holds list_changed
		synctest.Wait()                                // (told by a goroutine)
		for i := 2; i <= 11; i++ {
			rec := serveDirect(r.h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s.count","arguments":{"n":1},"_meta":{"progressToken":"t"}}}`,
				header: map[string]string{"Mcp-Session-Id": r.sid}})
			require.True(t, strings.HasPrefix(rec.Body.String(), "id: "+strconv.Itoa(i)+"-0\n"), rec.Body.String())
			assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 4*300)
		}
		w, _, done := r.get("2-0")
		<-done
		assert.Equal(t, 400, w.Status())
		w, _, done = r.get("11-1")
		<-done
		assert.Equal(t, "id: 11-2\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"1"}]},"id":1}`+"\n\n", w.String())
	})
}

// Over a real connection: a client that closes its POST's response after
// the first events does not cancel the call (its connection ends, the
// call goes on), and its GET with Last-Event-ID gets the answer.
func TestHTTPStreamResumeOverTCP(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"}) // for initialize's check
	g := gated{release: make(chan struct{}), ended: make(chan error, 16)}
	require.NoError(t, s.Register("", g))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	defer h.Close()
	srv := httptest.NewUnstartedServer(h)
	closedConns := make(chan struct{}, 16)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closedConns <- struct{}{}
		}
	}
	srv.Start()
	defer srv.Close()
	sid := initialize(t, srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), wiretest.Hang) // fails, not hangs
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(waitCall))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	br := bufio.NewReader(resp.Body)
	var got strings.Builder
	for got.String() != priming+waitStep {
		line, err := br.ReadString('\n')
		require.NoError(t, err, got.String())
		got.WriteString(line)
	}
	require.NoError(t, resp.Body.Close())                       // the client goes
	wiretest.Receive(t, closedConns, "the server seeing it go") // the server saw it go
	select {
	case err := <-g.ended:
		t.Fatalf("the call ended with its client: %v", err)
	default:
	}
	close(g.release)
	require.NoError(t, wiretest.Receive(t, g.ended, "the call's end"))
	check(t, srv.URL, exchange{method: http.MethodGet, header: map[string]string{"Mcp-Session-Id": sid, "Last-Event-ID": "1-1", "Accept": "text/event-stream"},
		status: 200, want: waitAnswer, got: map[string]string{"Content-Type": "text/event-stream"}})
}

// Server.Logger's records are log messages outside any request: a session
// that asked for them (logging/setLevel) gets those at its level or
// above on its server stream; one that did not gets none.
func TestHTTPServerLogger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, nil)
		defer r.h.Close()
		quiet := &sseRig{t: t, s: r.s, h: r.h, g: r.g, sid: serveDirect(r.h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")}
		rec := serveDirect(r.h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}`, header: map[string]string{"Mcp-Session-Id": r.sid}})
		require.Equal(t, 200, rec.Code)
		w, leave, done := r.get("")
		synctest.Wait()
		wq, leaveQ, doneQ := quiet.get("")
		synctest.Wait()
		log := r.s.Logger()
		log.Info("not wanted")
		log.With("tool", "x").Warn("disk low", "free", 3)
		synctest.Wait()
		assert.Equal(t, answered(1, `{"jsonrpc":"2.0","result":{},"id":1}`), rec.Body.String())
		assert.Equal(t, "id: 2-0\nretry: 1000\ndata: \n\n"+
			"id: 2-1\n"+`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"disk low","tool":"x","free":3}}}`+"\n\n", w.String())
		assert.Equal(t, "id: 3-0\nretry: 1000\ndata: \n\n", wq.String())
		leave()
		leaveQ()
		<-done
		<-doneQ
	})
}

// Close returns, after ShutdownGrace, even when a session's call ignores
// its cancellation: the session gives it up. A client that accepts events
// has its answer's event stream (its priming event) end; one that accepts
// JSON alone gets 404.
func TestHTTPCloseGivesUpAStuckCall(t *testing.T) {
	for _, tc := range []struct {
		accept string
		status int
		want   string
	}{
		{"application/json, text/event-stream", 200, priming},
		{"application/json", 404, invalid("the session ended before the request was answered")},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newSSERig(t, &mcp.HTTPOptions{RPC: rpc.Options{ShutdownGrace: time.Second}})
				w, _, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck"}}`, map[string]string{"Accept": tc.accept})
				synctest.Wait()
				require.NoError(t, r.h.Close())
				<-done
				assert.Equal(t, tc.status, w.Status())
				assert.Equal(t, tc.want, w.String())
				close(r.g.release) // the stuck call's goroutine ends
			})
		})
	}
}

// FuzzLastEventID: whatever Last-Event-ID a GET carries, it is answered
// 400 or 410 with a JSON-RPC error, or with events of the session's own
// stream only, and the stream still resumes.
func FuzzLastEventID(f *testing.F) {
	for _, s := range []string{"1-0", "1-1", "1-2", "1-3", "2-0", "0-0", "1-", "-", "", "01-1", "1-18446744073709551615", "18446744073709551615-0"} {
		f.Add(s)
	}
	h := newSteps(f).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	defer h.Close()
	sid := serveDirect(h, exchange{body: initBody}).Header().Get("Mcp-Session-Id")
	answer := serveDirect(h, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1},"_meta":{"progressToken":"t"}}}`,
		header: map[string]string{"Mcp-Session-Id": sid}}).Body.String()
	require.True(f, strings.HasPrefix(answer, "id: 1-0\n"), answer)
	f.Fuzz(func(t *testing.T, last string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header["Last-Event-Id"] = []string{last}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200:
			if !strings.HasSuffix(answer, rec.Body.String()) {
				t.Fatalf("%q resumed with %q, not a tail of the stream %q", last, rec.Body.String(), answer)
			}
		case 400, 410:
			if !strings.HasPrefix(rec.Body.String(), `{"jsonrpc":"2.0","error":{"code":-32600`) {
				t.Fatalf("%q: %d %q", last, rec.Code, rec.Body.String())
			}
		default:
			t.Fatalf("%q: %d %q", last, rec.Code, rec.Body.String())
		}
	})
}

// At the defaults, two 2025-03-26 sessions each POST a batch of 1,000
// calls that run until cancelled, and hang up at once: the calls take
// every worker (RPC.Concurrency, 64: SessionConcurrency, 32, each) and run
// on, but no longer than Detached (2 min); then they are cancelled, the
// rest of the batches run out, and another session's call, waiting, is
// served (issue 23, defect 6: two batches of 1,000 sleep(2 s) were a 63 s
// outage, of sleep(600 s) some 5 hours).
func TestHTTPDetachedBatchesEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, l := newLaggingRig(t, nil, "2025-03-26")
		defer r.h.Close()
		calls := make([]string, 1000)
		for i := range calls {
			calls[i] = slowCall(i + 1)
		}
		batch := "[" + strings.Join(calls, ",") + "]"
		for _, x := range []*sseRig{r, {t: t, s: r.s, h: r.h, sid: r.initialize("2025-03-26")}} {
			_, leave, done := x.open(http.MethodPost, batch, nil)
			synctest.Wait()
			leave()
			<-done
		}
		synctest.Wait()
		assert.Equal(t, int32(64), l.running.Load(), "every worker")

		honest := &sseRig{t: t, s: r.s, h: r.h, sid: r.initialize("2025-03-26")}
		w, _, done := honest.open(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		time.Sleep(mcp.DefaultDetached - time.Second)
		synctest.Wait()
		assert.Equal(t, int32(64), l.running.Load(), "running within Detached")
		assert.False(t, closed(done), "waiting for a worker")

		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, int32(0), l.running.Load(), "cancelled past Detached")
		require.True(t, closed(done), "served")
		assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":1}`+"\n", w.String())
	})
}

// An event larger than ReplayBytes is held only until a connection has
// written it: a ping with a 60 MiB id in each of 64 sessions held 7 GiB
// for their idle time (issue 23, defect 5). A resumption after it is
// refused 410, as for any event the bound dropped.
func TestHTTPLargeAnswerNotHeldOnceWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 300})
		defer r.h.Close()
		id := `"` + strings.Repeat("i", 4096) + `"`
		w, _, done := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, nil)
		<-done
		synctest.Wait()
		// The answer whole (the priming event before it too, unless the
		// bound dropped it before the connection took it: ReplayBytes is
		// smaller than the answer).
		assert.True(t, strings.HasSuffix(w.String(), "id: 1-1\ndata: "+`{"jsonrpc":"2.0","result":{},"id":`+id+"}\n\n"), "the answer whole")
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 300, "not held once written")
		w2, _, done2 := r.get("1-0")
		<-done2
		assert.Equal(t, 410, w2.Status())
	})
}

// A call whose POST's connection is gone runs on (disconnection is not
// cancellation), but no longer than Detached: then it is cancelled, and
// its worker freed (issue 23, defect 6: calls that asked a client that
// had left held every slot until DELETE). One whose client stays is not.
func TestHTTPDetachedCallsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{Detached: time.Minute})
		defer r.h.Close()
		_, leave, done := r.open(http.MethodPost, waitCall, nil)
		synctest.Wait()
		leave()
		<-done
		time.Sleep(59 * time.Second)
		synctest.Wait()
		assert.Empty(t, r.g.ended, "still running within Detached")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if assert.Len(t, r.g.ended, 1, "cancelled past Detached") {
			assert.ErrorIs(t, <-r.g.ended, context.Canceled)
		}

		// A client that stays keeps its call, however long.
		w, _, done2 := r.open(http.MethodPost, waitCall, nil)
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		assert.Empty(t, r.g.ended, "its client is there")
		close(r.g.release)
		<-done2
		assert.NoError(t, <-r.g.ended)
		assert.Contains(t, w.String(), `"result"`)
	})
}

// heldWriter is a Recorder whose first write waits for release: a
// connection the kernel has not taken the first events of yet.
type heldWriter struct {
	*httprec.Recorder
	release chan struct{}
	once    bool
}

func (w *heldWriter) Write(p []byte) (int, error) {
	if !w.once {
		w.once = true
		<-w.release
	}
	return w.Recorder.Write(p)
}

// A POST's answer is not dropped before its connection has taken it,
// whatever the session's other streams add: the session's bound forgot
// the oldest stream that was over even while its connection was still
// to take its answer, and the client got the priming event alone (found
// by the HTTP soak: a ping with a large id in a session whose earlier
// POST's large answer came later).
func TestHTTPAnswerNotDroppedBeforeItsConnectionTookIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSSERig(t, &mcp.HTTPOptions{ReplayBytes: 300})
		defer r.h.Close()
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"flood","arguments":{"n":1}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", r.sid)
		wA := &heldWriter{Recorder: httprec.New(), release: make(chan struct{})}
		doneA := make(chan struct{})
		go func() {
			defer close(doneA)
			r.h.ServeHTTP(wA, req)
		}()
		synctest.Wait() // A's connection took its priming event, and is still writing it
		close(r.g.release)
		synctest.Wait() // A answered: over, its answer held for its connection

		id := `"` + strings.Repeat("b", 4096) + `"` // B's events pass the session's bound
		wB, _, doneB := r.open(http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, nil)
		<-doneB
		assert.True(t, strings.HasSuffix(wB.String(), `data: {"jsonrpc":"2.0","result":{},"id":`+id+"}\n\n"), "B's answer")

		close(wA.release)
		<-doneA
		assert.Equal(t, "id: 1-0\nretry: 1000\ndata: \n\n"+
			"id: 1-1\n"+`data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"flooded"}]},"id":7}`+"\n\n", wA.String(), "A's answer")
		synctest.Wait()
		assert.LessOrEqual(t, mcp.HeldBytes(r.h, r.sid), 4*300, "let go once written")
	})
}
