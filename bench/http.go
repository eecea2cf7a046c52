package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/creachadair/jrpc2/jhttp"

	"github.com/toolrpc/toolrpc/rpc"
)

// The HTTP workloads (issue 14): sum POSTed to each contestant's
// http.Handler, served by one http.Server configuration on a loopback TCP
// listener, by a driver that speaks HTTP/1.1 itself on keep-alive
// connections: every request is pre-encoded (request line, headers, body),
// only its id patched in place, and every response is read and checked
// without allocating. The driver costs every contestant the same, and
// what the B/call and allocs/call columns count is the server's: net/http's
// server and the handler.

var httpContestants = []*contestant{
	{name: "toolrpc-http", http: true, sum: "sum", handler: toolrpcHTTP},
	{name: "jhttp", http: true, sum: "sum", handler: jhttpBridge},
	{name: "floor-http", http: true, sum: "sum", handler: func() (http.Handler, func()) {
		return http.HandlerFunc(floorHTTP), func() {}
	}},
	{name: "floor-http-io", http: true, sum: "sum", handler: func() (http.Handler, func()) {
		return http.HandlerFunc(floorHTTPIO), func() {}
	}},
}

func init() { contestants = append(contestants, httpContestants...) }

// toolrpcHTTP is rpc.NewHTTPHandler over the stack the stream contestant
// runs: the service in middleware.Default, the same logger.
func toolrpcHTTP() (http.Handler, func()) {
	h := rpc.NewHTTPHandler(context.Background(), toolrpcHandler(), &rpc.Options{Logger: quietLogger})
	return h, func() { _ = h.Close() }
}

// jhttpBridge is jrpc2's HTTP bridge (jhttp.NewBridge, v1.3.6) over the
// methods the jrpc2 contestant serves: a jrpc2 server and client joined in
// memory (server.NewLocal), each request handed to the client as a batch.
func jhttpBridge() (http.Handler, func()) {
	b := jhttp.NewBridge(jrpc2Methods(), nil)
	return b, func() { _ = b.Close() }
}

// floorHTTPLimit bounds a floor's request body, as an honest server does.
const floorHTTPLimit = 1 << 20

// floorHTTP is the hand-written net/http + encoding/json handler: POST
// only (405), the body read whole (bounded), then floor-json's work on it
// (floorServe: json.Unmarshal into the request struct, the switch, the
// params' json.Unmarshal, json.Marshal of the response), 202 when there is
// nothing to answer. It checks neither Content-Type nor Accept.
func floorHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, floorHTTPLimit))
	if err != nil {
		http.Error(w, "the body could not be read", http.StatusBadRequest)
		return
	}
	out, ok := floorServe(body)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(out, '\n'))
}

// floorHTTPBufs are floor-http-io's body and answer buffers.
var floorHTTPBufs = sync.Pool{New: func() any { return &[2][]byte{make([]byte, 0, 512), make([]byte, 0, 512)} }}

// jsonContentType is floor-http-io's Content-Type, set without allocating.
var jsonContentType = []string{"application/json"}

// floorHTTPIO is net/http's own cost: the body read into a pooled buffer
// and answered as floor-io answers a line (the fixed result, 42, with the
// id spliced in), no JSON work; the handler allocates only the
// Content-Type entry of net/http's header map.
func floorHTTPIO(w http.ResponseWriter, r *http.Request) {
	bufs := floorHTTPBufs.Get().(*[2][]byte)
	defer floorHTTPBufs.Put(bufs)
	body := bufs[0][:0]
	for {
		if len(body) == cap(body) {
			if len(body) >= floorHTTPLimit {
				http.Error(w, "too large", http.StatusRequestEntityTooLarge)
				return
			}
			body = append(body, 0)[:len(body)]
		}
		n, err := r.Body.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			http.Error(w, "the body could not be read", http.StatusBadRequest)
			return
		}
	}
	out := append(appendFixed(bufs[1][:0], body, []byte(sumResult)), '\n')
	bufs[0], bufs[1] = body, out
	w.Header()["Content-Type"] = jsonContentType
	_, _ = w.Write(out)
}

// httpServer is the one http.Server configuration every contestant is
// served with: timeouts against slow clients as a deployment sets them
// (rpc.HTTPHandler's documentation asks for them), keep-alive on, errors
// discarded.
func httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
}

// httpRunner drives one HTTP contestant: its handler served on a loopback
// listener, and w.clients clients, each on a keep-alive connection of its
// own.
type httpRunner struct {
	c       *contestant
	w       *workload
	srv     *http.Server
	served  chan struct{} // closed when srv.Serve returns
	closeH  func()
	clients []*httpClient
	wd      *watchdog
	killSwitch
	closeOnce sync.Once
}

// connEnd lets the kill switch cut a connection.
type connEnd struct{ net.Conn }

func (c connEnd) CloseWithError(error) error { return c.Close() }

// httpIDSpan is how many ids each client has to itself: toolrpc's ids in
// flight are shared by all the requests a handler serves, so no two
// clients use the same id. 16 spans of 5-digit ids fit in 10000-99999.
const httpIDSpan = 5000

func newHTTPRunner(c *contestant, w *workload, stall time.Duration) (*httpRunner, error) {
	if w.clients < 1 || w.clients*httpIDSpan > 90000 {
		return nil, fmt.Errorf("%s: %d clients", w.key, w.clients)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h, closeH := c.handler()
	r := &httpRunner{c: c, w: w, srv: httpServer(h), served: make(chan struct{}), closeH: closeH}
	go func() {
		defer close(r.served)
		_ = r.srv.Serve(ln)
	}()
	addr := ln.Addr().String()
	for k := range w.clients {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			r.close()
			return nil, err
		}
		r.ends = append(r.ends, connEnd{conn})
		first := 10000 + k*httpIDSpan
		r.clients = append(r.clients, newHTTPClient(conn, addr, c.sum, first, first+httpIDSpan-1))
	}
	r.wd = startWatchdog(stall, r.kill)
	return r, nil
}

// run makes n calls, spread over the clients, each making its share one at
// a time.
func (r *httpRunner) run(n int) error {
	if dead := r.cause(); dead != nil {
		return fmt.Errorf("%s/%s: %w", r.c.name, r.w.key, dead)
	}
	r.wd.busy.Store(true)
	defer r.wd.busy.Store(false)
	k := len(r.clients)
	if k == 1 {
		return r.calls(r.clients[0], n)
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i, cl := range r.clients {
		share := n / k
		if i < n%k {
			share++
		}
		wg.Go(func() { errs[i] = r.calls(cl, share) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// calls makes n calls on cl; the first failure kills the run.
func (r *httpRunner) calls(cl *httpClient, n int) error {
	for range n {
		if err := cl.call(); err != nil {
			r.kill(err)
			return fmt.Errorf("%s/%s: %w", r.c.name, r.w.key, r.cause())
		}
		r.wd.progress.Add(1)
	}
	return nil
}

// close closes the clients' connections, the server and the handler.
func (r *httpRunner) close() {
	r.closeOnce.Do(func() {
		r.kill(net.ErrClosed)
		_ = r.srv.Close()
		select {
		case <-r.served:
		case <-time.After(10 * time.Second):
			fmt.Fprintf(os.Stderr, "bench: %s's server did not stop within 10s\n", r.c.name)
		}
		r.closeH()
		if r.wd != nil {
			r.wd.close()
		}
	})
}

// httpClient is one client of the HTTP driver: a keep-alive connection, its
// pre-encoded request and the buffers it reads responses into.
type httpClient struct {
	conn net.Conn
	br   *bufio.Reader
	req  []byte // the request: request line, headers, body
	id   []byte // the id's 5 digits, inside req
	// next is the id of the last call; ids run from first to last and
	// round again (one call in flight: no id is reused while in flight).
	next, first, last int
	body              []byte // the response body, reused
	want              []byte
	resp              response
}

func newHTTPClient(conn net.Conn, host, method string, first, last int) *httpClient {
	body := requestLine(nil, strconv.Itoa(first), method, sumParams(false))
	req := httpRequest(nil, host, body)
	off := len(req) - len(body) + idOffset
	return &httpClient{
		conn: conn, br: bufio.NewReaderSize(conn, 4096),
		req: req, id: req[off : off+5],
		next: first - 1, first: first, last: last,
		body: make([]byte, 0, 512), want: []byte(sumResult),
	}
}

// httpRequest appends a POST of body to host: what a JSON-RPC client
// sends (Content-Type and Accept application/json), nothing more.
func httpRequest(dst []byte, host string, body []byte) []byte {
	dst = append(dst, "POST / HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\nUser-Agent: toolrpc-bench\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}

// call makes one call: the next id patched in, the request written, the
// response read and checked.
func (cl *httpClient) call() error {
	cl.next++
	if cl.next > cl.last {
		cl.next = cl.first
	}
	for i, v := len(cl.id)-1, cl.next; i >= 0; i, v = i-1, v/10 {
		cl.id[i] = byte('0' + v%10)
	}
	if _, err := cl.conn.Write(cl.req); err != nil {
		return err
	}
	body, err := readHTTPResponse(cl.br, &cl.body)
	if err != nil {
		return err
	}
	return checkAnswer(body, cl.id, cl.want, &cl.resp, false)
}

// maxHTTPBody bounds a response body the driver reads.
const maxHTTPBody = 1 << 20

var (
	status200       = []byte("HTTP/1.1 200 ")
	hContentLength  = []byte("Content-Length")
	hContentType    = []byte("Content-Type")
	hTransferEnc    = []byte("Transfer-Encoding")
	hConnection     = []byte("Connection")
	vChunked        = []byte("chunked")
	vClose          = []byte("close")
	vJSON           = []byte("application/json")
	errNotKeepAlive = errors.New("the server closes the connection (Connection: close)")
)

// readHTTPResponse reads one HTTP/1.1 response from br: status 200, a
// Content-Type of application/json, the connection kept alive, and a body
// of Content-Length bytes or chunked, read into *buf (reused: nothing is
// allocated once it is big enough). It returns the body.
func readHTTPResponse(br *bufio.Reader, buf *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(line, status200) {
		return nil, fmt.Errorf("status %q", bytes.TrimSpace(line))
	}
	length, chunked, json := -1, false, false
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		h := bytes.TrimRight(line, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("malformed header %q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, hContentLength):
			if length, err = parseLength(value, 10); err != nil {
				return nil, fmt.Errorf("Content-Length %q", value)
			}
		case bytes.EqualFold(name, hTransferEnc):
			if !bytes.EqualFold(value, vChunked) {
				return nil, fmt.Errorf("Transfer-Encoding %q", value)
			}
			chunked = true
		case bytes.EqualFold(name, hContentType):
			json = len(value) >= len(vJSON) && bytes.EqualFold(value[:len(vJSON)], vJSON) &&
				(len(value) == len(vJSON) || value[len(vJSON)] == ';')
		case bytes.EqualFold(name, hConnection):
			if bytes.EqualFold(value, vClose) {
				return nil, errNotKeepAlive
			}
		}
	}
	if !json {
		return nil, errors.New("the response is not application/json")
	}
	b := (*buf)[:0]
	switch {
	case chunked:
		for {
			line, err = br.ReadSlice('\n')
			if err != nil {
				return nil, err
			}
			size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
			n, err := parseLength(size, 16)
			if err != nil {
				return nil, fmt.Errorf("chunk size %q", size)
			}
			if n == 0 {
				break
			}
			if len(b)+n > maxHTTPBody {
				return nil, errors.New("response body too long")
			}
			b = grow(b, n)
			if _, err := io.ReadFull(br, b[len(b)-n:]); err != nil {
				return nil, err
			}
			if err := expectCRLF(br); err != nil {
				return nil, err
			}
		}
		for { // the trailer, up to its empty line
			line, err = br.ReadSlice('\n')
			if err != nil {
				return nil, err
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				break
			}
		}
	case length >= 0:
		if length > maxHTTPBody {
			return nil, errors.New("response body too long")
		}
		b = grow(b, length)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("a response with neither Content-Length nor chunks")
	}
	*buf = b
	return b, nil
}

// grow extends b by n bytes, keeping its contents.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

func expectCRLF(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err == nil && len(bytes.TrimRight(line, "\r\n")) != 0 {
		err = errors.New("no CRLF after a chunk")
	}
	return err
}

// parseLength parses a non-negative length in base 10 or 16, without
// allocating.
func parseLength(b []byte, base int) (int, error) {
	if len(b) == 0 || len(b) > 8 {
		return 0, errSyntax
	}
	n := 0
	for _, c := range b {
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, errSyntax
		}
		n = n*base + d
	}
	return n, nil
}
