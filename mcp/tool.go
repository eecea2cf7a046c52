package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/toolrpc/toolrpc/service"
)

// Annotations are the hints a tool gives a client about what it does
// (the protocol's ToolAnnotations, 2025-03-26 and later). Each is a hint,
// never a guarantee; nil leaves it to the protocol's default.
type Annotations struct {
	// ReadOnlyHint: the tool does not modify its environment (default
	// false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: the tool may destroy or overwrite, rather than only
	// add (default true; meaningful only when not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: calling it again with the same arguments has no
	// further effect (default false; meaningful only when not read-only).
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint: the tool reaches an open world of external entities
	// (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to b, for Annotations.
func Bool(b bool) *bool { return &b }

// Annotated is implemented by a registered value that annotates its tools.
// ToolAnnotations is called once, at registration; its keys are Go method
// names (Delete, not delete), as service.Documented's are, and each must
// name a tool of the value, or registration fails. It is not a tool itself.
type Annotated interface {
	ToolAnnotations() map[string]Annotations
}

// annotationsOf returns the annotations of value, if it has any.
func annotationsOf(value any) (map[string]Annotations, error) {
	if a, ok := value.(Annotated); ok {
		return declared(value, "ToolAnnotations", a.ToolAnnotations)
	}
	return nil, nil
}

// declared calls method, value's method called name that declares
// something of its methods (ToolAnnotations, ToolScopes, ToolIcons...),
// once, at registration: a panic of it is registration's error.
func declared[T any](value any, name string, method func() T) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var none T
			v, err = none, fmt.Errorf("mcp: %T.%s panicked: %v", value, name, r)
		}
	}()
	return method(), nil
}

// namesMethods reports the first key of m, in their order, that is not
// among goNames, the Go methods of value that are kinds (tools,
// prompts): m's declaration (what says what it is) names it in vain.
func namesMethods[V any](m map[string]V, goNames map[string]bool, what, kind string, value any) error {
	for _, goName := range slices.Sorted(maps.Keys(m)) {
		if !goNames[goName] {
			return fmt.Errorf("mcp: %s %q, which is not a %s of %T", what, goName, kind, value)
		}
	}
	return nil
}

// MaxToolName is the longest tool name, in bytes.
const MaxToolName = 128

// checkName reports a name that is not 1 to MaxToolName of [A-Za-z0-9_.-].
func checkName(name string) error {
	if name == "" || len(name) > MaxToolName {
		return fmt.Errorf("mcp: tool name %q is %d bytes long: it must be 1 to %d", name, len(name), MaxToolName)
	}
	for i := range len(name) {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			return fmt.Errorf("mcp: tool name %q holds %q: only A-Z, a-z, 0-9, _, - and . make a tool name", name, string([]rune(name[i:])[0]))
		}
	}
	return nil
}

// tool is a registered tool and its tools/list entries.
type tool struct {
	name       string
	svc        *service.Service // serves it
	structured bool             // the result is a struct: structuredContent, outputSchema
	hasResult  bool
	headers    []paramHeader // its arguments mirrored in Mcp-Param headers (paramheader.go)
	scopes     []string      // the OAuth scopes it needs (Scoped), sorted
	// entry is its tools/list entry as the revisions have it (entryFor):
	// bare (2024-11-05), with annotations (2025-03-26), with its title and
	// outputSchema too (2025-06-18 and later).
	// And with its icons (2025-11-25 and later), if it has any.
	entry struct{ bare, annotated, full, icons []byte }
}

// entryFor is t's tools/list entry as r has it.
func (t *tool) entryFor(r revision) []byte {
	switch {
	case r.icons && t.entry.icons != nil:
		return t.entry.icons
	case r.titles: // and structured: outputSchema
		return t.entry.full
	case r.annotations:
		return t.entry.annotated
	}
	return t.entry.bare
}

// key is t's name, its key in the catalog of tools.
func (t *tool) key() string { return t.name }

// toolEntry is a tools/list entry, in the order its members are written.
type toolEntry struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *annotations     `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         *securitySchemes `json:"_meta,omitempty"`
}

// annotations are Annotations with the title, as written.
type annotations struct {
	Title string `json:"title,omitempty"`
	Annotations
}

// newTool checks a method as a tool and makes its entries.
func newTool(info service.MethodInfo, notes Annotations, scopes []string, icons []Icon, svc *service.Service) (*tool, error) {
	if err := checkName(info.Name); err != nil {
		return nil, err
	}
	in, err := inputSchema(info)
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %s: %w", info.Name, err)
	}
	t := &tool{name: info.Name, svc: svc, hasResult: info.Result != nil, scopes: scopes}
	if t.headers, err = paramHeaders(info.Params); err != nil {
		return nil, fmt.Errorf("mcp: tool %s: %w", info.Name, err)
	}
	t.structured = info.Result != nil && slices.Equal(info.Result.Type, []string{"object"})
	var out json.RawMessage
	if t.structured {
		// What encoding/json makes of the struct, the protocol's default
		// dialect left implicit.
		r := *info.Result
		r.Schema = ""
		if out, err = encode(&r); err != nil {
			return nil, fmt.Errorf("mcp: tool %s: its result's schema: %w", info.Name, err)
		}
	}
	e := toolEntry{Name: info.Name, Description: info.Description, InputSchema: in}
	t.entry.bare = mustJSON(e)
	a := &annotations{Title: info.Title, Annotations: notes}
	if *a == (annotations{}) {
		a = nil
	}
	e.Annotations = a
	t.entry.annotated = mustJSON(e)
	e.Title, e.OutputSchema = info.Title, out
	e.Meta = schemesOf(scopes) // _meta: 2025-06-18 and later
	t.entry.full = mustJSON(e)
	if len(icons) > 0 {
		e.Icons = icons
		t.entry.icons = mustJSON(e)
	}
	return t, nil
}

// inputSchema is the schema of a tool's arguments: an object at the root.
func inputSchema(info service.MethodInfo) (json.RawMessage, error) {
	if info.Params == nil {
		return json.RawMessage(`{"type":"object","additionalProperties":false}`), nil
	}
	if info.ParamStructure == service.ByPosition {
		return nil, fmt.Errorf("its arguments would be an array, and MCP's are an object: a tool takes one struct, one map, one json.RawMessage, or nothing")
	}
	s := *info.Params
	if len(s.Defs) == 0 {
		// 2020-12, the protocol's default (2025-11-25, SEP-1613), left
		// implicit. A schema with $defs names it: a 2020-12 keyword, which
		// a client of an earlier revision, where no dialect is the
		// default, might otherwise read as draft-07's (definitions).
		s.Schema = ""
	}
	if !slices.Contains(s.Type, "object") && len(s.Type) > 0 {
		return nil, fmt.Errorf("its arguments have the JSON type %v, and MCP's are an object", s.Type)
	}
	s.Type = []string{"object"}
	return encode(&s)
}
