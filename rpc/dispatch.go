package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/toolrpc/toolrpc/codec"
)

// The notifications a connection handles itself.
const (
	// ProgressNotification is the Model Context Protocol's progress report,
	// params {"progressToken": T, "progress": N, "total": N, "message": S}:
	// when T is the token of a call of ours (see WithProgress), it goes to
	// that call; otherwise to the Handler, like any notification.
	ProgressNotification = "notifications/progress"
	// CancelRequest is the Language Server Protocol's cancellation,
	// params {"id": X}: X is answered RequestCancelled.
	CancelRequest = "$/cancelRequest"
	// CancelledNotification is the Model Context Protocol's cancellation,
	// params {"requestId": X, "reason": "..."}: X is not answered at all.
	CancelledNotification = "notifications/cancelled"
)

// reservedPrefix starts the method names JSON-RPC 2.0 reserves for
// rpc-internal methods; requests for them are answered MethodNotFound,
// before any handler runs, except for Discover.
const reservedPrefix = "rpc."

// Discover is the one name under the reserved prefix "rpc." that reaches
// the Handler: OpenRPC's service discovery method, which the framework
// answers (package service, with Service.ServeDiscover). A request for any
// other rpc. name is answered MethodNotFound before any handler runs.
const Discover = "rpc.discover"

// States of an inbound call. A call moves from queued to running to done;
// the peer's cancellation moves a queued call straight to done, and a
// running one to one of the cancelled states, which the handler's return
// then moves to done.
const (
	stateQueued       int32 = iota
	stateRunning            // the handler runs
	stateCancelledLSP       // the handler runs; answer RequestCancelled
	stateCancelledMCP       // the handler runs; answer nothing
	stateDone               // answered, or being answered
)

// inbound is a request or notification from the peer, from the moment it is
// read until it is answered. It is its handler's context too: the embedded
// Context (cancelled with the call, with a cause) and, for callKey, itself.
type inbound struct {
	context.Context
	cancel context.CancelCauseFunc
	conn   *Conn
	req    Request
	batch  *batch   // the batch it came in, or nil
	slot   int      // its place in the batch
	next   *inbound // the next in flight whose id has the same hash

	state atomic.Int32 // see stateQueued

	// notifyMu orders the call's notifications before its response: it is
	// held while one is written, and to mark the call done.
	notifyMu sync.Mutex
}

// Value returns the call itself for callKey, and otherwise what the
// connection's context holds.
func (in *inbound) Value(key any) any {
	if key == (callKey{}) {
		return in
	}
	return in.Context.Value(key)
}

// begin moves a queued call to running, unless it was cancelled first.
func (in *inbound) begin() bool { return in.state.CompareAndSwap(stateQueued, stateRunning) }

// end marks a call whose handler returned as done, and returns the state it
// was in: stateRunning, or how the peer cancelled it while it ran.
func (in *inbound) end() int32 {
	in.notifyMu.Lock()
	defer in.notifyMu.Unlock()
	return in.state.Swap(stateDone)
}

// cancelBy records the peer's cancellation (stateCancelledLSP or
// stateCancelledMCP). It reports whether the call was still queued, and is
// now done without having run; a running call is only marked. A call whose
// handler has returned is left alone: its answer stands.
func (in *inbound) cancelBy(how int32) (wasQueued bool) {
	for {
		switch s := in.state.Load(); s {
		case stateQueued:
			if in.state.CompareAndSwap(s, stateDone) {
				return true
			}
		case stateRunning:
			if in.state.CompareAndSwap(s, how) {
				return false
			}
		default:
			return false
		}
	}
}

// batch gathers the answers to one batch, and writes them as one array, in
// the order of the batch's entries, once the last is in.
type batch struct {
	calls   []*inbound // its requests and notifications, in order
	reqs    []*inbound // its requests, for workers to claim (see claim)
	next    atomic.Int32
	mu      sync.Mutex
	arena   []byte // the answers so far, back to back, as they came
	answers []span // by entry: where its answer is in arena (none: empty)
	pending int    // answers still to come, plus one until dispatched
}

// span is a part of a batch's arena.
type span struct{ at, end int }

// record copies the answer of entry slot (nil: none) into the arena; b.mu
// is held, or the batch is not yet shared.
func (b *batch) record(slot int, line []byte) {
	if line != nil {
		at := len(b.arena)
		b.arena = append(b.arena, line...)
		b.answers[slot] = span{at, len(b.arena)}
	}
}

// claim returns the next request of the batch no worker has taken, or nil.
// The specification lets a batch's entries run in any order and with any
// parallelism: workers take them one after another, so that a batch of
// quick calls is not handed out call by call, while slow calls spread over
// as many workers as the batch was offered to.
func (b *batch) claim() *inbound {
	if i := int(b.next.Add(1)) - 1; i < len(b.reqs) {
		return b.reqs[i]
	}
	return nil
}

// job is what a worker is handed: a request, or a batch to claim requests
// from.
type job struct {
	in    *inbound
	batch *batch
}

// add records the answer of entry slot (nil: none; slot < 0: only release
// the dispatch count) and writes the array after the last answer. The
// answer is copied: line may be reused when add returns.
func (b *batch) add(c *Conn, slot int, line []byte) {
	b.mu.Lock()
	if slot >= 0 {
		b.record(slot, line)
	}
	b.pending--
	last := b.pending == 0
	b.mu.Unlock()
	if !last {
		return
	}
	// The batch's ids are in flight until its answer is written.
	c.mu.Lock()
	for _, in := range b.calls {
		if in.req.ID != nil {
			c.inflight.removeLocked(in)
		}
	}
	c.mu.Unlock()
	buf := getBuffer()
	defer putBuffer(buf)
	out := append(*buf, '[')
	for _, a := range b.answers {
		if a.end > a.at {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, b.arena[a.at:a.end]...)
		}
	}
	*buf = out
	if len(out) > 1 {
		c.write(append(out, ']'))
	}
}

// read reads frames and queues their messages until the input ends or the
// connection shuts down.
//
// Once the connection shuts down, what was read is still answered
// (ServerShuttingDown) as long as the output works.
func (c *Conn) read() {
	defer c.queue.close()
	var tooLarge *codec.FrameTooLargeError // outside the loop: errors.As makes it escape
	for {
		frame, err := c.r.ReadFrameOwned()
		c.readMu.Lock()
		switch {
		case err == nil:
			c.readFrame(frame)
		case errors.As(err, &tooLarge):
			c.enqueue(lineWork(c.invalidLine(nil, codec.InvalidRequestError(
				fmt.Sprintf("frame larger than the limit of %d bytes", tooLarge.Limit)))))
		default:
			if err != io.EOF && !c.stopping.Load() {
				c.log.Error("rpc: read failed", "error", err)
				c.mu.Lock()
				c.readErr = fmt.Errorf("rpc: read: %w", err)
				c.mu.Unlock()
			}
			c.inputEnded(err) // no response can come any more
			c.readMu.Unlock()
			return
		}
		if c.stopping.Load() {
			// The dispatcher may have stopped taking work before the last
			// enqueue: answer what it left.
			c.rejectQueued()
			c.readMu.Unlock()
			return
		}
		c.readMu.Unlock()
	}
}

// readFrame classifies a frame the connection owns and queues its messages.
func (c *Conn) readFrame(frame []byte) {
	msgs, isBatch := c.dec.Decode(frame)
	// The decoder keeps its messages for the next frame: let go of this
	// one's slices, or the frame would live as long as the next read.
	defer clear(msgs)
	if !isBatch {
		w := c.accept(&msgs[0], nil)
		switch {
		case w.in != nil && c.handOff(w.in):
		case w.in != nil:
			w.size += cap(frame) // its fields alias the frame: it keeps it alive
			c.enqueue(w)
		case w.line != nil:
			c.enqueue(w)
		}
		return
	}
	b := &batch{answers: make([]span, len(msgs)), pending: 1}
	size := batchCost + cap(frame) + len(msgs)*int(unsafe.Sizeof(span{}))
	for i := range msgs {
		w := c.accept(&msgs[i], b)
		switch {
		case w.line != nil:
			b.record(i, w.line)
		case w.in != nil:
			w.in.slot = i
			b.calls = append(b.calls, w.in)
			if w.in.req.ID != nil {
				b.pending++
			}
			size += w.size
		}
	}
	c.enqueue(work{batch: b, size: size + cap(b.arena)})
}

// The cost of what the queue holds, beyond the frames' bytes: a message's
// decoded form, measured (TestQueueMemoryIsBounded) at 300 to 350 bytes on
// 64-bit platforms, counted a little above that, so that the bytes a
// connection counts are what its heap holds.
const (
	// messageCost is what a request or notification costs decoded: the
	// call (its Request, its context, its entry among the ids in flight)
	// and its place in the queue or its batch.
	messageCost = 400
	// lineCost is what an answer waiting in the queue costs beyond its
	// bytes (an invalid message, answered in turn).
	lineCost = int(unsafe.Sizeof(work{}))
	// batchCost is what a batch costs beyond its entries.
	batchCost = int(unsafe.Sizeof(batch{})) + lineCost
)

// lineWork is the work of writing line, an answer that waits its turn.
func lineWork(line []byte) work { return work{line: line, size: cap(line) + lineCost} }

// handOff starts a request in an idle worker at once, skipping the queue
// and the dispatcher, when that keeps every rule: dispatch is concurrent,
// and nothing is queued or being dispatched ahead of it. It reports whether
// it did. The reader calls it with readMu held, and the dispatcher closes
// workCh only after taking readMu once shutting down: no send on a closed
// channel.
func (c *Conn) handOff(in *inbound) bool {
	if c.inline(in) || c.stopping.Load() || !c.queue.idleAndEmpty() {
		return false
	}
	select {
	case c.workCh <- job{in: in}:
		return true
	default:
		return false
	}
}

// accept takes one message as it is read: it handles responses and
// cancellations at once, and returns what must be queued for the rest,
// with what it costs beyond the frame's bytes.
func (c *Conn) accept(m *codec.Message, b *batch) work {
	switch m.Kind {
	case codec.Invalid:
		return lineWork(c.invalidLine(m.ID, m.Err))
	case codec.Response:
		c.route(m)
		return work{}
	case codec.Notification:
		switch method := string(m.Method); method {
		case CancelRequest, CancelledNotification:
			c.cancelFromPeer(method, m.Params)
			return work{}
		case ProgressNotification:
			if c.routeProgress(m.Params) {
				return work{}
			}
		}
	}
	method, copied := c.methodName(m.Method)
	in := c.newInbound(m, method, b)
	if m.Kind == codec.Request && !c.inflight.add(&c.mu, in) {
		in.cancel(nil)
		return lineWork(c.invalidLine(m.ID, codec.InvalidRequestError("id already in use by a request in flight")))
	}
	return work{in: in, size: messageCost + copied}
}

// invalidLine logs why a message is answered e without being handled, and
// returns that answer to id (nil: null).
func (c *Conn) invalidLine(id []byte, e *codec.Error) []byte {
	if c.log.Enabled(c.base, slog.LevelDebug) {
		attrs := []slog.Attr{slog.Int("code", int(e.Code))}
		if d, ok := e.Data.(codec.InvalidRequestData); ok {
			attrs = append(attrs, slog.String("reason", d.Reason))
		} else {
			attrs = append(attrs, slog.String("message", e.Message))
		}
		if id != nil {
			attrs = append(attrs, slog.String("id", codec.Echo(id)))
		}
		c.log.LogAttrs(c.base, slog.LevelDebug, "rpc: invalid message", attrs...)
	}
	return errorLine(id, e)
}

func (c *Conn) newInbound(m *codec.Message, method string, b *batch) *inbound {
	in := &inbound{
		conn:  c,
		req:   Request{ID: m.ID, Method: method, Params: m.Params, Meta: m.Meta},
		batch: b,
	}
	in.Context, in.cancel = context.WithCancelCause(c.base)
	return in
}

// cancelCalls cancels the context of every call read and not answered:
// the requests in flight (they are, from the moment they are read), and
// the notification whose handler runs.
func (c *Conn) cancelCalls(cause error) {
	c.mu.Lock()
	for _, in := range c.inflight.m {
		for ; in != nil; in = in.next {
			in.cancel(cause)
		}
	}
	c.mu.Unlock()
	if in := c.notifying.Load(); in != nil {
		in.cancel(cause)
	}
}

// methodName returns the method name as a string, from a cache of the
// names seen (only the reader calls it): most connections use a few
// methods, and a string per request would be an allocation per request.
// copied is the bytes of a name made anew, which its request holds.
func (c *Conn) methodName(b []byte) (name string, copied int) {
	if name, ok := c.methods[string(b)]; ok {
		return name, 0
	}
	name = string(b)
	if len(c.methods) < maxCachedMethods && len(name) <= maxCachedMethodLen {
		c.methods[name] = name
	}
	return name, len(name)
}

// maxCachedMethods and maxCachedMethodLen bound the method names a
// connection remembers: a peer sending endless distinct names, or long
// ones, costs an allocation each, never memory held for the connection's
// life.
const (
	maxCachedMethods   = 256
	maxCachedMethodLen = 256
)

// Errors of workQueue.push.
var (
	errQueueFull    = errors.New("rpc: queue full")
	errQueueStopped = errors.New("rpc: queue stopped")
)

// enqueue queues w for dispatch, waiting for room. If the connection shuts
// down first, w is answered ServerShuttingDown instead; if the queue is
// full even for reading on (see Options.QueueSize), ServerBusy.
func (c *Conn) enqueue(w work) {
	switch err := c.queue.push(w); err {
	case nil:
	case errQueueFull:
		c.log.Warn("rpc: queue full while awaiting the peer; requests answered ServerBusy")
		c.refuse(w, codec.ServerBusy)
	default:
		c.reject(w)
	}
}

// rejectQueued answers the work left in the queue ServerShuttingDown.
func (c *Conn) rejectQueued() {
	for _, w := range c.queue.drain() {
		c.reject(w)
	}
}

// forget removes a request from the requests in flight.
func (c *Conn) forget(in *inbound) {
	if in.req.ID != nil {
		c.inflight.remove(&c.mu, in)
	}
}

// cancelFromPeer acts on a cancellation notification.
func (c *Conn) cancelFromPeer(method string, params []byte) {
	how, member := stateCancelledLSP, "id"
	if method == CancelledNotification {
		how, member = stateCancelledMCP, "requestId"
	}
	id := codec.Member(params, member)
	if !codec.IsID(id) {
		c.log.Debug("rpc: cancellation without a valid id", "method", method)
		return
	}
	in := c.inflight.get(&c.mu, id)
	if in == nil {
		return // answered already, or never seen
	}
	queued := in.cancelBy(how)
	in.cancel(ErrCancelled)
	if queued {
		// Never started, and now never will.
		var line []byte
		if how == stateCancelledLSP {
			line = errorLine(in.req.ID, codec.NewError(codec.RequestCancelled, ""))
		}
		c.answer(in, line)
	}
}

// answer sends a call's answer (nil: none), alone or into its batch, and
// frees its id once the answer is on its way.
func (c *Conn) answer(in *inbound, line []byte) {
	if in.batch != nil {
		in.batch.add(c, in.slot, line)
		return
	}
	c.forget(in)
	if line != nil {
		c.write(line)
	}
}

// dispatch takes the queued work in order and runs it: notifications
// inline, requests in goroutines of their own (or inline when sequential).
func (c *Conn) dispatch() {
	defer c.dispatched.Done()
	defer close(c.workCh) // idle workers end; busy ones after their call
	for {
		w, ok := c.queue.pop()
		if !ok {
			break
		}
		if c.stopping.Load() {
			c.reject(w)
			continue
		}
		c.dispatchOne(w)
	}
	if c.stopping.Load() {
		// Wait for a frame the reader is taking in, so that it is answered
		// before the connection finishes.
		c.readMu.Lock()
		c.rejectQueued()
		c.readMu.Unlock()
	}
}

func (c *Conn) dispatchOne(w work) {
	switch {
	case w.line != nil:
		c.write(w.line)
	case w.in != nil:
		c.start(w.in)
	case w.batch != nil:
		b := w.batch
		for _, in := range b.calls {
			if c.inline(in) {
				c.run(in) // notifications, in order; everything when sequential
			} else {
				b.reqs = append(b.reqs, in)
			}
		}
		if len(b.reqs) > 0 {
			c.startBatch(b)
		}
		b.add(c, -1, nil) // dispatched: release the batch's extra count
	}
}

// start runs a call: a notification, or a request when sequential, in the
// dispatcher; any other request in a worker goroutine (see startJob).
func (c *Conn) start(in *inbound) {
	if c.inline(in) {
		c.run(in)
		return
	}
	c.startJob(job{in: in})
}

// inline reports whether in runs in the dispatcher, in order: a
// notification, or any call when sequential.
func (c *Conn) inline(in *inbound) bool { return in.req.ID == nil || c.sequential }

// startJob hands j to an idle worker if there is one, else to a new one
// once there is room (Options.Concurrency). It waits for either; if the
// connection shuts down first, j's requests are answered
// ServerShuttingDown.
func (c *Conn) startJob(j job) {
	select {
	case c.workCh <- j: // an idle worker took it
		return
	default:
	}
	select {
	case c.workCh <- j:
	case c.sem <- struct{}{}:
		c.dispatched.Add(1)
		go c.worker(j)
	case <-c.stopCh:
		if j.in != nil {
			c.rejectCall(j.in)
		} else {
			c.drainBatch(j.batch) // stopping: answers them ServerShuttingDown
		}
	}
}

// startBatch offers a batch's requests to one worker, waiting for one if
// need be, then to more while idle ones or room remain, up to one per
// request: the workers claim them. Until they are all claimed, the batch
// is also open to every worker that finishes a job (see worker).
func (c *Conn) startBatch(b *batch) {
	c.mu.Lock()
	c.openBatches = append(c.openBatches, b)
	c.open.Store(int32(len(c.openBatches)))
	c.mu.Unlock()
	c.startJob(job{batch: b})
	for range len(b.reqs) - 1 {
		select {
		case c.workCh <- job{batch: b}:
		case c.sem <- struct{}{}:
			c.dispatched.Add(1)
			go c.worker(job{batch: b})
		default:
			return
		}
	}
}

// worker does j, then the jobs the dispatcher hands it, until dispatching
// ends. Workers are kept for the connection's life (at most
// Options.Concurrency of them): a goroutine per call would start on a small
// stack and grow it through the handler's frames every time.
func (c *Conn) worker(j job) {
	defer c.dispatched.Done()
	for ok := true; ok; j, ok = <-c.workCh {
		if j.in != nil {
			c.run(j.in)
		} else {
			c.drainBatch(j.batch)
		}
		// Before waiting for a job: the requests of batches dispatched
		// while every worker was busy.
		for b := c.openBatch(); b != nil; b = c.openBatch() {
			c.drainBatch(b)
		}
	}
}

// drainBatch runs the requests of b no worker has claimed, one after
// another; once the connection shuts down it answers them
// ServerShuttingDown instead, as queued requests are.
func (c *Conn) drainBatch(b *batch) {
	for in := b.claim(); in != nil; in = b.claim() {
		if c.stopping.Load() {
			c.rejectCall(in)
			continue
		}
		c.run(in)
	}
}

// openBatch returns a batch with requests no worker has claimed, or nil,
// dropping from the list those whose requests are all claimed.
func (c *Conn) openBatch() *batch {
	if c.open.Load() == 0 {
		return nil // the common case, without the lock
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() { c.open.Store(int32(len(c.openBatches))) }()
	for len(c.openBatches) > 0 {
		b := c.openBatches[0]
		if int(b.next.Load()) < len(b.reqs) {
			return b
		}
		c.openBatches[0] = nil
		c.openBatches = c.openBatches[1:]
	}
	c.openBatches = nil
	return nil
}

// run calls the handler for in, unless the peer cancelled it first, and
// answers it.
func (c *Conn) run(in *inbound) {
	if !in.begin() {
		return // cancelled while queued, and answered then
	}
	if in.req.ID == nil {
		c.notifying.Store(in)
		if c.stopping.Load() {
			in.cancel(ErrShutdown) // cancelCalls may have missed it
		}
	}
	result, err := c.invoke(in)
	how := in.end()
	if in.req.ID == nil {
		c.notifying.Store(nil)
		// A notification no method handles is not a failure: peers send
		// notifications a server may ignore (MCP's
		// notifications/initialized). Middleware may log it (Logging does,
		// at Debug).
		if err != nil && ErrorFor(in, err).Code != codec.MethodNotFound {
			c.log.Warn("rpc: notification handler failed", "method", codec.Echo(in.req.Method), "error", err)
		}
		in.cancel(nil)
		return
	}
	if s, ok := result.(string); ok && err == nil && how == stateRunning && in.batch == nil && len(s) >= streamSize {
		// A long string result is written in pieces, never copied whole.
		in.cancel(nil)
		c.forget(in)
		_ = c.wrote(codec.WriteStringResponse(c.w, in.req.ID, s))
		return
	}
	var line []byte
	var buf *[]byte
	switch how {
	case stateCancelledLSP:
		line = errorLine(in.req.ID, codec.NewError(codec.RequestCancelled, ""))
	case stateCancelledMCP:
	default:
		// Encoded in a pooled buffer: written at once, or copied into
		// its batch, it is free again when answer returns.
		buf = getBuffer()
		line = c.responseLine((*buf)[:0], in, result, err)
	}
	in.cancel(nil)
	c.answer(in, line)
	if buf != nil {
		*buf = line
		putBuffer(buf)
	}
}

// streamSize is the length from which a string result is written in
// pieces.
const streamSize = 64 << 10

// invoke calls the handler, turning a panic into an error.
func (c *Conn) invoke(in *inbound) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("rpc: handler panicked", "method", codec.Echo(in.req.Method), "id", codec.Echo(in.req.ID),
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			err = &panicError{value: v}
		}
	}()
	if c.h == nil || (strings.HasPrefix(in.req.Method, reservedPrefix) && in.req.Method != Discover) {
		return nil, codec.NewError(codec.MethodNotFound, "")
	}
	return c.h.Handle(in, &in.req)
}

// reject answers queued work that will not run because of a shutdown.
func (c *Conn) reject(w work) { c.refuse(w, codec.ServerShuttingDown) }

// refuse answers work that will not run with the server error code:
// its requests get the error, its notifications nothing.
func (c *Conn) refuse(w work, code codec.Code) {
	switch {
	case w.line != nil:
		c.write(w.line)
	case w.in != nil:
		c.refuseCall(w.in, code)
	case w.batch != nil:
		for _, in := range w.batch.calls {
			c.refuseCall(in, code)
		}
		w.batch.add(c, -1, nil)
	}
}

func (c *Conn) rejectCall(in *inbound) { c.refuseCall(in, codec.ServerShuttingDown) }

func (c *Conn) refuseCall(in *inbound, code codec.Code) {
	if !in.state.CompareAndSwap(stateQueued, stateDone) {
		return
	}
	in.cancel(ErrShutdown)
	if in.req.ID != nil {
		c.answer(in, errorLine(in.req.ID, codec.NewError(code, "")))
	}
}

// notify writes a notification on behalf of the call, unless it is
// answered. It is queued as our own calls' lines are (Conn.queueLine):
// waiting for room in a blocked output no longer than ctx, never writing
// in the handler's goroutine. Once queued, it is written before the call's
// response, which waits for notifyMu. (Not Conn.send: a handler's context
// can end, and asking for its Done channel would allocate it.)
func (in *inbound) notify(ctx context.Context, method string, params any) error {
	buf := getBuffer()
	defer putBuffer(buf)
	line, err := codec.AppendRequest(*buf, nil, method, params)
	*buf = line
	if err != nil {
		return err
	}
	in.notifyMu.Lock()
	defer in.notifyMu.Unlock()
	if in.state.Load() == stateDone {
		return ErrAnswered
	}
	_, err = in.conn.queueLine(ctx, line)
	return err
}

// panicError is a recovered panic.
type panicError struct{ value any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// PanicError returns the error for a recovered panic value v: the
// connection answers it InternalError, with v's type as the exception.
func PanicError(v any) error { return &panicError{value: v} }

// exception is the data of an InternalError: the Go type of the error (or
// panic value) and its message.
type exception struct {
	Exception string `json:"exception"`
	Message   string `json:"message"`
}

// responseLine appends the response to in to dst. Encoding runs user code
// (a MarshalJSON, an Error method) after the handler's own recovery: a
// panic there becomes an InternalError too.
func (c *Conn) responseLine(dst []byte, in *inbound, result any, err error) (line []byte) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("rpc: encoding the response panicked", "method", codec.Echo(in.req.Method), "id", codec.Echo(in.req.ID),
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			line = errorLine(in.req.ID, codec.NewError(codec.InternalError, "").
				WithData(exception{Exception: fmt.Sprintf("%T", v), Message: fmt.Sprint(v)}))
		}
	}()
	if err != nil {
		line, _ = codec.AppendErrorResponse(dst, in.req.ID, ErrorFor(in, err))
		return line
	}
	line, encErr := codec.AppendResponse(dst, in.req.ID, result)
	if encErr != nil {
		c.log.Error("rpc: result cannot be encoded", "method", codec.Echo(in.req.Method), "error", encErr)
		line, _ = codec.AppendErrorResponse(dst[:0], in.req.ID, codec.NewError(codec.InternalError, "").
			WithData(exception{Exception: fmt.Sprintf("%T", result), Message: encErr.Error()}))
	}
	return line
}

// ErrorFor returns the error object a connection answers with when a
// handler, given ctx, returns err: the *codec.Error err is or wraps; for a
// context error once ctx was cancelled, RequestCancelled (the peer
// cancelled) or ServerShuttingDown; for PanicError, InternalError naming the
// panic value's type; for any other error, InternalError naming its type.
//
// Middleware uses it to know the code a call will be answered with.
func ErrorFor(ctx context.Context, err error) *codec.Error {
	var e *codec.Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrCancelled):
			return codec.NewError(codec.RequestCancelled, "")
		case errors.Is(cause, ErrShutdown):
			return codec.NewError(codec.ServerShuttingDown, "")
		}
	}
	var p *panicError
	if errors.As(err, &p) {
		return codec.NewError(codec.InternalError, "").
			WithData(exception{Exception: fmt.Sprintf("%T", p.value), Message: fmt.Sprint(p.value)})
	}
	return codec.NewError(codec.InternalError, "").
		WithData(exception{Exception: fmt.Sprintf("%T", err), Message: errorText(err)})
}

// errorText is err.Error(), or "<nil>" for a nil pointer whose Error method
// cannot take one.
func errorText(err error) (text string) {
	defer func() {
		if recover() != nil {
			text = "<nil>"
		}
	}()
	return err.Error()
}

// errorLine encodes an error response to id (nil: null).
func errorLine(id []byte, e *codec.Error) []byte {
	line, _ := codec.AppendErrorResponse(nil, id, e)
	return line
}
