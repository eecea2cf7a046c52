package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// The rpc.discover document, read as an OpenRPC client reads it, agrees
// with the server on every method of the calculator and of Kinds: params
// built from the descriptors (by position, params[i] for descriptor i;
// by name, the member of its name), valid by the document when every
// param given is valid by its descriptor's schema (draft-07, the
// document's components resolved) and every required one is given, are
// not refused with -32602, and the others are. Where the method has
// x-params, the schema of the whole params, the same holds of it. The
// cases are generated from the document, with a fixed seed.
func TestOpenRPCAgreement(t *testing.T) {
	services := []struct {
		name string
		opts *service.Options
		rcvr any
	}{
		{"calculator", &service.Options{Names: service.SnakeCase}, &calc.Calculator{}},
		{"kinds", nil, Kinds{}},
	}
	log := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the calculator's notifications log
	t.Cleanup(func() { slog.SetDefault(log) })
	for _, sv := range services {
		s := service.New(sv.opts)
		require.NoError(t, s.Register("", sv.rcvr))
		doc, err := s.OpenRPC(service.Info{Title: sv.name, Version: "1"})
		require.NoError(t, err)
		for _, r := range agreement(t, s, doc) {
			t.Run(sv.name+"/"+r.method, func(t *testing.T) {
				t.Logf("%d of %d cases agree (%d valid by the document)", r.agree, r.total, r.valid)
				if r.agree != r.total {
					t.Errorf("%d of %d cases disagree, for example %s", r.total-r.agree, r.total, strings.Join(r.failures, "; "))
				}
				if r.noted > 0 {
					t.Logf("%d of them refused by a rule the document names only in x-validate", r.noted)
				}
				if r.described && (r.valid == 0 || r.valid == r.total) {
					t.Errorf("%d of %d cases are valid: the cases do not tell", r.valid, r.total)
				}
			})
		}
	}
}

// agreeResult is the tally of a method's cases.
type agreeResult struct {
	method              string
	total, agree, valid int
	noted               int      // agreeing cases refused by a rule named only in x-validate
	described           bool     // the method takes params: the cases are of both kinds
	failures            []string // the first few cases that disagree
}

// descriptor is a content descriptor as a client reads it.
type descriptor struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	schema   *jsonschema.Schema
	raw      any // the schema, generic JSON, to generate values from
}

// agreement runs the cases of every method of doc against s.
func agreement(t *testing.T, s *service.Service, doc []byte) []agreeResult {
	t.Helper()
	root, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	require.NoError(t, err)
	const url = "urn:toolrpc:openrpc"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	require.NoError(t, c.AddResource(url, root))
	g := &generator{doc: root, rnd: rand.New(rand.NewPCG(21, 3))}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // a method that runs (count) returns at once; params are bound before
	var out []agreeResult
	for i, m := range root.(map[string]any)["methods"].([]any) {
		m := m.(map[string]any)
		r := agreeResult{method: m["name"].(string)}
		var ds []descriptor
		for j, p := range m["params"].([]any) {
			p := p.(map[string]any)
			d := descriptor{Name: p["name"].(string), raw: p["schema"]}
			d.Required, _ = p["required"].(bool)
			d.schema, err = c.Compile(fmt.Sprintf("%s#/methods/%d/params/%d/schema", url, i, j))
			require.NoError(t, err)
			ds = append(ds, d)
		}
		check := func(params any, valid bool) {
			b, err := json.Marshal(params)
			require.NoError(t, err)
			_, err = s.Handle(ctx, &rpc.Request{ID: json.RawMessage(`1`), Method: r.method, Params: b})
			var ce *codec.Error
			refused := errors.As(err, &ce) && ce.Code == codec.InvalidParams
			r.total++
			if valid {
				r.valid++
			}
			if refused != valid {
				r.agree++
			} else if valid && xvalidated(ce, ds) {
				r.agree++ // documented: the rule is the x-validate of a descriptor
				r.noted++
			} else if len(r.failures) < 3 {
				r.failures = append(r.failures, fmt.Sprintf("%s (document: valid %v, server: %v)", b, valid, err))
			}
		}
		structure := m["paramStructure"]
		_, r.described = m["x-params"]
		r.described = r.described || len(ds) > 0
		for range 300 {
			if structure != "by-name" { // by-position or either
				n := len(ds)
				for n > 0 && !ds[n-1].Required && g.rnd.IntN(2) == 0 {
					n-- // trailing optional ones left out
				}
				if n > 0 && g.rnd.IntN(8) == 0 {
					n-- // one too few, which may leave out a required one
				}
				params, valid := []any{}, true
				for _, d := range ds[:n] {
					v := g.param(d.raw)
					params = append(params, v)
					valid = valid && d.schema.Validate(g.instance(v)) == nil
				}
				for _, d := range ds[n:] {
					valid = valid && !d.Required
				}
				check(params, valid)
			}
			if structure != "by-position" { // by-name or either
				params, valid := map[string]any{}, true
				for _, d := range ds {
					if g.rnd.IntN(8) == 0 || !d.Required && g.rnd.IntN(2) == 0 {
						valid = valid && !d.Required
						continue
					}
					v := g.param(d.raw)
					params[d.Name] = v
					valid = valid && d.schema.Validate(g.instance(v)) == nil
				}
				check(params, valid)
			}
		}
		if _, ok := m["x-params"]; ok {
			whole, err := c.Compile(fmt.Sprintf("%s#/methods/%d/x-params", url, i))
			require.NoError(t, err)
			for range 300 {
				v := g.param(m["x-params"])
				check(v, whole.Validate(g.instance(v)) == nil)
			}
		}
		out = append(out, r)
	}
	return out
}

// xvalidated reports whether every problem of ce is a rule that a
// descriptor of ds names in its x-validate: a rule draft-07 cannot say
// (required_with: a member required when another is given), which the
// document states, as the schemas of Service.Describe do, in x-validate.
func xvalidated(ce *codec.Error, ds []descriptor) bool {
	fes, ok := ce.Data.(service.FieldErrors)
	if !ok || len(fes) == 0 {
		return false
	}
	for _, fe := range fes {
		named := false
		for _, d := range ds {
			if m, ok := d.raw.(map[string]any); ok {
				x, _ := m["x-validate"].(string)
				named = named || fe.Rule != "" && strings.Contains(x, fe.Rule+"=")
			}
		}
		if !named {
			return false
		}
	}
	return true
}

// generator makes values for schemas of an OpenRPC document: mostly ones
// the schema might take (near its bounds), sometimes anything.
type generator struct {
	doc any
	rnd *rand.Rand
}

// instance is v as the validator reads JSON.
func (g *generator) instance(v any) any {
	b, _ := json.Marshal(v)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	return out
}

// param is a value for schema s: one of its shape nine times in ten.
func (g *generator) param(s any) any {
	if g.rnd.IntN(10) == 0 {
		return g.junk(2)
	}
	return g.value(s, 3)
}

// junk is any JSON value.
func (g *generator) junk(depth int) any {
	switch k := g.rnd.IntN(9); {
	case k == 0:
		return nil
	case k == 1:
		return g.rnd.IntN(2) == 0
	case k == 2:
		return g.rnd.IntN(600) - 300
	case k == 3:
		return g.rnd.Float64()*100 - 50
	case k == 4:
		return []string{"", "a", "hello", "0", "x-y"}[g.rnd.IntN(5)]
	case k == 5 && depth > 0:
		out := []any{}
		for range g.rnd.IntN(4) {
			out = append(out, g.junk(depth-1))
		}
		return out
	case k == 6 && depth > 0:
		out := map[string]any{}
		for range g.rnd.IntN(3) {
			out[[]string{"a", "b", "v", "name", "k"}[g.rnd.IntN(5)]] = g.junk(depth - 1)
		}
		return out
	}
	return 1
}

// resolve follows s's $ref into the document's components.
func (g *generator) resolve(s map[string]any) map[string]any {
	for range 10 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var v any = g.doc
		for _, seg := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			v = v.(map[string]any)[seg]
		}
		s, _ = v.(map[string]any)
	}
	return s
}

// value is a value of the shape of schema s.
func (g *generator) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth < 0 {
		return g.junk(1)
	}
	m = g.resolve(m)
	if m == nil {
		return g.junk(1)
	}
	if e, ok := m["enum"].([]any); ok && g.rnd.IntN(4) != 0 {
		return e[g.rnd.IntN(len(e))]
	}
	if c, ok := m["const"]; ok && g.rnd.IntN(4) != 0 {
		return c
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return g.value(alts[g.rnd.IntN(len(alts))], depth-1)
		}
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			types = append(types, e.(string))
		}
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil:
			types = []string{"object"}
		case m["items"] != nil:
			types = []string{"array"}
		default:
			return g.junk(2)
		}
	}
	switch types[g.rnd.IntN(len(types))] {
	case "null":
		return nil
	case "boolean":
		return g.rnd.IntN(2) == 0
	case "integer", "number":
		var near []float64
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if n, ok := m[k].(json.Number); ok {
				f, _ := n.Float64()
				near = append(near, f-1, f, f+1)
			}
		}
		if not, ok := m["not"].(map[string]any); ok {
			if n, ok := not["const"].(json.Number); ok {
				f, _ := n.Float64()
				near = append(near, f)
			}
		}
		near = append(near, 0, 1, 7, -3, 1e6)
		f := near[g.rnd.IntN(len(near))]
		if g.rnd.IntN(6) == 0 {
			return f + 0.5
		}
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
	case "string":
		n := g.rnd.IntN(4)
		if l, ok := m["minLength"].(json.Number); ok {
			k, _ := l.Int64()
			n = int(k) + g.rnd.IntN(3) - 1
		}
		return strings.Repeat("a", max(n, 0))
	case "array":
		n := g.rnd.IntN(5)
		for _, k := range []string{"minItems", "maxItems"} {
			if l, ok := m[k].(json.Number); ok && g.rnd.IntN(2) == 0 {
				v, _ := l.Int64()
				n = max(int(v)+g.rnd.IntN(3)-1, 0)
			}
		}
		out := []any{}
		for j := range n {
			switch it := m["items"].(type) {
			case []any:
				if j < len(it) {
					out = append(out, g.value(it[j], depth-1))
				} else {
					out = append(out, g.value(m["additionalItems"], depth-1))
				}
			default:
				out = append(out, g.value(it, depth-1))
			}
		}
		return out
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range props {
				if !yield(k) {
					return
				}
			}
		}) {
			if slices.Contains(req, any(k)) && g.rnd.IntN(10) != 0 || g.rnd.IntN(2) == 0 {
				out[k] = g.value(props[k], depth-1)
			}
		}
		if ap, ok := m["additionalProperties"]; ok && ap != false || props == nil {
			for range g.rnd.IntN(3) {
				out[[]string{"a", "b", "zz", "k1"}[g.rnd.IntN(4)]] = g.value(ap, depth-1)
			}
		} else if g.rnd.IntN(10) == 0 {
			out["unknown"] = 1
		}
		return out
	}
	return g.junk(1)
}
