package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/option"
	"github.com/toolrpc/toolrpc/internal/wire"
)

// Conn is one end of a JSON-RPC 2.0 connection over newline-delimited JSON.
//
// JSON-RPC is symmetric and so is Conn: it answers the peer's requests with
// its Handler and routes the peer's responses to calls of its own. It starts
// reading when created and runs until its input ends, its context is
// cancelled, its output fails, or Close is called; Wait tells when and why.
//
// Requests are handled concurrently, up to Options.Concurrency at once, and
// notifications one at a time in arrival order: a notification's handler
// returns before any later message is dispatched. $/cancelRequest (Language
// Server Protocol) and notifications/cancelled (Model Context Protocol) are
// handled by Conn itself, as soon as they are read; see Handler for what a
// cancelled call gets.
type Conn struct {
	core  *core        // the inbound side: the peer's calls, answered
	calls pendingCalls // the outbound side: calls of ours awaiting the peer
	log   *slog.Logger
	rawR  io.Reader
	rawW  io.Writer
	r     *codec.Reader
	w     *wire.Writer
	dec   codec.Decoder
	grace time.Duration
	// unread tells how much of what was written the peer has not read;
	// nil when the output cannot tell, or Options.ReadWait is negative.
	// readWait bounds the wait for it (see awaitRead).
	unread   unreadFunc
	readWait time.Duration
	// stopWatch ends the watch on the context passed to NewConn.
	stopWatch func() bool

	queue   *workQueue  // messages read, in order; closed by the reader
	readMu  sync.Mutex  // held by the reader while it takes in a frame
	methods methodNames // method names seen, for the reader

	// graceCtx ends ShutdownGrace after the shutdown began: then the
	// connection stops waiting for handlers and for its output.
	graceCtx    context.Context
	graceCancel context.CancelFunc

	mu      sync.Mutex
	stopErr error // why the connection was shut down
	readErr error // the input's error, other than io.EOF

	inputDone chan struct{} // closed when the reader has ended (see InputEnded)
	done      chan struct{} // closed when the connection has finished
	err       error         // what Wait returns
}

// NewConn starts a connection that reads messages from r and writes messages
// to w, answering requests with h (nil: every request is answered
// MethodNotFound). opts may be nil. Options holding a value they cannot
// take make a connection that never starts: it reads and writes nothing,
// its calls fail with ErrClosed, and Wait returns why.
//
// The connection shuts down when ctx is done: it stops reading, cancels the
// contexts of running calls, and gives their handlers Options.ShutdownGrace
// to return. A goroutine blocked in r.Read cannot be interrupted unless r has
// a SetReadDeadline method or is closed (Close closes it).
func NewConn(ctx context.Context, r io.Reader, w io.Writer, h Handler, opts *Options) *Conn {
	var o Options
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Conn{
		core:      newCore(ctx, h, log, &o),
		log:       log,
		rawR:      r,
		rawW:      w,
		r:         newFrameReader(r, &o),
		w:         newFrameWriter(w, &o),
		dec:       codec.Decoder{MaxDepth: o.MaxDepth, MaxBatch: min(o.MaxBatch, math.MaxInt32)}, // a batch entry's slot is an int32
		grace:     option.PositiveOr(o.ShutdownGrace, DefaultShutdownGrace),
		methods:   methodNames{},
		inputDone: make(chan struct{}),
		done:      make(chan struct{}),
	}
	c.calls.init(log, &o)
	c.newReadWait(w, &o)
	// A write that fails where no caller sees it (a line queued by a
	// call whose context can end) ends the connection all the same.
	c.w.OnFail(func(err error) { _ = c.wrote(err) })
	c.queue = newWorkQueue(option.PositiveOr(o.QueueSize, DefaultQueueSize), option.PositiveOr(o.MaxQueueBytes, DefaultMaxQueueBytes),
		c.calls.awaiting)
	c.graceCtx, c.graceCancel = context.WithCancel(context.Background())
	if err := o.check(); err != nil {
		c.neverStart(err)
		return c
	}
	c.stopWatch = context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		c.shutdown(cause, fmt.Errorf("its context ended: %w", cause))
	})

	c.core.running.Add(1) // the dispatcher
	go c.read()
	go c.dispatch()
	go c.supervise()
	return c
}

// LoggerFromContext returns the logger of the connection whose call ctx
// belongs to (Options.Logger), or slog.Default() if ctx belongs to no call.
// Handlers and middleware log through it to reach the logger the
// connection was given; it never returns nil and allocates nothing.
func LoggerFromContext(ctx context.Context) *slog.Logger {
	if in := callFrom(ctx); in != nil {
		return in.out.logger()
	}
	return slog.Default()
}

// neverStart finishes a connection that must not start, for the reason
// err, before it read or wrote anything.
func (c *Conn) neverStart(err error) {
	c.log.Error("rpc: the connection does not start", "error", err)
	c.core.beginStop()
	c.stopErr = err
	c.core.stop()
	c.queue.stop()
	c.calls.fail(err)
	close(c.inputDone)
	c.stopWatch = func() bool { return false }
	c.finish()
}

// Serve answers the requests read from r with h, writing to w, until r ends
// (io.EOF), ctx is done, or writing fails. At the end of the input it lets
// the calls under way finish and writes their responses, then returns nil.
// When ctx is done it returns context.Cause(ctx) (ctx.Err() unless a cause
// was given); when writing fails, that error. opts may be nil.
func Serve(ctx context.Context, r io.Reader, w io.Writer, h Handler, opts *Options) error {
	return NewConn(ctx, r, w, h, opts).Wait()
}

// Wait waits for the connection to finish and returns why it did: nil at
// the end of the input or after Close, context.Cause of the context if it
// was cancelled, or the error of the input or output that failed.
//
// Once Wait returns, nothing more is written, with one exception: a Write
// to w that was under way and blocked when the grace period ended (see
// Options.ShutdownGrace) cannot be interrupted, and may complete later. It
// holds at most 32 KiB: the connection writes in pieces of that size, even
// a long line, and starts none once the grace period is over.
func (c *Conn) Wait() error {
	<-c.done
	return c.err
}

// Done returns a channel closed when the connection has finished.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close shuts the connection down: it stops reading, cancels the calls under
// way (see Options.ShutdownGrace), and closes r and w if they implement
// io.Closer. It returns once the connection has finished. Close may be
// called more than once.
//
// To stop the reader, r is closed at once, unless it has a SetReadDeadline
// method (which shutting down uses) or is also w (a socket), whose closing
// waits until the answers of the calls under way are written.
func (c *Conn) Close() error {
	c.shutdown(nil, errCloseCalled)
	_, hasDeadline := c.rawR.(interface{ SetReadDeadline(time.Time) error })
	shared := same(c.rawR, c.rawW)
	rc, rIsCloser := c.rawR.(io.Closer)
	if rIsCloser && !hasDeadline && !shared {
		_ = rc.Close()
	}
	<-c.done
	if rIsCloser && (hasDeadline || shared) {
		_ = rc.Close()
	}
	if wc, ok := c.rawW.(io.Closer); ok && !shared {
		_ = wc.Close()
	}
	return nil
}

// same reports whether a and b hold the same comparable value.
func same(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.IsValid() && vb.IsValid() && va.Type() == vb.Type() && va.Comparable() && va.Equal(vb)
}

// shutdown starts shutting the connection down, for the reason err (what
// Wait returns; nil: Close). why is what the calls of ours still waiting,
// and every later one, fail with (wrapped in ErrClosed): it is recorded
// first, and the calls fail once the connection is marked as shutting
// down, so that a call that sees its error sees a connection already
// shutting down. Only the first call counts.
func (c *Conn) shutdown(err, why error) {
	c.calls.lose(why)
	if !c.core.beginStop() {
		return
	}
	c.mu.Lock()
	c.stopErr = err
	c.mu.Unlock()
	c.core.stop()
	c.queue.stop()
	c.core.cancelCalls(ErrShutdown)
	c.calls.fail(why)
	time.AfterFunc(c.grace, c.graceCancel)
	if d, ok := c.rawR.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(time.Now())
	}
}

// supervise waits for the dispatcher and the handlers, giving them the grace
// period once a shutdown began, then finishes the connection.
func (c *Conn) supervise() {
	idle := make(chan struct{})
	go func() {
		c.core.running.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-c.graceCtx.Done():
		c.logLate("rpc: handlers still running after the shutdown grace period; their responses are dropped")
	}
	c.finish()
}

// finish finishes the connection once its handlers are done or given up
// on: what the calls wrote reaches w first (once shutting down, for no
// longer than the grace period).
func (c *Conn) finish() {
	if err := c.w.Close(c.graceCtx); err != nil {
		c.logLate("rpc: output still blocked after the shutdown grace period; unwritten lines are dropped")
	}
	c.graceCancel()
	c.stopWatch()
	c.mu.Lock()
	switch {
	case c.core.stopping.Load():
		c.err = c.stopErr
	default:
		c.err = c.readErr
	}
	c.mu.Unlock()
	close(c.done)
}

// logLate logs a warning once the grace period is over. It waits for the
// record to be written, but no longer than lateLogWait (or the grace period,
// when longer): a log that blocks (a standard error nobody reads) must not
// keep the connection from finishing, and one that does not block must not
// be lost to a program that exits as soon as Serve returns.
func (c *Conn) logLate(msg string) {
	written := make(chan struct{})
	go func() {
		defer close(written)
		c.log.Warn(msg, "grace", c.grace)
	}()
	t := time.NewTimer(max(c.grace, lateLogWait))
	defer t.Stop()
	select {
	case <-written:
	case <-t.C:
	}
}

// lateLogWait is the least logLate waits for its record to be written.
const lateLogWait = time.Second

// writeErr writes one line (its '\n' is appended, in line's spare capacity
// when there is some: the writer then needs no copy). A write failure shuts
// the connection down.
func (c *Conn) writeErr(line []byte) error {
	return c.wrote(c.w.WriteLine(append(line, '\n')))
}

// wrote handles the outcome of a write: a failure shuts the connection
// down. Any error then (the writer's, or that it is closed) is the
// connection's end: ErrClosed, saying why.
func (c *Conn) wrote(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, codec.ErrWriterClosed):
		return c.calls.closedErr()
	}
	// Before the log: a log that blocks must not hold it up.
	c.shutdown(fmt.Errorf("rpc: write: %w", err), fmt.Errorf("the output failed: %w", err))
	c.log.Error("rpc: write failed; shutting down", "error", err)
	return c.calls.closedErr()
}

// write writes an answer line; a failure shuts the connection down.
func (c *Conn) write(line []byte) { _ = c.writeErr(line) }

// The connection is the replier of the calls it reads: their answers and
// notifications go to its output.

func (c *Conn) reply(line []byte) { c.write(line) }

func (c *Conn) replyString(id []byte, s string) { _ = c.wrote(wire.WriteStringResponse(c.w, id, s)) }

func (c *Conn) replyStringIn(id []byte, v jsonx.StringIn) bool {
	ok, err := wire.WriteStringInResponse(c.w, id, v)
	if ok {
		_ = c.wrote(err)
	}
	return ok
}

func (c *Conn) logger() *slog.Logger { return c.log }

// request is nil: a stream's calls come in no HTTP request.
func (c *Conn) request() *http.Request { return nil }

func (c *Conn) inputEnded() <-chan struct{} { return c.inputDone }

// sendable is nil: a stream carries any message, any time.
func (c *Conn) sendable(bool) error { return nil }

func (c *Conn) notify(ctx context.Context, line []byte) error {
	_, err := c.queueLine(ctx, line)
	return err
}

// buffers holds line buffers for encoding.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= 64<<10 {
		*b = (*b)[:0]
		buffers.Put(b)
	}
}
