package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/oauth"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// ResourceNotFound (-32002) answers a legacy resources/read of a URI no
// resource has (2024-11-05 to 2025-11-25); 2026-07-28 answers -32602
// Invalid params instead. Its data is {"uri": the URI}.
const ResourceNotFound rpc.Code = -32002

// ErrResourceNotFound is what a [Resource]'s Read returns (or wraps) when
// the URI it is asked for names nothing: the client gets the protocol's
// not-found error, as for a URI no resource matches.
var ErrResourceNotFound = errors.New("mcp: resource not found")

// Bounds on what a peer sends about resources.
const (
	// MaxURI is the longest URI, in bytes, a resources/read,
	// resources/subscribe or completion request may name (and a
	// subscriptions/listen's resourceSubscriptions hold): a longer one is
	// refused with -32602, before any template is matched.
	MaxURI = 8 << 10
	// MaxSubscriptions is the most resources one legacy session (and one
	// subscriptions/listen call) may subscribe to: one more is refused
	// with -32602.
	MaxSubscriptions = 1000
	// MaxSubscriptionBytes is the most bytes of URIs one legacy session
	// (and one subscriptions/listen call) may subscribe to, all of them
	// together: past it, a subscription is refused with -32602, so that
	// what all sessions hold stays small (1,000 URIs of 8 KiB in each of
	// 1,024 sessions would be 8 GiB).
	MaxSubscriptionBytes = 64 << 10
)

// A Resource is a resource a Server serves, added by [Server.AddResources]:
// data the client reads by its URI (resources/read). A static resource has
// a URI; a template (RFC 6570: "file:///{path}") has a Template instead,
// and serves every URI that matches it, its variables decoded.
type Resource struct {
	// URI is a static resource's URI (resources/list).
	URI string
	// Template is a template's URI template (resources/templates/list):
	// literal text and variables, {name} (RFC 6570 level 1: the value is
	// unreserved characters or percent-escapes, none or more, so no "/"
	// but an escaped one, "%2F")
	// or {+name} (level 2: reserved characters too, "/" among them).
	Template string
	// Name is required; Title (2025-06-18 and later), Description and
	// MIMEType are optional.
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Size is a static resource's size in bytes, if known; 0 leaves it out.
	Size int64
	// Scopes are the OAuth scopes reading it needs beyond those every
	// request needs, checked and published as a tool's are ([Scoped]):
	// resources/read with a token that lacks one is answered 403 over
	// HTTP (InsufficientScope in a batch), and the entry's
	// _meta.securitySchemes names them (2025-06-18 and later). Each must
	// be a scope-token. A URI that percent-escapes an unreserved character
	// ("%73" for "s") is the URI without the escape (RFC 3986 §6.2.2.2),
	// served and checked as that one is.
	Scopes []string
	// Icons are images a client may show for it (2025-11-25 and later;
	// see Icon).
	Icons []Icon
	// Read reads the resource: uri is the URI asked for, vars the values
	// of the template's variables (nil for a static resource), decoded.
	// A content's URI defaults to uri, its MIME type to MIMEType. Read
	// returns ErrResourceNotFound for a URI that names nothing; any other
	// error is the request's, as for any handler (an *rpc.Error keeps its
	// code).
	Read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
}

// resource is a Resource as served: a template's pattern and variables.
type resource struct {
	Resource
	re    *regexp.Regexp // a template's: its variables are its groups
	vars  []string       // a template's variables, in order
	parts []part         // a template's literals and variables
	// The members its list entry ends with, encoded once, a comma
	// first, if it has them: its icons (2025-11-25 and later) and its
	// scopes' _meta (2025-06-18 and later).
	icons, schemes []byte
}

// appendTail appends to r's list entry, of revision rev, its icons and
// its scopes' _meta, as rev has them.
func (r *resource) appendTail(b []byte, rev revision) []byte {
	if rev.icons {
		b = append(b, r.icons...)
	}
	if rev.titles {
		b = append(b, r.schemes...)
	}
	return b
}

// resourceSet is the resources of a Server at one time; it is never
// modified.
type resourceSet struct {
	static    *catalog[*resource] // by URI
	templates *catalog[*resource] // by template
}

// uri is r's URI, its key among the static resources.
func (r *resource) uri() string { return r.URI }

// template is r's template, its key among the templates.
func (r *resource) template() string { return r.Template }

// features are what a Server serves beside its tools: each replaced whole
// on a change, under Server.mu.
type features struct {
	resources atomic.Pointer[resourceSet]
	prompts   atomic.Pointer[catalog[*prompt]]
	complete  atomic.Pointer[CompletionFunc]
}

// empty reports whether s has nothing to serve: no tool, no resource, no
// prompt.
func (s *Server) empty() bool {
	return s.cat.Load().len() == 0 && s.feat.resources.Load() == nil && s.feat.prompts.Load() == nil
}

// AddResources adds resources and templates, and tells the clients that
// asked to be told (notifications/resources/list_changed). Each is checked
// before any is added: a URI or a Template (not both), a Name, a Read, a
// template that parses, and no URI or template already served.
func (s *Server) AddResources(rs ...Resource) error {
	added := make([]*resource, 0, len(rs))
	for _, r := range rs {
		res, err := newResource(r)
		if err != nil {
			return err
		}
		added = append(added, res)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var static, templates []*resource
	for _, r := range added {
		if r.re == nil {
			static = append(static, r)
		} else {
			templates = append(templates, r)
		}
	}
	old := s.feat.resources.Load()
	if old == nil {
		old = &resourceSet{}
	}
	next := new(resourceSet)
	var err error
	if next.static, err = old.static.with(static, (*resource).uri, "mcp: resource %q is added twice"); err != nil {
		return err
	}
	if next.templates, err = old.templates.with(templates, (*resource).template, "mcp: resource template %q is added twice"); err != nil {
		return err
	}
	s.feat.resources.Store(next)
	s.announce(notifyResourcesChanged, kindResources)
	s.publish(EventResources, "")
	return nil
}

// RemoveResources removes the resources and templates whose URI or
// Template is one of uris, tells the clients as AddResources does, and
// reports how many there were.
func (s *Server) RemoveResources(uris ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.feat.resources.Load()
	if old == nil {
		return 0
	}
	next := new(resourceSet)
	var static, templates int
	next.static, static = old.static.without(uris)
	next.templates, templates = old.templates.without(uris)
	n := static + templates
	if n == 0 {
		return 0
	}
	s.feat.resources.Store(next)
	s.announce(notifyResourcesChanged, kindResources)
	s.publish(EventResources, "")
	return n
}

// Resources returns the URIs of the static resources and the templates,
// each sorted.
func (s *Server) Resources() (uris, templates []string) {
	set := s.feat.resources.Load()
	if set == nil {
		return nil, nil
	}
	return slices.Clone(set.static.sorted()), slices.Clone(set.templates.sorted())
}

// ResourceUpdated tells the clients subscribed to uri that it changed
// (notifications/resources/updated): the legacy sessions that sent
// resources/subscribe for it, and the modern subscriptions/listen calls
// whose resourceSubscriptions hold it. It never waits for a client: a
// notification a client does not read yet is sent once it does, and
// updates of one URI that come meanwhile are one update to tell. With
// Relay, the other instances' clients are told too.
func (s *Server) ResourceUpdated(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updated(uri)
	s.publish(EventUpdated, uri)
}

// updated tells the clients that asked to be told that uri was updated.
// s.mu is held.
func (s *Server) updated(uri string) {
	params := updatedParams(uri)
	for l := range s.listeners {
		l.update(uri)
	}
	s.prune()
	for c, conn := range s.sessions {
		if c.onUpdate != nil {
			c.onUpdate()
		}
		c.updated(conn, uri, params)
	}
}

// updatedParams are the params of notifications/resources/updated of uri.
func updatedParams(uri string) json.RawMessage {
	return append(jsonx.AppendString([]byte(`{"uri":`), uri), '}')
}

// newResource checks r and parses its template.
func newResource(r Resource) (*resource, error) {
	what := r.URI
	if r.URI == "" {
		what = r.Template
	}
	switch {
	case (r.URI == "") == (r.Template == ""):
		return nil, fmt.Errorf("mcp: resource %q: exactly one of URI and Template must be set", r.Name)
	case r.Name == "":
		return nil, fmt.Errorf("mcp: resource %q has no name", what)
	case r.Read == nil:
		return nil, fmt.Errorf("mcp: resource %q has no Read", what)
	case !utf8.ValidString(what):
		return nil, fmt.Errorf("mcp: resource %q is not valid UTF-8", what)
	case len(what) > MaxURI:
		return nil, fmt.Errorf("mcp: resource %q is longer than MaxURI (%d bytes)", jsonx.Shorten(what, 64), MaxURI)
	}
	if err := checkIcons("resource "+what, r.Icons); err != nil {
		return nil, err
	}
	for _, sc := range r.Scopes {
		if !oauth.IsScopeToken(sc) {
			return nil, fmt.Errorf("mcp: resource %q has the scope %q, which is not a scope-token (RFC 6749 §3.3)", what, sc)
		}
	}
	res := &resource{Resource: r}
	res.Scopes = slices.Compact(slices.Sorted(slices.Values(r.Scopes)))
	if len(r.Icons) > 0 {
		res.icons = append([]byte(`,"icons":`), mustJSON(r.Icons)...)
	}
	if len(res.Scopes) > 0 {
		res.schemes = append([]byte(`,"_meta":`), mustJSON(schemesOf(res.Scopes))...)
	}
	if r.Template != "" {
		t, err := parseTemplate(r.Template)
		if err == nil && normalURI(r.Template) != r.Template {
			t, err = parseTemplate(normalURI(r.Template)) // what it matches: normal URIs (lookup)
		}
		if err != nil {
			return nil, err
		}
		res.re, res.vars, res.parts = t.re, t.vars, t.parts
	}
	return res, nil
}

// template is a parsed URI template.
type template struct {
	parts []part
	re    *regexp.Regexp
	vars  []string
}

// part is a literal (name "") or a variable of a template.
type part struct {
	text     string // the literal
	name     string // the variable
	reserved bool   // {+name}
}

// unreservedRE and reservedRE match a variable's value in a URI: level 1
// ({name}), level 2 ({+name}).
const (
	unreservedRE = `((?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})*)`
	reservedRE   = `((?:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)`
)

// parseTemplate parses an RFC 6570 template of levels 1 and 2 ({name},
// {+name}).
func parseTemplate(text string) (*template, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("mcp: resource template %q is not valid UTF-8", text)
	}
	t := &template{}
	pattern := []byte{'^'}
	rest := text
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if closing := strings.IndexByte(rest, '}'); closing >= 0 && (open < 0 || closing < open) {
			return nil, fmt.Errorf("mcp: resource template %q: a } without its {", text)
		}
		if open < 0 {
			open = len(rest)
		}
		if open > 0 {
			if !pctEncoded(rest[:open]) {
				// RFC 6570 §2.1: a literal's "%" starts pct-encoded;
				// one cut by a variable would be completed by its value,
				// and the URI's normal form match no template.
				return nil, fmt.Errorf("mcp: resource template %q: a %% in its literal text is not followed by two hexadecimal digits", text)
			}
			t.parts = append(t.parts, part{text: rest[:open]})
			pattern = append(pattern, regexp.QuoteMeta(rest[:open])...)
			rest = rest[open:]
			continue
		}
		closing := strings.IndexByte(rest, '}')
		if closing < 0 {
			return nil, fmt.Errorf("mcp: resource template %q: a { without its }", text)
		}
		p := part{name: rest[1:closing]}
		rest = rest[closing+1:]
		if strings.HasPrefix(p.name, "+") {
			p.name, p.reserved = p.name[1:], true
		}
		if !validVarName(p.name) {
			return nil, fmt.Errorf("mcp: resource template %q: {%s} is not a variable of RFC 6570 level 1 or 2 ({name} or {+name}, the name of A-Z, a-z, 0-9, _ and .)", text, p.name)
		}
		if slices.Contains(t.vars, p.name) {
			return nil, fmt.Errorf("mcp: resource template %q: variable %s is used twice", text, p.name)
		}
		t.parts = append(t.parts, p)
		t.vars = append(t.vars, p.name)
		if p.reserved {
			pattern = append(pattern, reservedRE...)
		} else {
			pattern = append(pattern, unreservedRE...)
		}
	}
	pattern = append(pattern, '$')
	t.re = regexp.MustCompile(string(pattern))
	return t, nil
}

// validVarName reports whether name is a variable name of RFC 6570:
// ALPHA, DIGIT, "_", and "." between them.
func validVarName(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	for i := range len(name) {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// match returns the variables of uri if it matches the template. The
// regexp runs only on a URI that holds the template's literal text in
// order (mayMatch): a URI of another template costs no more than a
// search for text.
func (r *resource) match(uri string) (map[string]string, bool) {
	if !mayMatch(r.parts, uri) {
		return nil, false
	}
	m := r.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(r.vars))
	for i, name := range r.vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

// mayMatch reports whether uri holds the literals of parts in order, the
// first at its start and the last at its end when parts start or end with
// them: what any URI the template matches does.
func mayMatch(parts []part, uri string) bool {
	if len(parts) > 0 && parts[0].name == "" {
		if !strings.HasPrefix(uri, parts[0].text) {
			return false
		}
		uri, parts = uri[len(parts[0].text):], parts[1:]
	}
	if n := len(parts); n > 0 && parts[n-1].name == "" {
		if !strings.HasSuffix(uri, parts[n-1].text) {
			return false
		}
		uri, parts = uri[:len(uri)-len(parts[n-1].text)], parts[:n-1]
	}
	for _, p := range parts {
		if p.name != "" {
			continue
		}
		i := strings.Index(uri, p.text)
		if i < 0 {
			return false
		}
		uri = uri[i+len(p.text):]
	}
	return true
}

// ExpandURI expands an RFC 6570 template of levels 1 and 2, as a
// [Resource]'s Template has it: {name} is replaced by vars[name] with
// every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) percent-encoded,
// {+name} with the reserved characters kept too; a variable vars lacks is
// empty. It fails for a template that does not parse.
func ExpandURI(template string, vars map[string]string) (string, error) {
	t, err := parseTemplate(template)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.text)
			continue
		}
		v := vars[p.name]
		for i := range len(v) {
			c := v[i]
			keep := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 ||
				p.reserved && (strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 ||
					c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]))
			if keep {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// page returns the bounds of the page of keys (sorted) that params asks
// for: from the key after the cursor's (base64url of the last key sent),
// at most s.pageSize of them. A cursor costs one binary search.
func (s *Server) page(keys []string, params json.RawMessage) (start, end int, err error) {
	if cur := jsonx.Member(params, "cursor"); cur != nil {
		var text string
		after, err := []byte(nil), json.Unmarshal(cur, &text)
		if err == nil {
			after, err = base64.RawURLEncoding.DecodeString(text)
		}
		if err != nil || len(after) == 0 {
			return 0, 0, rpc.NewError(rpc.InvalidParams, "Invalid cursor")
		}
		start = sort.SearchStrings(keys, string(after))
		if start < len(keys) && keys[start] == string(after) {
			start++
		}
	}
	return start, min(start+s.pageSize, len(keys)), nil
}

// closePage ends a list whose page of keys ended at end: its nextCursor if
// more follow, a modern list's ttlMs and cacheScope, and the result.
func (s *Server) closePage(r revision, b []byte, keys []string, end int) json.RawMessage {
	if end < len(keys) {
		b = append(b, `,"nextCursor":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, []byte(keys[end-1]))
		b = append(b, '"')
	}
	if r.modern {
		b = append(b, s.listTail...)
	}
	return s.closeResult(r, b)
}

// listResources answers resources/list, or resources/templates/list when
// templates.
func (s *Server) listResources(r revision, req *rpc.Request, templates bool) (any, error) {
	set := s.feat.resources.Load()
	if set == nil {
		set = &resourceSet{}
	}
	keys, member := set.static.sorted(), `"resources":[`
	if templates {
		keys, member = set.templates.sorted(), `"resourceTemplates":[`
	}
	start, end, err := s.page(keys, req.Params)
	if err != nil {
		return nil, err
	}
	b := append(s.openResult(r), member...)
	for i, key := range keys[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		if templates {
			t := set.templates.items[key]
			b = append(b, `{"uriTemplate":`...)
			b = jsonx.AppendString(b, t.Template)
			b = appendMetadata(b, r.titles, t.Name, t.Title, t.Description, t.MIMEType, 0)
			b = t.appendTail(b, r)
		} else {
			res := set.static.items[key]
			b = append(b, '{')
			b = appendResource(b, r.titles, res.URI, res.Name, res.Title, res.Description, res.MIMEType, res.Size)
			b = res.appendTail(b, r)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	return s.closePage(r, b, keys, end), nil
}

// uriParam returns params' uri: a string of at most MaxURI bytes.
func uriParam(params json.RawMessage) (string, error) {
	v := jsonx.Member(params, "uri")
	if v == nil {
		return "", invalid(&service.FieldError{Field: "uri", Rule: "required", Message: "uri is required"})
	}
	uri, ok := stringValue(v)
	if !ok {
		return "", invalid(&service.FieldError{Field: "uri", Rule: "type", Param: "string", Message: "uri must be a string"})
	}
	if len(uri) > MaxURI {
		return "", invalid(&service.FieldError{Field: "uri", Rule: "max", Param: fmt.Sprint(MaxURI),
			Message: fmt.Sprintf("uri must be at most %d bytes long", MaxURI)})
	}
	return string(uri), nil
}

// notFound is the error of a resources/read of uri, which no resource has.
func notFound(r revision, uri string) error {
	code := ResourceNotFound
	if r.modern {
		code = rpc.InvalidParams
	}
	return rpc.NewError(code, "Resource not found").WithData(map[string]string{"uri": jsonx.Echo(uri)})
}

// lookup returns the resource that serves uri, and its variables: the
// static resource of that URI, else of its normal form (normalURI), else
// the first template, in the order of their text, that matches the
// normal form. A URI that percent-escapes an unreserved character names
// what the URI without the escape names, and needs its scopes: it never
// reaches, through a template that needs none, what a static resource or
// another template guards (RFC 3986 §6.2.2.2). It costs one or two map
// lookups, a search for each template's literal text, and one match,
// linear in len(uri), per template whose literal text uri holds in order.
func (set *resourceSet) lookup(uri string) (*resource, map[string]string) {
	if set == nil {
		return nil, nil
	}
	if res, ok := set.static.get(uri); ok {
		return res, nil
	}
	if normal := normalURI(uri); normal != uri {
		if res, ok := set.static.get(normal); ok {
			return res, nil
		}
		uri = normal
	}
	for _, p := range set.templates.sorted() {
		t := set.templates.items[p]
		if vars, ok := t.match(uri); ok {
			return t, vars
		}
	}
	return nil, nil
}

// normalURI returns uri with its percent-escapes of unreserved characters
// (ALPHA, DIGIT, "-", ".", "_", "~") decoded, as RFC 3986 §6.2.2.2
// normalizes them: the same URI. Other escapes ("%2F" is no "/") stay as
// they are. It is uri itself when there is none.
func normalURI(uri string) string {
	var b []byte
	done := 0 // uri[:done] is in b
	for i := strings.IndexByte(uri, '%'); i >= 0 && i+2 < len(uri); {
		if c, ok := unhex(uri[i+1], uri[i+2]); ok && unreserved(c) {
			b = append(append(b, uri[done:i]...), c)
			done = i + 3
			i += 2
		}
		next := strings.IndexByte(uri[i+1:], '%')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if b == nil {
		return uri
	}
	return string(append(b, uri[done:]...))
}

// pctEncoded reports whether every "%" of literal starts an escape: two
// hexadecimal digits follow it.
func pctEncoded(literal string) bool {
	for i := strings.IndexByte(literal, '%'); i >= 0; i = strings.IndexByte(literal, '%') {
		if i+2 >= len(literal) {
			return false
		}
		if _, ok := unhex(literal[i+1], literal[i+2]); !ok {
			return false
		}
		literal = literal[i+3:]
	}
	return true
}

// unhex returns the byte two hexadecimal digits write.
func unhex(hi, lo byte) (byte, bool) {
	h, ok1 := hexDigit(hi)
	l, ok2 := hexDigit(lo)
	return h<<4 | l, ok1 && ok2
}

// hexDigit returns the value of a hexadecimal digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// unreserved reports whether c is an unreserved character of RFC 3986
// §2.3.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// readResource answers resources/read.
func (s *Server) readResource(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	uri, err := uriParam(req.Params)
	if err != nil {
		return nil, err
	}
	res, vars := s.feat.resources.Load().lookup(uri)
	if res == nil {
		return nil, notFound(r, uri)
	}
	if err := lacking(ctx, "resource "+uri, res.Scopes); err != nil {
		return nil, err
	}
	what, args := "resource "+uri, json.RawMessage(nil)
	if r.modern { // a retry (Multi Round-Trip Requests)
		responses, state := jsonx.Member(req.Params, "inputResponses"), jsonx.Member(req.Params, "requestState")
		if responses != nil || state != nil {
			if ctx, err = s.retry(ctx, what, args, responses, state); err != nil {
				return nil, err
			}
		}
	}
	contents, err := res.Read(ctx, uri, vars)
	if answer, ok, err := s.asked(ctx, r, what, args, req.Meta, err); ok {
		return answer, err // it asks the client first, or needs what the client cannot give
	}
	if errors.Is(err, ErrResourceNotFound) {
		return nil, notFound(r, uri)
	}
	if err != nil {
		return nil, err
	}
	b := append(s.openResult(r), `"contents":[`...)
	for i := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		b = contents[i].appendTo(b, uri, res.MIMEType)
	}
	b = append(b, ']')
	if r.modern {
		b = append(b, s.listTail...)
	}
	return s.closeResult(r, b), nil
}

// subscribe answers resources/subscribe, or resources/unsubscribe when
// not on (legacy revisions): the session is told when the resource changes
// (ResourceUpdated), until it unsubscribes (an update not yet written when
// it does is not written). A URI no resource serves may
// be subscribed to: it may come later. At most MaxSubscriptions at once,
// of MaxSubscriptionBytes together.
// subscribedBytes is the bytes of the URIs subs holds.
func subscribedBytes(subs map[string]bool) int {
	n := 0
	for uri := range subs {
		n += len(uri)
	}
	return n
}

func (c *session) subscribe(r revision, req *rpc.Request, on bool) (any, error) {
	uri, err := uriParam(req.Params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !on {
		delete(c.state.subs, uri)
		// An update not yet written is not owed any more: what the session
		// is owed stays bounded by what it subscribes to.
		params := updatedParams(uri)
		c.out.owed = slices.DeleteFunc(c.out.owed, func(n notice) bool {
			return n.method == notifyResourceUpdated && string(n.params) == string(params)
		})
		return c.s.result(r, nil), nil
	}
	if !c.state.subs[uri] && len(c.state.subs) >= MaxSubscriptions {
		return nil, invalid(&service.FieldError{Field: "uri", Rule: "max", Param: fmt.Sprint(MaxSubscriptions),
			Message: fmt.Sprintf("a session subscribes to at most %d resources: unsubscribe from one first", MaxSubscriptions)})
	}
	if !c.state.subs[uri] && subscribedBytes(c.state.subs)+len(uri) > MaxSubscriptionBytes {
		return nil, invalid(&service.FieldError{Field: "uri", Rule: "max", Param: fmt.Sprint(MaxSubscriptionBytes),
			Message: fmt.Sprintf("a session subscribes to at most %d bytes of URIs: unsubscribe from one first", MaxSubscriptionBytes)})
	}
	if c.state.subs == nil {
		c.state.subs = map[string]bool{}
	}
	c.state.subs[uri] = true
	return c.s.result(r, nil), nil
}
