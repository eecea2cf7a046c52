package schema_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/schema"
)

type headed struct {
	Region string `json:"region" mcp:"header=Region" jsonschema:"mirrored"`
}

type badHeader struct {
	Region string `json:"region" mcp:"Region"`
}

// The tag mcp:"header=Name" is the x-mcp-header annotation (MCP's custom
// headers, SEP-2243); any other mcp tag is refused.
func TestHeaderTag(t *testing.T) {
	assert.JSONEq(t, `{`+dialect+`"type":"object","properties":{
		"region":{"description":"mirrored","type":"string","x-mcp-header":"Region"}},
		"additionalProperties":false}`, schemaOf[headed](t, nil))
	_, err := schema.New(nil).For(reflect.TypeFor[badHeader]())
	assert.EqualError(t, err, `schema: field Region: mcp tag "Region": want header=Name`)
}
