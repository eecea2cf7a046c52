package schema_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/schema"
)

// contact supplies a schema in the broader vocabulary of JSON Schema
// 2020-12 (MCP's SEP-2106): composition, a conditional, an anchor in
// $defs and a reference to it.
type contact struct{}

func (contact) JSONSchema() *schema.Schema {
	text := &schema.Schema{Type: []string{"string"}}
	return &schema.Schema{
		Type: []string{"object"},
		Defs: map[string]*schema.Schema{"address": {Anchor: "addressDef", Type: []string{"object"},
			Properties: map[string]*schema.Schema{"city": text}}},
		Properties: map[string]*schema.Schema{
			"address": {Ref: "#addressDef"},
			"method":  {Enum: []json.RawMessage{[]byte(`"phone"`), []byte(`"email"`)}},
			"phone":   text, "email": text,
		},
		PropertyOrder: []string{"address", "method", "phone", "email"},
		AllOf:         []*schema.Schema{{AnyOf: []*schema.Schema{{Required: []string{"phone"}}, {Required: []string{"email"}}}}},
		OneOf:         []*schema.Schema{{Required: []string{"phone"}}, {Required: []string{"email"}}},
		Not:           &schema.Schema{Required: []string{"fax"}},
		If: &schema.Schema{Properties: map[string]*schema.Schema{"method": {Const: json.RawMessage(`"phone"`)}},
			Required: []string{"method"}},
		Then:                 &schema.Schema{Required: []string{"phone"}},
		Else:                 &schema.Schema{Required: []string{"email"}},
		AdditionalProperties: schema.False(),
	}
}

// TestKeywordsOfProviders pins the JSON of the keywords only a Provider
// supplies: $anchor first after $schema, then $ref; oneOf after anyOf;
// if, then and else after not.
func TestKeywordsOfProviders(t *testing.T) {
	s, err := schema.New(nil).For(reflect.TypeFor[contact]())
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",`+
		`"properties":{"address":{"$ref":"#addressDef"},"method":{"enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},`+
		`"additionalProperties":false,`+
		`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],`+
		`"oneOf":[{"required":["phone"]},{"required":["email"]}],`+
		`"not":{"required":["fax"]},`+
		`"if":{"properties":{"method":{"const":"phone"}},"required":["method"]},"then":{"required":["phone"]},"else":{"required":["email"]},`+
		`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"city":{"type":"string"}}}}}`,
		string(b))
}

// anchored names its schema; conditional is a conditional alone.
type anchored struct{}

func (anchored) JSONSchema() *schema.Schema {
	return &schema.Schema{Anchor: "point", Type: []string{"object"}}
}

func (*anchored) UnmarshalJSON([]byte) error { return nil }

type conditional struct{}

func (conditional) JSONSchema() *schema.Schema {
	return &schema.Schema{Type: []string{"object"}, If: &schema.Schema{Required: []string{"a"}},
		Then: &schema.Schema{Required: []string{"b"}}}
}

func (*conditional) UnmarshalJSON([]byte) error { return nil }

// TestKeywordsOfProvidersCombined: a schema with an $anchor is never
// widened in place (what "#point" names would take null too): null is an
// alternative beside it; a conditional is kept whole.
func TestKeywordsOfProvidersCombined(t *testing.T) {
	type params struct {
		Maybe *anchored    `json:"maybe"`
		Cond  *conditional `json:"cond" validate:"required"`
	}
	s, err := schema.New(nil).For(reflect.TypeFor[params]())
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{`+
		`"maybe":{"anyOf":[{"type":"null"},{"$anchor":"point","type":"object"}]},`+
		`"cond":{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}},`+
		`"required":["cond"],"additionalProperties":false}`, string(b))
}

// supplied is a Provider of whatever schema its type parameter names.
type supplied[K interface{ schema() *schema.Schema }] struct{}

func (supplied[K]) JSONSchema() *schema.Schema {
	var k K
	return k.schema()
}

type (
	badAnchor   struct{}
	missingRef  struct{}
	externalRef struct{}
)

func (badAnchor) schema() *schema.Schema   { return &schema.Schema{Anchor: "1st"} }
func (missingRef) schema() *schema.Schema  { return &schema.Schema{Ref: "#nowhere"} }
func (externalRef) schema() *schema.Schema { return &schema.Schema{Ref: "https://example.com/s.json"} }

// TestAnchorErrors: the anchors and references of a supplied schema are
// checked, in the whole document.
func TestAnchorErrors(t *testing.T) {
	type twice struct {
		A anchored `json:"a"`
		B anchored `json:"b"`
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[supplied[badAnchor]](), `schema: $anchor "1st" is not a plain name (^[A-Za-z_][-A-Za-z0-9._]*$)`},
		{reflect.TypeFor[twice](), `schema: $anchor "point" names two schemas of the document (a Provider's schema with an anchor is used twice?)`},
		{reflect.TypeFor[supplied[missingRef]](), `schema: $ref "#nowhere" names no $anchor of the document`},
		{reflect.TypeFor[supplied[externalRef]](), `schema: $ref "https://example.com/s.json" is not in the document: a schema is self-contained`},
	} {
		_, err := schema.New(nil).For(tc.typ)
		assert.EqualError(t, err, tc.want, tc.typ.String())
	}
}

// TestAnchorAcrossTheDocument: a field's schema refers to an anchor that
// another field's supplies (both take null: their decoders do).
func TestAnchorAcrossTheDocument(t *testing.T) {
	type params struct {
		Point anchored `json:"point"`
		Again pointRef `json:"again"`
	}
	s, err := schema.New(nil).For(reflect.TypeFor[params]())
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{`+
		`"point":{"anyOf":[{"type":"null"},{"$anchor":"point","type":"object"}]},`+
		`"again":{"anyOf":[{"type":"null"},{"$ref":"#point"}]}},"additionalProperties":false}`, string(b))
}

type pointRef struct{}

func (pointRef) JSONSchema() *schema.Schema { return &schema.Schema{Ref: "#point"} }

func (*pointRef) UnmarshalJSON([]byte) error { return nil }
