package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// PromptResult is what a prompt gives (prompts/get): its messages, and a
// description.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt: its role, "user" (the
// default, for "") or "assistant", and its content: [TextContent],
// [ImageContent], [AudioContent], [EmbeddedResource] or [ResourceLink].
type PromptMessage struct {
	Role    string
	Content Content
}

// prompt is a registered prompt and its prompts/list entries.
type prompt struct {
	name   string
	scopes []string // the OAuth scopes it needs (ScopedPrompts), sorted
	svc    *service.Service
	args   []string // its arguments' names
	// entry is its prompts/list entry, without its titles and with them.
	entry titled
}

// key is p's name, its key in the catalog of prompts.
func (p *prompt) key() string { return p.name }

// promptResultTypes are the results a prompt method may return.
var promptResultTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[PromptResult](), reflect.TypeFor[*PromptResult](),
}

// RegisterPrompts makes each exported method of value a prompt, named as
// [Server.Register] names tools (namespace, if not empty, prefixes it with
// a dot), its title and description those of service.Documented, and
// tells the clients that asked to be told
// (notifications/prompts/list_changed). A prompt method has the form
//
//	M([ctx context.Context,] [args S]) (R[, error])
//
// where S is a struct whose fields are strings (the prompt's arguments,
// named by their JSON names, described by their jsonschema tags, required
// when validate:"required"), and R is a string (one user text message),
// a PromptResult or a *PromptResult. prompts/get binds and validates the
// arguments as a tool's: a missing required argument, an unknown one, or
// one that is not a string is answered -32602 with the problems in its
// data. Every method is checked before any is added; a name already a
// prompt's fails.
func (s *Server) RegisterPrompts(namespace string, value any) error {
	svc := service.New(&s.opts.Service)
	if err := svc.Register(namespace, value); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	scopes, err := promptScopesOf(value)
	if err != nil {
		return err
	}
	icons, err := promptIconsOf(value)
	if err != nil {
		return err
	}
	infos := svc.Describe()
	added := make([]*prompt, 0, len(infos))
	goNames := map[string]bool{}
	_, scoped := value.(ScopedPrompts)
	_, iconed := value.(IconedPrompts)
	for _, info := range infos {
		if scoped && info.GoName == "PromptScopes" || iconed && info.GoName == "PromptIcons" {
			continue // served by the Service, never called: not a prompt
		}
		goNames[info.GoName] = true
		p, err := newPrompt(info, reflect.ValueOf(value).MethodByName(info.GoName).Type(), scopes[info.GoName], icons[info.GoName], svc)
		if err != nil {
			return err
		}
		added = append(added, p)
	}
	for _, err := range []error{
		namesMethods(scopes, goNames, "PromptScopes gives scopes to", "prompt", value),
		namesMethods(icons, goNames, "PromptIcons gives icons to", "prompt", value),
	} {
		if err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next, err := s.feat.prompts.Load().with(added, (*prompt).key, "mcp: prompt %q is registered twice")
	if err != nil {
		return err
	}
	s.feat.prompts.Store(next)
	s.announce(notifyPromptsChanged, kindPrompts)
	s.publish(EventPrompts, "")
	return nil
}

// RemovePrompts removes the prompts called names, tells the clients as
// RegisterPrompts does, and reports how many there were.
func (s *Server) RemovePrompts(names ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, n := s.feat.prompts.Load().without(names)
	if n == 0 {
		return 0
	}
	s.feat.prompts.Store(next)
	s.announce(notifyPromptsChanged, kindPrompts)
	s.publish(EventPrompts, "")
	return n
}

// Prompts returns the names of the prompts, sorted.
func (s *Server) Prompts() []string {
	return slices.Clone(s.feat.prompts.Load().sorted())
}

// promptArgument is an entry of a prompt's arguments.
type promptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// promptEntry is a prompts/list entry.
type promptEntry struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        *securitySchemes `json:"_meta,omitempty"`
}

// newPrompt checks a method, of Go type mt, as a prompt and makes its
// entries: its arguments are the properties of its params' schema, in
// their order.
func newPrompt(info service.MethodInfo, mt reflect.Type, scopes []string, icons []Icon, svc *service.Service) (*prompt, error) {
	if mt.NumOut() == 0 || !slices.Contains(promptResultTypes, mt.Out(0)) {
		return nil, fmt.Errorf("mcp: prompt %s: it must return a string, a PromptResult or a *PromptResult (and an error, or not)", info.Name)
	}
	p := &prompt{name: info.Name, svc: svc, scopes: scopes}
	e := promptEntry{Name: info.Name, Description: info.Description}
	if ps := info.Params; ps != nil {
		if info.ParamStructure == service.ByPosition || ps.Properties == nil || ps.AdditionalProperties != nil && len(ps.Properties) == 0 {
			return nil, fmt.Errorf("mcp: prompt %s: its arguments must be one struct of string fields, or none", info.Name)
		}
		names := slices.Clone(ps.PropertyOrder)
		for _, name := range slices.Sorted(maps.Keys(ps.Properties)) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		for _, name := range names {
			prop := ps.Properties[name]
			if !slices.Contains(prop.Type, "string") || slices.ContainsFunc(prop.Type, func(t string) bool { return t != "string" && t != "null" }) {
				return nil, fmt.Errorf("mcp: prompt %s: argument %s is of JSON type %v: a prompt's arguments are strings", info.Name, name, prop.Type)
			}
			p.args = append(p.args, name)
			e.Arguments = append(e.Arguments, promptArgument{Name: name, Title: prop.Title, Description: prop.Description,
				Required: slices.Contains(ps.Required, name)})
		}
	}
	old := e
	old.Arguments = slices.Clone(e.Arguments)
	for i := range old.Arguments {
		old.Arguments[i].Title = ""
	}
	p.entry.without = mustJSON(old)
	e.Title = info.Title
	e.Meta = schemesOf(scopes) // _meta: 2025-06-18 and later, as titles
	p.entry.with = mustJSON(e)
	if len(icons) > 0 { // 2025-11-25 and later
		e.Icons = icons
		p.entry.icons = mustJSON(e)
	}
	return p, nil
}

// listPrompts answers prompts/list.
func (s *Server) listPrompts(r revision, params json.RawMessage) (any, error) {
	set := s.feat.prompts.Load()
	names := set.sorted()
	start, end, err := s.page(names, params)
	if err != nil {
		return nil, err
	}
	b := append(s.openResult(r), `"prompts":[`...)
	for i, name := range names[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, set.items[name].entry.of(r)...)
	}
	b = append(b, ']')
	return s.closePage(r, b, names, end), nil
}

// promptMembers are the members of prompts/get's params that getPrompt
// reads.
var promptMembers = [2]string{"name", "arguments"}

// nameParam returns v, a request's name: a string.
func nameParam(v []byte) (string, error) {
	if v == nil {
		return "", invalid(&service.FieldError{Field: "name", Rule: "required", Message: "name is required"})
	}
	name, ok := stringValue(v)
	if !ok {
		return "", invalid(&service.FieldError{Field: "name", Rule: "type", Param: "string", Message: "name must be a string"})
	}
	return string(name), nil
}

// lookup returns the prompt called name, or an error saying there is none.
func (s *Server) lookupPrompt(name string) (*prompt, error) {
	if p, ok := s.feat.prompts.Load().get(name); ok {
		return p, nil
	}
	return nil, rpc.NewError(rpc.InvalidParams, "Unknown prompt: "+jsonx.Echo(name))
}

// getPrompt answers prompts/get.
func (s *Server) getPrompt(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	var members [2][]byte
	jsonx.CheckedMembers(req.Params, promptMembers[:], members[:])
	name, err := nameParam(members[0])
	if err != nil {
		return nil, err
	}
	args := json.RawMessage(members[1])
	if args != nil && args[0] != '{' {
		return nil, invalid(&service.FieldError{Field: "arguments", Rule: "type", Param: "object", Message: "arguments must be an object"})
	}
	p, err := s.lookupPrompt(name)
	if err != nil {
		return nil, err
	}
	if err := lacking(ctx, "prompt "+p.name, p.scopes); err != nil {
		return nil, err
	}
	if r.modern { // a retry (Multi Round-Trip Requests)
		responses, state := jsonx.Member(req.Params, "inputResponses"), jsonx.Member(req.Params, "requestState")
		if responses != nil || state != nil {
			if ctx, err = s.retry(ctx, "prompt "+p.name, args, responses, state); err != nil {
				return nil, err
			}
		}
	}
	res, err := p.svc.Handle(ctx, &rpc.Request{ID: req.ID, Method: p.name, Params: args, Meta: req.Meta})
	if answer, ok, err := s.asked(ctx, r, "prompt "+p.name, args, req.Meta, err); ok {
		return answer, err // it asks the client first, or needs what the client cannot give
	}
	if err != nil {
		return nil, err
	}
	var pr *PromptResult
	switch v := res.(type) {
	case string:
		pr = &PromptResult{Messages: []PromptMessage{{Content: TextContent{v}}}}
	case PromptResult:
		pr = &v
	case *PromptResult:
		pr = v
		if v == nil {
			pr = &PromptResult{}
		}
	}
	b := s.openResult(r)
	if pr.Description != "" {
		b = append(b, `"description":`...)
		b = jsonx.AppendString(b, pr.Description)
		b = append(b, ',')
	}
	b = append(b, `"messages":[`...)
	for i, m := range pr.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		role := m.Role
		if role == "" {
			role = "user"
		}
		if role != "user" && role != "assistant" {
			return nil, fmt.Errorf("mcp: prompt %s: a message's role is %q: it must be user or assistant", p.name, role)
		}
		if m.Content == nil {
			return nil, errors.New("mcp: prompt " + p.name + ": a message has no content")
		}
		b = append(b, `{"role":"`+role+`","content":`...)
		b = appendBlock(b, m.Content, r)
		b = append(b, '}')
	}
	b = append(b, ']')
	return s.closeResult(r, b), nil
}
