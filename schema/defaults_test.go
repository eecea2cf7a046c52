package schema_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/schema"
)

// TestDefaultPublished pins the JSON of fields with a default: the
// default keyword, compacted, after the description; a member with a
// default is not required, though its rules refuse the zero value.
func TestDefaultPublished(t *testing.T) {
	type T struct {
		Limit int32  `json:"limit" default:" 10 " validate:"min=1" jsonschema:"How many."`
		Order string `json:"order" default:" \"asc\"" validate:"oneof=asc desc"`
		Name  string `json:"name" validate:"required"`
	}
	s, err := schema.New(nil).For(reflect.TypeFor[T]())
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{`+
		`"limit":{"description":"How many.","default":10,"type":"integer","minimum":1,"maximum":2147483647},`+
		`"order":{"default":"asc","enum":["asc","desc"]},`+
		`"name":{"type":"string","minLength":1}},"required":["name"],"additionalProperties":false}`, string(b))

	type Bad struct {
		N int `json:"n" default:"1x"`
	}
	_, err = schema.New(nil).For(reflect.TypeFor[Bad]())
	require.EqualError(t, err, `schema: field N: default 1x: not a JSON value: invalid character 'x' after top-level value`)
}

// TestDefaultsValidAgainstTheirSchema holds every published default of
// the agreement types to the schema published for its own property.
func TestDefaultsValidAgainstTheirSchema(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[Defaulted](), reflect.TypeFor[DefaultedInner]()} {
		doc, err := schema.New(nil).For(typ)
		require.NoError(t, err)
		text, err := json.Marshal(doc)
		require.NoError(t, err)
		raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		require.NoError(t, c.AddResource("doc.json", raw))
		n := 0
		for name, prop := range doc.Properties {
			if prop.Default == nil {
				continue
			}
			n++
			sch, err := c.Compile("doc.json#/properties/" + name)
			require.NoError(t, err)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(prop.Default))
			require.NoError(t, err)
			assert.NoError(t, sch.Validate(v), "%s.%s: default %s", typ, name, prop.Default)
		}
		assert.NotZero(t, n, "%s has no default", typ)
	}
}
