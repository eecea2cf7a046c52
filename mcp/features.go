package mcp

import (
	"context"

	"github.com/toolrpc/toolrpc/rpc"
)

// featureCapabilities appends the start of the server's capabilities, up
// to its tools: completions when it has a CompletionFunc, logging, prompts
// and resources when it has any (each with listChanged, resources with
// subscribe too: resources/subscribe in the legacy revisions,
// subscriptions/listen's resourceSubscriptions in 2026-07-28).
func (s *Server) featureCapabilities(b []byte) []byte {
	b = append(b, '{')
	if s.feat.complete.Load() != nil {
		b = append(b, `"completions":{},`...)
	}
	b = append(b, `"logging":{},`...)
	if s.has(kindPrompts) {
		b = append(b, `"prompts":{"listChanged":true},`...)
	}
	if s.has(kindResources) {
		b = append(b, `"resources":{"subscribe":true,"listChanged":true},`...)
	}
	return b
}

// feature answers the requests of resources, prompts and completion.
// A server that has none of a feature's (no resources, no prompts, no
// CompletionFunc) does not have its methods: -32601, as its capabilities
// say.
func (c *session) feature(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	if !c.s.serves(req.Method) {
		return nil, rpc.NewError(rpc.MethodNotFound, "")
	}
	switch req.Method {
	case methodResourcesList, methodResourceTemplates:
		return c.s.listResources(r, req)
	case methodResourcesRead:
		return c.s.read(ctx, r, req)
	case methodSubscribe, methodUnsubscribe:
		if r.modern { // removed in 2026-07-28: subscriptions/listen's resourceSubscriptions instead
			return nil, rpc.NewError(rpc.MethodNotFound, "")
		}
		return c.subscribe(r, req)
	case methodPromptsList:
		return c.s.listPrompts(r, req.Params)
	case methodPromptsGet:
		return c.s.getPrompt(ctx, r, req)
	case methodComplete:
		return c.s.complete(ctx, r, req)
	}
	return nil, rpc.NewError(rpc.MethodNotFound, "")
}

// serves reports whether s has the feature of method, one of a revision's
// methods: a server without resources has no resources/read.
func (s *Server) serves(method string) bool {
	switch method {
	case methodResourcesList, methodResourceTemplates, methodResourcesRead, methodSubscribe, methodUnsubscribe:
		return s.has(kindResources)
	case methodPromptsList, methodPromptsGet:
		return s.has(kindPrompts)
	case methodComplete:
		return s.feat.complete.Load() != nil
	}
	return true
}
