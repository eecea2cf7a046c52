package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// The per-request _meta keys of 2026-07-28.
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo   = "io.modelcontextprotocol/clientInfo"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
	metaServerInfo   = "io.modelcontextprotocol/serverInfo"
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
)

// stringValue returns the characters of the JSON string raw, and whether
// raw is a string. raw comes from a message the connection has checked:
// valid JSON, valid UTF-8. A string without escapes costs nothing.
func stringValue(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 {
		return body, true
	}
	return unescape(raw)
}

// unescape is stringValue for a string with escapes.
func unescape(raw []byte) ([]byte, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// sessionState is what a legacy session is, as its client sees it, apart
// from where it runs: what must outlive a connection (and what a store
// shared by instances holds), guarded by session.mu. The rest of session,
// and of httpSession and streams, is local: goroutines, slots,
// connections, the notices being written. The events held for resumption
// are streams.eventLog; the calls waiting for the client, rpc's registry.
type sessionState struct {
	revision     string          // negotiated by initialize; "" before it
	capabilities json.RawMessage // the client's, declared by initialize
	logLevel     int             // by logging/setLevel: an index in logLevels; -1 before it
	ready        bool            // notifications/initialized came
	subs         map[string]bool // the URIs of the resources it subscribed to
}

// newSession is a session of s, before its initialize.
func newSession(s *Server) *session {
	return &session{s: s, state: sessionState{logLevel: -1}}
}

// session is the protocol's handler for one connection.
type session struct {
	s *Server

	mu       sync.Mutex
	state    sessionState // what the session is beyond this process
	telling  bool         // a goroutine tells the session the tools changed (listChanged), or it is held
	held     bool         // initialize came, notifications/initialized not yet: changes are owed, not told (hold)
	onUpdate func()       // tests: called by ResourceUpdated before it tells the session (export_test.go)
	owed     bool         // the tools changed again while it did
	out      outbox       // the notifications it is owed
	stream   peer         // the session's peer outside any request, when not a stream connection (HTTP)
	logs     []logMessage // the Server.Logger messages waiting for a goroutine to send them
	logging  bool         // a goroutine sends them (tellLog)
}

// Handle answers one request or notification, as serverMethods says: a
// method of no revision the request is served by, or of a feature the
// server does not have, is not found. A notification is served whatever
// the revision.
func (c *session) Handle(ctx context.Context, req *rpc.Request) (any, error) {
	m := serverMethods[req.Method]
	if req.IsNotification() {
		if m == nil || !m.notification || m.serve == nil {
			return nil, rpc.NewError(rpc.MethodNotFound, "")
		}
		return m.serve(c, ctx, revision{}, req, nil)
	}
	if req.ID[0] == 'n' { // MCP, unlike JSON-RPC, has no request with id null
		return nil, rpc.NewError(rpc.InvalidRequest, "Invalid Request").WithData(codec.InvalidRequestData{Reason: "an MCP request's id must not be null"})
	}
	if m == nil || m.notification || m.serve == nil {
		return nil, rpc.NewError(rpc.MethodNotFound, "")
	}
	if len(req.Params) > 0 && req.Params[0] != '{' {
		return nil, invalid(&service.FieldError{Rule: "shape", Message: "params must be an object"})
	}
	if m.opens {
		if rpc.InBatch(ctx) {
			return nil, errInitializeInBatch
		}
		return m.serve(c, ctx, revision{}, req, nil)
	}
	r, level, err := c.revision(req, m)
	if err != nil {
		return nil, err
	}
	if !r.batches && rpc.InBatch(ctx) {
		return nil, batchRefused(r)
	}
	if !c.s.serves(m, r) {
		return nil, rpc.NewError(rpc.MethodNotFound, "")
	}
	return m.serve(c, ctx, r, req, level)
}

// callTool answers tools/call.
func (c *session) callTool(ctx context.Context, r revision, req *rpc.Request, logLevel []byte) (any, error) {
	if c.stream != nil { // a legacy HTTP session's: CloseStream finds it
		ctx = context.WithValue(ctx, sessionKey{}, c)
	}
	return c.s.runTool(withLogLevel(ctx, c.logLevelOf(r, logLevel)), r, req)
}

// errInitializeInBatch refuses an initialize that came in a batch: "The
// initialize request MUST NOT be part of a JSON-RPC batch" (2025-03-26,
// the one revision with batches).
var errInitializeInBatch = rpc.NewError(rpc.InvalidRequest, "Invalid Request").
	WithData(codec.InvalidRequestData{Reason: "initialize must not be part of a JSON-RPC batch: send it on its own"})

// batchRefused refuses an entry of a batch served by r, a revision without
// batches (all but 2025-03-26): the message is not an MCP message of that
// revision, so it is an invalid request, each entry refused on its own.
func batchRefused(r revision) error {
	return rpc.NewError(rpc.InvalidRequest, "Invalid Request").
		WithData(codec.InvalidRequestData{Reason: "MCP " + r.name + " has no JSON-RPC batches: send each message on its own"})
}

// logLevelOf is the index in logLevels of the least severe level of log
// messages the client wants, -1 for none: a modern request's _meta
// logLevel (raw, as revision found it), a legacy session's
// logging/setLevel.
func (c *session) logLevelOf(r revision, raw []byte) int {
	if r.modern {
		level, ok := stringValue(raw)
		if !ok {
			return -1
		}
		return slices.Index(logLevels, string(level))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.logLevel
}

// metaField is the FieldError path of a member of _meta.
func metaField(key string) string { return `_meta["` + key + `"]` }

// invalid is an InvalidParams error listing problems, as package service
// lists them.
func invalid(problems ...*service.FieldError) error {
	return rpc.NewError(rpc.InvalidParams, "").WithData(service.FieldErrors(problems))
}

// revision returns the revision req, of method m, is served by: the one
// its _meta names, else the one its connection negotiated (an unversioned
// method needs neither: ping); and the raw logLevel of its _meta, if any.
func (c *session) revision(req *rpc.Request, m *methodInfo) (r revision, logLevel []byte, err error) {
	var meta [len(metaKeys)][]byte // one scan of _meta for all it is checked for
	jsonx.CheckedMembers(req.Meta, metaKeys[:], meta[:])
	v := meta[0]
	if v == nil {
		c.mu.Lock()
		name := c.state.revision
		c.mu.Unlock()
		if name == "" {
			if m.unversioned {
				return mustRevision(LatestLegacy), nil, nil
			}
			return revision{}, nil, invalid(&service.FieldError{Field: metaField(metaVersion), Rule: "required",
				Message: "the request names no protocol version, and no initialize came before it"})
		}
		r, _ = revisionOf(name)
		return r, nil, nil
	}
	name, ok := stringValue(v)
	if !ok {
		return revision{}, nil, invalid(&service.FieldError{Field: metaField(metaVersion), Rule: "type", Param: "string",
			Message: "the protocol version must be a string"})
	}
	r, ok = revisionOf(string(name))
	if !ok {
		return revision{}, nil, rpc.NewError(UnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(unsupported{Supported: versions, Requested: jsonx.Echo(name)})
	}
	if r.modern {
		if err = checkMeta(meta[1], meta[2], meta[3]); err != nil {
			return revision{}, nil, err
		}
	}
	return r, meta[3], nil
}

// metaKeys are the members of _meta a request's revision is checked by:
// its version, then those checkMeta checks.
var metaKeys = [...]string{metaVersion, metaCapabilities, metaClientInfo, metaLogLevel}

// unsupported is the data of an UnsupportedProtocolVersion error.
type unsupported struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// logLevels are the protocol's log levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkMeta checks the per-request fields of a modern request's _meta
// beside its version, given their values (nil when absent):
// clientCapabilities (required), clientInfo and logLevel.
func checkMeta(caps, info, lv []byte) error {
	var problems []*service.FieldError
	switch {
	case caps == nil:
		problems = append(problems, &service.FieldError{Field: metaField(metaCapabilities), Rule: "required",
			Message: "the client's capabilities are required"})
	case caps[0] != '{':
		problems = append(problems, &service.FieldError{Field: metaField(metaCapabilities), Rule: "type", Param: "object",
			Message: "the client's capabilities must be an object"})
	}
	if info != nil && !isImplementation(info) {
		problems = append(problems, &service.FieldError{Field: metaField(metaClientInfo), Rule: "type", Param: "Implementation",
			Message: "the client's info must be an object with a string name and version"})
	}
	if lv != nil {
		if level, ok := stringValue(lv); !ok || !slices.Contains(logLevels, string(level)) {
			problems = append(problems, &service.FieldError{Field: metaField(metaLogLevel), Rule: "oneof",
				Param: "debug info notice warning error critical alert emergency", Message: "the log level must be one of the protocol's"})
		}
	}
	if problems != nil {
		return invalid(problems...)
	}
	return nil
}

// isImplementation reports whether v is an Implementation: an object with
// a string name and a string version.
func isImplementation(v json.RawMessage) bool {
	var impl struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	return v[0] == '{' && json.Unmarshal(v, &impl) == nil && impl.Name != nil && impl.Version != nil
}

// initialize answers a legacy client's handshake: the revision is the
// client's when the server speaks it, else LatestLegacy.
func (c *session) initialize(ctx context.Context, req *rpc.Request) (any, error) {
	var problems []*service.FieldError
	var asked string
	if v := jsonx.Member(req.Params, "protocolVersion"); v == nil {
		problems = append(problems, &service.FieldError{Field: "protocolVersion", Rule: "required", Message: "protocolVersion is required"})
	} else if json.Unmarshal(v, &asked) != nil {
		problems = append(problems, &service.FieldError{Field: "protocolVersion", Rule: "type", Param: "string", Message: "protocolVersion must be a string"})
	}
	switch caps := jsonx.Member(req.Params, "capabilities"); {
	case caps == nil:
		problems = append(problems, &service.FieldError{Field: "capabilities", Rule: "required", Message: "capabilities is required"})
	case caps[0] != '{':
		problems = append(problems, &service.FieldError{Field: "capabilities", Rule: "type", Param: "object", Message: "capabilities must be an object"})
	}
	switch info := jsonx.Member(req.Params, "clientInfo"); {
	case info == nil:
		problems = append(problems, &service.FieldError{Field: "clientInfo", Rule: "required", Message: "clientInfo is required"})
	case !isImplementation(info):
		problems = append(problems, &service.FieldError{Field: "clientInfo", Rule: "type", Param: "Implementation",
			Message: "clientInfo must be an object with a string name and version"})
	}
	if problems != nil {
		return nil, invalid(problems...)
	}
	r, ok := revisionOf(asked)
	if !ok || r.modern {
		r = mustRevision(LatestLegacy)
	}
	c.mu.Lock()
	if c.state.revision == "" && !c.state.ready {
		c.hold() // until notifications/initialized
	}
	c.state.revision = r.name
	c.state.capabilities = bytes.Clone(jsonx.Member(req.Params, "capabilities"))
	c.mu.Unlock()
	if conn := rpc.ConnFromContext(ctx); conn != nil {
		c.s.track(c, conn)
	} else if c.stream != nil {
		c.s.track(c, c.stream)
	}
	if p := peerFrom(ctx); p != nil { // for the tools that ask the client (CreateMessage, Elicit)
		p.bind(c)
	}
	b := append(c.s.openResult(r), `"protocolVersion":`...)
	b = jsonx.AppendString(b, r.name)
	b = append(b, `,"capabilities":`...)
	b = c.s.capabilities(b)
	b = append(b, `,"serverInfo":`...)
	b = append(b, c.s.serverInfo(r)...)
	if c.s.opts.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = jsonx.AppendString(b, c.s.opts.Instructions)
	}
	return c.s.closeResult(r, b), nil
}

// capabilities appends the server's capabilities, the same in every
// revision: a legacy session is told of changes to the tools
// (notifications/tools/list_changed), a modern client that listens for
// them (subscriptions/listen with toolsListChanged) too.
func (s *Server) capabilities(b []byte) []byte {
	return append(s.featureCapabilities(b), `"tools":{"listChanged":true}}`...)
}

// serverInfo is the server's Implementation, as revision r has it.
func (s *Server) serverInfo(r revision) []byte { return s.info.of(r) }

// openResult starts a result of revision r: a modern result starts with
// its resultType. Its members follow, separated by commas, and
// closeResult ends it.
func (s *Server) openResult(r revision) []byte { return s.appendResultOpen(make([]byte, 0, 256), r) }

// appendResultOpen is openResult, appending to dst.
func (s *Server) appendResultOpen(dst []byte, r revision) []byte {
	if r.modern {
		return append(dst, `{"resultType":"complete",`...)
	}
	return append(dst, '{')
}

// closeResult ends the result b opened by openResult: a modern result
// ends with the server's identity in its _meta.
func (s *Server) closeResult(r revision, b []byte) json.RawMessage {
	if !r.modern {
		return append(b, '}')
	}
	if b[len(b)-1] != ',' {
		b = append(b, ',')
	}
	b = append(b, `"_meta":{"`+metaServerInfo+`":`...)
	b = append(b, s.serverInfo(r)...)
	return append(b, "}}"...)
}

// result is a result of revision r whose members are body (nil for none).
func (s *Server) result(r revision, body []byte) json.RawMessage {
	return s.closeResult(r, append(s.openResult(r), body...))
}

// discover answers server/discover.
func (s *Server) discover(r revision) json.RawMessage {
	b := append(s.openResult(r), `"supportedVersions":`...)
	b = append(b, mustJSON(versions)...)
	b = append(b, `,"capabilities":`...)
	b = s.capabilities(b)
	if s.opts.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = jsonx.AppendString(b, s.opts.Instructions)
	}
	b = append(b, s.listTail...)
	return s.closeResult(r, b)
}

// listTools answers tools/list: a page of tools in the order of their names,
// from the one after the cursor's (base64url of the last name sent); with
// Options.FilterByScope, of those ctx's verified identity may call.
func (s *Server) listTools(ctx context.Context, r revision, params json.RawMessage) (any, error) {
	cat := s.cat.Load()
	names := cat.names
	if id := auth.IdentityFrom(ctx); s.opts.FilterByScope && id != nil {
		names = slices.DeleteFunc(slices.Clone(names), func(name string) bool { return !permitted(id, cat.items[name].scopes) })
	}
	start, end, err := s.page(names, params)
	if err != nil {
		return nil, err
	}
	b := append(s.openResult(r), `"tools":[`...)
	for i, name := range names[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, cat.items[name].entryFor(r)...)
	}
	b = append(b, ']')
	return s.closePage(r, b, names, end), nil
}
