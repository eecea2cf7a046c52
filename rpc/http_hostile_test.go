package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// hostileMethods serves the hostile-input HTTP tests: httpMethods' (echo,
// note), and wait (reports its context on started, then waits for it
// to end); stream (notifies until Notify fails, then reports why on
// streamed); late (answers, then notifies once release is closed, and
// reports Notify's error on lateErr); boom (panics).
type hostileMethods struct {
	started  chan context.Context
	streamed chan error
	release  chan struct{}
	lateErr  chan error
}

func newHostileMethods() *hostileMethods {
	return &hostileMethods{
		started:  make(chan context.Context, 64),
		streamed: make(chan error, 1),
		release:  make(chan struct{}),
		lateErr:  make(chan error, 1),
	}
}

func (m *hostileMethods) Handle(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "wait":
		m.started <- ctx
		<-ctx.Done()
		return nil, context.Cause(ctx)
	case "stream":
		for {
			if err := rpc.Notify(ctx, "tick", nil); err != nil {
				m.streamed <- err
				return nil, err
			}
		}
	case "late":
		go func() {
			<-m.release
			m.lateErr <- rpc.Notify(ctx, "late", nil)
		}()
		return "early", nil
	case "boom":
		panic("boom")
	}
	return httpMethods(ctx, req)
}

// guardWriter is an http.ResponseWriter that counts the uses made of it
// after ServeHTTP returned (see serveGuarded), which the http.Handler
// contract forbids.
type guardWriter struct {
	rec      *httptest.ResponseRecorder
	returned atomic.Bool
	late     *atomic.Int32
}

func (g *guardWriter) check() {
	if g.returned.Load() {
		g.late.Add(1)
	}
}

func (g *guardWriter) Header() http.Header         { g.check(); return g.rec.Header() }
func (g *guardWriter) Write(b []byte) (int, error) { g.check(); return g.rec.Write(b) }
func (g *guardWriter) WriteHeader(code int)        { g.check(); g.rec.WriteHeader(code) }
func (g *guardWriter) Flush()                      { g.check(); g.rec.Flush() }

// hostileServer is an HTTPHandler under attack, closed at the end of the
// test, which then fails if any response was used after its ServeHTTP
// returned.
type hostileServer struct {
	*rpc.HTTPHandler
	late atomic.Int32
}

func newHostileServer(t *testing.T, h rpc.Handler, opts *rpc.Options) *hostileServer {
	t.Helper()
	if opts == nil {
		opts = &rpc.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	s := &hostileServer{HTTPHandler: rpc.NewHTTPHandler(context.Background(), h, opts)}
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		assert.Zero(t, s.late.Load(), "responses used after ServeHTTP returned")
	})
	return s
}

// serve calls ServeHTTP with r, through a guardWriter.
func (s *hostileServer) serve(r *http.Request) *httptest.ResponseRecorder {
	g := &guardWriter{rec: httptest.NewRecorder(), late: &s.late}
	s.ServeHTTP(g, r)
	g.returned.Store(true)
	return g.rec
}

// request makes a request of body with the headers given (name, value, ...).
func request(ctx context.Context, method string, body io.Reader, headers ...string) *http.Request {
	r := httptest.NewRequestWithContext(ctx, method, "/", body)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	return r
}

// refusal is the body of a request refused for reason.
func refusal(reason string) string {
	return `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"` + reason + `"}},"id":null}` + "\n"
}

const (
	sseType   = "text/event-stream"
	echoCall  = `{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}`
	echoReply = `{"jsonrpc":"2.0","result":[1],"id":1}`
	noteCall  = `{"jsonrpc":"2.0","method":"note","id":1}`
	noteSSE   = "data: {\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{\"n\":1}}\n\ndata: {\"jsonrpc\":\"2.0\",\"result\":\"ok\",\"id\":1}\n\n"
)

// Hostile methods, content types, Accept headers, sizes and shapes: each
// gets its status and exact body, and the handler goes on.
func TestHTTPHostileRequests(t *testing.T) {
	s := newHostileServer(t, newHostileMethods(), &rpc.Options{MaxFrameSize: 256, MaxBatch: 2, MaxDepth: 4})
	badMethod := refusal("the method must be POST")
	badType := refusal("the body must be application/json")
	badAccept := refusal("Accept must allow application/json or text/event-stream")
	tooLarge := refusal("frame larger than the limit of 256 bytes")
	json := echoReply + "\n"
	atLimit := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 256-54) + `"],"id":1}`
	require.Len(t, atLimit, 256)
	tests := []struct {
		name    string
		method  string
		body    string
		headers []string
		status  int
		ctype   string
		want    string
	}{
		{"PUT", "PUT", echoCall, []string{"Content-Type", jsonType}, 405, jsonType, badMethod},
		{"DELETE", "DELETE", echoCall, nil, 405, jsonType, badMethod},
		{"OPTIONS", "OPTIONS", "", nil, 405, jsonType, badMethod},
		{"HEAD", "HEAD", "", nil, 405, jsonType, badMethod},
		{"post in lower case", "post", echoCall, []string{"Content-Type", jsonType}, 405, jsonType, badMethod},

		{"type in upper case", "POST", echoCall, []string{"Content-Type", "APPLICATION/JSON"}, 200, jsonType, json},
		{"type with charset", "POST", echoCall, []string{"Content-Type", "application/json;charset=UTF-8"}, 200, jsonType, json},
		{"type with spaces and a quoted charset", "POST", echoCall, []string{"Content-Type", `application/json ; Charset="utf-8"`}, 200, jsonType, json},
		{"type with another parameter", "POST", echoCall, []string{"Content-Type", "application/json; profile=x"}, 200, jsonType, json},
		{"type with another charset", "POST", echoCall, []string{"Content-Type", "application/json; charset=latin1"}, 415, jsonType, badType},
		{"type with a parameter without value", "POST", echoCall, []string{"Content-Type", "application/json; charset"}, 415, jsonType, badType},
		{"two types", "POST", echoCall, []string{"Content-Type", "application/json, text/plain"}, 415, jsonType, badType},
		{"two Content-Type headers", "POST", echoCall, []string{"Content-Type", jsonType, "Content-Type", "text/plain"}, 415, jsonType, badType},
		{"a longer type", "POST", echoCall, []string{"Content-Type", "application/jsonx"}, 415, jsonType, badType},
		{"a suffixed type", "POST", echoCall, []string{"Content-Type", "application/vnd.x+json"}, 415, jsonType, badType},
		{"a wildcard type", "POST", echoCall, []string{"Content-Type", "application/*"}, 415, jsonType, badType},
		{"an empty type", "POST", echoCall, []string{"Content-Type", ""}, 415, jsonType, badType},
		{"a malformed type", "POST", echoCall, []string{"Content-Type", "application/"}, 415, jsonType, badType},
		{"415 before 406", "POST", echoCall, []string{"Content-Type", "text/plain", "Accept", "text/html"}, 415, jsonType, badType},

		{"Accept */*", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "*/*"}, 200, jsonType, `{"jsonrpc":"2.0","result":"ok","id":1}` + "\n"},
		{"Accept application/*", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/*"}, 200, jsonType, json},
		{"Accept text/*", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "text/*"}, 200, sseType, noteSSE},
		{"Accept in upper case", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "TEXT/EVENT-STREAM"}, 200, sseType, noteSSE},
		{"Accept with q-values", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=0.9, text/event-stream;q=0.1"}, 200, sseType, noteSSE},
		{"Accept q=0.0", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=0.0"}, 406, jsonType, badAccept},
		{"Accept q=0.000", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json; Q=0.000"}, 406, jsonType, badAccept},
		{"Accept q=0.", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=0."}, 406, jsonType, badAccept},
		{"Accept q=0.001", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=0.001"}, 200, jsonType, json},
		{"Accept q=1.000", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=1.000"}, 200, jsonType, json},
		{"Accept with a malformed q", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=2"}, 406, jsonType, badAccept},
		{"Accept with an empty q", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", `application/json;q=""`}, 406, jsonType, badAccept},
		{"Accept refusing JSON by name, */* for the rest", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;q=0, */*"}, 406, jsonType, badAccept},
		{"Accept refusing events by name, text/* for the rest", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "text/*, text/event-stream;q=0, application/json"}, 200, jsonType, `{"jsonrpc":"2.0","result":"ok","id":1}` + "\n"},
		{"Accept refusing */*, JSON by name", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "*/*;q=0, application/json"}, 200, jsonType, json},
		{"Accept malformed", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", ",;,/,application/"}, 406, jsonType, badAccept},
		{"Accept malformed, then JSON", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", "application/json;;;, text/html;q=x, ,application/json"}, 200, jsonType, json},
		{"Accept empty", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", ""}, 406, jsonType, badAccept},
		{"Accept many values", "POST", echoCall, []string{"Content-Type", jsonType, "Accept", strings.Repeat("text/html, ", 1000) + jsonType}, 200, jsonType, json},
		{"Accept in many headers", "POST", noteCall, []string{"Content-Type", jsonType, "Accept", "text/html", "Accept", "image/png", "Accept", sseType}, 200, sseType, noteSSE},

		{"a body at the limit", "POST", atLimit, []string{"Content-Type", jsonType}, 200, jsonType, `{"jsonrpc":"2.0","result":["` + strings.Repeat("x", 256-54) + `"],"id":1}` + "\n"},
		{"a body one byte over", "POST", atLimit + " ", []string{"Content-Type", jsonType}, 413, jsonType, tooLarge},
		{"a batch over MaxBatch", "POST", "[" + echoCall + "," + echoCall + "," + echoCall + "]", []string{"Content-Type", jsonType}, 200, jsonType,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 2 entries"}},"id":null}` + "\n"},
		{"a batch over MaxBatch, events", "POST", "[" + echoCall + "," + echoCall + "," + echoCall + "]", []string{"Content-Type", jsonType, "Accept", sseType}, 200, sseType,
			`data: {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 2 entries"}},"id":null}` + "\n\n"},
		{"nesting over MaxDepth", "POST", `{"jsonrpc":"2.0","method":"echo","params":[[[[1]]]],"id":1}`, []string{"Content-Type", jsonType}, 200, jsonType,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"nested more than 4 levels deep"}},"id":null}` + "\n"},
		{"a duplicate id in a batch", "POST", "[" + echoCall + "," + echoCall + "]", []string{"Content-Type", jsonType}, 200, jsonType,
			`[` + echoReply + `,{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":1}]` + "\n"},
		{"a panicking handler", "POST", `{"jsonrpc":"2.0","method":"boom","id":"b"}`, []string{"Content-Type", jsonType}, 200, jsonType,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":"b"}` + "\n"},
		{"a response", "POST", `{"jsonrpc":"2.0","result":1,"id":1}`, []string{"Content-Type", jsonType}, 202, "", ""},
		{"a cancellation of nothing", "POST", `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}`, []string{"Content-Type", jsonType}, 202, "", ""},
		{"a notification that notifies, events accepted", "POST", `{"jsonrpc":"2.0","method":"note"}`, []string{"Content-Type", jsonType, "Accept", sseType}, 202, "", ""},
		{"notifications that notify, and a request", "POST", `[{"jsonrpc":"2.0","method":"note"},` + noteCall + `]`, []string{"Content-Type", jsonType, "Accept", sseType}, 200, sseType,
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{\"n\":1}}\n\ndata: [{\"jsonrpc\":\"2.0\",\"result\":\"ok\",\"id\":1}]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.serve(request(context.Background(), tt.method, strings.NewReader(tt.body), tt.headers...))
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.ctype, rec.Header().Get("Content-Type"))
			assert.Equal(t, tt.want, rec.Body.String())
			if tt.status == 405 {
				assert.Equal(t, "POST", rec.Header().Get("Allow"))
			}
		})
	}
	// It goes on.
	rec := s.serve(request(context.Background(), "POST", strings.NewReader(echoCall), "Content-Type", jsonType))
	assert.Equal(t, json, rec.Body.String())
}

// Bodies over the limit, without a length, with a length that lies, or
// that fail: each is answered with its status and a JSON-RPC error.
func TestHTTPHostileBodies(t *testing.T) {
	s := newHostileServer(t, newHostileMethods(), &rpc.Options{MaxFrameSize: 64})
	tooLarge := refusal("frame larger than the limit of 64 bytes")
	t.Run("chunked, over the limit", func(t *testing.T) {
		r := request(context.Background(), "POST", strings.NewReader(strings.Repeat(" ", 64)+echoCall), "Content-Type", jsonType)
		r.ContentLength = -1
		rec := s.serve(r)
		assert.Equal(t, 413, rec.Code)
		assert.Equal(t, tooLarge, rec.Body.String())
	})
	t.Run("chunked, under the limit", func(t *testing.T) {
		r := request(context.Background(), "POST", iotest.OneByteReader(strings.NewReader(echoCall)), "Content-Type", jsonType)
		r.ContentLength = -1
		rec := s.serve(r)
		assert.Equal(t, 200, rec.Code)
		assert.Equal(t, echoReply+"\n", rec.Body.String())
	})
	t.Run("a Content-Length over the limit is refused unread", func(t *testing.T) {
		body := &countingReader{r: strings.NewReader(strings.Repeat(" ", 1000))}
		r := request(context.Background(), "POST", body, "Content-Type", jsonType)
		r.ContentLength = 1000
		rec := s.serve(r)
		assert.Equal(t, 413, rec.Code)
		assert.Equal(t, tooLarge, rec.Body.String())
		assert.Zero(t, body.n.Load())
	})
	t.Run("a body that fails", func(t *testing.T) {
		r := request(context.Background(), "POST", io.MultiReader(strings.NewReader("{"), iotest.ErrReader(io.ErrUnexpectedEOF)), "Content-Type", jsonType)
		rec := s.serve(r)
		assert.Equal(t, 400, rec.Code)
		assert.Equal(t, refusal("the body could not be read"), rec.Body.String())
	})
	t.Run("a body too slow", func(t *testing.T) {
		r := request(context.Background(), "POST", io.MultiReader(strings.NewReader("{"), iotest.ErrReader(os.ErrDeadlineExceeded)), "Content-Type", jsonType)
		rec := s.serve(r)
		assert.Equal(t, 408, rec.Code)
		assert.Equal(t, refusal("the body was not received in time"), rec.Body.String())
	})
	t.Run("a Content-Length longer than the body", func(t *testing.T) {
		srv := httptest.NewServer(s)
		defer srv.Close()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n%s", echoCall)
		require.NoError(t, err)
		require.NoError(t, conn.(*net.TCPConn).CloseWrite()) // the rest never comes
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, 400, resp.StatusCode)
		assert.Equal(t, refusal("the body could not be read"), string(b))
	})
	t.Run("a client gone mid-body", func(t *testing.T) {
		pr, pw := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan *httptest.ResponseRecorder)
		go func() { served <- s.serve(request(ctx, "POST", pr, "Content-Type", jsonType)) }()
		_, err := pw.Write([]byte(`{"jsonrpc":"2.0",`))
		require.NoError(t, err)
		cancel()
		pw.CloseWithError(io.ErrUnexpectedEOF) // as net/http does when the connection drops
		rec := <-served
		assert.Equal(t, 400, rec.Code)
	})
	// It goes on.
	rec := s.serve(request(context.Background(), "POST", strings.NewReader(echoCall), "Content-Type", jsonType))
	assert.Equal(t, echoReply+"\n", rec.Body.String())
}

// A client whose body stalls holds up neither Close nor anyone else; its
// body, once in, is answered 503.
func TestHTTPStalledBodyDoesNotHoldClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		var logMu sync.Mutex
		h := newHostileServer(t, newHostileMethods(), &rpc.Options{Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))})
		pr, pw := io.Pipe()
		served := make(chan *httptest.ResponseRecorder)
		go func() { served <- h.serve(request(context.Background(), "POST", pr, "Content-Type", jsonType)) }()
		synctest.Wait() // reading the body
		require.NoError(t, h.Close())
		logMu.Lock()
		assert.NotContains(t, logs.String(), "grace", "Close waited for a body")
		logMu.Unlock()
		_, err := pw.Write([]byte(echoCall))
		require.NoError(t, err)
		require.NoError(t, pw.Close())
		rec := <-served
		assert.Equal(t, 503, rec.Code)
		assert.Equal(t, refusal("the server is shutting down"), rec.Body.String())
	})
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// postAsync posts body and delivers the status and body on the channel
// returned.
func postAsync(t *testing.T, srv *httptest.Server, body string, headers ...string) <-chan string {
	t.Helper()
	c := make(chan string, 1)
	go func() {
		req, err := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		if err != nil {
			c <- err.Error()
			return
		}
		req.Header.Set("Content-Type", jsonType)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Add(headers[i], headers[i+1])
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			c <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			c <- err.Error()
			return
		}
		c <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	return c
}

// Each request the handler serves has ids of its own (issue 23, defect 4:
// ids were shared by every client, so that honest clients numbering from 1
// refused each other's, and one's $/cancelRequest cancelled another's
// call): the same id in another request is served, a cancellation reaches
// only the calls of its own request (in a batch, as on a stream), and a
// call ends when its client goes away.
func TestHTTPIDsPerRequest(t *testing.T) {
	m := newHostileMethods()
	s := newHostileServer(t, m, nil)
	srv := httptest.NewServer(s)
	defer srv.Close()

	waiting := postAsync(t, srv, `{"jsonrpc":"2.0","method":"wait","id":7}`)
	ctx := <-m.started
	assert.Equal(t, `200 {"jsonrpc":"2.0","result":null,"id":7}`+"\n", <-postAsync(t, srv, `{"jsonrpc":"2.0","method":"echo","id":7}`))
	assert.Equal(t, "202 ", <-postAsync(t, srv, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`))
	assert.Equal(t, "202 ", <-postAsync(t, srv, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	assert.NoError(t, ctx.Err(), "another request's cancellation reaches no call of this one")

	assert.Equal(t, `200 [{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":8}]`+"\n",
		<-postAsync(t, srv, `[{"jsonrpc":"2.0","method":"wait","id":8},{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":8}}]`),
		"within its own request, a cancellation reaches the call")

	srv.CloseClientConnections() // the waiting client goes away: its call ends
	<-waiting
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("hang: the call outlived its client")
	}
}

// Eight clients, each numbering its calls from 1, call at once: none is
// refused (58 of 400 were, "id already in use").
func TestHTTPClientsNumberingAlike(t *testing.T) {
	s := newHostileServer(t, newHostileMethods(), nil)
	srv := httptest.NewServer(s)
	defer srv.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := rpc.NewHTTPClient(srv.URL, nil)
			defer c.Close()
			for range 50 {
				assert.NoError(t, c.Call(context.Background(), "echo", nil, nil))
			}
		})
	}
	wg.Wait()
}

// A client that goes away mid-stream cancels its call, whose notifications
// then fail; the handler goes on.
func TestHTTPClientGoneMidStream(t *testing.T) {
	m := newHostileMethods()
	s := newHostileServer(t, m, nil)
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, err := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"stream","id":1}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", jsonType)
	req.Header.Set("Accept", sseType)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	assert.Equal(t, sseType, resp.Header.Get("Content-Type"))
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"tick"}`+"\n", line)
	require.NoError(t, resp.Body.Close()) // mid-stream: the connection goes
	// Answered (dropped) already, cancelled while waiting for room, or
	// a write to the gone connection failed before the cancellation came.
	switch err := <-m.streamed; {
	case errors.Is(err, rpc.ErrAnswered), errors.Is(err, rpc.ErrClosed):
	default:
		assert.ErrorIs(t, err, context.Canceled)
	}
	assert.Equal(t, `200 {"jsonrpc":"2.0","result":null,"id":2}`+"\n", <-postAsync(t, srv, `{"jsonrpc":"2.0","method":"echo","id":2}`))
}

// A handler that notifies after its answer gets ErrAnswered, and nothing is
// written: not on the response, not after ServeHTTP returned.
func TestHTTPNotifyAfterAnswer(t *testing.T) {
	for _, accept := range []string{jsonType, sseType} {
		t.Run(accept, func(t *testing.T) {
			m := newHostileMethods()
			s := newHostileServer(t, m, nil)
			rec := s.serve(request(context.Background(), "POST", strings.NewReader(`{"jsonrpc":"2.0","method":"late","id":1}`), "Content-Type", jsonType, "Accept", accept))
			close(m.release)
			assert.ErrorIs(t, <-m.lateErr, rpc.ErrAnswered)
			want := `{"jsonrpc":"2.0","result":"early","id":1}`
			if accept == sseType {
				want = "data: " + want + "\n"
			}
			assert.Equal(t, want+"\n", rec.Body.String())
		})
	}
}

// Many clients at once, single and batch, JSON and events: each gets its
// own answers.
func TestHTTPConcurrentClients(t *testing.T) {
	s := newHostileServer(t, newHostileMethods(), &rpc.Options{Concurrency: 4})
	srv := httptest.NewServer(s)
	defer srv.Close()
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf(`"%d-%d"`, c, i)
				call := `{"jsonrpc":"2.0","method":"echo","params":[` + id + `],"id":` + id + `}`
				reply := `{"jsonrpc":"2.0","result":[` + id + `],"id":` + id + `}`
				switch i % 3 {
				case 0:
					assert.Equal(t, "200 "+reply+"\n", <-postAsync(t, srv, call))
				case 1:
					assert.Equal(t, "200 data: "+reply+"\n\n", <-postAsync(t, srv, call, "Accept", sseType))
				default:
					note := `{"jsonrpc":"2.0","method":"note","id":"n` + id[1:] + "}"
					assert.Equal(t, "200 data: {\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{\"n\":1}}\n\n"+
						`data: [`+reply+`,{"jsonrpc":"2.0","result":"ok","id":"n`+id[1:]+`}]`+"\n\n",
						<-postAsync(t, srv, "["+call+","+note+"]", "Accept", jsonType+","+sseType))
				}
			}
		})
	}
	wg.Wait()
}

// Close under load: requests under way are answered (their calls
// cancelled, or refused ServerShuttingDown), every later one 503; no
// panic, no hang.
func TestHTTPCloseUnderLoad(t *testing.T) {
	m := newHostileMethods()
	s := newHostileServer(t, m, &rpc.Options{Concurrency: 2})
	srv := httptest.NewServer(s)
	defer srv.Close()
	waiting := postAsync(t, srv, `{"jsonrpc":"2.0","method":"wait","id":"w"}`)
	<-m.started
	var wg sync.WaitGroup
	var sent atomic.Int32
	someSent := make(chan struct{})
	var once sync.Once
	for c := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf(`"%d-%d"`, c, i)
				got := <-postAsync(t, srv, `[{"jsonrpc":"2.0","method":"echo","id":`+id+`},{"jsonrpc":"2.0","method":"echo","id":"b`+id[1:]+`}]`)
				if sent.Add(1) >= 16 {
					once.Do(func() { close(someSent) })
				}
				if got == "503 "+refusal("the server is shutting down") {
					return
				}
				var answers []string // each entry answered, or refused
				for _, a := range []string{`{"jsonrpc":"2.0","result":null,"id":`, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":`} {
					for _, b := range []string{`{"jsonrpc":"2.0","result":null,"id":`, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":`} {
						answers = append(answers, "200 ["+a+id+"},"+b+`"b`+id[1:]+"}]\n")
					}
				}
				if !assert.Contains(t, answers, got) {
					return
				}
			}
		})
	}
	<-someSent
	require.NoError(t, s.Close())
	wg.Wait()
	// The call under way returns its context's cause (ErrShutdown): a
	// context error, answered as the shutdown it says.
	assert.Equal(t, `200 {"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":"w"}`+"\n", <-waiting)
	assert.Equal(t, "503 "+refusal("the server is shutting down"), <-postAsync(t, srv, echoCall))
}

// A client that goes away while its request waits for a worker (every
// worker busy) is let go at once: its call never runs, and the worker
// taken later is not spent on it.
func TestHTTPClientGoneWhileQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newHostileMethods()
		s := newHostileServer(t, m, &rpc.Options{Concurrency: 1})
		first, leave := context.WithCancel(context.Background())
		go s.serve(request(first, "POST", strings.NewReader(`{"jsonrpc":"2.0","method":"wait","id":1}`), "Content-Type", jsonType))
		<-m.started
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() {
			s.serve(request(ctx, "POST", strings.NewReader(`[{"jsonrpc":"2.0","method":"wait","id":2},{"jsonrpc":"2.0","method":"wait","id":3}]`), "Content-Type", jsonType))
			close(served)
		}()
		synctest.Wait() // queued: the only worker is busy
		cancel()
		synctest.Wait()
		select {
		case <-served:
		default:
			t.Fatal("ServeHTTP still waits for a worker after its client went away")
		}
		// The worker, once free (the first client goes away too), runs
		// none of them; their ids are free.
		leave()
		synctest.Wait()
		assert.Empty(t, m.started)
		rec := s.serve(request(context.Background(), "POST", strings.NewReader(`{"jsonrpc":"2.0","method":"echo","id":2}`), "Content-Type", jsonType))
		assert.Equal(t, `{"jsonrpc":"2.0","result":null,"id":2}`+"\n", rec.Body.String())
	})
}

// stallWriter is the response to a client that reads nothing: its writes
// wait until unstall is closed.
type stallWriter struct {
	guardWriter
	unstall chan struct{}
}

func (w *stallWriter) Write(b []byte) (int, error) {
	<-w.unstall
	return w.guardWriter.Write(b)
}

// A client that reads no events holds up no worker, and a call's Notify
// waits for room no longer than its context.
func TestHTTPStalledEventReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newHostileMethods()
		s := newHostileServer(t, m, &rpc.Options{Concurrency: 1})
		stalled := &stallWriter{guardWriter: guardWriter{rec: httptest.NewRecorder(), late: &s.late}, unstall: make(chan struct{})}
		unstall := sync.OnceFunc(func() { close(stalled.unstall) })
		defer unstall()
		streaming := make(chan struct{})
		reqCtx, leave := context.WithCancel(context.Background())
		go func() {
			defer close(streaming)
			s.ServeHTTP(stalled, request(reqCtx, "POST", strings.NewReader(`{"jsonrpc":"2.0","method":"stream","id":"s"}`),
				"Content-Type", jsonType, "Accept", sseType))
			stalled.returned.Store(true)
		}()
		synctest.Wait() // the events stall; Notify waits for room, or for the write
		leave()         // the call's context ends (its client gives up)
		synctest.Wait()
		select {
		case err := <-m.streamed:
			assert.ErrorIs(t, err, context.Canceled)
		default:
			t.Fatal("Notify waits on a stalled client after its context ended")
		}

		// The only worker is free for others, while the stalled response
		// is still being written.
		answered := make(chan string, 1)
		go func() {
			answered <- s.serve(request(context.Background(), "POST", strings.NewReader(echoCall), "Content-Type", jsonType, "Accept", sseType)).Body.String()
		}()
		synctest.Wait()
		select {
		case got := <-answered:
			assert.Equal(t, "data: "+echoReply+"\n\n", got)
		default:
			t.Fatal("a stalled client holds the only worker")
		}
		unstall()
		<-streaming
		body := stalled.rec.Body.String()
		assert.True(t, strings.HasSuffix(body, `data: {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":"s"}`+"\n\n"), body)
	})
}

// A client that asks for an event stream and never reads holds the worker
// no longer than Options.WriteTimeout: the write it does not take fails,
// the call's further notifications fail (ErrClosed), the call returns,
// and the next request is served (issue 23, defect 3: 64 such clients
// held every worker for as long as they liked).
func TestHTTPWriteTimeoutFreesTheWorker(t *testing.T) {
	m := newHostileMethods()
	s := newHostileServer(t, m, &rpc.Options{Concurrency: 1, WriteTimeout: 200 * time.Millisecond})
	srv := httptest.NewServer(s)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	body := `{"jsonrpc":"2.0","method":"stream","id":1}`
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(t, err)
	// It reads nothing. The call floods until a write times out.
	select {
	case err := <-m.streamed:
		// The write timed out (ErrClosed), or net/http saw the connection
		// fail first and cancelled the request (context.Canceled).
		assert.True(t, errors.Is(err, rpc.ErrClosed) || errors.Is(err, context.Canceled), "%v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("hang: the stream to a client that does not read never ended")
	}
	assert.Equal(t, `200 {"jsonrpc":"2.0","result":null,"id":2}`+"\n", <-postAsync(t, srv, `{"jsonrpc":"2.0","method":"echo","id":2}`), "the worker is free")
}
