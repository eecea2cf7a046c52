package rpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolrpc/toolrpc/codec"
)

// BatchCall is one entry of a batch: a call, or a notification.
type BatchCall struct {
	Method string
	Params any // an object, an array, or nil
	// Result receives the entry's result (a pointer; nil discards it).
	Result any
	// Notification sends the entry as a notification: no response.
	Notification bool
	// Err is set by Batch: the entry's error (a *Error for an error
	// response), or nil.
	Err error
}

// Batch sends calls as one batch (one array, on one line) and waits for
// every call's response, setting each entry's Result and Err. It returns
// an error only when the batch as a whole fails: the context ended (the
// peer is told to cancel every call; a batch not yet taken for writing is
// never sent), the connection ended, or an entry cannot be encoded; the
// entries still waiting then get that error too.
//
// The batch takes a slot (Options.MaxPendingCalls) for each of its calls
// (notifications take none) all at once: it waits until that many are
// free, holding none meanwhile. A batch with more calls than
// MaxPendingCalls fails at once.
func (c *Conn) Batch(ctx context.Context, calls []BatchCall) error {
	if len(calls) == 0 {
		return errors.New("rpc: an empty batch is invalid")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := 0
	for _, bc := range calls {
		if !bc.Notification {
			n++
		}
	}
	if n > c.calls.slots.max {
		return fmt.Errorf("rpc: a batch of %d calls is more than Options.MaxPendingCalls (%d)", n, c.calls.slots.max)
	}
	// Its answer is an array of n responses, which this connection's own
	// reader refuses past MaxBatch: the calls would wait for ever.
	most := c.dec.MaxBatch
	if most <= 0 {
		most = codec.DefaultMaxBatch
	}
	if n > most {
		return fmt.Errorf("rpc: a batch of %d calls is more than Options.MaxBatch (%d): its answer could not be read", n, most)
	}
	outs := make([]*outbound, len(calls))
	ob := &outBatch{calls: make([]*outbound, 0, n)}
	buf := getBuffer()
	defer putBuffer(buf)
	line := append((*buf)[:0], '[')
	for i := range calls {
		bc := &calls[i]
		if i > 0 {
			line = append(line, ',')
		}
		var err error
		if bc.Notification {
			line, err = codec.AppendRequest(line, nil, bc.Method, bc.Params)
		} else {
			o := c.calls.newCall(ctx)
			o.batch, outs[i] = ob, o
			ob.calls = append(ob.calls, o)
			line, err = appendCall(line, o, bc.Method, bc.Params)
		}
		if err != nil {
			*buf = line
			return err
		}
	}
	line = append(line, ']')
	*buf = line
	fail := func(err error) error {
		for i, o := range outs {
			if o != nil {
				c.calls.forget(o)
				calls[i].Err = err
			}
		}
		return err
	}
	if n > 0 {
		if err := c.register(ctx, ob.calls...); err != nil {
			return fail(err)
		}
	} else if err := c.calls.lostErr(); err != nil {
		return err
	}
	sent, err := c.send(ctx, line)
	if err != nil {
		return fail(err)
	}
	var lost error
	for i, o := range outs {
		if o == nil {
			continue
		}
		if err := await(ctx, o); err != nil {
			var dropped []*outbound
			for j := i; j < len(outs); j++ {
				switch o := outs[j]; {
				case o == nil:
				case c.calls.forget(o):
					dropped = append(dropped, o)
					calls[j].Err = err
				default: // answered, or failed, at the same moment
					<-o.done
					calls[j].Err = decodeResult(o, calls[j].Result)
				}
			}
			c.cancelSent(sent, dropped...)
			return err
		}
		calls[i].Err = decodeResult(o, calls[i].Result)
		if lost == nil && errors.Is(o.err, ErrClosed) {
			lost = o.err // the connection ended: the batch as a whole failed
		}
	}
	return lost
}
