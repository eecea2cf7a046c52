package rpc

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/option"
)

// core is the dispatch core: it answers the peer's messages with a Handler
// and keeps every rule of the wire whatever carries them — ids in flight,
// cancellation, the concurrency bound, a call's notifications before its
// response, the mapping of Go errors to error objects. The stream
// connection (Conn) feeds it the messages it reads, in order; a
// request/response transport feeds it frames, each with its own replier,
// concurrently (serveFrame).
// Answers go to the replier each message came with.
//
// Its state is the inbound side alone: the calls of ours waiting for the
// peer are the transport's (see pendingCalls).
type core struct {
	h          Handler
	log        *slog.Logger
	sequential bool
	// base is the parent of every call's context: the transport's
	// context, for its values, without its cancellation. Calls are
	// cancelled one by one (see cancelCalls), so that no call's context
	// registers with a shared parent.
	base context.Context

	inflight inflightSet // requests read and not yet answered, by id token
	// notifying holds the notifications whose handlers run (on a stream,
	// one at a time; over HTTP, one per request at most): the calls to
	// cancel at shutdown are the requests in flight and they.
	notifyingMu sync.Mutex
	notifying   map[*inbound]struct{}

	// The workers (see workers.go).
	jobs    chan work     // requests and batches handed to idle workers; closed by closeJobs
	sem     chan struct{} // a token per worker goroutine
	running sync.WaitGroup
	openMu  sync.Mutex
	// openBatches are batches dispatched with requests no worker has
	// claimed yet, oldest first.
	openBatches []*batch
	open        atomic.Int32 // len(openBatches), read without openMu
	openTurn    int          // the open batch whose turn was last (openBatch)

	stopping atomic.Bool
	stopCh   chan struct{} // closed when the core starts shutting down

	dropped dropped // the responses the peers sent (over HTTP), for their records
}

// replier is where the answers of the calls that came with it go and,
// before each answer, the notifications its call's handler sends: the
// stream connection, or one response of a request/response transport.
// Failures to write are the replier's to deal with.
type replier interface {
	// reply writes an answer: a response, or the array answering a batch.
	// line has no '\n'; reply may append one in line's spare capacity.
	reply(line []byte)
	// replyString writes the response to id whose result is the string s,
	// which may be long, without copying it whole.
	replyString(id []byte, s string)
	// replyStringIn writes the response to id whose result is v, whose
	// text may be long, without copying it whole, unless lines wait to be
	// written before it: then it reports false, having written nothing,
	// and the caller writes the line made whole with reply.
	replyStringIn(id []byte, v jsonx.StringIn) bool
	// notify writes a notification line (no '\n') of a call, waiting for
	// room no longer than ctx and never writing in the calling goroutine.
	notify(ctx context.Context, line []byte) error
	// awaitRead waits, before the answer to a call that notified is
	// written, for the peer to have read its notifications, as long as the
	// transport bounds it and ctx lets it (see DefaultReadWait).
	awaitRead(ctx context.Context)
	// logger is the logger of the calls (see LoggerFromContext).
	logger() *slog.Logger
	// request is the HTTP request whose body carried the calls, or nil
	// (see HTTPRequest).
	request() *http.Request
	// inputEnded is closed once no message can come from the peer any
	// more (see InputEnded); nil when the transport has no such moment.
	inputEnded() <-chan struct{}
	// sendable is nil when a message of its own (Send) can reach the
	// peer during a call, a request (with an id) or not; else why not.
	sendable(request bool) error
}

// newCore makes a dispatch core answering with h (nil: every request is
// answered MethodNotFound), its calls' contexts children of ctx's values.
func newCore(ctx context.Context, h Handler, log *slog.Logger, o *Options) *core {
	return &core{
		h:          h,
		log:        log,
		sequential: o.Sequential,
		base:       context.WithoutCancel(ctx),
		inflight:   newInflightSet(false),
		notifying:  map[*inbound]struct{}{},
		jobs:       make(chan work),
		sem:        make(chan struct{}, option.PositiveOr(o.Concurrency, DefaultConcurrency)),
		stopCh:     make(chan struct{}),
	}
}

// beginStop marks the core as shutting down, reporting whether this was
// the first call; stop then finishes the job.
func (s *core) beginStop() bool { return !s.stopping.Swap(true) }

// stop wakes whatever waits for a worker: queued work is answered
// ServerShuttingDown from now on.
func (s *core) stop() { close(s.stopCh) }

// cancelCalls cancels the context of every call read and not answered:
// the requests in flight (they are, from the moment they are read), and
// the notification whose handler runs.
func (s *core) cancelCalls(cause error) {
	s.inflight.each(func(in *inbound) { in.cancel(cause) })
	s.notifyingMu.Lock()
	defer s.notifyingMu.Unlock()
	for in := range s.notifying {
		in.cancel(cause)
	}
}

// accept takes one message as it is read: it handles cancellations at
// once, and returns what must be dispatched for the rest (a call, or an
// answer line), with what it costs beyond the frame's bytes. names
// caches method names (see methodNames); b is the batch the message is an
// entry of, or nil.
func (s *core) accept(m *codec.Message, b *batch, out replier, names methodNames) work {
	switch m.Kind {
	case codec.Invalid:
		return lineWork(s.invalidLine(m.ID, m.Err))
	case codec.Response:
		s.dropped.log(s.log, "rpc: unexpected response dropped", slog.String("id", jsonx.Echo(m.ID)))
		return work{}
	case codec.Notification:
		switch method := string(m.Method); method {
		case CancelRequest, CancelledNotification:
			s.cancelFromPeer(out, method, m.Params)
			return work{}
		}
	}
	method, copied := names.name(m.Method)
	in := &inbound{
		out:   out,
		req:   Request{ID: m.ID, Method: method, Params: m.Params, Meta: m.Meta},
		batch: b,
	}
	in.Context, in.cancel = context.WithCancelCause(s.base)
	if m.Kind == codec.Request && !s.inflight.add(in) {
		in.cancel(nil)
		return lineWork(s.invalidLine(m.ID, invalidRequest("id already in use by a request in flight")))
	}
	return work{in: in, size: messageCost + copied}
}

// invalidLine logs why a message is answered e without being handled, and
// returns that answer to id (nil: null).
func (s *core) invalidLine(id []byte, e *codec.Error) []byte {
	if s.log.Enabled(s.base, slog.LevelDebug) {
		attrs := []slog.Attr{slog.Int("code", int(e.Code))}
		if d, ok := e.Data.(codec.InvalidRequestData); ok {
			attrs = append(attrs, slog.String("reason", d.Reason))
		} else {
			attrs = append(attrs, slog.String("message", e.Message))
		}
		if id != nil {
			attrs = append(attrs, slog.String("id", jsonx.Echo(id)))
		}
		s.log.LogAttrs(s.base, slog.LevelDebug, "rpc: invalid message", attrs...)
	}
	return errorLine(id, e)
}

// cancelFromPeer acts on a cancellation notification.
// A cancellation reaches the calls whose ids are out's (see inflightSet).
func (s *core) cancelFromPeer(out replier, method string, params []byte) {
	how, member := stateCancelledLSP, "id"
	if method == CancelledNotification {
		how, member = stateCancelledMCP, "requestId"
	}
	id := jsonx.Member(params, member)
	if !jsonx.IsID(id) {
		s.log.Debug("rpc: cancellation without a valid id", "method", method)
		return
	}
	in := s.inflight.get(out, id)
	if in == nil {
		return // answered already, or never seen
	}
	queued := in.cancelBy(how)
	in.cancel(ErrCancelled)
	if queued {
		// Never started, and now never will.
		var line []byte
		if how == stateCancelledLSP {
			line = errorLine(in.req.ID, NewError(codec.RequestCancelled, ""))
		}
		s.answer(in, line)
	}
}

// answer sends a call's answer (nil: none), alone or into its batch, and
// frees its id once the answer is on its way.
func (s *core) answer(in *inbound, line []byte) {
	if in.batch != nil {
		in.batch.add(s, int(in.slot), line)
		return
	}
	s.forget(in)
	if line != nil {
		in.out.reply(line)
	}
}

// forget removes a request from the requests in flight.
func (s *core) forget(in *inbound) {
	if in.req.ID != nil {
		s.inflight.remove(in)
	}
}

// work is one item of dispatch: a call, a batch, or an answer ready to be
// written (an invalid message), with the memory it holds.
type work struct {
	in    *inbound // a request or a notification
	batch *batch   // or a batch
	line  []byte   // or an answer ready to be written (an invalid message)
	size  int      // the memory it holds: its frame's bytes and its decoded form (see messageCost)
}

// lineWork is the work of writing line, an answer that waits its turn.
func lineWork(line []byte) work { return work{line: line, size: cap(line) + lineCost} }

// refuse answers work that will not run with the server error code:
// its requests get the error, its notifications nothing. Lines are
// written to out.
func (s *core) refuse(w work, code codec.Code, out replier) {
	switch {
	case w.line != nil:
		out.reply(w.line)
	case w.in != nil:
		s.refuseCall(w.in, code)
	case w.batch != nil:
		for _, in := range w.batch.calls {
			s.refuseCall(in, code)
		}
		w.batch.add(s, -1, nil)
	}
}

// refuseCall answers a call that will not run with the server error code,
// unless it is under way or answered already.
func (s *core) refuseCall(in *inbound, code codec.Code) {
	if !in.state.CompareAndSwap(stateQueued, stateDone) {
		return
	}
	in.cancel(ErrShutdown)
	if in.req.ID != nil {
		s.answer(in, errorLine(in.req.ID, NewError(code, "")))
	}
}

// methodNames caches the method names seen, for one reader at a time: most
// connections use a few methods, and a string per request would be an
// allocation per request. A nil cache makes a string each time.
type methodNames map[string]string

// name returns the method name b as a string. copied is the bytes of a
// name made anew, which its request holds.
func (n methodNames) name(b []byte) (name string, copied int) {
	if name, ok := n[string(b)]; ok {
		return name, 0
	}
	name = string(b)
	if n != nil && len(n) < maxCachedMethods && len(name) <= maxCachedMethodLen {
		n[name] = name
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
