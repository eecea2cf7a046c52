package mcp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// This file is the protocol as a Server sees it, in two tables: the
// revisions it speaks (revisions), each with what it has as named
// properties, and the methods (serverMethods: those a client sends,
// clientMethods: those a server sends), each with the revisions that have
// it, the feature it belongs to and how it is served. Dispatch
// (session.Handle), the capability checks (Server.serves, declares), the
// routing of Streamable HTTP (postModern, postLegacy) and its header
// checks (checkHeaders, checkParamHeaders) read them; the code that
// writes a result asks its revision what it has (r.titles, r.modern),
// never which one it is.

// The protocol revisions a Server speaks.
const (
	// Latest is the latest revision, the modern one: stateless, every
	// request carrying its revision in its _meta.
	Latest = "2026-07-28"
	// LatestLegacy is the latest revision that opens with initialize:
	// what initialize answers when the client asks for a revision the
	// server does not speak.
	LatestLegacy = "2025-11-25"
)

// revSet is a set of revisions: the bits of each one's revision.bit.
type revSet uint8

// The revisions, each a set of one.
const (
	rev20241105 revSet = 1 << iota
	rev20250326
	rev20250618
	rev20251125
	rev20260728

	// legacyRevs open with initialize; modernRevs are stateless.
	legacyRevs = rev20241105 | rev20250326 | rev20250618 | rev20251125
	modernRevs = rev20260728
	allRevs    = legacyRevs | modernRevs
)

// revision is the protocol revision a request is served by, and what it
// has. The zero revision is none: it has no method.
type revision struct {
	name string
	bit  revSet // this revision, for methodInfo.revs
	// modern: 2026-07-28. Stateless (no initialize: each request names
	// its revision and the client's capabilities in _meta), results with
	// a resultType and the server's identity in their _meta, calls that
	// ask the client by answering input_required.
	modern bool
	// batches: JSON-RPC batches (2025-03-26 alone).
	batches bool
	// primed: a legacy session's event streams start with a priming
	// event and may be closed before their end (2025-11-25, SEP-1699).
	primed bool
	// annotations: a tool's annotations (2025-03-26 and later).
	annotations bool
	// audio: AudioContent blocks (2025-03-26 and later).
	audio bool
	// titles: the title of a tool, prompt, resource, template and of the
	// server's Implementation (2025-06-18 and later).
	titles bool
	// structured: a tool's outputSchema and a result's
	// structuredContent (2025-06-18 and later).
	structured bool
	// links: ResourceLink blocks (2025-06-18 and later).
	links bool
	// icons: the icons of the server, tools, prompts, resources and
	// templates, the server's description and websiteUrl (2025-11-25 and
	// later).
	icons bool
}

// revisions are the revisions a Server speaks, newest first.
var revisions = [...]revision{
	{name: Latest, bit: rev20260728, modern: true, annotations: true, audio: true, titles: true, structured: true, links: true, icons: true},
	{name: LatestLegacy, bit: rev20251125, primed: true, annotations: true, audio: true, titles: true, structured: true, links: true, icons: true},
	{name: "2025-06-18", bit: rev20250618, annotations: true, audio: true, titles: true, structured: true, links: true},
	{name: "2025-03-26", bit: rev20250326, batches: true, annotations: true, audio: true},
	{name: "2024-11-05", bit: rev20241105},
}

// versions are the names of the revisions, newest first: what
// server/discover and an UnsupportedProtocolVersion error list.
var versions = func() []string {
	names := make([]string, len(revisions))
	for i, r := range revisions {
		names[i] = r.name
	}
	return names
}()

// Versions returns the revisions a Server speaks, newest first.
func Versions() []string { return slices.Clone(versions) }

// entry is r's entry in revisions: a pointer that fits an interface
// without allocating.
func (r revision) entry() *revision {
	for i := range revisions {
		if revisions[i].bit == r.bit {
			return &revisions[i]
		}
	}
	panic("mcp: no revision " + r.name)
}

// revisionOf returns the revision called name, and whether it is one a
// Server speaks.
func revisionOf(name string) (revision, bool) {
	for _, r := range revisions {
		if r.name == name {
			return r, true
		}
	}
	return revision{}, false
}

// isModern reports whether req names a modern revision in its _meta: a
// stateless request, which brings the client's capabilities with it.
func isModern(req *rpc.Request) bool {
	v, ok := stringValue(jsonx.Member(req.Meta, metaVersion))
	if !ok {
		return false
	}
	r, ok := revisionOf(string(v))
	return ok && r.modern
}

// mustRevision is revisionOf for a revision a Server speaks.
func mustRevision(name string) revision {
	r, ok := revisionOf(name)
	if !ok {
		panic("mcp: no revision " + name)
	}
	return r
}

// titled is JSON written in two ways: for the revisions without titles
// (before 2025-06-18), and for those with them.
type titled struct{ without, with, icons []byte }

// of is t as r has it: with its icons (and the like) in 2025-11-25 and
// later, if it has any.
func (t *titled) of(r revision) []byte {
	if r.icons && t.icons != nil {
		return t.icons
	}
	if r.titles {
		return t.with
	}
	return t.without
}

// The methods and notifications of the protocol; what each is in
// serverMethods or clientMethods.
const (
	methodInitialize        = "initialize"
	methodPing              = "ping"
	methodDiscover          = "server/discover"
	methodToolsList         = "tools/list"
	methodToolsCall         = "tools/call"
	methodListen            = "subscriptions/listen"
	methodSetLevel          = "logging/setLevel"
	methodResourcesList     = "resources/list"
	methodResourceTemplates = "resources/templates/list"
	methodResourcesRead     = "resources/read"
	methodSubscribe         = "resources/subscribe"
	methodUnsubscribe       = "resources/unsubscribe"
	methodPromptsList       = "prompts/list"
	methodPromptsGet        = "prompts/get"
	methodComplete          = "completion/complete"
	methodCreateMessage     = "sampling/createMessage"
	methodElicit            = "elicitation/create"
	methodListRoots         = "roots/list"

	notifyInitialized      = "notifications/initialized"
	notifyCancelled        = rpc.CancelledNotification
	notifyListChanged      = "notifications/tools/list_changed"
	notifyPromptsChanged   = "notifications/prompts/list_changed"
	notifyResourcesChanged = "notifications/resources/list_changed"
	notifyResourceUpdated  = "notifications/resources/updated"
	notifyMessage          = "notifications/message"
	notifyAcknowledge      = "notifications/subscriptions/acknowledged"
)

// feature is what of a server's a method belongs to: a server that has
// none of it does not have the method.
type feature uint8

const (
	featureCore        feature = iota // every server's: its tools, logging, the handshake
	featureResources                  // a server with resources
	featurePrompts                    // a server with prompts
	featureCompletions                // a server with a CompletionFunc
)

// hasFeature reports whether s has f: resources and prompts once any
// were added, completions once it has a CompletionFunc.
func (s *Server) hasFeature(f feature) bool {
	switch f {
	case featureResources:
		return s.has(kindResources)
	case featurePrompts:
		return s.has(kindPrompts)
	case featureCompletions:
		return s.feat.complete.Load() != nil
	}
	return true
}

// featureCapabilities appends the start of the server's capabilities, up
// to its tools: completions when it has a CompletionFunc, logging, prompts
// and resources when it has any (each with listChanged, resources with
// subscribe too: resources/subscribe in the legacy revisions,
// subscriptions/listen's resourceSubscriptions in 2026-07-28). A server
// without a feature does not have its methods either (Server.serves).
func (s *Server) featureCapabilities(b []byte) []byte {
	b = append(b, '{')
	if s.hasFeature(featureCompletions) {
		b = append(b, `"completions":{},`...)
	}
	b = append(b, `"logging":{},`...)
	if s.hasFeature(featurePrompts) {
		b = append(b, `"prompts":{"listChanged":true},`...)
	}
	if s.hasFeature(featureResources) {
		b = append(b, `"resources":{"subscribe":true,"listChanged":true},`...)
	}
	return b
}

// handler serves a client's request (or notification) in the session c,
// of revision r (the zero revision for initialize and notifications);
// logLevel is the raw logLevel of the request's _meta, nil when absent.
type handler func(c *session, ctx context.Context, r revision, req *rpc.Request, logLevel []byte) (any, error)

// A methodInfo is what the protocol says of a method, and how a Server
// serves or sends it.
type methodInfo struct {
	name string
	// revs are the revisions that have it: a request of another is not
	// found (-32601; 404 over Streamable HTTP).
	revs revSet
	// notification: it is a notification, never a request.
	notification bool
	// feature is the server's feature it belongs to: a server without it
	// does not have the method (-32601), as its capabilities say.
	feature feature
	// opens: it opens a legacy session (initialize). It is served before
	// any revision is known, its own params choosing one, never in a
	// batch; over Streamable HTTP it makes a session.
	opens bool
	// unversioned: it is served before initialize, naming no revision,
	// as LatestLegacy has it (ping).
	unversioned bool
	// nameMember is the member of its params that the Mcp-Name header
	// mirrors (2026-07-28, Streamable HTTP), "" for none.
	nameMember string
	// argHeaders: its arguments may be mirrored in Mcp-Param headers
	// (paramheader.go).
	argHeaders bool
	// serve answers it (serverMethods); nil for a notification the
	// server does nothing with.
	serve handler
	// capability is the client's capability a server's request needs
	// (clientMethods), named as requiredCapabilities names it (and the
	// keys of its inputRequests begin with it: inputKey), and declared
	// reports whether a client's capabilities declare it.
	capability string
	declared   func(caps json.RawMessage) bool
}

// in reports whether r has m.
func (m *methodInfo) in(r revision) bool { return m.revs&r.bit != 0 }

// serves reports whether s answers a request of m in the revision r: m is
// a request of a client (nil is a method of no one), of r, of a feature s
// has.
func (s *Server) serves(m *methodInfo, r revision) bool {
	return m != nil && !m.notification && m.serve != nil && m.in(r) && s.hasFeature(m.feature)
}

// serverMethods are the methods a client sends, which a Server serves,
// by name.
var serverMethods = byName([]methodInfo{
	{name: methodInitialize, revs: legacyRevs, opens: true,
		serve: func(c *session, ctx context.Context, _ revision, req *rpc.Request, _ []byte) (any, error) {
			return c.initialize(ctx, req)
		}},
	{name: methodPing, revs: legacyRevs, unversioned: true, // removed in 2026-07-28
		serve: func(c *session, _ context.Context, r revision, _ *rpc.Request, _ []byte) (any, error) {
			return c.s.result(r, nil), nil
		}},
	{name: methodDiscover, revs: modernRevs, // new in 2026-07-28
		serve: func(c *session, _ context.Context, r revision, _ *rpc.Request, _ []byte) (any, error) {
			return c.s.discover(r), nil
		}},
	{name: methodSetLevel, revs: legacyRevs, // removed in 2026-07-28: _meta's logLevel instead
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.setLevel(r, req.Params)
		}},
	{name: methodListen, revs: modernRevs, // new in 2026-07-28
		serve: func(c *session, ctx context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.listen(ctx, r, req)
		}},
	{name: methodToolsList, revs: allRevs,
		serve: func(c *session, ctx context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.listTools(ctx, r, req.Params)
		}},
	{name: methodToolsCall, revs: allRevs, nameMember: "name", argHeaders: true,
		serve: (*session).callTool},
	{name: methodResourcesList, revs: allRevs, feature: featureResources,
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.listResources(r, req, false)
		}},
	{name: methodResourceTemplates, revs: allRevs, feature: featureResources,
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.listResources(r, req, true)
		}},
	{name: methodResourcesRead, revs: allRevs, feature: featureResources, nameMember: "uri",
		serve: func(c *session, ctx context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.readResource(ctx, r, req)
		}},
	// Removed in 2026-07-28: subscriptions/listen's resourceSubscriptions
	// instead.
	{name: methodSubscribe, revs: legacyRevs, feature: featureResources,
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.subscribe(r, req, true)
		}},
	{name: methodUnsubscribe, revs: legacyRevs, feature: featureResources,
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.subscribe(r, req, false)
		}},
	{name: methodPromptsList, revs: allRevs, feature: featurePrompts,
		serve: func(c *session, _ context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.listPrompts(r, req.Params)
		}},
	{name: methodPromptsGet, revs: allRevs, feature: featurePrompts, nameMember: "name",
		serve: func(c *session, ctx context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.getPrompt(ctx, r, req)
		}},
	{name: methodComplete, revs: allRevs, feature: featureCompletions,
		serve: func(c *session, ctx context.Context, r revision, req *rpc.Request, _ []byte) (any, error) {
			return c.s.complete(ctx, r, req)
		}},

	{name: notifyInitialized, revs: legacyRevs, notification: true,
		serve: func(c *session, _ context.Context, _ revision, _ *rpc.Request, _ []byte) (any, error) {
			c.initialized()
			return nil, nil
		}},
	{name: notifyCancelled, revs: allRevs, notification: true}, // rpc's: it cancels the call it names
})

// clientMethods are the methods a Server sends its client, by name.
// Those that are requests are sent by a tool (CreateMessage, Elicit), or
// asked of a 2026-07-28 client in an input_required answer, once the
// client declared the capability they need.
var clientMethods = byName([]methodInfo{
	{name: methodCreateMessage, revs: allRevs, capability: "sampling", declared: hasSampling},
	{name: methodElicit, revs: allRevs, capability: "elicitation", declared: hasFormElicitation},
	{name: methodListRoots, revs: allRevs, capability: "roots", declared: hasRoots},

	{name: notifyListChanged, revs: allRevs, notification: true},
	{name: notifyPromptsChanged, revs: allRevs, notification: true},
	{name: notifyResourcesChanged, revs: allRevs, notification: true},
	{name: notifyResourceUpdated, revs: allRevs, notification: true},
	{name: notifyMessage, revs: allRevs, notification: true},
	{name: notifyAcknowledge, revs: modernRevs, notification: true}, // of subscriptions/listen
	{name: notifyCancelled, revs: allRevs, notification: true},      // the end of a subscriptions/listen
})

// byName indexes methods by name.
func byName(methods []methodInfo) map[string]*methodInfo {
	m := make(map[string]*methodInfo, len(methods))
	for i := range methods {
		m[methods[i].name] = &methods[i]
	}
	return m
}

// hasSampling reports whether caps declare sampling.
func hasSampling(caps json.RawMessage) bool { return jsonx.Member(caps, "sampling") != nil }

// hasFormElicitation reports whether caps declare elicitation in form
// mode: elicitation.form, or an elicitation with no mode named (form, as
// before modes came).
func hasFormElicitation(caps json.RawMessage) bool {
	e := jsonx.Member(caps, "elicitation")
	return e != nil && (jsonx.Member(e, "form") != nil || jsonx.Member(e, "url") == nil)
}

// hasRoots reports whether caps declare roots.
func hasRoots(caps json.RawMessage) bool { return jsonx.Member(caps, "roots") != nil }
