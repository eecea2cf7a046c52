package service

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// to07 rewrites each 2020-12 keyword that draft-07 spells otherwise.
func TestTo07(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"prefixItems and items", `{"prefixItems":[{"type":"integer"}],"items":false}`, `{"additionalItems":false,"items":[{"type":"integer"}]}`},
		{"prefixItems alone", `{"prefixItems":[true,true]}`, `{"items":[true,true]}`},
		{"items alone", `{"items":{"type":"string"}}`, `{"items":{"type":"string"}}`},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"dependencies":{"a":["b"]}}`},
		{"$ref with siblings", `{"$ref":"#/$defs/X","description":"d"}`, `{"allOf":[{"$ref":"#/components/schemas/X"}],"description":"d"}`},
		{"$ref into an allOf", `{"$ref":"#/$defs/X","allOf":[{"type":"object"}]}`, `{"allOf":[{"$ref":"#/components/schemas/X"},{"type":"object"}]}`},
		{"nested", `{"properties":{"p":{"$schema":"x","prefixItems":[{"$ref":"#/$defs/X"}]}},"anyOf":[{"dependentRequired":{}}]}`,
			`{"anyOf":[{"dependencies":{}}],"properties":{"p":{"items":[{"$ref":"#/components/schemas/X"}]}}}`},
		{"$anchor", `{"$defs":{"a":{"$anchor":"here"}},"$ref":"#here","if":{"$anchor":"x"},"oneOf":[true]}`,
			`{"$defs":{"a":{"$id":"#here"}},"allOf":[{"$ref":"#here"}],"if":{"$id":"#x"},"oneOf":[true]}`},
		{"values left alone", `{"enum":[{"prefixItems":1}],"const":{"$ref":"#/$defs/X"},"x-validate":"a"}`, `{"const":{"$ref":"#/$defs/X"},"enum":[{"prefixItems":1}],"x-validate":"a"}`},
		{"a property named as a keyword", `{"properties":{"prefixItems":{"type":"string"},"$ref":true}}`, `{"properties":{"$ref":true,"prefixItems":{"type":"string"}}}`},
	}
	rename := map[string]string{"#/$defs/X": "#/components/schemas/X"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			require.NoError(t, json.Unmarshal([]byte(tt.in), &v))
			got, err := json.Marshal(to07(v, rename))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
