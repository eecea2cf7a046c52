package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/codec"
)

// Defaults of Options.
const (
	DefaultConcurrency     = 64
	DefaultQueueSize       = 1024
	DefaultMaxQueueBytes   = 256 << 20
	DefaultMaxPendingCalls = 4096
	DefaultShutdownGrace   = 5 * time.Second
)

// Options configure a connection. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Logger receives the connection's logs: invalid input at debug level,
	// unexpected responses and failed notification handlers as warnings,
	// panics (with their stack) and write failures as errors. It is also
	// the logger of every call (LoggerFromContext), through which handlers
	// and middleware given no logger of their own log, so that one logger,
	// set here once, gets every record. Default: slog.Default(), which
	// writes to stderr.
	Logger *slog.Logger

	// MaxFrameSize is the longest line accepted, in bytes. A longer line is
	// answered InvalidRequest (id null) and skipped without being held in
	// memory. Default: codec.DefaultMaxFrameSize (64 MiB).
	MaxFrameSize int
	// MaxBatch is the most entries a batch may have; a longer one is
	// answered with one InvalidRequest. Default: codec.DefaultMaxBatch.
	MaxBatch int
	// MaxDepth is the deepest nesting of arrays and objects in a message;
	// a deeper one is answered InvalidRequest. Default:
	// codec.DefaultMaxDepth.
	MaxDepth int

	// Concurrency is the most requests handled at once. Default:
	// DefaultConcurrency.
	Concurrency int
	// Sequential handles one message at a time in arrival order, so that
	// responses are written in the order of the requests. Concurrency is
	// then ignored.
	Sequential bool
	// QueueSize is the most messages read and waiting for a handler. When
	// the queue is full the connection stops reading until there is room —
	// except while a call of ours awaits the peer's response, which may be
	// behind the peer's requests: it then reads on, up to 16 times
	// QueueSize, and answers requests beyond that ServerBusy. Default:
	// DefaultQueueSize.
	QueueSize int
	// MaxQueueBytes bounds the memory the messages waiting in the queue
	// hold, as QueueSize bounds their number: a message counts its frame's
	// bytes plus 400 for its decoded form (a request of 40 bytes costs
	// ten times that once decoded). A message alone in the queue is always
	// taken. Default: DefaultMaxQueueBytes (256 MiB).
	MaxQueueBytes int
	// MaxPendingCalls bounds the calls of ours waiting for the peer's
	// response; a call beyond it waits for one to end, as long as its
	// context lets it. A batch takes one for each of its calls, all at
	// once: it waits, holding none, until that many are free; a batch with
	// more calls than MaxPendingCalls fails at once. Default:
	// DefaultMaxPendingCalls.
	MaxPendingCalls int

	// CancelNotification is the notification sent to the peer when the
	// context of a call of ours ends before its response: CancelRequest
	// (the default: LSP's $/cancelRequest {"id": X}) or
	// CancelledNotification (MCP's notifications/cancelled {"requestId": X}).
	// Any other value is refused: the connection does not start (see
	// NewConn).
	CancelNotification string

	// ShutdownGrace is how long handlers get to return once their contexts
	// are cancelled by a shutdown (the connection's context ended, Close was
	// called, or the output failed). After it the connection finishes
	// anyway; a handler still running then has its response dropped.
	// Default: DefaultShutdownGrace.
	ShutdownGrace time.Duration
}

// check reports an option that holds none of the values it may take.
func (o *Options) check() error {
	switch o.CancelNotification {
	case "", CancelRequest, CancelledNotification:
		return nil
	}
	return fmt.Errorf("rpc: Options.CancelNotification is %q: want rpc.CancelRequest (%q) or rpc.CancelledNotification (%q)",
		o.CancelNotification, CancelRequest, CancelledNotification)
}

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
	h          Handler
	log        *slog.Logger
	rawR       io.Reader
	rawW       io.Writer
	r          *codec.Reader
	w          *codec.Writer
	dec        codec.Decoder
	sequential bool
	grace      time.Duration

	// base is the parent of every call's context: the context given to
	// NewConn, for its values, without its cancellation. Calls are
	// cancelled one by one (see cancelCalls), so that no call's context
	// registers with a shared parent.
	base context.Context
	// notifying is the notification whose handler runs, if any: the calls
	// to cancel at shutdown are the requests in flight and it.
	notifying atomic.Pointer[inbound]
	// stopWatch ends the watch on the context passed to NewConn.
	stopWatch func() bool

	queue      *workQueue        // messages read, in order; closed by the reader
	workCh     chan job          // work handed to idle workers; closed by the dispatcher
	readMu     sync.Mutex        // held by the reader while it takes in a frame
	methods    map[string]string // method names seen, for the reader (see methodName)
	sem        chan struct{}     // a token per worker goroutine
	dispatched sync.WaitGroup

	stopping atomic.Bool
	stopCh   chan struct{} // closed when the connection starts shutting down
	// graceCtx ends ShutdownGrace after the shutdown began: then the
	// connection stops waiting for handlers and for its output.
	graceCtx    context.Context
	graceCancel context.CancelFunc

	cancelMethod string       // see Options.CancelNotification
	nextID       atomic.Int64 // the last id of ours

	mu         sync.Mutex
	pending    map[int64]*outbound    // calls of ours waiting for a response, by id
	slots      slots                  // a slot per pending call (Options.MaxPendingCalls); used tells the queue a call awaits
	outBatches map[*outBatch]struct{} // batches of ours with calls pending
	abandoned  abandonedIDs           // calls of ours we stopped waiting for
	lost       error                  // set when no response can come any more: why, wrapping ErrClosed
	inflight   inflightSet            // requests read and not yet answered, by id token
	// openBatches are batches dispatched with requests no worker has
	// claimed yet, oldest first.
	openBatches []*batch
	open        atomic.Int32 // len(openBatches), read without the lock
	stopErr     error        // why the connection was shut down
	readErr     error        // the input's error, other than io.EOF

	done chan struct{} // closed when the connection has finished
	err  error         // what Wait returns
}

// work is one item of the dispatch queue, in arrival order.
type work struct {
	in    *inbound // a request or a notification
	batch *batch   // or a batch
	line  []byte   // or an answer ready to be written (an invalid message)
	size  int      // the memory it holds: its frame's bytes and its decoded form (see messageCost)
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
	c := &Conn{
		h:            h,
		log:          o.Logger,
		rawR:         r,
		rawW:         w,
		r:            codec.NewReader(r, o.MaxFrameSize),
		w:            codec.NewWriter(w),
		dec:          codec.Decoder{MaxDepth: o.MaxDepth, MaxBatch: o.MaxBatch},
		sequential:   o.Sequential,
		grace:        positiveOr(o.ShutdownGrace, DefaultShutdownGrace),
		stopCh:       make(chan struct{}),
		inflight:     newInflightSet(),
		methods:      map[string]string{},
		pending:      make(map[int64]*outbound),
		outBatches:   make(map[*outBatch]struct{}),
		cancelMethod: o.CancelNotification,
		done:         make(chan struct{}),
	}
	// A write that fails where no caller sees it (a line queued by a
	// call whose context can end) ends the connection all the same.
	c.w.OnFail(func(err error) { _ = c.wrote(err) })
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.cancelMethod != CancelledNotification {
		c.cancelMethod = CancelRequest
	}
	c.slots.max = positiveOr(o.MaxPendingCalls, DefaultMaxPendingCalls)
	c.queue = newWorkQueue(positiveOr(o.QueueSize, DefaultQueueSize), positiveOr(o.MaxQueueBytes, DefaultMaxQueueBytes),
		func() bool { return c.slots.used.Load() > 0 })
	c.workCh = make(chan job)
	c.sem = make(chan struct{}, positiveOr(o.Concurrency, DefaultConcurrency))
	c.base = context.WithoutCancel(ctx)
	c.graceCtx, c.graceCancel = context.WithCancel(context.Background())
	if err := o.check(); err != nil {
		c.neverStart(err)
		return c
	}
	c.stopWatch = context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		c.failPending(fmt.Errorf("its context ended: %w", cause))
		c.shutdown(cause)
	})

	c.dispatched.Add(1)
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
		return in.conn.log
	}
	return slog.Default()
}

// neverStart finishes a connection that must not start, for the reason
// err, before it read or wrote anything.
func (c *Conn) neverStart(err error) {
	c.log.Error("rpc: the connection does not start", "error", err)
	c.stopping.Store(true)
	c.stopErr, c.err = err, err
	close(c.stopCh)
	c.failPending(err)
	c.queue.stop()
	_ = c.w.Close(context.Background())
	c.graceCancel()
	close(c.done)
}

// positiveOr is v, or d when v is zero or negative (an option's default).
func positiveOr[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
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
	c.shutdown(nil)
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

// Notify sends a notification to the peer. params must encode to a JSON
// object or array, or be nil. Once the connection is lost (see ErrClosed)
// it fails as Call does.
//
// Notify returns once the notification is written or queued behind a
// write under way. When ctx can end, it never writes in the calling
// goroutine and waits for room in a blocked output only as long as ctx
// lets it (see Call).
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.lostErr(); err != nil {
		return err
	}
	buf := getBuffer()
	defer putBuffer(buf)
	line, err := codec.AppendRequest(*buf, nil, method, params)
	*buf = line
	if err != nil {
		return err
	}
	_, err = c.send(ctx, line)
	return err
}

// shutdown starts shutting the connection down, for the reason err (nil:
// Close). Only the first call counts.
func (c *Conn) shutdown(err error) {
	if c.stopping.Swap(true) {
		return
	}
	c.mu.Lock()
	c.stopErr = err
	c.mu.Unlock()
	close(c.stopCh)
	c.queue.stop()
	c.cancelCalls(ErrShutdown)
	if err == nil {
		c.failPending(errCloseCalled)
	} else {
		c.failPending(err)
	}
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
		c.dispatched.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-c.graceCtx.Done():
		c.logLate("rpc: handlers still running after the shutdown grace period; their responses are dropped")
	}
	// Everything the calls wrote must reach w before the connection is
	// finished; once shutting down, no longer than the grace period.
	if err := c.w.Close(c.graceCtx); err != nil {
		c.logLate("rpc: output still blocked after the shutdown grace period; unwritten lines are dropped")
	}
	c.graceCancel()
	c.stopWatch()
	c.mu.Lock()
	switch {
	case c.stopping.Load():
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
		return c.closedErr()
	}
	// The reason first, then the shutdown, which fails the calls with it:
	// a call that sees its error sees a connection already shutting down.
	c.mu.Lock()
	c.loseLocked(fmt.Errorf("the output failed: %w", err))
	c.mu.Unlock()
	c.shutdown(fmt.Errorf("rpc: write: %w", err)) // before the log: a log that blocks must not hold it up
	c.log.Error("rpc: write failed; shutting down", "error", err)
	return c.closedErr()
}

func (c *Conn) write(line []byte) { _ = c.writeErr(line) }

// buffers holds line buffers for encoding.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= 64<<10 {
		*b = (*b)[:0]
		buffers.Put(b)
	}
}
