package schema_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/schema"
)

// Result has a member of each kind whose encoding the schema must say.
type Result struct {
	ID      int64             `json:"id" jsonschema:"the id"`
	Name    string            `json:"name,omitempty"`
	Count   uint8             `json:"count,omitzero"`
	Ratio   float64           `json:"ratio"`
	OK      bool              `json:"ok"`
	Quoted  int               `json:"quoted,string"`
	When    time.Time         `json:"when"`
	Blob    []byte            `json:"blob"`
	Tags    []string          `json:"tags"`
	Pair    [2]int            `json:"pair"`
	ByName  map[string]int    `json:"by_name"`
	Next    *Result           `json:"next"`
	Any     any               `json:"any"`
	Raw     json.RawMessage   `json:"raw"`
	Level   Level             `json:"level"`
	Skipped string            `json:"-"`
	Extra   map[string]*Inner `json:"extra,omitempty"`
	*PtrEmbedded
}

// The schema of a result says what encoding/json writes: members required
// unless omitted when empty or promoted through an embedded pointer, null
// where a nil pointer, slice or map leaves it, the encoding's own types as
// they encode, recursion through $defs.
func TestForResult(t *testing.T) {
	s, err := schema.New(nil).ForResult(reflect.TypeFor[Result]())
	require.NoError(t, err)
	got, err := json.Marshal(s)
	require.NoError(t, err)
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema",` +
		`"$defs":{"Inner":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"string"}},"required":["x","y"],"additionalProperties":false}},` +
		`"type":"object",` +
		`"properties":{"id":{"description":"the id","type":"integer"},` +
		`"name":{"type":"string"},"count":{"type":"integer","minimum":0,"maximum":255},"ratio":{"type":"number"},` +
		`"ok":{"type":"boolean"},"quoted":{"type":"string"},"when":{"type":"string","format":"date-time"},` +
		`"blob":{"type":["string","null"],"pattern":"` + jsonPattern(t, s, "blob") + `","contentEncoding":"base64"},` +
		`"tags":{"type":["array","null"],"items":{"type":"string"}},` +
		`"pair":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},` +
		`"by_name":{"type":["object","null"],"additionalProperties":{"type":"integer"}},` +
		`"next":{"anyOf":[{"type":"null"},{"$ref":"#"}]},"any":true,"raw":true,` +
		`"level":{"type":"integer"},` +
		`"extra":{"type":["object","null"],"additionalProperties":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/Inner"}]}},` +
		`"pa":{"type":"integer"},"pb":{"type":"string"}},` +
		`"required":["id","ratio","ok","quoted","when","blob","tags","pair","by_name","next","any","raw","level"],"additionalProperties":false}`
	assert.JSONEq(t, want, string(got))
}

// jsonPattern is the pattern the schema gives the property name: the base64
// pattern is package schema's own business.
func jsonPattern(t *testing.T, s *schema.Schema, name string) string {
	p := s.Properties[name].Pattern
	require.NotEmpty(t, p)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return string(b[1 : len(b)-1])
}

// Whatever a value of the result type is, what encoding/json makes of it
// is valid under the schema of the type (checked by an independent JSON
// Schema 2020-12 validator).
func TestForResultHoldsEveryEncodedValue(t *testing.T) {
	types := []reflect.Type{
		reflect.TypeFor[Result](), reflect.TypeFor[Basic](), reflect.TypeFor[Numbers](), reflect.TypeFor[Strings](),
		reflect.TypeFor[Collections](), reflect.TypeFor[Nested](), reflect.TypeFor[Custom](), reflect.TypeFor[Annotated](),
		reflect.TypeFor[[]Item](), reflect.TypeFor[*Node](), reflect.TypeFor[map[string]Item](), reflect.TypeFor[int8](),
		reflect.TypeFor[string](), reflect.TypeFor[[]byte](), reflect.TypeFor[time.Time](), reflect.TypeFor[*float32](),
	}
	n := 300
	if testing.Short() {
		n = 50
	}
	g := schema.New(nil)
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			s, err := g.ForResult(typ)
			require.NoError(t, err)
			compiled := compile(t, s, typ)
			r := rand.New(rand.NewPCG(1, uint64(len(typ.String()))))
			for range n {
				v := reflect.New(typ).Elem()
				fill(r, v, 0)
				text, err := json.Marshal(v.Interface())
				require.NoError(t, err)
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
				require.NoError(t, err)
				if err := compiled.Validate(inst); err != nil {
					t.Fatalf("%s encodes as %s, which the schema refuses: %v", typ, text, err)
				}
			}
		})
	}
}

func compile(t *testing.T, s *schema.Schema, typ reflect.Type) *jsonschema.Schema {
	t.Helper()
	text, err := json.Marshal(s)
	require.NoError(t, err)
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///result/" + typ.String() + ".json"
	require.NoError(t, c.AddResource(url, raw))
	compiled, err := c.Compile(url)
	require.NoError(t, err, "%s", text)
	return compiled
}

// fill sets v to a random value: zero values, extremes and nils among
// them, as a result may hold.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() {
		return
	}
	if r.IntN(6) == 0 || depth > 4 {
		v.SetZero()
		return
	}
	switch t := v.Type(); {
	case t == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(r.Int64N(1<<34), 0).UTC()))
		return
	case t == reflect.TypeFor[json.Number]():
		v.Set(reflect.ValueOf(json.Number([]string{"0", "-12.5", "1e300"}[r.IntN(3)])))
		return
	case t == reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage([]string{`1`, `"x"`, `{"a":[]}`, `null`}[r.IntN(4)])))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch r.IntN(3) {
		case 0:
			v.SetInt(-1 << (bits - 1))
		case 1:
			v.SetInt(1<<(bits-1) - 1)
		default:
			v.SetInt(r.Int64N(200) - 100)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if r.IntN(2) == 0 {
			v.SetUint(1<<v.Type().Bits() - 1)
		} else {
			v.SetUint(r.Uint64N(100))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(r.NormFloat64() * 1e6)
	case reflect.String:
		v.SetString([]string{"", "a", "héllo", "\u2028", "<&>"}[r.IntN(5)])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), r.IntN(3), 3)
		for i := range s.Len() {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(r, k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(r, v.Field(i), depth+1)
		}
	case reflect.Interface:
		if v.NumMethod() == 0 {
			if x := []any{1.5, "s", true, nil, []any{1, "x"}, map[string]any{"k": 1}}[r.IntN(6)]; x != nil {
				v.Set(reflect.ValueOf(x))
			}
		}
	}
}
