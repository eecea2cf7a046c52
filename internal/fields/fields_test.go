package fields

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDominance(t *testing.T) {
	type A struct {
		Name string `json:"name"`
		X    int
	}
	type B struct {
		Name string `json:"name"`
		X    int
	}
	type Tagged struct {
		X int `json:"X"`
	}
	// Built at run time: go vet rightly flags repeated json tags in source.
	outer := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[A](), Anonymous: true},
		{Name: "B", Type: reflect.TypeFor[B](), Anonymous: true},
		{Name: "Tagged", Type: reflect.TypeFor[Tagged](), Anonymous: true},
		{Name: "Name", Type: reflect.TypeFor[string](), Tag: `json:"name"`},
	})
	got := map[string][]int{}
	for _, f := range Of(outer) {
		got[f.Name] = f.Index
	}
	// The outer name wins over A's and B's (shallower); X goes to the only
	// tagged field among those at the same depth.
	assert.Equal(t, map[string][]int{"name": {3}, "X": {2, 0}}, got)
}

type Embedded struct {
	E int `json:"e"`
}

type hidden struct {
	H int `json:"h"`
}

type Named int

type tagged struct {
	*Embedded
	hidden
	Named
	Plain   int
	Renamed int `json:"renamed,omitempty"`
	Skipped int `json:"-"`
	//lint:ignore SA5008 deliberate: encoding/json names this field "-"
	Dash     int   `json:"-,"`
	Quoted   int   `json:"quoted,string"`
	QuotedP  *int  `json:"quoted_p,string"` // ,string applies to scalars only
	NamedTag Named `json:"named_tag"`
	//lint:ignore U1000 an unexported field is never a member
	unexp  int
	Inline *string `validate:"required" jsonschema:"a description"`
}

func TestOf(t *testing.T) {
	var got []Field
	for _, f := range Of(reflect.TypeFor[tagged]()) {
		f.Type = nil // compared apart
		got = append(got, f)
	}
	assert.Equal(t, []Field{
		{Name: "e", GoName: "E", Index: []int{0, 0}, Ptrs: true, Tag: `json:"e"`},
		{Name: "h", GoName: "H", Index: []int{1, 0}, Tag: `json:"h"`},
		{Name: "Named", GoName: "Named", Index: []int{2}},
		{Name: "Plain", GoName: "Plain", Index: []int{3}},
		{Name: "renamed", GoName: "Renamed", Index: []int{4}, Tag: `json:"renamed,omitempty"`},
		{Name: "-", GoName: "Dash", Index: []int{6}, Tag: `json:"-,"`},
		{Name: "quoted", GoName: "Quoted", Index: []int{7}, Quoted: true, Tag: `json:"quoted,string"`},
		{Name: "quoted_p", GoName: "QuotedP", Index: []int{8}, Tag: `json:"quoted_p,string"`},
		{Name: "named_tag", GoName: "NamedTag", Index: []int{9}, Tag: `json:"named_tag"`},
		{Name: "Inline", GoName: "Inline", Index: []int{11}, Tag: `validate:"required" jsonschema:"a description"`},
	}, got)
}

type node struct {
	//lint:ignore U1000 only its type matters: it embeds itself
	*node
	V int
}

func TestOfRecursiveEmbedding(t *testing.T) {
	fs := Of(reflect.TypeFor[node]())
	assert.Len(t, fs, 1)
	assert.Equal(t, "V", fs[0].Name)
}
