package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/recovery"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// The protocol's own error codes (2026-07-28), beside JSON-RPC's.
const (
	// HeaderMismatch (-32020): on HTTP, headers that do not match the
	// body. Never sent on a stream connection.
	HeaderMismatch rpc.Code = -32020
	// MissingRequiredClientCapability (-32021): the request needs a
	// capability the client did not declare.
	MissingRequiredClientCapability rpc.Code = -32021
	// UnsupportedProtocolVersion (-32022): the request's _meta names a
	// revision the server does not speak; its data lists those it does.
	UnsupportedProtocolVersion rpc.Code = -32022
)

// Options configure a Server. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Name and Version identify the server (serverInfo). Default: the
	// program's name, and its module's version ("(devel)" when unknown).
	Name    string
	Version string
	// Title is the server's human-readable name (2025-06-18 and later).
	Title string
	// Instructions tell a model how to use the server's tools.
	Instructions string
	// Description, WebsiteURL and Icons tell people what the server is
	// (serverInfo, 2025-11-25 and later): a sentence, the https URL of
	// its page, images (see Icon). New panics on an icon that is not
	// valid, or a WebsiteURL that is not an absolute http(s) URL.
	Description string
	WebsiteURL  string
	Icons       []Icon

	// Service configures how the values' methods are served: their names
	// (Names), their validation, unknown members. Its Logger gets the
	// registration's warnings. KeepMeta is always set: a "_meta" member
	// of a tool's arguments is an argument like any other.
	Service service.Options

	// InvalidParamsAsErrors answers a tools/call whose arguments fail
	// binding or validation with a JSON-RPC InvalidParams error (its data
	// the list of problems, service.FieldErrors) instead of a result with
	// isError true.
	InvalidParamsAsErrors bool

	// PageSize is the most entries one tools/list (resources/list,
	// resources/templates/list, prompts/list) answer holds; a longer list
	// is paginated (nextCursor). Default: 100.
	PageSize int

	// ListTTL is how long a modern client may cache a list,
	// resources/read or server/discover answer (ttlMs); 0 says it is
	// stale at once.
	ListTTL time.Duration
	// Private marks those answers as varying with the client's
	// authorization (cacheScope "private"); the default is "public".
	Private bool

	// FilterByScope lists, in tools/list, only the tools whose scopes
	// (Scoped) the request's verified identity has (SEP-1881's
	// scope-filtered discovery); a request with no verified identity
	// sees them all. A tool left out is still answered, if called, with
	// the 403 that lets the client step up. It implies Private.
	FilterByScope bool

	// StateKeys are the keys that authenticate the requestState of a
	// 2026-07-28 input_required answer (InputRequired): the first seals
	// it, and a retry's is accepted if any of them opens it, so that keys
	// rotate without refusing the retries under way (add the new key
	// first, keep the old one for InputStateTTL). Every instance of a
	// server behind one load balancer needs the same keys, for a retry
	// may come to any of them. Each must be at least MinStateKey bytes of
	// a secret (from crypto/rand): New panics on a shorter one. Default:
	// one random key, this Server's alone.
	StateKeys [][]byte

	// Middleware wraps the protocol's handler inside the default stack
	// (middleware.Default), the first outermost.
	Middleware []middleware.Middleware
}

// A Server is a Model Context Protocol server whose tools are the methods
// of Go values. Its methods are safe for concurrent use: tools may be
// registered and removed while connections serve it, and the legacy
// sessions under way, and the modern clients that listen for it
// (subscriptions/listen), are told (notifications/tools/list_changed).
type Server struct {
	opts     Options
	pageSize int
	info     titled // serverInfo, without the server's title and with it
	listTail []byte // the members every modern list ends with, a comma first
	// text is a result that is one text block, its text to be set, as the
	// legacy revisions and the modern one have it.
	text struct{ legacy, modern jsonx.StringIn }

	cat  atomic.Pointer[catalog[*tool]] // the tools, replaced whole on a change
	feat features                       // the resources, prompts and completion

	// stateKeys authenticate the requestState of input_required answers
	// (InputRequired): the first seals, every one opens.
	stateKeys [][]byte

	toolPanicked recovery.Answer // s.answerToolPanic, made once: On allocates nothing

	mu        sync.Mutex                 // serializes changes of cat, guards sessions and listeners
	sessions  map[*session]peer          // the initialized legacy sessions, and where to tell them
	listeners map[*subscription]struct{} // the open subscriptions/listen calls for tools
	relay     *relay                     // while Relay runs
}

// MinStateKey is the shortest key of Options.StateKeys, in bytes: 256
// bits, HMAC-SHA-256's own strength.
const MinStateKey = 32

// stateKeysOf returns copies of keys, or one random key if there are
// none; it panics on a key shorter than MinStateKey.
func stateKeysOf(keys [][]byte) [][]byte {
	if len(keys) == 0 {
		key := make([]byte, MinStateKey)
		_, _ = rand.Read(key) // never fails (crypto/rand)
		return [][]byte{key}
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if len(k) < MinStateKey {
			panic(fmt.Sprintf("mcp: Options.StateKeys[%d] is %d bytes long: a key is at least MinStateKey (%d) bytes of a secret", i, len(k), MinStateKey))
		}
		out[i] = slices.Clone(k)
	}
	return out
}

// New returns a Server with no tools. opts may be nil. It panics if
// opts.StateKeys holds a key shorter than MinStateKey.
func New(opts *Options) *Server {
	s := &Server{sessions: map[*session]peer{}, listeners: map[*subscription]struct{}{}}
	s.cat.Store(&catalog[*tool]{})
	s.toolPanicked = s.answerToolPanic
	if opts != nil {
		s.opts = *opts
	}
	s.stateKeys = stateKeysOf(s.opts.StateKeys)
	s.pageSize = s.opts.PageSize
	if s.pageSize <= 0 {
		s.pageSize = 100
	}
	name, version := s.opts.Name, s.opts.Version
	if name == "" {
		name = filepath.Base(os.Args[0])
	}
	if version == "" {
		version = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			version = bi.Main.Version
		}
	}
	s.info.without = mustJSON(implementation{Name: name, Version: version})
	s.info.with = mustJSON(implementation{Name: name, Title: s.opts.Title, Version: version})
	if s.opts.Description != "" || s.opts.WebsiteURL != "" || len(s.opts.Icons) > 0 {
		if err := checkIcons("the server", s.opts.Icons); err != nil {
			panic(err.Error())
		}
		if u, err := url.Parse(s.opts.WebsiteURL); s.opts.WebsiteURL != "" && (err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http") {
			panic(fmt.Sprintf("mcp: Options.WebsiteURL %q is not an absolute http(s) URL", s.opts.WebsiteURL))
		}
		s.info.icons = mustJSON(implementation{Name: name, Title: s.opts.Title, Version: version,
			Description: s.opts.Description, WebsiteURL: s.opts.WebsiteURL, Icons: s.opts.Icons})
	}
	scope := "public"
	if s.opts.Private || s.opts.FilterByScope {
		scope = "private"
	}
	s.listTail = fmt.Appendf(nil, `,"ttlMs":%d,"cacheScope":%q`, s.opts.ListTTL.Milliseconds(), scope)
	s.text.legacy = s.textIn(mustRevision(LatestLegacy))
	s.text.modern = s.textIn(mustRevision(Latest))
	return s
}

// textIn is a result of revision r that is one text block, its text to be
// set.
func (s *Server) textIn(r revision) jsonx.StringIn {
	open := append(s.appendResultOpen(nil, r), `"content":[{"type":"text","text":`...)
	t, err := jsonx.NewStringIn(string(open), "", string(s.closeResult(r, []byte("}]"))))
	if err != nil {
		panic(err) // the server's own JSON
	}
	return t
}

// implementation is the protocol's Implementation: who a peer is.
type implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// encode encodes v as encoding/json does, without escaping HTML.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// mustJSON encodes v, which cannot fail.
func mustJSON(v any) []byte {
	b, err := encode(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Register makes each exported method of value a tool, named as
// service.Service.Register names it (namespace, if not empty, prefixes it
// with a dot), and tells the legacy sessions under way. Every tool is
// checked before any is added:
//   - its name must be 1 to 128 of A-Z, a-z, 0-9, _, - and . (the
//     protocol's rule for tool names);
//   - it must take its params by name (arguments are an object): one
//     struct, one map, one json.RawMessage, or nothing;
//   - everything service.Service.Register checks, and the keys of
//     [Annotated].ToolAnnotations and [Scoped].ToolScopes, which must
//     name its tools' Go methods, and the scopes, which must be
//     scope-tokens.
//
// Register fails, and adds no tool, if any of them is not met.
func (s *Server) Register(namespace string, value any) error {
	// Each value gets a Service of its own: one that fails adds nothing,
	// and none is changed while it serves. Its params are a tool's
	// arguments, whose "_meta" is an argument like any other: the
	// protocol's _meta is that of the params of tools/call.
	o := s.opts.Service
	o.KeepMeta = true
	svc := service.New(&o)
	if err := svc.Register(namespace, value); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	notes, err := annotationsOf(value)
	if err != nil {
		return err
	}
	scopes, err := scopesOf(value)
	if err != nil {
		return err
	}
	icons, err := toolIconsOf(value)
	if err != nil {
		return err
	}
	infos := svc.Describe()
	added := make([]*tool, 0, len(infos))
	goNames := map[string]bool{}
	_, annotated := value.(Annotated)
	_, scoped := value.(Scoped)
	_, iconed := value.(Iconed)
	for _, info := range infos {
		if annotated && info.GoName == "ToolAnnotations" || scoped && info.GoName == "ToolScopes" || iconed && info.GoName == "ToolIcons" {
			continue // served by the Service, never called: not a tool
		}
		goNames[info.GoName] = true
		t, err := newTool(info, notes[info.GoName], scopes[info.GoName], icons[info.GoName], svc)
		if err != nil {
			return err
		}
		added = append(added, t)
	}
	for _, err := range []error{
		namesMethods(notes, goNames, "ToolAnnotations annotates", "tool", value),
		namesMethods(scopes, goNames, "ToolScopes gives scopes to", "tool", value),
		namesMethods(icons, goNames, "ToolIcons gives icons to", "tool", value),
	} {
		if err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next, err := s.cat.Load().with(added, (*tool).key, "mcp: tool %q is registered twice")
	if err != nil {
		return err
	}
	s.change(next)
	return nil
}

// Remove removes the tools called names, and reports how many there were.
func (s *Server) Remove(names ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, n := s.cat.Load().without(names)
	if n > 0 {
		s.change(next)
	}
	return n
}

// change makes next the tools, and tells the legacy sessions under way
// and the modern clients listening. s.mu is held.
func (s *Server) change(next *catalog[*tool]) {
	s.cat.Store(next)
	s.toolsChanged()
	s.publish(EventTools, "")
}

// toolsChanged tells the legacy sessions under way and the modern clients
// listening that the tools changed. s.mu is held.
func (s *Server) toolsChanged() {
	for l := range s.listeners {
		l.signal()
	}
	s.prune()
	for c, conn := range s.sessions {
		c.listChanged(conn)
	}
}

// listChanged tells the session, served on conn, that the tools changed:
// written when the output has room, or dropped when the connection ends,
// never waited for here. One goroutine at a time tells a session: changes
// that come while it waits for the output are one change owed, told once
// it is done, so that a client that stops reading costs one goroutine and
// two notifications, however many changes come.
func (c *session) listChanged(conn peer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.telling {
		c.owed = true
		return
	}
	c.telling = true
	go func() {
		for {
			_ = conn.Notify(context.Background(), notifyListChanged, nil)
			c.mu.Lock()
			if !c.owed {
				c.telling = false
				c.mu.Unlock()
				return
			}
			c.owed = false
			c.mu.Unlock()
		}
	}()
}

// prune forgets the sessions whose connections have ended. s.mu is held.
func (s *Server) prune() {
	for c, conn := range s.sessions {
		select {
		case <-conn.Done():
			delete(s.sessions, c)
		default:
		}
	}
}

// track adds c, served on conn, to the sessions told of changes. Sessions
// whose connections have ended are forgotten at the next change or the
// next initialize, whichever comes first; a legacy HTTP session, as it
// ends (forget).
func (s *Server) track(c *session, conn peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	s.sessions[c] = conn
}

// forget stops telling c, served on conn, of changes: its connection has
// ended (a legacy HTTP session that ends says so at once, rather than
// being held, its subscriptions with it, until the next change or
// initialize).
func (s *Server) forget(c *session, conn peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[c] == conn {
		delete(s.sessions, c)
	}
}

// Tools returns the names of the tools, sorted.
func (s *Server) Tools() []string { return slices.Clone(s.cat.Load().sorted()) }

// Handler returns a handler for one connection: each connection needs its
// own, since a legacy client's initialize sets the revision of its
// connection. It is the protocol's handler wrapped in Options.Middleware
// and middleware.Default, whose records go to the logger of the
// connection (rpc.Options.Logger).
func (s *Server) Handler() rpc.Handler {
	return s.handlerFor(newSession(s))
}

// handlerFor is Handler serving the session c.
func (s *Server) handlerFor(c *session) rpc.Handler {
	mw := append([]middleware.Middleware{middleware.Default(nil)}, s.opts.Middleware...)
	return middleware.Chain(mw...)(c)
}

// peer is where a legacy session's messages outside any request go (the
// tools' list_changed, and the like): its stream connection (*rpc.Conn),
// or the server stream of its Streamable HTTP session.
type peer interface {
	// Notify sends a notification, waiting for room no longer than ctx.
	Notify(ctx context.Context, method string, params any) error
	// Done is closed when the session ends.
	Done() <-chan struct{}
}

// errNoTools is the error of serving a Server without tools, resources
// or prompts.
var errNoTools = errors.New("mcp: nothing to serve: no tool, no resource, no prompt")
