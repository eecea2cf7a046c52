package mcp

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/bind"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// MaxCompletions is the most values a completion/complete result holds,
// the protocol's bound: a CompletionFunc's further values are counted in
// total and said by hasMore, not sent.
const MaxCompletions = 100

// CompleteRequest is what a client asks to complete (completion/complete):
// an argument of a prompt, or a variable of a resource template, whose
// value the user is typing.
type CompleteRequest struct {
	// Prompt is the name of the prompt (ref/prompt), or "".
	Prompt string
	// Template is the URI template of the resource template
	// (ref/resource), or "".
	Template string
	// Argument is the argument's (or the variable's) name, Value what the
	// user typed so far.
	Argument string
	Value    string
	// Context holds the values of the arguments already resolved
	// (2025-06-18 and later); nil when none.
	Context map[string]string
}

// A CompletionFunc completes arguments: it returns the values that fit,
// the best first. An error is the request's, as for any handler.
type CompletionFunc func(ctx context.Context, req CompleteRequest) ([]string, error)

// SetCompletion makes f the Server's completion (completion/complete, and the
// capability completions); nil removes it. A request
// is checked before f is called: its ref must name a prompt or a resource
// template of the Server, and its argument one of that prompt's arguments
// or that template's variables, or it is answered -32602; so are params
// whose members are given twice, or are not of their type (the context's
// arguments are strings, at most 1000 of them), each problem named in the
// error's data. Completing for a prompt or a template that needs scopes
// (ScopedPrompts, Resource.Scopes) needs them, as getting or reading it
// does: 403 over HTTP, InsufficientScope in a batch.
func (s *Server) SetCompletion(f CompletionFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		s.feat.complete.Store(nil)
		return
	}
	s.feat.complete.Store(&f)
}

// completeParams are completion/complete's params.
type completeParams struct {
	Ref *struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
		URI  *string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	} `json:"argument"`
	Context *struct {
		// Decoded up to one past the bound (bind's lengthBound), the
		// rest scanned: complete refuses them.
		Arguments map[string]string `json:"arguments" validate:"max=1000"`
	} `json:"context"`
}

// maxContext is the most arguments a completion/complete's context holds
// (completeParams' tag): more is -32602, and costs no more than one more.
const maxContext = 1000

// decodeComplete decodes completion/complete's params as a tool's
// arguments are: members named exactly, none twice, each of its type;
// members it does not know are ignored (later revisions may add some).
var decodeComplete = func() func([]byte) (reflect.Value, *bind.Error) {
	dec, err := bind.Params([]reflect.Type{reflect.TypeFor[completeParams]()}, false, true, false)
	if err != nil {
		panic(err)
	}
	return dec
}()

// complete answers completion/complete. Its params cost what decoding
// them costs (the connection bounds a message's size; the context's
// arguments are decoded up to maxContext+1), its result at most
// MaxCompletions values.
func (s *Server) complete(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	f := s.feat.complete.Load()
	if f == nil {
		return nil, rpc.NewError(rpc.MethodNotFound, "")
	}
	v, fe := decodeComplete(req.Params)
	if fe != nil {
		return nil, invalid(&service.FieldError{Field: fe.Field, Rule: fe.Rule, Param: fe.Param, Message: fe.Message})
	}
	p := v.Interface().(*completeParams)
	var problems []*service.FieldError
	if p.Ref == nil {
		problems = append(problems, &service.FieldError{Field: "ref", Rule: "required", Message: "ref is required"})
	}
	if p.Argument == nil || p.Argument.Name == nil || p.Argument.Value == nil {
		problems = append(problems, &service.FieldError{Field: "argument", Rule: "required", Message: "argument's name and value are required"})
	}
	if p.Context != nil && len(p.Context.Arguments) > maxContext {
		problems = append(problems, &service.FieldError{Field: "context.arguments", Rule: "max", Param: strconv.Itoa(maxContext),
			Message: "context.arguments must hold at most " + strconv.Itoa(maxContext) + " arguments"})
	}
	if problems != nil {
		return nil, invalid(problems...)
	}
	cr := CompleteRequest{Argument: *p.Argument.Name, Value: *p.Argument.Value}
	if p.Context != nil {
		cr.Context = p.Context.Arguments
	}
	var args []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name != nil:
		pr, err := s.lookupPrompt(*p.Ref.Name)
		if err != nil {
			return nil, err
		}
		if err := lacking(ctx, "prompt "+pr.name, pr.scopes); err != nil {
			return nil, err // its values may be what its scopes guard
		}
		cr.Prompt, args = pr.name, pr.args
	case p.Ref.Type == "ref/resource" && p.Ref.URI != nil:
		var t *resource
		if set := s.feat.resources.Load(); set != nil {
			t, _ = set.templates.get(*p.Ref.URI)
		}
		if t == nil {
			return nil, rpc.NewError(rpc.InvalidParams, "Unknown resource template: "+jsonx.Echo(*p.Ref.URI))
		}
		if err := lacking(ctx, "resource template "+t.Template, t.Scopes); err != nil {
			return nil, err
		}
		cr.Template, args = t.Template, t.vars
	default:
		return nil, invalid(&service.FieldError{Field: "ref", Rule: "oneof", Param: "ref/prompt ref/resource",
			Message: `ref must be {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...}`})
	}
	if !slices.Contains(args, cr.Argument) {
		return nil, invalid(&service.FieldError{Field: "argument.name", Rule: "oneof", Param: jsonx.Shorten(strings.Join(args, " "), 256),
			Message: "argument " + jsonx.Echo(cr.Argument) + " is not one of the reference's"})
	}
	values, err := (*f)(ctx, cr)
	if err != nil {
		return nil, err
	}
	b := append(s.openResult(r), `"completion":{"values":[`...)
	for i, v := range values[:min(len(values), MaxCompletions)] {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, v)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(len(values)), 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, len(values) > MaxCompletions)
	b = append(b, '}')
	return s.closeResult(r, b), nil
}
