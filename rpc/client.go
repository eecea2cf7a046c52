package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wire"
)

// Call calls method on the peer with params (encoded with encoding/json:
// an object, an array, or nil for none) and decodes the result into result
// (a pointer; nil discards it).
//
// An error response comes back as an *Error (errors.As) with its code,
// message and data intact. When ctx ends first — while Call waits for a
// slot (Options.MaxPendingCalls), for room in a blocked output, or for the
// response — Call returns ctx.Err() at once: a request not yet taken for
// writing is never sent; one already sent or being written is followed by
// a cancellation (Options.CancelNotification), which never waits, and its
// response is dropped when it comes. When the connection ends first, the
// error wraps ErrClosed and says why (see ErrClosed).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := c.calls.newCall(ctx)
	buf := getBuffer()
	line, err := appendCall(*buf, o, method, params)
	*buf = line
	if err == nil {
		err = c.register(ctx, o)
	}
	var sent wire.Ticket
	if err == nil {
		if sent, err = c.send(ctx, line); err != nil {
			c.calls.forget(o)
		}
	}
	putBuffer(buf)
	if err != nil {
		return err
	}
	if err := await(ctx, o); err != nil {
		if c.calls.forget(o) {
			c.cancelSent(sent, o)
		}
		return err
	}
	return decodeResult(o, result)
}

// register adds calls to the pending ones (see pendingCalls.register); a
// reader waiting for room may then read on.
func (c *Conn) register(ctx context.Context, calls ...*outbound) error {
	if err := c.calls.register(ctx, calls...); err != nil {
		return err
	}
	c.queue.wake()
	return nil
}

// send writes a line of ours (its '\n' is appended). With a context that
// can end, the line is handed to the writer (wire.Writer.Enqueue), which
// waits for room no longer than ctx and never writes in this goroutine: a
// blocked output cannot hold the caller past ctx. The Ticket lets the line
// be withdrawn while no write has taken it.
func (c *Conn) send(ctx context.Context, line []byte) (wire.Ticket, error) {
	if ctx.Done() == nil {
		return wire.Ticket{}, c.writeErr(line)
	}
	return c.queueLine(ctx, line)
}

// queueLine hands a line (its '\n' is appended) to the writer
// (wire.Writer.Enqueue), as send does with a context that can end.
func (c *Conn) queueLine(ctx context.Context, line []byte) (wire.Ticket, error) {
	t, err := c.w.Enqueue(ctx, append(line, '\n'))
	if err != nil && err == ctx.Err() {
		return t, err
	}
	return t, c.wrote(err)
}

// appendCall encodes the request of o, with its progress token if any.
func appendCall(dst []byte, o *outbound, method string, params any) ([]byte, error) {
	var tokBuf [20]byte
	tok := strconv.AppendInt(tokBuf[:0], o.id, 10)
	if o.progress == nil {
		return codec.AppendRequest(dst, tok, method, params)
	}
	raw, err := jsonx.AppendValue(nil, params)
	if err != nil {
		return dst, err
	}
	if raw, err = withProgressToken(raw, string(tok)); err != nil {
		return dst, err
	}
	return codec.AppendRequest(dst, tok, method, json.RawMessage(raw))
}

// await waits for o's response, delivering its progress reports, or for
// ctx to end.
func await(ctx context.Context, o *outbound) error {
	var ready chan struct{}
	if o.progress != nil {
		ready = o.progress.ready
	}
	for {
		select {
		case <-o.done:
			if o.progress != nil {
				o.progress.deliver()
			}
			return nil
		case <-ready:
			o.progress.deliver()
		case <-ctx.Done():
			select {
			case <-o.done: // answered at the same moment: take the answer
				continue
			default:
			}
			return ctx.Err()
		}
	}
}

// cancelSent deals with the calls we stopped waiting for, whose request
// line is sent: the line is withdrawn if no write has taken it (the peer
// never sees them), else the peer is told to cancel each.
func (c *Conn) cancelSent(sent wire.Ticket, calls ...*outbound) {
	if len(calls) == 0 || c.w.Withdraw(sent) {
		return
	}
	for _, o := range calls {
		c.cancelRemote(o)
	}
}

// cancelRemote tells the peer to cancel o, whose request it may have read.
// It never waits: the notice is queued (wire.Writer.QueueLine), and
// dropped when the output is far behind (the call then runs to its end on
// the peer's side; its response is dropped here).
func (c *Conn) cancelRemote(o *outbound) {
	var tokBuf [20]byte
	tok := json.RawMessage(strconv.AppendInt(tokBuf[:0], o.id, 10))
	var params any
	if c.calls.cancelMethod == CancelledNotification {
		params = struct {
			RequestID json.RawMessage `json:"requestId"`
		}{tok}
	} else {
		params = struct {
			ID json.RawMessage `json:"id"`
		}{tok}
	}
	line, err := codec.AppendRequest(nil, nil, c.calls.cancelMethod, params)
	if err == nil {
		err = c.w.QueueLine(line)
	}
	if err != nil {
		c.log.Debug("rpc: cancellation not sent", "id", o.id, "error", err)
	}
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
	if err := c.calls.lostErr(); err != nil {
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

// readEnded fails the calls of ours waiting: with the input ended (err
// is io.EOF) or failed, no response can come any more.
func (c *Conn) readEnded(err error) {
	if err == io.EOF {
		c.calls.fail(errInputEnded)
	} else {
		c.calls.fail(fmt.Errorf("the input failed: %w", err))
	}
}
