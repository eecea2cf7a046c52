// Package fields computes the fields of a struct as JSON sees them: the one
// computation that the params binder (package internal/bind) and the schema
// generator (package schema) share, so that what a method accepts and what
// its schema says can never drift apart.
//
// The rules are those of encoding/json for decoding: a field's name is its
// json tag's name or its Go name; a field tagged "-" is skipped; the fields
// of an embedded struct (or pointer to struct) without a tag name are
// promoted, and a name held by several fields goes to the shallowest, then
// to the only tagged one at that depth, otherwise to none. Names match
// exactly (case matters).
package fields

import (
	"reflect"
	"strings"
)

// Field is a struct field as JSON sees it.
type Field struct {
	Name   string // JSON name
	GoName string
	Index  []int // from the struct, through embedded structs
	Ptrs   bool  // Index goes through an embedded pointer
	Quoted bool  // the ",string" option, on a type it applies to
	Type   reflect.Type
	Tag    reflect.StructTag
}

// Of lists the fields of struct type t that JSON decodes, in declaration
// order, with the dominance rules of encoding/json for fields promoted from
// embedded structs.
func Of(t reflect.Type) []Field {
	type candidate struct {
		Field
		depth  int
		tagged bool
	}
	var all []candidate
	var walk func(t reflect.Type, index []int, ptrs bool, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, ptrs bool, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if !sf.IsExported() && et.Kind() != reflect.Struct {
					continue
				}
				if name == "" && et.Kind() == reflect.Struct {
					walk(et, append(append([]int(nil), index...), i), ptrs || ft.Kind() == reflect.Pointer, depth+1, seen)
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			quoted := false
			for _, o := range strings.Split(opts, ",") {
				if o == "string" {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
			}
			all = append(all, candidate{
				Field: Field{Name: name, GoName: sf.Name, Index: append(append([]int(nil), index...), i),
					Ptrs: ptrs, Quoted: quoted, Type: ft, Tag: sf.Tag},
				depth: depth, tagged: tagged,
			})
		}
		delete(seen, t)
	}
	walk(t, nil, false, 0, map[reflect.Type]bool{})

	// A name held by fields at several depths goes to the shallowest; at the
	// same depth, to the only tagged one; otherwise to none.
	byName := map[string][]int{}
	for i, c := range all {
		byName[c.Name] = append(byName[c.Name], i)
	}
	var out []Field
	for i, c := range all {
		rivals := byName[c.Name]
		if len(rivals) == 1 {
			out = append(out, c.Field)
			continue
		}
		best := -1
		ambiguous := false
		for _, j := range rivals {
			r := all[j]
			switch {
			case best < 0 || r.depth < all[best].depth || (r.depth == all[best].depth && r.tagged && !all[best].tagged):
				best, ambiguous = j, false
			case r.depth == all[best].depth && r.tagged == all[best].tagged:
				ambiguous = true
			}
		}
		if best == i && !ambiguous {
			out = append(out, c.Field)
		}
	}
	return out
}
