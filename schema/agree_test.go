package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest/jsonref"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
	"github.com/toolrpc/toolrpc/service"
)

// taker has one method, which takes a T: a service serving it binds and
// validates params into a T, as it would for any method.
type taker[T any] struct{}

func (taker[T]) Take(T) error { return nil }

// subject is a test type with both of its judges: the server (binder and
// validator, through the service's Handler) and the schema (through an
// independent JSON Schema 2020-12 validator).
type subject struct {
	name   string
	typ    reflect.Type
	svc    *service.Service
	doc    *schema.Schema
	raw    any // doc, decoded
	schema *jsonschema.Schema
}

func newSubject[T any](t testing.TB, allowUnknown bool) *subject {
	svc := service.New(&service.Options{AllowUnknownFields: allowUnknown})
	if err := svc.Register("", taker[T]{}); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[T]()
	doc, err := schema.New(&schema.Options{AllowUnknownFields: allowUnknown}).For(typ)
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + typ.String() + ".json"
	if err := c.AddResource(url, raw); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: the schema does not compile: %v\n%s", typ, err, text)
	}
	name := typ.String()
	if allowUnknown {
		name += "/open"
	}
	return &subject{name: name, typ: typ, svc: svc, doc: doc, raw: raw, schema: compiled}
}

func subjects(t testing.TB) []*subject {
	var out []*subject
	for _, open := range []bool{false, true} {
		out = append(out,
			newSubject[Basic](t, open),
			newSubject[Numbers](t, open),
			newSubject[Strings](t, open),
			newSubject[Collections](t, open),
			newSubject[Nested](t, open),
			newSubject[Custom](t, open),
			newSubject[Annotated](t, open),
			newSubject[[]Item](t, open),
			newSubject[*Item](t, open),
			newSubject[map[string]Item](t, open),
			newSubject[[]int](t, open),
		)
	}
	return out
}

// fieldError is the part of a -32602 data entry the check reads.
type fieldError struct {
	Field string `json:"field"`
	Rule  string `json:"rule"`
}

// serve calls the method with params: nil if the server accepts them, the
// problems it lists if not.
func (s *subject) serve(params []byte) (accepted bool, problems []fieldError, err error) {
	_, herr := s.svc.Handle(context.Background(), &rpc.Request{ID: json.RawMessage("1"), Method: "take", Params: params})
	if herr == nil {
		return true, nil, nil
	}
	var ce *codec.Error
	if !errors.As(herr, &ce) || ce.Code != codec.InvalidParams {
		return false, nil, fmt.Errorf("not an InvalidParams error: %w", herr)
	}
	data, err := json.Marshal(ce.Data)
	if err != nil {
		return false, nil, err
	}
	if err := json.Unmarshal(data, &problems); err != nil {
		return false, nil, fmt.Errorf("data %s: %w", data, err)
	}
	return false, problems, nil
}

// verdict is what the two judges made of one params.
type verdict struct {
	server, schema bool
	problems       []fieldError
	schemaErr      error
}

// judge asks both. An error is a broken test, not a disagreement.
func (s *subject) judge(params []byte) (verdict, error) {
	var v verdict
	var err error
	if v.server, v.problems, err = s.serve(params); err != nil {
		return v, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return v, err
	}
	v.schemaErr = s.schema.Validate(inst)
	v.schema = v.schemaErr == nil
	return v, nil
}

// disagreement explains why v breaks the property, or is "" if it holds:
// whatever the server accepts, the schema accepts; and whatever the schema
// accepts, the server accepts, unless every problem the server finds lies
// under a rule the schema names in x-validate (says less about).
func (s *subject) disagreement(v verdict) string {
	switch {
	case v.server && !v.schema:
		return fmt.Sprintf("the server accepts, the schema refuses: %v", v.schemaErr)
	case !v.server && v.schema:
		for _, p := range v.problems {
			// A member, or a map key, given twice (maybe spelled twice: "1"
			// and "01" are the same int key): JSON Schema reads no duplicates.
			// "more" counts the problems past the list's bound: the listed
			// ones are judged.
			if p.Rule != "duplicate" && p.Rule != "more" && !s.annotated(p.Field) {
				return fmt.Sprintf("the schema accepts, the server refuses: %+v", v.problems)
			}
		}
	}
	return ""
}

// annotated reports whether a schema on the way to the value at path (a
// FieldError's field) carries x-validate.
func (s *subject) annotated(path string) bool {
	nodes := s.expand(s.raw)
	for _, seg := range splitPath(path) {
		if hasAnnotation(nodes) {
			return true
		}
		var next []any
		for _, n := range nodes {
			m, ok := n.(map[string]any)
			if !ok {
				continue
			}
			if seg.index >= 0 {
				if items, ok := m["prefixItems"].([]any); ok && seg.index < len(items) {
					next = append(next, items[seg.index])
				} else if it, ok := m["items"]; ok {
					next = append(next, it)
				}
				continue
			}
			if props, ok := m["properties"].(map[string]any); ok {
				if p, ok := props[seg.name]; ok {
					next = append(next, p)
					continue
				}
			}
			if ap, ok := m["additionalProperties"]; ok {
				next = append(next, ap)
			}
		}
		nodes = nil
		for _, n := range next {
			nodes = append(nodes, s.expand(n)...)
		}
	}
	return hasAnnotation(nodes)
}

func hasAnnotation(nodes []any) bool {
	for _, n := range nodes {
		if m, ok := n.(map[string]any); ok && m["x-validate"] != nil {
			return true
		}
	}
	return false
}

// expand returns n and the schemas it applies at the same place: through
// $ref, allOf and anyOf.
func (s *subject) expand(n any) []any {
	out := []any{n}
	m, ok := n.(map[string]any)
	if !ok {
		return out
	}
	if ref, ok := m["$ref"].(string); ok {
		target := s.raw
		if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
			target = s.raw.(map[string]any)["$defs"].(map[string]any)[name]
		}
		out = append(out, s.expand(target)...)
	}
	for _, k := range []string{"allOf", "anyOf"} {
		if list, ok := m[k].([]any); ok {
			for _, c := range list {
				out = append(out, s.expand(c)...)
			}
		}
	}
	return out
}

type segment struct {
	name  string
	index int // -1: a name
}

// splitPath splits a FieldError's field: items[2].qty, tags["a.b"].
func splitPath(p string) []segment {
	var out []segment
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, `["`):
			end := 2
			for end < len(p) && !(p[end] == '"' && p[end-1] != '\\') {
				end++
			}
			name, err := strconv.Unquote(p[1 : end+1])
			if err != nil {
				return out
			}
			out = append(out, segment{name: name, index: -1})
			p = p[min(end+2, len(p)):]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return out
			}
			out = append(out, segment{index: n})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, segment{name: p[:end], index: -1})
			p = p[end:]
		}
	}
	return out
}

// canonical reports whether every number in the JSON text b is written so
// that the binder and exact arithmetic read the same value: an integer
// without fraction or exponent (30 digits at most), any other number with 6
// significant digits at most and a magnitude between 1e-30 and 1e30. The
// binder refuses an integral value written otherwise into an integer (1.0),
// and numbers are compared after rounding to the Go type: the schema cannot
// say either (see the package documentation).
func canonical(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return err.Error() == "EOF"
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		s := string(n)
		if !strings.ContainsAny(s, ".eE") {
			if len(strings.TrimLeft(s, "-")) > 30 {
				return false
			}
			continue
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok || r.IsInt() {
			return false
		}
		abs := new(big.Rat).Abs(r)
		if abs.Cmp(new(big.Rat).SetFloat64(1e-30)) < 0 || abs.Cmp(new(big.Rat).SetFloat64(1e30)) > 0 {
			return false
		}
		mant, _, _ := strings.Cut(strings.ToLower(strings.TrimLeft(s, "-")), "e")
		digits := strings.Trim(strings.Replace(mant, ".", "", 1), "0")
		if len(digits) > 6 {
			return false
		}
	}
}

// TestAgreement generates params for every test type (valid, on the
// boundaries, and invalid: wrong types, out of range, too long or short,
// not in an enum, members missing or unknown, nested) and checks that the
// server and the schema agree on each.
func TestAgreement(t *testing.T) {
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			n := 600
			if testing.Short() {
				n = 100
			}
			cases := generate(s, 1, n)
			accepted, excused, failures := 0, 0, 0
			for _, c := range cases {
				if !canonical(c) {
					t.Fatalf("generated %s: a number the property does not cover", c)
				}
				v, err := s.judge(c)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				if v.server {
					accepted++
				}
				if !v.server && v.schema {
					excused++
				}
				if why := s.disagreement(v); why != "" {
					failures++
					if failures <= 10 {
						t.Errorf("params %s: %s", c, why)
					}
				}
			}
			t.Logf("%d cases: %d accepted, %d refused (%d of them under an x-validate)",
				len(cases), accepted, len(cases)-accepted, excused)
			if accepted == 0 || accepted == len(cases) {
				t.Errorf("the cases do not test both sides: %d of %d accepted", accepted, len(cases))
			}
		})
	}
}

// FuzzAgreement holds the property on any params: the seeds are the
// generated cases, and the fuzzer mutates them.
func FuzzAgreement(f *testing.F) {
	ss := subjects(f)
	for i, s := range ss {
		for _, c := range generate(s, 2, 40) {
			f.Add(uint8(i), c)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		s := ss[int(which)%len(ss)]
		if !jsonref.Valid(params) || !canonical(params) || duplicates(params) {
			return // a member given twice: JSON Schema reads only the last
		}
		if p := bytes.TrimLeft(params, " \t\r\n"); len(p) == 0 || (p[0] != '{' && p[0] != '[') {
			return // not params: the codec refuses them before any method runs
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(params, &members) == nil {
			if _, ok := members["_meta"]; ok {
				return // the protocol's metadata, never a param
			}
		}
		v, err := s.judge(params)
		if err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if why := s.disagreement(v); why != "" {
			t.Errorf("%s: params %s: %s", s.name, params, why)
		}
	})
}

// duplicates reports whether an object in the JSON text b has a member
// name twice.
func duplicates(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		names  map[string]bool
		object bool
		key    bool // the next token is a member name
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if name, ok := tok.(string); ok {
				if top.names[name] {
					return true
				}
				top.names[name] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true // a value ended
		}
	}
}
