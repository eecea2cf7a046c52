package rpc

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/toolrpc/toolrpc/codec"
)

// This file is the stream's inbound path: the reader, which reads frames
// and queues their messages, and the dispatcher, which takes them from the
// queue in order and hands them to the dispatch core.

// read reads frames and queues their messages until the input ends or the
// connection shuts down.
//
// Once the connection shuts down, what was read is still answered
// (ServerShuttingDown) as long as the output works.
func (c *Conn) read() {
	defer close(c.inputDone)
	defer c.queue.close()
	var tooLarge *codec.FrameTooLargeError // outside the loop: errors.As makes it escape
	var badHeader *codec.HeaderError
	for {
		frame, err := c.r.ReadFrameOwned()
		c.readMu.Lock()
		switch {
		case err == nil:
			c.readFrame(frame)
		case errors.As(err, &tooLarge):
			c.enqueue(lineWork(c.core.invalidLine(nil, invalidRequest(
				fmt.Sprintf("frame larger than the limit of %d bytes", tooLarge.Limit)))))
		case errors.As(err, &badHeader):
			// FramingLSP: a message whose length is unknown cannot be
			// read; the reader skips to the next header block.
			c.log.Debug("rpc: bad LSP header block", "reason", badHeader.Reason)
			c.enqueue(lineWork(c.core.invalidLine(nil, NewError(codec.ParseError, ""))))
		default:
			if err != io.EOF && !c.core.stopping.Load() {
				c.log.Error("rpc: read failed", "error", err)
				c.mu.Lock()
				c.readErr = fmt.Errorf("rpc: read: %w", err)
				c.mu.Unlock()
			}
			c.readEnded(err) // no response can come any more
			c.readMu.Unlock()
			return
		}
		if c.core.stopping.Load() {
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
	eachResponse(msgs, c.calls.route) // accept leaves a batch's responses alone
	b := newBatch(len(msgs), c)
	size := batchCost + cap(frame) + len(msgs)*int(unsafe.Sizeof(span{})) + b.fill(c.core, msgs, c.accept)
	c.enqueue(work{batch: b, size: size + cap(b.arena)})
}

// accept takes one message as it is read: responses and progress reports
// for calls of ours go to them, the rest to the dispatch core.
func (c *Conn) accept(m *codec.Message, b *batch) work {
	switch {
	case m.Kind == codec.Response:
		if b == nil { // a batch's are routed before it is filled (see readFrame)
			c.calls.route(m)
		}
		return work{}
	case m.Kind == codec.Notification && string(m.Method) == ProgressNotification && c.calls.routeProgress(m.Params):
		return work{}
	}
	return c.core.accept(m, b, c, c.methods)
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

// handOff starts a request in an idle worker at once, skipping the queue
// and the dispatcher, when that keeps every rule: dispatch is concurrent,
// and nothing is queued or being dispatched ahead of it. It reports whether
// it did. The reader calls it with readMu held, and the dispatcher closes
// the core's jobs only after taking readMu once shutting down: no send on
// a closed channel.
func (c *Conn) handOff(in *inbound) bool {
	if c.core.inline(in) || c.core.stopping.Load() || !c.queue.idleAndEmpty() {
		return false
	}
	return c.core.tryHandOff(in)
}

// enqueue queues w for dispatch, waiting for room. If the connection shuts
// down first, w is answered ServerShuttingDown instead; if the queue is
// full even for reading on (see Options.QueueSize), ServerBusy.
func (c *Conn) enqueue(w work) {
	switch err := c.queue.push(w); err {
	case nil:
	case errQueueFull:
		c.log.Warn("rpc: queue full while awaiting the peer; requests answered ServerBusy")
		c.core.refuse(w, codec.ServerBusy, c)
	default:
		c.reject(w)
	}
}

// reject answers queued work that will not run because of a shutdown.
func (c *Conn) reject(w work) { c.core.refuse(w, codec.ServerShuttingDown, c) }

// rejectQueued answers the work left in the queue ServerShuttingDown.
func (c *Conn) rejectQueued() {
	for _, w := range c.queue.drain() {
		c.reject(w)
	}
}

// dispatch takes the queued work in order and runs it: notifications
// inline, requests in workers (or inline when sequential).
func (c *Conn) dispatch() {
	defer c.core.running.Done()
	defer c.core.closeJobs() // idle workers end; busy ones after their call
	for {
		w, ok := c.queue.pop()
		if !ok {
			break
		}
		if c.core.stopping.Load() {
			c.reject(w)
			continue
		}
		switch {
		case w.line != nil:
			c.write(w.line)
		case w.in != nil:
			c.core.start(w.in)
		case w.batch != nil:
			c.core.startBatch(w.batch)
		}
	}
	if c.core.stopping.Load() {
		// Wait for a frame the reader is taking in, so that it is answered
		// before the connection finishes.
		c.readMu.Lock()
		c.rejectQueued()
		c.readMu.Unlock()
	}
}
