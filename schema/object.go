package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/fields"
)

// object is the schema of struct type t: its members as the binder sees
// them (fields.Of), each with the rules of its validate tag when
// validated. A member is required when its absence fails those rules.
func (b *build) object(t reflect.Type, validated bool) (*Schema, error) {
	fs := fields.Of(t)
	s := &Schema{Type: []string{"object"}, Properties: map[string]*Schema{}}
	var notes []string
	// A member promoted through an embedded pointer is checked only when
	// that pointer is set, which naming any member under it does: what its
	// absence fails goes to dependentRequired, keyed by the pointer.
	groups := map[string][]string{}
	under := map[string][]string{}
	for _, f := range fs {
		v := validated
		if v {
			ok, note := embedding(t, f.Index)
			if note != "" && !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
			v = ok
		}
		tag := f.Tag.Get("validate")
		if tag == "-" {
			v = false
		}
		node, err := b.value(f.Type, tag, v, f.Quoted)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.GoName, err)
		}
		if !settable(t, f.Index) {
			// The binder cannot allocate the unexported embedded pointer it
			// is promoted through (encoding/json cannot either).
			node = False()
		}
		if node, err = described(node, f); err != nil {
			return nil, err
		}
		if node, err = headed(node, f); err != nil {
			return nil, err
		}
		def, err := defaulted(f)
		if err != nil {
			return nil, err
		}
		if def != nil {
			node = node.clone()
			node.Default = def
		}
		s.Properties[f.Name] = node
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		ptrs := pointerEmbeds(t, f.Index)
		under[f.Name] = ptrs
		if v && def == nil && !b.absentPasses(f.Type, tag) { // an absent member gets the default
			if len(ptrs) == 0 {
				s.Required = append(s.Required, f.Name)
			} else {
				p := ptrs[len(ptrs)-1]
				groups[p] = append(groups[p], f.Name)
			}
		}
	}
	for _, f := range fs {
		var deps []string
		for _, p := range under[f.Name] {
			for _, m := range groups[p] {
				if m != f.Name && !slices.Contains(deps, m) {
					deps = append(deps, m)
				}
			}
		}
		if len(deps) > 0 {
			if s.DependentRequired == nil {
				s.DependentRequired = map[string][]string{}
			}
			s.DependentRequired[f.Name] = deps
		}
	}
	if !b.g.allowUnknown {
		s.AdditionalProperties = False()
	}
	if validated {
		notes = append(notes, b.hidden(t, fs)...)
	}
	s.XValidate = strings.Join(notes, "; ")
	return s, nil
}

// absentPasses reports whether the validate tag accepts the zero value of
// t, which an absent member leaves (not knowing counts as yes).
func (b *build) absentPasses(t reflect.Type, tag string) bool {
	if tag == "" && !b.hasRules(t) {
		return true
	}
	return b.passes(t, tag, reflect.Zero(t))
}

// embedding reports whether validator checks the member at index of
// struct type t as it checks a field of t: the embedded structs it is
// promoted through have no validate tag. Under a tag of "-" it is not
// checked at all; under another tag, note says what this schema leaves out.
func embedding(t reflect.Type, index []int) (ok bool, note string) {
	for _, i := range index[:len(index)-1] {
		sf := t.Field(i)
		switch tag := sf.Tag.Get("validate"); tag {
		case "":
		case "-":
			return false, ""
		default:
			return false, sf.Name + ": " + tag
		}
		t = sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	return true, ""
}

// settable reports whether no embedded pointer the member at index of
// struct type t is promoted through is unexported.
func settable(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		sf := t.Field(i)
		t = sf.Type
		if t.Kind() == reflect.Pointer {
			if !sf.IsExported() {
				return false
			}
			t = t.Elem()
		}
	}
	return true
}

// pointerEmbeds lists the embedded pointers the member at index of struct
// type t is promoted through, outermost first, each named by its index.
func pointerEmbeds(t reflect.Type, index []int) []string {
	var out []string
	for j, i := range index[:len(index)-1] {
		sf := t.Field(i)
		t = sf.Type
		if t.Kind() == reflect.Pointer {
			out = append(out, fmt.Sprint(index[:j+1]))
			t = t.Elem()
		}
	}
	return out
}

// hidden notes the fields of struct type t that validator checks but JSON
// never sets (tagged json:"-", or hidden by another field of the same
// name): their zero value is checked on every call.
func (b *build) hidden(t reflect.Type, fs []fields.Field) []string {
	members := map[string]bool{}
	for _, f := range fs {
		members[fmt.Sprint(f.Index)] = true
	}
	var notes []string
	seen := map[reflect.Type]bool{}
	var visit func(st reflect.Type, index []int)
	visit = func(st reflect.Type, index []int) {
		if seen[st] {
			return
		}
		seen[st] = true
		defer delete(seen, st)
		for i := range st.NumField() {
			sf := st.Field(i)
			if !sf.IsExported() && !sf.Anonymous {
				continue
			}
			idx := append(slices.Clip(index), i)
			tag := sf.Tag.Get("validate")
			if tag == "-" || members[fmt.Sprint(idx)] {
				continue
			}
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if sf.Anonymous && name == "" && sf.Tag.Get("json") != "-" && et.Kind() == reflect.Struct {
				if tag == "" { // a tagged one is noted by embedding
					visit(et, idx)
				}
				continue
			}
			switch {
			case tag != "":
				notes = append(notes, sf.Name+": "+tag)
			case b.hasRules(sf.Type):
				notes = append(notes, sf.Name+": the validate rules of "+sf.Type.String())
			}
		}
	}
	visit(t, nil)
	return notes
}

// described is node with the description of field f's jsonschema tag, if
// it has one.
func described(node *Schema, f fields.Field) (*Schema, error) {
	d, ok := f.Tag.Lookup("jsonschema")
	if !ok {
		return node, nil
	}
	if err := checkDescription(d); err != nil {
		return nil, fmt.Errorf("field %s: %w", f.GoName, err)
	}
	node = node.clone()
	node.Description = d
	return node, nil
}

// checkDescription refuses a jsonschema tag written for another library:
// its whole value is a description, and one that starts with WORD= is
// reserved (as in the MCP Go SDK), since it would mean something else
// there.
func checkDescription(d string) error {
	word, _, ok := strings.Cut(d, "=")
	if ok && word != "" && !strings.ContainsFunc(word, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		return fmt.Errorf("jsonschema tag %q: the tag is a description; WORD=... is reserved", d)
	}
	return nil
}

// defaulted is the value of field f's default tag, compacted, or nil
// when it has none. It is published as the default keyword, an annotation
// that changes what the schema accepts no more than the binder, which
// decodes an absent member from it, does: the service checks at
// registration that it decodes and validates.
func defaulted(f fields.Field) (json.RawMessage, error) {
	tag, ok := f.Tag.Lookup("default")
	if !ok {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(tag)); err != nil {
		return nil, fmt.Errorf("field %s: default %s: not a JSON value: %w", f.GoName, tag, err)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// headed is node with the x-mcp-header annotation of field f's mcp tag,
// if it has one: mcp:"header=Name" (the only key the tag knows). Whether
// the annotation fits where it is (a primitive, reached by properties
// alone, a unique token) is for package mcp to judge, which serves it.
func headed(node *Schema, f fields.Field) (*Schema, error) {
	tag, ok := f.Tag.Lookup("mcp")
	if !ok {
		return node, nil
	}
	name, ok := strings.CutPrefix(tag, "header=")
	if !ok || name == "" {
		return nil, fmt.Errorf("field %s: mcp tag %q: want header=Name", f.GoName, tag)
	}
	node = node.clone()
	node.XMCPHeader = name
	return node, nil
}
