package mcp

import (
	"fmt"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/scan"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
)

// Custom headers from tool parameters (2026-07-28, Streamable HTTP,
// SEP-2243): an argument whose schema carries x-mcp-header (a field tagged
// mcp:"header=Name", see schema.Schema.XMCPHeader) is mirrored by the
// client in the header Mcp-Param-{Name}, which the server checks against
// the body before the call is served.

// headerParamPrefix begins the name of a custom header.
const headerParamPrefix = "Mcp-Param-"

// maxSafeInteger is the largest integer an x-mcp-header argument may hold
// (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER); the smallest is its
// opposite.
const maxSafeInteger = 1<<53 - 1

// paramHeader is an argument of a tool mirrored in a header.
type paramHeader struct {
	header string   // Mcp-Param-{Name}, canonical (the key of http.Header)
	path   []string // the properties leading to the argument, from the root
	kind   string   // its JSON type: "string", "integer" or "boolean"
}

// paramHeaders returns the arguments of a tool whose inputSchema is in
// that are mirrored in headers, or the reason the annotations are invalid
// (2026-07-28, Schema Extension): each value a token, unique regardless of
// case, on a property of a primitive type other than number, reached from
// the root by properties alone.
func paramHeaders(in *schema.Schema) ([]paramHeader, error) {
	if in == nil {
		return nil, nil
	}
	var out []paramHeader
	var visit func(s *schema.Schema, path []string, reachable bool) error
	visit = func(s *schema.Schema, path []string, reachable bool) error {
		if s == nil {
			return nil
		}
		if name := s.XMCPHeader; name != "" {
			where := strings.Join(path, ".")
			if !reachable {
				return fmt.Errorf("x-mcp-header %q at %s: only a property reached from the root by properties alone may be mirrored in a header", name, where)
			}
			if !isToken(name) {
				return fmt.Errorf("x-mcp-header %q of %s is not an HTTP field-name token", name, where)
			}
			kind := primitiveKind(s.Type)
			if kind == "" {
				return fmt.Errorf("x-mcp-header %q of %s: the property's type is %v, and only a string, an integer or a boolean may be mirrored in a header", name, where, s.Type)
			}
			header := textproto.CanonicalMIMEHeaderKey(headerParamPrefix + name)
			if slices.ContainsFunc(out, func(p paramHeader) bool { return p.header == header }) {
				return fmt.Errorf("x-mcp-header %q of %s is used twice (regardless of case)", name, where)
			}
			out = append(out, paramHeader{header: header, path: slices.Clone(path), kind: kind})
		}
		for _, name := range sortedKeys(s.Properties) {
			if err := visit(s.Properties[name], append(path, name), reachable); err != nil {
				return err
			}
		}
		for _, name := range sortedKeys(s.Defs) {
			if err := visit(s.Defs[name], append(path, "$defs", name), false); err != nil {
				return err
			}
		}
		subs := []*schema.Schema{s.Items, s.Contains, s.AdditionalProperties, s.PropertyNames, s.Not}
		subs = append(append(append(subs, s.PrefixItems...), s.AllOf...), s.AnyOf...)
		for _, sub := range subs {
			if err := visit(sub, path, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(in, nil, true); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys(m map[string]*schema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// primitiveKind is the type a header may mirror, of a property of the JSON
// types types ("null" beside it: a null argument has no header), or "".
func primitiveKind(types []string) string {
	kind := ""
	for _, t := range types {
		switch {
		case t == "null":
		case kind == "" && (t == "string" || t == "integer" || t == "boolean"):
			kind = t
		default:
			return ""
		}
	}
	return kind
}

// isToken reports whether s is an HTTP field-name token (RFC 9110, 5.6.2:
// 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// checkParamHeaders checks the Mcp-Param headers of a stateless request
// whose envelope is env and body body against its arguments (2026-07-28,
// Server Behavior for Custom Headers), and returns the HeaderMismatch
// error saying what is wrong: a header missing for an argument present, one
// for an argument absent or null, one whose value is not a valid header
// value, or does not match the argument. Headers of arguments the tool
// does not mirror are not looked at, nor those of a request of another
// method m than those whose arguments they mirror (methodInfo.argHeaders:
// tools/call). A tool without such arguments costs a lookup.
func (s *Server) checkParamHeaders(hd http.Header, env envelope, m *methodInfo, body []byte) *rpc.Error {
	if env.id == nil || m == nil || !m.argHeaders {
		return nil
	}
	name, ok := stringValue(env.name)
	if !ok {
		return nil
	}
	t := s.cat.Load().items[string(name)]
	if t == nil || len(t.headers) == 0 {
		return nil // no such tool (the call says so), or nothing to check
	}
	args := jsonx.Member(jsonx.Member(body, "params"), "arguments")
	for _, p := range t.headers {
		v := args
		for _, step := range p.path {
			v = jsonx.Member(v, step)
		}
		values := hd[p.header]
		switch {
		case len(values) > 1:
			return mismatch("one %s header at most", p.header)
		case v == nil || string(v) == "null":
			if len(values) == 1 {
				return mismatch("%s header given for arguments.%s, which is absent or null", p.header, strings.Join(p.path, "."))
			}
			continue
		case len(values) == 0:
			return mismatch("the %s header is required: arguments.%s is present", p.header, strings.Join(p.path, "."))
		}
		header, ok := decodeHeader(values[0])
		if !ok {
			return mismatch("the %s header value is not a valid header value", p.header)
		}
		if !headerMatches(p.kind, header, v) {
			return mismatch("%s header value %q does not match body value arguments.%s", p.header, jsonx.Echo(header), strings.Join(p.path, "."))
		}
	}
	return nil
}

// headerMatches reports whether the decoded header value header stands
// for the argument raw, of the JSON type kind (2026-07-28, Value Encoding):
// a string as it is, an integer in decimal (compared as a number: 42.0 is
// 42, within ±(2^53-1)), a boolean as true or false. An argument of
// another type than its schema's matches nothing.
func headerMatches(kind, header string, raw []byte) bool {
	switch kind {
	case "string":
		body, ok := stringValue(raw)
		return ok && string(body) == header
	case "integer":
		h, okh := safeInteger(header)
		b, okb := safeInteger(string(raw))
		return okh && okb && h == b
	default: // boolean
		return (header == "true" || header == "false") && string(raw) == header
	}
}

// safeInteger returns the integer the JSON number s is, when it is one
// within ±(2^53-1) (42.0 and 4.2e1 are 42), read exactly as the params
// binder reads an integer ([scan.Integer]).
func safeInteger(s string) (int64, bool) {
	b := []byte(s)
	if end, st := scan.Number(b, 0); st != scan.OK || end != len(b) {
		return 0, false // not a JSON number
	}
	n, ok := scan.Int64(b)
	if !ok || n > maxSafeInteger || n < -maxSafeInteger {
		return 0, false
	}
	return n, true
}
