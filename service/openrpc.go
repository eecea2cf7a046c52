package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/bind"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
)

// OpenRPCVersion is the version of the OpenRPC specification that
// [Service.OpenRPC] documents follow.
const OpenRPCVersion = "1.3.2"

// Info is the info object of an OpenRPC document: what the service is.
type Info struct {
	Title       string // required by OpenRPC: the service's name
	Version     string // required by OpenRPC: the version of the service (not of OpenRPC)
	Description string // optional
}

// OpenRPC returns the OpenRPC 1.3.2 document of the registered methods,
// sorted by name, as JSON: info, then each method's params as content
// descriptors, its paramStructure, its result (null where it returns
// none) and the errors it can answer: InvalidParams, with a list of
// [FieldError] as data, for a method that takes params (a reference to
// components.errors.InvalidParams).
//
// The document says what the server takes as OpenRPC reads it (by
// position, params[i] is descriptor i; by name, the member of the
// descriptor's name):
//   - a struct taken by name has one descriptor per property, in the
//     order of its properties, required as its schema says; its
//     paramStructure is either if every one is required, and by-name
//     otherwise, since by position every field must be given, which one
//     required per descriptor cannot say beside the named form;
//   - params taken by position, one value per parameter, have one
//     required descriptor per parameter, param1, param2...;
//   - a slice, the whole params array, has one required descriptor per
//     item its schema requires (minItems), item1, item2..., and one more,
//     optional, if the array may be longer: OpenRPC cannot describe any
//     number of params;
//   - a map or json.RawMessage has none: OpenRPC cannot name members of
//     any name.
//
// Where the descriptors cannot say all of the params (a slice, a map,
// json.RawMessage), the method's x-params, an extension, is the schema
// of the whole params. Unknown named members, which the server refuses,
// and rules between members (x-validate), OpenRPC cannot express.
//
// The schemas are those of [Service.Describe], converted from JSON Schema
// 2020-12 to draft-07, the dialect of OpenRPC: $defs become
// components.schemas (renamed on a clash) and references point there,
// prefixItems becomes an items array and items after it additionalItems,
// dependentRequired becomes dependencies, a $ref with other keywords
// beside it goes into an allOf (draft-07 ignores them), and $schema is
// dropped. A schema that refers to its own root is itself put in
// components.schemas, under the method's name.
func (s *Service) OpenRPC(info Info) (json.RawMessage, error) {
	d := openrpcDoc{svc: s, components: map[string]any{}, raw: map[string]string{}}
	methods := make([]any, 0, len(s.methods))
	for _, mi := range s.Describe() {
		m, err := d.method(mi)
		if err != nil {
			return nil, fmt.Errorf("service: rpc.discover: method %s: %w", mi.Name, err)
		}
		methods = append(methods, m)
	}
	infoObj := obj{{"title", info.Title}, {"version", info.Version}}
	if info.Description != "" {
		infoObj = append(infoObj, kv{"description", info.Description})
	}
	doc := obj{{"openrpc", OpenRPCVersion}, {"info", infoObj}, {"methods", methods}}
	var components obj
	if d.errors {
		components = append(components, kv{"errors", map[string]any{"InvalidParams": invalidParamsError}})
	}
	if len(d.components) > 0 {
		components = append(components, kv{"schemas", d.components})
	}
	if components != nil {
		doc = append(doc, kv{"components", components})
	}
	return json.Marshal(doc)
}

// ServeDiscover makes s answer rpc.discover ([rpc.Discover]) with its
// OpenRPC document ([Service.OpenRPC]) with info. The document is built
// at the first rpc.discover, once: register every value before serving,
// as always. The method takes no params (absent, [] or {}), and is not
// one of [Service.Methods]: it is the framework's, not a registered one.
func (s *Service) ServeDiscover(info Info) {
	s.discover = &discovery{info: info}
}

// discovery is the state of rpc.discover: its info and, once built, its
// document.
type discovery struct {
	info Info
	once sync.Once
	doc  json.RawMessage
	err  error
}

// discoverCall answers rpc.discover with params.
func (s *Service) discoverCall(ctx context.Context, params json.RawMessage) (any, error) {
	none, err := bind.Params(nil, false, false, false)
	if err != nil {
		return nil, err
	}
	probe := &method{mode: bindNone, decode: none, svc: s}
	if _, err := probe.bind(ctx, params, nil); err != nil {
		return nil, err
	}
	d := s.discover
	d.once.Do(func() { d.doc, d.err = s.OpenRPC(d.info) })
	if d.err != nil {
		return nil, rpc.NewError(codec.InternalError, "")
	}
	return d.doc, nil
}

// kv and obj are a JSON object whose members keep their order.
type kv struct {
	k string
	v any
}
type obj []kv

// MarshalJSON writes o's members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, m.k)
		b = append(b, ':')
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// openrpcDoc gathers the components.schemas of a document.
type openrpcDoc struct {
	svc        *Service
	components map[string]any
	raw        map[string]string // each component's 2020-12 JSON, to compare
	errors     bool              // a method refers to components.errors.InvalidParams
}

// invalidParamsError is the error object of InvalidParams, with the shape
// of its data, in components.errors; each method that takes params refers
// to it.
var invalidParamsError = obj{
	{"code", int(codec.InvalidParams)},
	{"message", "Invalid params"},
	{"data", obj{
		{"description", "one entry per problem found, at most MaxFieldErrors and then one of rule more"},
		{"type", "array"},
		{"items", obj{
			{"type", "object"},
			{"properties", obj{
				{"field", obj{{"type", "string"}, {"description", "the JSON path of the value at fault; empty for the params as a whole"}}},
				{"rule", obj{{"type", "string"}, {"description", "the validate rule that failed, or type, range, unknown, duplicate, count, shape, syntax, more"}}},
				{"param", obj{{"type", "string"}, {"description", "the rule's parameter, or the type expected"}}},
				{"message", obj{{"type", "string"}}},
			}},
			{"required", []string{"field", "rule", "message"}},
			{"additionalProperties", false},
		}},
	}},
}

// method is the method object of mi.
func (d *openrpcDoc) method(mi MethodInfo) (obj, error) {
	var params []any
	var xparams any // the schema of the whole params, where descriptors cannot say it
	if mi.Params != nil {
		root, err := d.convert(mi.Params, mi.Name+".params")
		if err != nil {
			return nil, err
		}
		if m, ok := root.(map[string]any); ok { // the root itself, not a reference to it
			if ref, ok := m["$ref"].(string); ok && len(m) == 1 {
				root = d.components[strings.TrimPrefix(ref, "#/components/schemas/")]
			}
		}
		if err := d.inlineItems(mi, root); err != nil {
			return nil, err
		}
		params, xparams = d.descriptors(mi, root)
	} else {
		params = []any{}
	}
	structure := string(mi.ParamStructure)
	if mi.ParamStructure == Either && !allRequired(params) {
		// Positional params of a struct are one value per field, all of
		// them, which a descriptor's required cannot say beside the
		// optional named members: the document offers only the named form.
		structure = string(ByName)
	}
	m := obj{{"name", mi.Name}}
	if mi.Title != "" {
		m = append(m, kv{"summary", mi.Title})
	}
	if mi.Description != "" {
		m = append(m, kv{"description", mi.Description})
	}
	m = append(m, kv{"params", params}, kv{"paramStructure", structure})
	if xparams != nil {
		m = append(m, kv{"x-params", xparams})
	}
	result := any(map[string]any{"type": "null"})
	if mi.Result != nil {
		r, err := d.convert(mi.Result, mi.Name+".result")
		if err != nil {
			return nil, err
		}
		result = r
	}
	m = append(m, kv{"result", obj{{"name", "result"}, {"schema", result}}})
	if mi.Params != nil {
		d.errors = true
		m = append(m, kv{"errors", []any{map[string]any{"$ref": "#/components/errors/InvalidParams"}}})
	}
	if len(mi.Examples) > 0 {
		m = append(m, kv{"examples", examples(mi, params, xparams != nil)})
	}
	return m, nil
}

// examples are the example pairing objects of mi, whose content
// descriptors are params: each param given is an example object named
// as its descriptor. Where the params are an array taken whole, each
// value is named as the descriptor of its position would be ("item3"),
// so that the values, in order, are the example's params; where they
// are an object taken whole, each member is an example object of its
// name.
func examples(mi MethodInfo, params []any, whole bool) []any {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.(obj)[0].v.(string)
	}
	out := make([]any, len(mi.Examples))
	for i, ex := range mi.Examples {
		var given []any
		value := func(name string, v json.RawMessage) {
			given = append(given, obj{{"name", name}, {"value", v}})
		}
		var members map[string]json.RawMessage
		var items []json.RawMessage
		switch {
		case json.Unmarshal(ex.Params, &members) == nil && members != nil:
			if whole {
				names = slices.Sorted(maps.Keys(members))
			}
			for _, name := range names { // in the descriptors' order
				if v, ok := members[name]; ok {
					value(name, v)
				}
			}
		case json.Unmarshal(ex.Params, &items) == nil:
			if whole {
				for j, v := range items {
					value(itemName(j), v)
				}
				break
			}
			for j, v := range items[:min(len(items), len(names))] {
				value(names[j], v)
			}
		}
		pair := obj{{"name", ex.Name}}
		if ex.Description != "" {
			pair = append(pair, kv{"description", ex.Description})
		}
		pair = append(pair, kv{"params", append([]any{}, given...)}, kv{"result", obj{{"name", "result"}, {"value", ex.Result}}})
		out[i] = pair
	}
	return out
}

// itemName is the name of the descriptor of position j (from 0) of
// params that are an array taken whole: item1, item2...
func itemName(j int) string { return "item" + strconv.Itoa(j+1) }

// allRequired reports whether every descriptor of params is required.
func allRequired(params []any) bool {
	for _, p := range params {
		for _, m := range p.(obj) {
			if m.k == "required" && m.v == false {
				return false
			}
		}
	}
	return true
}

// inlineItems replaces, in root, the converted schema of params taken
// one per parameter, each item that [Service.Describe] leaves open
// because its schema holds references (a recursive or repeated struct
// type) by that schema, its definitions moved to components, where its
// references resolve: a by-position descriptor is a schema on its own.
func (d *openrpcDoc) inlineItems(mi MethodInfo, root any) error {
	m := d.svc.methods[mi.Name]
	items, _ := root.(map[string]any)["items"].([]any)
	if m == nil || mi.ParamStructure != ByPosition || mi.Params.PrefixItems == nil || len(items) != len(m.params) {
		return nil
	}
	for j, p := range m.params {
		if !strings.HasPrefix(mi.Params.PrefixItems[j].XValidate, "the schema of ") {
			continue
		}
		full, err := d.svc.schemas.For(p.typ)
		if err != nil {
			return fmt.Errorf("parameter %d: %w", j+1, err)
		}
		item, err := d.convert(full, mi.Name+".param"+strconv.Itoa(j+1))
		if err != nil {
			return fmt.Errorf("parameter %d: %w", j+1, err)
		}
		if d.svc.takesNull(p) {
			item = map[string]any{"anyOf": []any{map[string]any{"type": "null"}, item}}
		}
		items[j] = item
	}
	return nil
}

// descriptors are the content descriptors of the params of mi, whose
// schema converted is root, and, where the params are taken whole, so
// that the descriptors cannot say all of them, the schema of the whole
// params for the method's x-params (nil otherwise). OpenRPC reads a by-position descriptor i as
// params[i] and a by-name one as the member of its name, so:
//   - an array taken whole (a slice) is one descriptor per position its
//     schema requires (minItems), named item1, item2..., required, and
//     one more, optional, if it may be longer: OpenRPC 1.3.2 cannot say
//     "any number of" (open-rpc/spec#229), x-params can;
//   - an object taken whole (a map) has no descriptors: OpenRPC cannot
//     describe members of any name, x-params can;
//   - json.RawMessage, params of any shape, has none either.
func (d *openrpcDoc) descriptors(mi MethodInfo, root any) ([]any, any) {
	p := mi.Params
	switch {
	case mi.ParamStructure == ByPosition && p.PrefixItems != nil:
		items, _ := root.(map[string]any)["items"].([]any)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = obj{{"name", "param" + strconv.Itoa(i+1)}, {"required", true}, {"schema", it}}
		}
		return out, nil
	case p.Properties != nil && !slices.Contains(p.Type, "array"):
		m, ok := root.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		if !ok || props == nil {
			break
		}
		names := p.PropertyOrder
		for name := range p.Properties { // any not in the order, sorted
			if !slices.Contains(names, name) {
				names = append(slices.Clone(names), name)
			}
		}
		slices.Sort(names[len(p.PropertyOrder):])
		out := make([]any, 0, len(names))
		for _, name := range names {
			c := obj{{"name", name}}
			ps := p.Properties[name]
			if ps != nil && ps.Description != "" {
				c = append(c, kv{"description", ps.Description})
			}
			c = append(c, kv{"required", slices.Contains(p.Required, name)}, kv{"schema", props[name]})
			out = append(out, c)
		}
		return out, nil
	case mi.ParamStructure == ByPosition:
		m, _ := root.(map[string]any)
		if alts, ok := m["anyOf"].([]any); ok { // []byte: base64 or an array, and params are an array
			for _, a := range alts {
				if a, ok := a.(map[string]any); ok && a["type"] == "array" {
					m = a
				}
			}
		}
		item, ok := m["items"]
		if !ok {
			item = true
		}
		least, most := count(m["minItems"], 0), count(m["maxItems"], -1)
		out := make([]any, 0, least+1)
		for j := range least {
			out = append(out, obj{{"name", itemName(j)}, {"required", true}, {"schema", item}})
		}
		if most < 0 || most > least {
			out = append(out, obj{{"name", itemName(least)}, {"required", false}, {"schema", item}})
		}
		return out, m
	}
	return []any{}, root
}

// count is v, a JSON number in a converted schema, as an int, or def if
// v is none.
func count(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	}
	return def
}

// convert returns s in draft-07, as generic JSON, with its $defs moved to
// d.components; a schema that refers to its own root is moved there too,
// as name, and a reference to it returned.
func (d *openrpcDoc) convert(s *schema.Schema, name string) (any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // bounds such as the largest int64 stay exact
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // true or false
	}
	delete(m, "$schema")
	defs, _ := m["$defs"].(map[string]any)
	delete(m, "$defs")
	// Each definition's name in components, and the root's if referred to.
	rename := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(defs)) {
		rename["#/$defs/"+k] = "#/components/schemas/" + d.name(k, defs[k])
	}
	selfRef := strings.Contains(string(b), `"$ref":"#"`)
	if selfRef {
		rename["#"] = "#/components/schemas/" + d.name(name, nil)
	}
	for k, def := range defs {
		d.components[strings.TrimPrefix(rename["#/$defs/"+k], "#/components/schemas/")] = to07(def, rename)
	}
	root := to07(m, rename)
	if selfRef {
		d.components[strings.TrimPrefix(rename["#"], "#/components/schemas/")] = root
		return map[string]any{"$ref": rename["#"]}, nil
	}
	return root, nil
}

// name is a free name in components for def, based on want: want itself
// if free or holding the same schema already.
func (d *openrpcDoc) name(want string, def any) string {
	name := want
	for i := 2; ; i++ {
		var b []byte
		if def != nil {
			b, _ = json.Marshal(def)
		}
		have, taken := d.raw[name]
		if !taken {
			d.raw[name] = string(b)
			return name
		}
		if def != nil && have == string(b) {
			return name
		}
		name = want + "_" + strconv.Itoa(i)
	}
}

// to07 rewrites schema v, generic JSON in 2020-12, into draft-07.
func to07(v any, rename map[string]string) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = to07(e, rename)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			switch k {
			case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
				if m, ok := e.(map[string]any); ok {
					c := make(map[string]any, len(m))
					for name, sub := range m {
						c[name] = to07(sub, rename)
					}
					out[k] = c
					continue
				}
			case "enum", "const", "required", "dependentRequired", "x-validate", "examples", "default":
				out[k] = e // values, not schemas
				continue
			case "$ref":
				if r, ok := e.(string); ok {
					if n, ok := rename[r]; ok {
						e = n
					}
				}
				out[k] = e
				continue
			}
			out[k] = to07(e, rename)
		}
		delete(out, "$schema")
		if p, ok := out["prefixItems"]; ok {
			delete(out, "prefixItems")
			if it, ok := out["items"]; ok {
				out["additionalItems"] = it
			}
			out["items"] = p
		}
		if a, ok := out["$anchor"].(string); ok {
			delete(out, "$anchor")
			out["$id"] = "#" + a // draft-07 spells a plain-name fragment so
		}
		if dr, ok := out["dependentRequired"]; ok {
			delete(out, "dependentRequired")
			out["dependencies"] = dr
		}
		if r, ok := out["$ref"]; ok && len(out) > 1 {
			delete(out, "$ref")
			out["allOf"] = append([]any{map[string]any{"$ref": r}}, anySlice(out["allOf"])...)
		}
		return out
	}
	return v
}

// anySlice is v as a JSON array, or none.
func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}
