package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/internal/wiretest/jsonref"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
	"github.com/toolrpc/toolrpc/service"
)

// taker has one method, which takes a T: a service serving it binds and
// validates params into a T, as it would for any method.
type taker[T any] struct{}

func (taker[T]) Take(T) error { return nil }

// subject is a method with both of its judges: the server (binder and
// validator, through the service's Handler) and the schema (through an
// independent JSON Schema 2020-12 validator). The method is take of a
// taker[T], judged against schema.For(T), or a method of a registered
// service, judged against the schema the service publishes for it.
type subject struct {
	name   string
	method string
	typ    reflect.Type   // what the params bind into (one parameter)
	tuple  []reflect.Type // or: one value per parameter, by position
	svc    *service.Service
	raw    any // the schema, decoded
	schema *jsonschema.Schema
	// The schema of the positional form of a method of one struct
	// parameter (MethodInfo.Params): one value per property, in their
	// order, exactly as many. Nil for other methods.
	arrRaw    any
	arrSchema *jsonschema.Schema
	// anything: the schema takes any object or array (json.RawMessage),
	// so no case is refused.
	anything bool
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
	name := typ.String()
	if allowUnknown {
		name += "/open"
	}
	s := &subject{name: name, method: "take", typ: typ, svc: svc}
	info, _ := svc.Method("take")
	s.judgedBy(t, doc, info.ParamStructure == service.Either)
	return s
}

// newMethodSubject is the method registered as name in svc, whose Go
// receiver is rcvr, judged against the schema svc publishes for it.
func newMethodSubject(t testing.TB, label string, svc *service.Service, rcvr any, name string) *subject {
	info, ok := svc.Method(name)
	if !ok {
		t.Fatalf("no method %s", name)
	}
	m, ok := reflect.TypeOf(rcvr).MethodByName(info.GoName)
	if !ok {
		t.Fatalf("no Go method %s", info.GoName)
	}
	var ps []reflect.Type
	for i := 1; i < m.Type.NumIn(); i++ {
		if pt := m.Type.In(i); i > 1 || pt != reflect.TypeFor[context.Context]() {
			ps = append(ps, pt)
		}
	}
	s := &subject{name: label + "." + name, method: name, svc: svc}
	switch {
	case info.Params == nil:
		// No params: absent, [] or {}, as MethodInfo.Params documents nil.
		s.compile(t, map[string]any{"$schema": schema.Dialect, "type": []any{"object", "array"},
			"maxItems": json.Number("0"), "maxProperties": json.Number("0")})
		return s
	case info.ParamStructure == service.ByPosition && info.Params.PrefixItems != nil:
		s.tuple = ps
	default:
		s.typ = ps[0]
		s.anything = s.typ == rawMessageType
	}
	s.judgedBy(t, info.Params, info.ParamStructure == service.Either)
	return s
}

// judgedBy makes doc s's schema, and if either (the method of one struct
// parameter, which takes positional params too), the positional form of
// doc.
func (s *subject) judgedBy(t testing.TB, doc *schema.Schema, either bool) {
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s.compile(t, raw)
	if !either || doc.Properties == nil {
		return
	}
	// One value per property, in the order of the properties.
	m := raw.(map[string]any)
	props := m["properties"].(map[string]any)
	n := len(doc.PropertyOrder)
	if n != len(props) {
		t.Fatalf("%s: properties %v, in order %v", s.name, props, doc.PropertyOrder)
	}
	items := make([]any, n)
	for i, name := range doc.PropertyOrder {
		items[i] = props[name]
	}
	arr := map[string]any{"$schema": schema.Dialect, "type": "array", "prefixItems": items,
		"items": false, "minItems": json.Number(strconv.Itoa(n)), "maxItems": json.Number(strconv.Itoa(n))}
	for _, k := range []string{"$defs", "x-validate"} {
		if v, ok := m[k]; ok {
			arr[k] = v
		}
	}
	s.arrRaw, s.arrSchema = arr, s.compileOne(t, "positional", arr)
}

// compile makes raw s's schema.
func (s *subject) compile(t testing.TB, raw any) {
	s.raw, s.schema = raw, s.compileOne(t, "named", raw)
}

func (s *subject) compileOne(t testing.TB, form string, raw any) *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	loc := "mem:///" + url.PathEscape(s.name) + "/" + form + ".json"
	if err := c.AddResource(loc, raw); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		text, _ := json.Marshal(raw)
		t.Fatalf("%s: the schema does not compile: %v\n%s", s.name, err, text)
	}
	return compiled
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
			newSubject[Defaulted](t, open),
			newSubject[[]Item](t, open),
			newSubject[*Item](t, open),
			newSubject[map[string]Item](t, open),
			newSubject[[]int](t, open),
		)
	}
	return append(out, methodSubjects(t)...)
}

// methodSubjects are the methods of the calculator and of methodShapes, as
// their services publish them.
func methodSubjects(t testing.TB) []*subject {
	var out []*subject
	calcSvc := service.New(&service.Options{Names: service.SnakeCase})
	if err := calcSvc.Register("", &calc.Calculator{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range calcSvc.Methods() {
		out = append(out, newMethodSubject(t, "calc", calcSvc, &calc.Calculator{}, name))
	}
	for _, open := range []bool{false, true} {
		svc := service.New(&service.Options{AllowUnknownFields: open})
		if err := svc.Register("", methodShapes{}); err != nil {
			t.Fatal(err)
		}
		label := "shapes"
		if open {
			label += "/open"
		}
		for _, name := range svc.Methods() {
			out = append(out, newMethodSubject(t, label, svc, methodShapes{}, name))
		}
	}
	return out
}

// methodShapes has a method of every shape a service serves.
type methodShapes struct{}

func (methodShapes) One(Item) error                                               { return nil }
func (methodShapes) Ptr(*Item) error                                              { return nil }
func (methodShapes) Deep(context.Context, Nested) error                           { return nil }
func (methodShapes) List([]Item) error                                            { return nil }
func (methodShapes) ByName(map[string]Item) error                                 { return nil }
func (methodShapes) Raw(json.RawMessage) error                                    { return nil }
func (methodShapes) Several(context.Context, Item, *Inner, int8, []string) error  { return nil }
func (methodShapes) Mixed(Basic, *Numbers, map[string]int, []Item, *uint16) error { return nil }
func (methodShapes) Decoded(Level) error                                          { return nil }
func (methodShapes) Scalar(uint8) error                                           { return nil }
func (methodShapes) None() error                                                  { return nil }
func (methodShapes) NoneCtx(context.Context) error                                { return nil }

// fieldError is the part of a -32602 data entry the check reads.
type fieldError struct {
	Field string `json:"field"`
	Rule  string `json:"rule"`
	Param string `json:"param"`
}

// serve calls the method with params: nil if the server accepts them, the
// problems it lists if not.
func (s *subject) serve(params []byte) (accepted bool, problems []fieldError, err error) {
	_, herr := s.svc.Handle(context.Background(), &rpc.Request{ID: json.RawMessage("1"), Method: s.method, Params: params})
	if herr == nil {
		return true, nil, nil
	}
	var ce *codec.Error
	if !errors.As(herr, &ce) {
		// The method ran (calc's count, without a progress reporter,
		// returns an error): the params were accepted.
		return true, nil, nil
	}
	if ce.Code != codec.InvalidParams {
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
	raw            any // the schema judged by: the named or the positional form
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
	sch := s.schema
	v.raw = s.raw
	if p := bytes.TrimLeft(params, " \t\r\n"); s.arrSchema != nil && len(p) > 0 && p[0] == '[' {
		sch, v.raw = s.arrSchema, s.arrRaw
	}
	v.schemaErr = sch.Validate(inst)
	v.schema = v.schemaErr == nil
	return v, nil
}

// disagreement explains why v breaks the property, or is "" if it holds:
// whatever the server accepts, the schema accepts; and whatever the schema
// accepts, the server accepts, unless every problem the server finds lies
// under a rule the schema names in x-validate (says less about).
// wide are the 64-bit integer types, whose range the schema leaves out.
var wide = map[string]bool{"int": true, "int64": true, "uint": true, "uint64": true, "uintptr": true}

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
			// The validator names the members of a struct given by
			// position as it does when they are named.
			// A 64-bit integer's range is not published (see scalarShape).
			if p.Rule == "range" && wide[p.Param] {
				continue
			}
			if p.Rule != "duplicate" && p.Rule != "more" && !annotated(v.raw, p.Field) && !annotated(s.raw, p.Field) {
				return fmt.Sprintf("the schema accepts, the server refuses: %+v", v.problems)
			}
		}
	}
	return ""
}

// annotated reports whether a schema on the way to the value at path (a
// FieldError's field) carries x-validate, in the schema root.
func annotated(root any, path string) bool {
	nodes := expand(root, root)
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
			nodes = append(nodes, expand(root, n)...)
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
// $ref (into root), allOf and anyOf.
func expand(root, n any) []any {
	out := []any{n}
	m, ok := n.(map[string]any)
	if !ok {
		return out
	}
	if ref, ok := m["$ref"].(string); ok {
		target := root
		if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
			target = root.(map[string]any)["$defs"].(map[string]any)[name]
		}
		out = append(out, expand(root, target)...)
	}
	for _, k := range []string{"allOf", "anyOf"} {
		if list, ok := m[k].([]any); ok {
			for _, c := range list {
				out = append(out, expand(root, c)...)
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
// (in any notation: 3, 3.0, 3e0, -0.0, as the binder reads it) of 30
// digits at most, any other number with 6 significant digits at most and
// a magnitude between 1e-30 and 1e30. Numbers are compared after rounding
// to the Go type: the schema cannot say that (see the package
// documentation).
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
		if e := strings.IndexAny(s, "eE"); e >= 0 && len(strings.TrimLeft(s[e+1:], "+-0")) > 3 {
			return false // an exponent big.Rat would spend long on, far beyond 1e30
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return false
		}
		abs := new(big.Rat).Abs(r)
		if r.IsInt() {
			if len(abs.Num().String()) > 30 {
				return false
			}
			continue
		}
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
			accepted, excused, failures, positional := 0, 0, 0, 0
			for _, c := range cases {
				if s.arrSchema != nil && c[0] == '[' {
					positional++
				}
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
			form := ""
			if s.arrSchema != nil {
				form = fmt.Sprintf(" (%d of them by position)", positional)
			}
			t.Logf("%s: %d cases%s: %d accepted, %d refused (%d of them under an x-validate)", s.name,
				len(cases), form, accepted, len(cases)-accepted, excused)
			if accepted == 0 || (accepted == len(cases) && !s.anything) {
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
