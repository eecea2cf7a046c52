package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	sgjsonrpc2 "github.com/sourcegraph/jsonrpc2"
	xjsonrpc2 "golang.org/x/exp/jsonrpc2"

	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// A contestant is a server (one row of the report). Every one serves sum
// and echo; the driver talks to it through a pair of io.Pipes.
type contestant struct {
	name string
	peer bool   // one of the peers: counts for "best peer"
	sum  string // wire name of the sum method
	echo string // wire name of the echo method
	// Why a workload does not apply, "" when it does.
	namedNA, batchNA string
	// clientOnly: the contestant is our own client against our server; it
	// drives itself and runs ping-pong only.
	clientOnly bool
	// mcp: an MCP server, entered in the MCP workloads only (and the
	// JSON-RPC contestants in the others only). modern: its requests are
	// 2026-07-28's, stateless (no initialize; _meta on each).
	mcp, modern bool
	// http: an HTTP contestant, entered in the HTTP workloads only; handler
	// returns its http.Handler and what closes it (serve is nil).
	http    bool
	handler func() (h http.Handler, close func())
	// serve starts serving requests read from r, writing responses to w,
	// until r ends; the returned func waits for it to finish. fixed is the
	// result of every call of the workload (floor-io answers with it).
	serve func(r io.ReadCloser, w io.WriteCloser, fixed []byte) (wait func())
}

// entered reports whether c is a contestant of w's protocol: MCP
// contestants in the MCP workloads, HTTP contestants in the HTTP ones, the
// others in the JSON-RPC ones over pipes. The report leaves out the cells
// of the other protocols.
func (c *contestant) entered(w *workload) bool { return c.mcp == w.mcp && c.http == w.http }

// supports reports whether c runs w, and why not.
func (c *contestant) supports(w *workload) (bool, string) {
	switch {
	case !c.entered(w):
		return false, "a contestant of the other protocol"
	case c.clientOnly && w.kind != kindPingpong:
		return false, "ping-pong only (our client against our server)"
	case w.kind == kindNamed && c.namedNA != "":
		return false, c.namedNA
	case w.kind == kindBatch && c.batchNA != "":
		return false, c.batchNA
	}
	return true, ""
}

var contestants = []*contestant{
	{name: "toolrpc", sum: "sum", echo: "echo", serve: serveToolrpc},
	{name: "toolrpc-client", sum: "sum", echo: "echo", clientOnly: true},
	{name: "jrpc2", peer: true, sum: "sum", echo: "echo", serve: serveJrpc2},
	{name: "sourcegraph", peer: true, sum: "sum", echo: "echo", serve: serveSourcegraph,
		batchNA: "sourcegraph/jsonrpc2 does not support batches (its README says so; a batch line fails to decode and the connection closes)"},
	{name: "x-exp", peer: true, sum: "sum", echo: "echo", serve: serveXExp,
		batchNA: "golang.org/x/exp/jsonrpc2 does not support batches (DecodeMessage rejects an array and the connection stops reading)"},
	{name: "geth", peer: true, sum: "bench_sum", echo: "bench_echo", serve: serveGeth,
		namedNA: `go-ethereum/rpc takes positional params only (an object is refused: "non-array args")`},
	{name: "floor-json", sum: "sum", echo: "echo", serve: func(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
		return goWait(func() { floorJSON(r, w) })
	}},
	{name: "floor-io", sum: "sum", echo: "echo", serve: func(r io.ReadCloser, w io.WriteCloser, fixed []byte) func() {
		return goWait(func() { floorIO(r, w, fixed) })
	}},
}

func contestantByName(name string) *contestant {
	for _, c := range contestants {
		if c.name == name {
			return c
		}
	}
	return nil
}

// goWait runs f in a goroutine and returns a func that waits for it.
func goWait(f func()) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return func() { <-done }
}

// Params of sum and echo, shared by the contestants that bind params into
// structs (toolrpc, jrpc2); the others ignore the validate tags.
type SumParams struct {
	A int `json:"a" validate:"gte=-1000000000"`
	B int `json:"b" validate:"lte=1000000000"`
}

type EchoParams struct {
	Text string `json:"text"`
}

// --- toolrpc: the real thing -------------------------------------------------

// Bench is our service: a plain struct registered with service.New(nil).
type Bench struct{}

func (Bench) Sum(p SumParams) (int, error)      { return p.A + p.B, nil }
func (Bench) Echo(p EchoParams) (string, error) { return p.Text, nil }

// quietLogger is the logger our contestant runs with: a text handler
// writing to io.Discard at its default level, Info (results are logged at
// Debug, so never formatted).
var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// toolrpcOptions are the connection options of both of our ends: 128 MiB
// frames, so that the 64 MiB line fits.
func toolrpcOptions() *rpc.Options {
	return &rpc.Options{Logger: quietLogger, MaxFrameSize: 128 << 20}
}

// toolrpcHandler is our stack: the service wrapped in the default
// middleware.
func toolrpcHandler() rpc.Handler {
	svc := service.New(nil)
	if err := svc.Register("", &Bench{}); err != nil {
		panic(err)
	}
	return middleware.Default(quietLogger)(svc)
}

func serveToolrpc(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	conn := rpc.NewConn(context.Background(), r, w, toolrpcHandler(), toolrpcOptions())
	return func() { _ = conn.Wait() }
}

// --- github.com/creachadair/jrpc2 -------------------------------------------

// jrpc2Methods are jrpc2's sum and echo (also served by jhttp).
func jrpc2Methods() handler.Map {
	return handler.Map{
		"sum":  handler.New(func(_ context.Context, p SumParams) (int, error) { return p.A + p.B, nil }),
		"echo": handler.New(func(_ context.Context, p EchoParams) (string, error) { return p.Text, nil }),
	}
}

func serveJrpc2(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	srv := jrpc2.NewServer(jrpc2Methods(), nil)
	srv.Start(channel.Line(r, w)) // line framing
	return func() { _ = srv.Wait() }
}

// --- github.com/sourcegraph/jsonrpc2 ----------------------------------------

// pipeRWC joins the two pipe ends a server uses into one
// io.ReadWriteCloser.
type pipeRWC struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipeRWC) Close() error {
	err := p.ReadCloser.Close()
	if werr := p.w.Close(); err == nil {
		err = werr
	}
	return err
}

func serveSourcegraph(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	// NewPlainObjectStream reads JSON values back to back with a
	// json.Decoder and writes each with json.Encoder.Encode, which ends it
	// with '\n': one message per line.
	stream := sgjsonrpc2.NewPlainObjectStream(pipeRWC{r, w})
	conn := sgjsonrpc2.NewConn(context.Background(), stream, sgjsonrpc2.HandlerWithError(
		func(_ context.Context, _ *sgjsonrpc2.Conn, req *sgjsonrpc2.Request) (any, error) {
			var params json.RawMessage
			if req.Params != nil {
				params = *req.Params
			}
			return rawCall(req.Method, params)
		}))
	return func() { <-conn.DisconnectNotify() }
}

// rawCall serves sum and echo from raw params, the way a handler of a
// library that does not bind params would: json.Unmarshal into the shape
// the params have.
func rawCall(method string, params json.RawMessage) (any, error) {
	named := bytes.HasPrefix(bytes.TrimSpace(params), []byte("{"))
	switch method {
	case "sum":
		if named {
			var p SumParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			return p.A + p.B, nil
		}
		var p [2]int
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return p[0] + p[1], nil
	case "echo":
		if named {
			var p EchoParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			return p.Text, nil
		}
		var p [1]string
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return p[0], nil
	}
	return nil, errNoMethod
}

var errNoMethod = errors.New("method not found")

// --- golang.org/x/exp/jsonrpc2 ----------------------------------------------

// lineFramer frames x/exp/jsonrpc2 messages as lines. The package has no
// line framer: RawFramer reads JSON values back to back with a
// json.Decoder (so it reads NDJSON as is), but writes each message with no
// separator. lineFramer keeps RawFramer's reader and writes EncodeMessage's
// bytes and a '\n' in one Write.
type lineFramer struct{}

func (lineFramer) Reader(r io.Reader) xjsonrpc2.Reader { return xjsonrpc2.RawFramer().Reader(r) }
func (lineFramer) Writer(w io.Writer) xjsonrpc2.Writer { return &lineWriter{w: w} }

// lineWriter is used by one writer at a time (the Connection serializes
// its writes), so its buffer is reused.
type lineWriter struct {
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(_ context.Context, msg xjsonrpc2.Message) (int64, error) {
	data, err := xjsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	l.buf = append(append(l.buf[:0], data...), '\n')
	n, err := l.w.Write(l.buf)
	return int64(n), err
}

// rwcDialer hands a Connection the pipes: Dial is how x/exp/jsonrpc2 runs
// a Connection over an io.ReadWriteCloser it did not accept from a
// Listener.
type rwcDialer struct{ rwc io.ReadWriteCloser }

func (d rwcDialer) Dial(context.Context) (io.ReadWriteCloser, error) { return d.rwc, nil }

func serveXExp(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	conn, err := xjsonrpc2.Dial(context.Background(), rwcDialer{pipeRWC{r, w}}, xjsonrpc2.ConnectionOptions{
		Framer: lineFramer{},
		Handler: xjsonrpc2.HandlerFunc(func(_ context.Context, req *xjsonrpc2.Request) (any, error) {
			res, err := rawCall(req.Method, req.Params)
			if err == errNoMethod {
				return nil, xjsonrpc2.ErrNotHandled
			}
			return res, err
		}),
	})
	if err != nil {
		panic(err)
	}
	return func() { _ = conn.Wait() }
}

// --- github.com/ethereum/go-ethereum/rpc ------------------------------------

// gethService is served as namespace "bench": bench_sum, bench_echo.
type gethService struct{}

func (gethService) Sum(a, b int) int     { return a + b }
func (gethService) Echo(s string) string { return s }

// deadlineRWC adds the SetWriteDeadline that rpc.Conn requires; a pipe has
// no deadlines.
type deadlineRWC struct{ pipeRWC }

func (deadlineRWC) SetWriteDeadline(time.Time) error { return nil }

func serveGeth(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	srv := gethrpc.NewServer()
	if err := srv.RegisterName("bench", new(gethService)); err != nil {
		panic(err)
	}
	// NewCodec reads a JSON stream with a json.Decoder and writes each
	// message followed by '\n'.
	codec := gethrpc.NewCodec(deadlineRWC{pipeRWC{r, w}})
	wait := goWait(func() { srv.ServeCodec(codec, 0) })
	return func() {
		wait()
		srv.Stop()
	}
}
