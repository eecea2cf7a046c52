package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/option"
	"github.com/toolrpc/toolrpc/internal/scan"
	"github.com/toolrpc/toolrpc/internal/sse"
)

// HTTPClientOptions configure an HTTPClient. A nil *HTTPClientOptions, and
// every zero field, means the documented default.
type HTTPClientOptions struct {
	// Client sends the requests. Default: http.DefaultClient.
	Client *http.Client
	// Header is added to every request (an Authorization, say).
	Header http.Header
	// MaxFrameSize bounds a response body, and each event of an event
	// stream, in bytes; a longer one fails the call with ErrBadResponse.
	// Default: codec.DefaultMaxFrameSize (64 MiB).
	MaxFrameSize int
}

// HTTPClient calls a JSON-RPC 2.0 server over HTTP (an [HTTPHandler], or
// any server that takes a request in a POST body and answers in the
// response): each call is a POST. Its methods are those of [Conn]'s client
// side, with the same errors, so that code written against a tool server
// on a stream works against one over HTTP: an error response is an
// *Error; a response that breaks the specification wraps ErrBadResponse; a
// server that cannot be reached (the POST fails), and every call after
// Close, wraps ErrClosed.
//
// A call made with a context from [WithProgress] asks for progress as on a
// stream, and accepts text/event-stream: the server's progress reports
// for it are passed to the callback, in the calling goroutine, before the
// call returns. The context's end cancels the request (the server's
// HTTPHandler then cancels the call). Other messages of the server's on a
// call's event stream are never taken for its answer: a notification other
// than progress is dropped, and so is a request (a server-to-client call,
// as MCP's Streamable HTTP allows), whatever its id — an HTTPClient serves
// no calls and has no way to answer one (a response POSTed back reaches
// no call of an HTTPHandler's, which drops responses), so the server's
// call waits as long as its own context lets it.
//
// An HTTPClient is safe for concurrent use.
type HTTPClient struct {
	url    string
	client *http.Client
	header http.Header
	max    int
	nextID atomic.Int64
	closed atomic.Bool
}

// NewHTTPClient returns a client of the JSON-RPC server at url. opts may
// be nil.
func NewHTTPClient(url string, opts *HTTPClientOptions) *HTTPClient {
	var o HTTPClientOptions
	if opts != nil {
		o = *opts
	}
	c := &HTTPClient{url: url, client: o.Client, header: o.Header, max: option.PositiveOr(o.MaxFrameSize, codec.DefaultMaxFrameSize)}
	if c.client == nil {
		c.client = http.DefaultClient
	}
	return c
}

// Close ends the client: every later call fails with ErrClosed. Calls
// under way go on. The http.Client's idle connections are its own: Close
// leaves them (http.DefaultClient's too; call CloseIdleConnections on the
// client given in HTTPClientOptions to let them go). Close may be called
// more than once.
func (c *HTTPClient) Close() error {
	c.closed.Store(true)
	return nil
}

// Call calls method with params (an object, an array, or nil for none) and
// decodes the result into result (a pointer; nil discards it); see
// [Conn.Call] and HTTPClient for the errors.
func (c *HTTPClient) Call(ctx context.Context, method string, params, result any) error {
	o := newOutbound(ctx, c.nextID.Add(1))
	body, err := appendCall(nil, o, method, params)
	if err != nil {
		return err
	}
	if err := c.exchange(ctx, body, []*outbound{o}, false); err != nil {
		return err
	}
	return decodeResult(o, result)
}

// Notify sends a notification: the server answers nothing (202).
func (c *HTTPClient) Notify(ctx context.Context, method string, params any) error {
	body, err := codec.AppendRequest(nil, nil, method, params)
	if err != nil {
		return err
	}
	return c.exchange(ctx, body, nil, false)
}

// Batch sends calls as one batch, in one POST, and sets each entry's
// Result and Err from the array that answers it; see [Conn.Batch]. It
// returns an error only when the batch as a whole fails.
func (c *HTTPClient) Batch(ctx context.Context, calls []BatchCall) error {
	if len(calls) == 0 {
		return errors.New("rpc: an empty batch is invalid")
	}
	body := []byte{'['}
	outs := make([]*outbound, 0, len(calls))
	for i := range calls {
		if i > 0 {
			body = append(body, ',')
		}
		var err error
		if calls[i].Notification {
			body, err = codec.AppendRequest(body, nil, calls[i].Method, calls[i].Params)
		} else {
			o := newOutbound(ctx, c.nextID.Add(1))
			outs = append(outs, o)
			body, err = appendCall(body, o, calls[i].Method, calls[i].Params)
		}
		if err != nil {
			return err
		}
	}
	body = append(body, ']')
	err := c.exchange(ctx, body, outs, true)
	j := 0
	for i := range calls {
		if calls[i].Notification {
			continue
		}
		o := outs[j]
		j++
		switch {
		case err != nil:
			calls[i].Err = err
		default:
			calls[i].Err = decodeResult(o, calls[i].Result)
		}
	}
	return err
}

// exchange posts body and settles the calls it holds (none: a
// notification; a batch: their answers come as one array) from the
// response.
func (c *HTTPClient) exchange(ctx context.Context, body []byte, calls []*outbound, isBatch bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.closed.Load() {
		return fmt.Errorf("%w: Close was called", ErrClosed)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	progress := len(calls) > 0 && calls[0].progress != nil
	if progress {
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: the request failed: %w", ErrClosed, err)
	}
	defer resp.Body.Close()
	answered := func(answer []byte) error { return settle(answer, calls, isBatch) }
	t, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case len(calls) == 0 && (resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent):
		return nil // notifications alone: nothing to answer (202, or 204 as some servers have it)
	case len(calls) == 0 && resp.StatusCode == http.StatusOK && resp.ContentLength == 0:
		return nil
	case resp.StatusCode == http.StatusOK && t == "text/event-stream":
		err = c.events(resp.Body, calls, answered)
	case resp.StatusCode == http.StatusOK && t == "application/json":
		var answer []byte
		if answer, err = c.readAll(resp.Body); err == nil {
			err = answered(answer)
		}
	default:
		err = statusError(resp, c)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// readAll reads a body of at most c.max bytes.
func (c *HTTPClient) readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(c.max)+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: reading the response: %w", ErrClosed, err)
	case len(b) > c.max:
		return nil, fmt.Errorf("%w: a response larger than %d bytes", ErrBadResponse, c.max)
	}
	return b, nil
}

// statusError is the error of a response of another status than the ones
// answered: its JSON-RPC error, when it carries one, wrapped with the
// status.
func statusError(resp *http.Response, c *HTTPClient) error {
	b, _ := c.readAll(resp.Body)
	var m struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(b, &m) == nil && m.Error != nil {
		return fmt.Errorf("rpc: HTTP %s: %w", resp.Status, m.Error)
	}
	return fmt.Errorf("%w: HTTP %s", ErrBadResponse, resp.Status)
}

// events reads an event stream (sse.Reader): progress for the calls goes
// to them as it comes; the answer, the stream's last message, to answered.
// A line or an event longer than c.max fails the call.
func (c *HTTPClient) events(r io.Reader, calls []*outbound, answered func([]byte) error) error {
	events := sse.NewReader(r, c.max)
	for {
		data, err := events.Next()
		switch {
		case err == io.EOF:
			return fmt.Errorf("%w: the event stream ended without an answer", ErrBadResponse)
		case errors.Is(err, sse.ErrLineTooLong):
			return fmt.Errorf("%w: an event line longer than %d bytes", ErrBadResponse, c.max)
		case errors.Is(err, sse.ErrEventTooLarge):
			return fmt.Errorf("%w: an event larger than %d bytes", ErrBadResponse, c.max)
		case err != nil:
			return fmt.Errorf("%w: reading the response: %w", ErrClosed, err)
		}
		if done, err := c.event(data, calls, answered); done || err != nil {
			return err
		}
	}
}

// event handles one message (or batch) of an event stream, reporting
// whether it was the answer. Requests and notifications from the server
// are never the answer, whatever their ids: progress for our calls goes to
// them, the rest is dropped (see HTTPClient).
func (c *HTTPClient) event(data []byte, calls []*outbound, answered func([]byte) error) (bool, error) {
	var dec codec.Decoder
	msgs, _ := dec.Decode(data)
	for i := range msgs {
		if k := msgs[i].Kind; k != codec.Request && k != codec.Notification {
			return true, answered(data) // a response, or something broken: the answer
		}
	}
	for i := range msgs {
		if m := &msgs[i]; m.Kind == codec.Notification && string(m.Method) == ProgressNotification {
			deliverProgress(m.Params, calls)
		}
	}
	return false, nil
}

// deliverProgress passes a progress report to the call of ours whose token
// it carries, if any.
func deliverProgress(params []byte, calls []*outbound) {
	id, ours := ourID(jsonx.Member(params, "progressToken"))
	if !ours {
		return
	}
	for _, o := range calls {
		if o.id == id && o.progress != nil {
			var p Progress
			if json.Unmarshal(params, &p) == nil {
				o.progress.fn(p)
			}
		}
	}
}

// settle finishes the calls from answer: a response (or, for a batch, an
// array of them) to their ids. Of an array it decodes at most as many
// entries as the batch has calls, or codec.DefaultMaxBatch when it has
// fewer (a server may add entries to id null, or to ids never sent,
// which are dropped): a longer one fails the batch, holding no more.
func settle(answer []byte, calls []*outbound, isBatch bool) error {
	if i := scan.SkipSpace(answer, 0); !isBatch && i < len(answer) && answer[i] == '[' {
		return fmt.Errorf("%w: %s", ErrBadResponse, "the answer is not what was asked for") // not decoded
	}
	dec := codec.Decoder{MaxBatch: max(len(calls), codec.DefaultMaxBatch)}
	msgs, gotBatch := dec.Decode(answer)
	if gotBatch != isBatch {
		switch m := msgs[0]; {
		case !gotBatch && m.Kind == codec.Response && m.Error != nil:
			// The whole batch refused (an empty or oversized one): its error.
			_, err := responseOf(&m)
			return err
		case !gotBatch && m.Kind == codec.Invalid:
			// An array longer than the bound, too deep, or not JSON.
			reason := m.Err.Message
			if d, ok := m.Err.Data.(codec.InvalidRequestData); ok {
				reason = d.Reason
			}
			return fmt.Errorf("%w: the answer to a batch of %d calls: %s", ErrBadResponse, len(calls), reason)
		}
		return fmt.Errorf("%w: %s", ErrBadResponse, "the answer is not what was asked for")
	}
	for i := range msgs {
		if msgs[i].Kind != codec.Response {
			return fmt.Errorf("%w: %s", ErrBadResponse, "the answer holds something other than a response")
		}
	}
	var refused error // a lone answer's error to id null
	byID := indexCalls(calls)
	eachResponse(msgs, func(m *codec.Message) {
		id, ok := ourID(m.ID)
		if !ok && m.Err == nil && m.Error != nil && (m.ID == nil || string(m.ID) == "null") {
			// An error to id null: about a request the server could not
			// read. Alone, the call's; in a batch, as on a stream (see
			// pendingCalls.routeUnidentified), it fails the calls the
			// array answers no other way.
			_, err := responseOf(m)
			if !isBatch {
				refused = err
				return
			}
			for _, o := range calls {
				if !o.settled() {
					o.finish(nil, err)
				}
			}
			return
		}
		if o := byID.find(id); ok && o != nil && !o.settled() {
			o.finish(responseOf(m))
		}
	})
	if refused != nil {
		return refused
	}
	for _, o := range calls {
		if !o.settled() {
			o.finish(nil, fmt.Errorf("%w: no response to id %s", ErrBadResponse, strconv.FormatInt(o.id, 10)))
		}
	}
	return nil
}

// callIndex finds a call by its id: in a map for a batch of many calls,
// so that matching a batch's answers costs no more than reading them.
type callIndex struct {
	calls []*outbound
	ids   map[int64]*outbound
}

func indexCalls(calls []*outbound) callIndex {
	x := callIndex{calls: calls}
	if len(calls) > 16 {
		x.ids = make(map[int64]*outbound, len(calls))
		for _, o := range calls {
			x.ids[o.id] = o
		}
	}
	return x
}

// find returns the call whose id is id, or nil.
func (x callIndex) find(id int64) *outbound {
	if x.ids != nil {
		return x.ids[id]
	}
	for _, o := range x.calls {
		if o.id == id {
			return o
		}
	}
	return nil
}
