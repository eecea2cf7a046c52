package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/option"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
	"github.com/toolrpc/toolrpc/rpc"
)

// Streamable HTTP, the design (2025-11-25's legacy sessions and
// 2026-07-28's stateless requests on one endpoint):
//
//	request ─► HTTPHandler.ServeHTTP (here): rpc's Gate screens it and reads
//	  │        its body (internal/rpchttp), the revision routes it
//	  ├─ 2026-07-28 POST ─► postModern: an rpc.HTTPHandler of its own,
//	  │                     Exchange{W, Hook: modernHook} (the status)
//	  ├─ initialize ──────► initialize: a new httpSession,
//	  │                     Exchange{W, Hook: opening} (the session id)
//	  ├─ legacy POST ─────► postLegacy: a client's responses to the
//	  │                     session's rpc registry (Deliver); the rest to
//	  │                     postSession (streamable_sse.go): the session's slots, then
//	  │                     Exchange{Sink: postWriter} in a goroutine of the
//	  │                     session's; the POST's connection gets the JSON
//	  │                     answer, or pumps the POST's event stream
//	  ├─ GET ─────────────► get (streamable_sse.go): the server stream, or a
//	  │                     resumption (Last-Event-ID): pump
//	  └─ DELETE ──────────► delete: the session ends
//	rpc.HTTPHandler (the dispatch core) ─► session.Handle (session.go) ─►
//	  the tools; what they answer and send comes back typed (rpchttp:
//	  Hook.Header's Start, Sink.Event/Answer), never as bytes to re-read,
//	  and every event is written by internal/sse.
//
// A legacy session's state, by what must survive its connection (what a
// shared store would hold, for many instances to serve one session) and
// what is local to the process serving it:
//
//	durable: sessionState (session.go: the negotiated revision, the
//	  client's capabilities, the log level, notifications/initialized,
//	  the resource subscriptions), the events held for resumption
//	  (streams.eventLog, plain data), the calls waiting for the client
//	  (their ids, in the session's rpc.HTTPHandler's registry,
//	  rpc/pending.go), and the session's id and last use (httpSession);
//	local: the session's rpc.HTTPHandler (its workers, the ids in flight),
//	  its slots (SessionConcurrency) and requests under way (httpSession),
//	  the connections writing its streams, the POSTs under way and their
//	  calls' goroutines (streams), and the notices being told and the
//	  goroutines telling them (session, its outbox).

// The defaults of [HTTPOptions].
const (
	// DefaultMaxSessions is the most legacy sessions an [HTTPHandler]
	// keeps at once.
	DefaultMaxSessions = 1024
	// DefaultSessionIdle is how long a legacy session lives with no
	// request under way and none coming.
	DefaultSessionIdle = 10 * time.Minute
	// DefaultKeepAlive is the interval of the keep-alive comments of an
	// event stream.
	DefaultKeepAlive = 15 * time.Second
)

// HTTPOptions configure an [HTTPHandler]. A nil *HTTPOptions, and every
// zero field, means the documented default.
type HTTPOptions struct {
	// RPC configures the JSON-RPC handlers the requests are served by
	// (rpc.NewHTTPHandler): frame limit, concurrency, logger, the origins
	// and hosts allowed beside loopback (AllowedOrigins, AllowedHosts). Concurrency bounds the
	// requests of every session and the stateless ones together; see
	// SessionConcurrency for one session's share.
	RPC rpc.Options
	// SessionConcurrency is the most requests of one legacy session
	// served at once, so that one session leaves room for the others;
	// those past it wait (bodies held) for one of the session's to end,
	// or for the session's end; at most SessionConcurrency of them wait,
	// a request past that is answered 503 (ServerBusy, Retry-After) at
	// once. Default: half of RPC.Concurrency, at least 1; at most
	// RPC.Concurrency. A batch's calls count one each: it takes a slot of
	// RPC.Concurrency for each of its requests, up to SessionConcurrency,
	// and its calls run at most SessionConcurrency at once. A request past either
	// bound waits whether its client stays or not, and a
	// notifications/cancelled reaches it only once it runs; notifications
	// and responses never wait. A call waiting for its client's answer
	// (an elicitation, a sampling, roots) lends its slot of RPC.Concurrency
	// back meanwhile, keeping its session's: a client gone for
	// HTTPOptions.Detached does not keep the others' requests out, and its
	// session's slots still bound how many of its calls wait.
	SessionConcurrency int
	// MaxSessions is the most legacy sessions kept at once. An initialize
	// past it, once the sessions idle past SessionIdle are ended, ends a
	// session with no request under way, whose client then gets 404 and
	// initializes anew: one of the client that holds the most sessions
	// (see ClientKey; the initializing client's own among equals), the
	// least recently used of them (those never used after their
	// initialize first). A client that holds at least two more sessions
	// than the initializing one and has none idle loses its least
	// recently used busy one (its calls cancelled), so that keeping each
	// session busy locks no newcomer out either; a session of a client
	// holding fewer than the initializing client will is never ended. So a
	// peer that fills the table locks no newcomer out, and one that goes
	// on initializing ends its own sessions, not others'; only when no
	// session may be ended is an initialize answered 503 Service
	// Unavailable. Default: DefaultMaxSessions.
	MaxSessions int
	// ClientKey names the client a request comes from, for sharing the
	// sessions fairly when the table is full (MaxSessions). Default: the
	// host of the request's RemoteAddr, its IP address. Behind a proxy,
	// where every request comes from the proxy's address, name the
	// client the proxy forwards for (a header only the proxy can set), or
	// the caller's identity where requests are authenticated; a key all
	// clients share makes the choice the least recently used session of
	// all.
	ClientKey func(r *http.Request) string
	// SessionIdle is how long a legacy session lives after its last
	// request ended, with none under way: a request with its id after
	// that is answered 404, as is one after DELETE. Default:
	// DefaultSessionIdle.
	SessionIdle time.Duration
	// KeepAlive is the interval of the SSE comments (":") written on an
	// event stream that is quiet, so that proxies and clients do not take
	// it for dead. Default: DefaultKeepAlive.
	KeepAlive time.Duration
	// Retry is the reconnection delay a legacy session's event streams
	// tell their client (the retry field of their first event). Default:
	// DefaultRetry.
	Retry time.Duration
	// ReplayBytes bounds the events a legacy session holds for its
	// client's resumption (Last-Event-ID), as long as it lives (a write
	// that succeeded may not have reached the client): ReplayBytes per
	// stream, four times as much for all the session's streams together
	// (counting what holding them costs beside their bytes, so that many
	// small events or streams hold no more memory than a few large
	// ones), so MaxSessions times that for the handler. Past it the
	// oldest go first (the streams that are over, then the oldest events
	// of the stream written to; a stream's newest event, a POST's answer,
	// once a connection has written it), and a resumption after an event
	// no longer held is answered 410 Gone. Default: DefaultReplayBytes.
	ReplayBytes int
	// InitIdle is how long a legacy session lives after its initialize
	// when no other request names it (notifications/initialized first):
	// bare initializes cannot fill the sessions' table for longer.
	// Default: DefaultInitIdle.
	InitIdle time.Duration
	// Detached bounds how long a legacy session's calls run once the
	// connection of the POST that carried them is gone: the client's
	// going away does not cancel them (2025-11-25), but past Detached
	// they are cancelled, so that calls nobody waits for (a tool asking a
	// client that left, a batch of sleeps) hold no worker for long. A
	// resumption does not extend it. Default: DefaultDetached (2 min).
	Detached time.Duration
	// PreferJSON answers a request of a legacy session that negotiated
	// 2025-11-25 with plain JSON when its call sends nothing before its
	// result, as the older revisions are answered, instead of with an
	// event stream (a priming event, then the answer's): fewer bytes and
	// allocations, but an answer the client cannot resume
	// (Last-Event-ID) if its connection drops before it arrives. So it
	// answers a 2026-07-28 request, instead of with an event stream (the
	// answer's event alone) opened after KeepAlive: fewer bytes, but a
	// long call's connection idle until its answer (proxies cut idle
	// connections).
	PreferJSON bool
}

// The headers of MCP's Streamable HTTP transport.
const (
	headerSession = "Mcp-Session-Id"
	headerVersion = "Mcp-Protocol-Version"
	headerMethod  = "Mcp-Method"
	headerName    = "Mcp-Name"
)

// An HTTPHandler serves a [Server] over MCP's Streamable HTTP transport, on
// one endpoint, for both eras of the protocol; see the package
// documentation ("Streamable HTTP") for what each request gets.
type HTTPHandler struct {
	s          *Server
	ctx        context.Context
	opts       rpc.Options
	max        int
	idle       time.Duration
	keepAlive  time.Duration
	retry      time.Duration
	replay     int
	initIdle   time.Duration
	detached   time.Duration              // HTTPOptions.Detached
	preferJSON bool                       // HTTPOptions.PreferJSON
	clientKey  func(*http.Request) string // HTTPOptions.ClientKey, or remoteHost
	modernOpts rpc.Options                // opts, and EventStreamAfter unless PreferJSON: the stateless requests'
	streamNo   atomic.Uint64              // the number of the last event stream made, for their ids
	ending     sync.WaitGroup             // the sessions being ended (end), for Close
	maxFrame   int
	gate       *rpchttp.Gate    // judges what rpc judges before a body: Origin, method, media types, size, bodies held
	gateH      *rpc.HTTPHandler // the handler gate is rpc's of (RPC's options), serving nothing
	modern     rpc.Handler      // the protocol's handler of every stateless request (2026-07-28)
	slots      chan struct{}    // a token per request under way, stateless or of a session: RPC.Concurrency
	perSession int              // SessionConcurrency
	batchSlots chan struct{}    // held by a batch taking its slots (capacity 1)

	mu       sync.Mutex
	sessions map[string]*httpSession
	pending  int                           // initializes under way, each holding a place
	requests map[*rpc.HTTPHandler]struct{} // the stateless requests' handlers, for Close
	closed   bool
}

// httpSession is a legacy session: its own handler (its connection, whose
// initialize set its revision), and when it was last used.
type httpSession struct {
	h       *rpc.HTTPHandler
	rpc     rpchttp.Server // h, as the transport uses it (rpchttp.Binding)
	peer    *clientPeer    // its client, for the tools that ask it (CreateMessage, Elicit)
	streams *streams       // its event streams
	active  int            // requests under way; guarded by HTTPHandler.mu
	last    time.Time      // when the last request ended; guarded by HTTPHandler.mu
	used    bool           // a request came after initialize; guarded by HTTPHandler.mu
	slots   chan struct{}  // a token per request of the session under way: SessionConcurrency
	client  string         // the client that opened it (HTTPOptions.ClientKey)
	// principal is who opened it, behind auth.ResourceServer.Require (its
	// token's issuer, subject and client, principalOf): every request of the
	// session must be of the same, or it names no session.
	principal string
}

// expired reports whether ss has been idle for too long at now: idle, or
// initIdle when no request came after its initialize.
func (ss *httpSession) expired(now time.Time, idle, initIdle time.Duration) bool {
	if !ss.used {
		idle = min(idle, initIdle)
	}
	return ss.active == 0 && now.Sub(ss.last) > idle
}

// NewHTTPHandler returns an HTTPHandler serving s; the calls' contexts
// hold ctx's values. opts may be nil. Close it when done.
func (s *Server) NewHTTPHandler(ctx context.Context, opts *HTTPOptions) *HTTPHandler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := &HTTPHandler{
		s: s, ctx: ctx, opts: o.RPC,
		max:       option.PositiveOr(o.MaxSessions, DefaultMaxSessions),
		idle:      option.PositiveOr(o.SessionIdle, DefaultSessionIdle),
		keepAlive: option.PositiveOr(o.KeepAlive, DefaultKeepAlive),
		retry:     option.PositiveOr(o.Retry, DefaultRetry),
		replay:    option.PositiveOr(o.ReplayBytes, DefaultReplayBytes),
		initIdle:  option.PositiveOr(o.InitIdle, DefaultInitIdle),
		detached:  option.PositiveOr(o.Detached, DefaultDetached),
		maxFrame:  option.PositiveOr(o.RPC.MaxFrameSize, codec.DefaultMaxFrameSize),
		sessions:  map[string]*httpSession{},
	}
	h.preferJSON = o.PreferJSON
	h.clientKey = o.ClientKey
	if h.clientKey == nil {
		h.clientKey = remoteHost
	}
	h.modernOpts = h.opts
	if !o.PreferJSON {
		h.modernOpts.EventStreamAfter = h.keepAlive // keep-alive comments from then on
	}
	var gate bound
	h.gateH = rpc.NewHTTPHandler(ctx, &gate, &h.opts)
	h.gate = gate.Binding.Gate
	h.modern = s.Handler()
	h.slots = make(chan struct{}, option.PositiveOr(o.RPC.Concurrency, rpc.DefaultConcurrency))
	h.perSession = min(option.PositiveOr(o.SessionConcurrency, max(1, cap(h.slots)/2)), cap(h.slots))
	h.batchSlots = make(chan struct{}, 1)
	h.requests = map[*rpc.HTTPHandler]struct{}{}
	return h
}

// Close ends every session and shuts the handler down as
// rpc.HTTPHandler.Close does: requests still to come are answered 503.
func (h *HTTPHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	for id, ss := range h.sessions {
		h.end(id, ss) // together: each gives up its stuck calls after ShutdownGrace
	}
	requests := h.requests
	h.requests = map[*rpc.HTTPHandler]struct{}{}
	h.mu.Unlock()
	_ = h.gateH.Close()
	var closing sync.WaitGroup
	for rh := range requests {
		closing.Go(func() { _ = rh.Close() }) // together, as the sessions
	}
	h.ending.Wait()
	closing.Wait()
	return nil
}

// Sessions returns how many legacy sessions are live.
func (h *HTTPHandler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// ServeHTTP answers one request; see HTTPHandler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// rpc's rules first (the Origin, then the method: POST, GET and
	// DELETE; for a POST its Content-Type, Accept and length). A GET is a
	// legacy session's server stream, or a resumption (streamable_sse.go).
	if !h.gate.Screen(w, r, http.MethodGet, http.MethodDelete) {
		return
	}
	switch r.Method {
	case http.MethodDelete:
		h.delete(w, r)
		return
	case http.MethodGet:
		h.get(w, r)
		return
	}
	h.servePost(w, r)
}

// fail answers a request that is not served with status and the JSON-RPC
// error e, answering id (nil: null).
func fail(w http.ResponseWriter, status int, id []byte, e *rpc.Error) { rpchttp.Fail(w, status, id, e) }

// refuse answers a request that is not served with status and an
// InvalidRequest naming the rule it broke, as rpc.HTTPHandler does.
func refuse(w http.ResponseWriter, status int, reason string) { rpchttp.Refuse(w, status, reason) }

// bound is a Handler that rpc.NewHTTPHandler binds (rpchttp.Binder): the
// transport has it serve the bodies it reads, and judges requests with
// its gate.
type bound struct {
	rpc.Handler
	rpchttp.Binding
}

// BindHTTP keeps what rpc.NewHTTPHandler gives.
func (b *bound) BindHTTP(x rpchttp.Binding) { b.Binding = x }

// envelope is what the transport reads of a POST's body: the members of a
// single message, nil when absent (all nil when the body is not one JSON
// object).
type envelope struct {
	object               bool
	id, method           []byte // raw
	name, uri, meta, ref []byte // raw, of params
}

var envelopeMembers = []string{"id", "method", "params"}
var paramsMembers = []string{"name", "uri", "_meta", "ref"}

// readEnvelope reads the envelope of body.
func readEnvelope(body []byte) envelope {
	var e envelope
	var top [3][]byte
	if !jsonx.Members(body, envelopeMembers, top[:]) {
		return e
	}
	e.object, e.id, e.method = true, top[0], top[1]
	if len(e.id) > 0 && e.id[0] != '"' && e.id[0] != '-' && (e.id[0] < '0' || e.id[0] > '9') {
		e.id = nil // not an id to echo
	}
	var params [4][]byte
	if jsonx.Members(top[2], paramsMembers, params[:]) {
		e.name, e.uri, e.meta, e.ref = params[0], params[1], params[2], params[3]
	}
	return e
}

// servePost answers a POST the gate let through.
func (h *HTTPHandler) servePost(w http.ResponseWriter, r *http.Request) {
	// Counted, until this request is answered, among the bodies every
	// session and request is served with (RPC.MaxQueueBytes).
	body, held, ok := h.gate.ReadBody(w, r)
	if !ok {
		return
	}
	releasing := true
	defer func() {
		if releasing {
			h.gate.Release(held)
		}
	}()
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		refuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	env := readEnvelope(body)
	versions := r.Header.Values(headerVersion)
	name := "2025-03-26" // assumed when absent (2025-11-25, Protocol Version Header)
	if len(versions) > 1 {
		fail(w, http.StatusBadRequest, env.id, rpc.NewError(rpc.InvalidRequest, "Invalid Request").
			WithData(codec.InvalidRequestData{Reason: "one " + headerVersion + " header at most"}))
		return
	}
	if len(versions) == 1 {
		name = versions[0]
	}
	rev, ok := revisionOf(name)
	if !ok {
		fail(w, http.StatusBadRequest, env.id, rpc.NewError(UnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(unsupported{Supported: Versions(), Requested: jsonx.Echo(name)}))
		return
	}
	if h.refuseScope(w, r, env) {
		return
	}
	if rev.modern {
		h.postModern(w, r, env, body, rev)
		return
	}
	releasing = false // postLegacy releases it
	h.postLegacy(w, r, env, body, rev, held)
}

// mismatch is a HeaderMismatch error saying why.
func mismatch(format string, args ...any) *rpc.Error {
	return rpc.Errorf(HeaderMismatch, "Header mismatch: "+format, args...)
}

// postModern answers a stateless request of 2026-07-28 (rev), once its
// headers match its body, on an rpc.HTTPHandler of its own: requests of
// different clients share no ids in flight, and no notifications/cancelled
// of one reaches another's call. They share the protocol's handler, and
// RPC.Concurrency: a request waits for a slot, or its client's going. A
// request the server does not serve in rev (serverMethods) is answered 404.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, env envelope, body []byte, rev revision) {
	if env.object && env.method == nil && (jsonx.Member(body, "result") != nil || jsonx.Member(body, "error") != nil) {
		// A response, where servers send no requests: it answers none.
		// Accepted, as any response, and dropped, as a legacy session's
		// to no request waiting is (postLegacy), with no handler made.
		cmp.Or(h.opts.Logger, slog.Default()).Debug("mcp: a response to no request waiting", "id", jsonx.Echo(env.id))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if env.object && env.method != nil {
		method, _ := stringValue(env.method)
		m := serverMethods[string(method)]
		err := checkHeaders(r.Header, env, m)
		if err == nil {
			err = h.s.checkParamHeaders(r.Header, env, m, body)
		}
		if err != nil {
			fail(w, http.StatusBadRequest, env.id, err)
			return
		}
		if env.id != nil && !h.s.serves(m, rev) {
			fail(w, http.StatusNotFound, env.id, rpc.NewError(rpc.MethodNotFound, ""))
			return
		}
	}
	select {
	case h.slots <- struct{}{}:
	case <-r.Context().Done():
		return // nobody reads the answer
	}
	defer func() { <-h.slots }()
	m := &modernRequest{bound: bound{Handler: h.modern}}
	rh := rpc.NewHTTPHandler(h.ctx, &m.bound, &h.modernOpts)
	h.mu.Lock()
	closed := h.closed
	if !closed {
		h.requests[rh] = struct{}{}
	}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.requests, rh)
		h.mu.Unlock()
		_ = rh.Close()
	}()
	if closed {
		refuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	m.x = rpchttp.Exchange{W: w, R: r, Body: body, Hook: modernHook{}, KeepAlive: h.keepAlive}
	m.Server.Serve(&m.x)
}

// modernRequest is what a stateless request is served with: its own rpc
// handler's binding, and its exchange (one allocation).
type modernRequest struct {
	bound
	x rpchttp.Exchange
}

// checkHeaders checks the headers of a modern request, of method m (nil
// for none a client sends), against its body (2026-07-28, Server
// Validation), and returns the HeaderMismatch error saying what is wrong.
func checkHeaders(hd http.Header, env envelope, m *methodInfo) *rpc.Error {
	method, ok := stringValue(env.method)
	if !ok {
		return nil // not a request: the handler says so
	}
	methods := hd.Values(headerMethod)
	switch {
	case len(methods) == 0 && env.id != nil:
		return mismatch("the %s header is required", headerMethod)
	case len(methods) > 1:
		return mismatch("one %s header at most", headerMethod)
	case len(methods) == 1 && methods[0] != string(method):
		return mismatch("%s header value %q does not match body value %q", headerMethod, jsonx.Echo(methods[0]), jsonx.Echo(method))
	}
	if member := nameMember(m); member != "" && env.id != nil {
		raw := env.name
		if member == "uri" {
			raw = env.uri
		}
		names := hd.Values(headerName)
		if len(names) != 1 {
			return mismatch("one %s header is required for %s", headerName, method)
		}
		header, ok := decodeHeader(names[0])
		if !ok {
			return mismatch("the %s header value is not a valid header value", headerName)
		}
		body, ok := stringValue(raw)
		if !ok || header != string(body) {
			return mismatch("%s header value %q does not match body value params.%s", headerName, jsonx.Echo(header), member)
		}
	}
	// An absent version is not a mismatch but a missing required field:
	// the handler answers -32602 (400 here), as 2026-07-28 requires.
	if raw := jsonx.Member(env.meta, metaVersion); env.id != nil && raw != nil {
		if v, ok := stringValue(raw); !ok || string(v) != Latest {
			return mismatch("%s header value %q does not match body value _meta[%q]", headerVersion, Latest, metaVersion)
		}
	}
	return nil
}

// nameMember is the member of m's params the Mcp-Name header mirrors, ""
// for none.
func nameMember(m *methodInfo) string {
	if m == nil {
		return ""
	}
	return m.nameMember
}

// decodeHeader decodes an Mcp-Name (or Mcp-Param) header value: plain
// visible ASCII, spaces and tabs, or the Base64 sentinel
// "=?base64?...?=" (2026-07-28, Value Encoding).
func decodeHeader(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return "", false
			}
			return string(b), true
		}
	}
	return v, true
}

// postLegacy answers a POST of the legacy revisions: initialize opens a
// session, anything else names one. The held bytes of body are released
// (rpchttp.Gate) once it is served.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, env envelope, body []byte, rev revision, held int64) {
	ids := r.Header.Values(headerSession)
	if method, _ := stringValue(env.method); env.id != nil && opens(serverMethods[string(method)]) {
		defer h.gate.Release(held)
		if len(ids) > 0 {
			refuse(w, http.StatusBadRequest, "initialize opens a session: it must not name one ("+headerSession+")")
			return
		}
		h.initialize(w, r, body)
		return
	}
	ss, status, reason := h.session(r)
	if ss == nil {
		h.gate.Release(held)
		refuse(w, status, reason)
		return
	}
	// The client's answers to tools' requests (CreateMessage, Elicit):
	// each to the call waiting for it, if one is; accepted either way, as
	// any response (one to a call that ended is dropped).
	responses, others := clientResponses(env, body, rev, option.PositiveOr(h.opts.MaxBatch, codec.DefaultMaxBatch))
	for _, response := range responses {
		if !ss.rpc.Deliver(response) {
			cmp.Or(h.opts.Logger, slog.Default()).Debug("mcp: a response to no request waiting", "id", jsonx.Echo(jsonx.Member(response, "id")))
		}
	}
	if responses != nil && !others {
		h.gate.Release(held)
		h.release(ss)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// What else a batch holds is served as any batch is (its responses
	// dropped there: delivered above).
	h.postSession(w, r, ss, env, body, held)
}

// opens reports whether m opens a session: initialize.
func opens(m *methodInfo) bool { return m != nil && m.opens }

// session returns the live session ids names, counted as in use (release
// it), or the status and reason of the refusal.
func (h *HTTPHandler) session(r *http.Request) (*httpSession, int, string) {
	ids := r.Header.Values(headerSession)
	if len(ids) != 1 {
		return nil, http.StatusBadRequest, "one " + headerSession + " header is required: initialize opens a session"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.sessions[ids[0]]
	if ss != nil && ss.expired(time.Now(), h.idle, h.initIdle) {
		h.end(ids[0], ss)
		ss = nil
	}
	if ss == nil || ss.principal != principalOf(r) {
		// Another principal's session is none of this one's (MCP's
		// Security Best Practices, Session Hijacking: a session is bound
		// to its user), and is answered as if unknown.
		return nil, http.StatusNotFound, "no such session: initialize opens a new one"
	}
	ss.active++
	ss.used = true
	return ss, 0, ""
}

// release counts a request of ss out.
func (h *HTTPHandler) release(ss *httpSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss.active--
	ss.last = time.Now()
}

// end forgets the session id, and closes its handler (which cancels
// its calls under way) and its streams in the background, which Close
// waits for. h.mu is held.
func (h *HTTPHandler) end(id string, ss *httpSession) {
	delete(h.sessions, id)
	h.ending.Add(1)
	go func() {
		defer h.ending.Done()
		_ = ss.h.Close()
		ss.streams.close()
	}()
}

// sweep ends the sessions idle for too long (see expired). h.mu is held.
func (h *HTTPHandler) sweep() {
	now := time.Now()
	for id, ss := range h.sessions {
		if ss.expired(now, h.idle, h.initIdle) {
			h.end(id, ss)
		}
	}
}

// evict makes room for a session of client's when the table is full,
// ending a session of the client that holds the most: one of its
// sessions with no request under way if it holds at least as many as
// client will (one more than now), or client itself; else, if it holds
// at least two more, the least recently used of its busy sessions (their
// calls cancelled), so that a client keeping each of its sessions busy
// (calls waiting for answers it never gives) locks no newcomer out. Of a
// client's idle sessions, those never used after their initialize go
// first (a client that opens sessions to fill the table uses them
// least), then the least recently used. Never is a session ended of a
// client that holds fewer than client will. It reports whether it ended
// one. A session so ended gets 404, which tells its client to initialize
// anew; a newcomer is refused only when no session may be ended. h.mu is
// held.
func (h *HTTPHandler) evict(client string) bool {
	type holder struct {
		held           int
		idle, busy     *httpSession // the first to end of its sessions with no request under way, and of the others
		idleID, busyID string
	}
	holders := map[string]*holder{}
	for sid, ss := range h.sessions {
		c := holders[ss.client]
		if c == nil {
			c = &holder{}
			holders[ss.client] = c
		}
		c.held++
		switch {
		case ss.active == 0 && (c.idle == nil || ss.evictsBefore(c.idle)):
			c.idleID, c.idle = sid, ss
		case ss.active > 0 && (c.busy == nil || ss.evictsBefore(c.busy)):
			c.busyID, c.busy = sid, ss
		}
	}
	own := 0
	if c := holders[client]; c != nil {
		own = c.held
	}
	// The candidate session of each client, and the best of them: of the
	// client that holds the most; among equals, an idle one first, then
	// client's own, then the one to end first.
	var pick *httpSession
	var pickID string
	var pickHeld int
	var pickOwn bool
	for name, c := range holders {
		self := name == client
		victim, id := c.idle, c.idleID
		switch {
		case victim != nil && (self || c.held >= own+1):
		case c.busy != nil && !self && c.held >= own+2:
			victim, id = c.busy, c.busyID
		default:
			continue
		}
		better := pick == nil || c.held > pickHeld
		if !better && c.held == pickHeld {
			idle, pickIdle := victim.active == 0, pick.active == 0
			switch {
			case idle != pickIdle:
				better = idle
			case self != pickOwn:
				better = self
			default:
				better = victim.evictsBefore(pick)
			}
		}
		if better {
			pick, pickID, pickHeld, pickOwn = victim, id, c.held, self
		}
	}
	if pick == nil {
		return false
	}
	h.end(pickID, pick)
	return true
}

// evictsBefore reports whether ss goes before other when a client's
// session is ended to make room: never used first, then the least
// recently used.
func (ss *httpSession) evictsBefore(other *httpSession) bool {
	if ss.used != other.used {
		return !ss.used
	}
	return ss.last.Before(other.last)
}

// remoteHost is the host of r.RemoteAddr (its IP address), or the whole
// of it when it has no port: the default HTTPOptions.ClientKey.
func remoteHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// initialize serves an initialize on a new session, which lives if it
// is answered with a result: its id goes on that response.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, body []byte) {
	h.mu.Lock()
	h.sweep()
	client := h.clientKey(r)
	full := len(h.sessions)+h.pending >= h.max
	if full && h.evict(client) {
		full = false
	}
	closed := h.closed
	if !full && !closed {
		h.pending++
	}
	h.mu.Unlock()
	switch {
	case closed:
		refuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	case full:
		refuse(w, http.StatusServiceUnavailable, "too many sessions: try again later")
		return
	}
	c := newSession(h.s)
	p := &clientPeer{}
	ss := &httpSession{streams: newStreams(h, c), slots: make(chan struct{}, h.perSession), peer: p, client: client, principal: principalOf(r)}
	c.stream = ss.streams
	so := h.opts
	so.Concurrency = h.perSession // a batch's calls too
	b := &bound{Handler: h.s.handlerFor(c)}
	ss.h = rpc.NewHTTPHandler(withPeer(h.ctx, p), b, &so)
	ss.rpc = b.Server
	p.http = b.Server // the tools' requests to the client (CreateMessage, Elicit)
	o := &opening{h: h, ss: ss}
	ss.rpc.Serve(&rpchttp.Exchange{W: w, R: r, Body: body, Hook: o, KeepAlive: h.keepAlive})
	h.mu.Lock()
	h.pending--
	h.mu.Unlock()
	if !o.opened {
		_ = ss.h.Close()
		ss.streams.close()
	}
}

// opening is the hook of an initialize's response: the session lives if
// the response starts with initialize's result, and its id goes on the
// response's header.
type opening struct {
	h      *HTTPHandler
	ss     *httpSession
	opened bool
}

// Header opens the session if s is a result; see rpchttp.Hook.
func (o *opening) Header(hd http.Header, s rpchttp.Start) int {
	if s.Events {
		hd["X-Accel-Buffering"] = noBuffering
	}
	if !s.Result() {
		return 0
	}
	id := rand.Text() // 26 characters of base32: 130 random bits
	h := o.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	o.ss.last = time.Now()
	h.sessions[id] = o.ss
	o.opened = true
	hd.Set(headerSession, id)
	return 0
}

// delete ends the session it names (2025-11-25, Session Management): 204,
// or 400 and 404 as a POST.
func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	ids := r.Header.Values(headerSession)
	ss, status, reason := h.session(r)
	if ss == nil {
		refuse(w, status, reason)
		return
	}
	h.mu.Lock()
	ss.active--
	if h.sessions[ids[0]] == ss {
		h.end(ids[0], ss)
	}
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
