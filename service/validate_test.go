package service_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/service"
)

// Paths has params whose validated fields JSON names otherwise than by a
// json tag's name.
type Paths struct{}

// Hidden has a validated field that no JSON member sets: the validator
// still sees it, always zero.
type Hidden struct {
	Name   string `json:"name"`
	Secret string `json:"-" validate:"required"`
}

// Level is embedded by Leveled: not a struct, so a field named Level, not
// promoted.
type Level int

type Leveled struct {
	Level `validate:"gte=1"`
}

// Clash has a field x, which hides the x of the struct it embeds: JSON
// decodes that one into A, never into B.
type Clash struct {
	A int `json:"x"`
	ClashB
	C int `json:"c" validate:"gte=1"`
}

type ClashB struct {
	B int `json:"x" validate:"gte=1"`
}

func (Paths) Hidden(p Hidden) string { return p.Name }
func (Paths) Leveled(p Leveled) int  { return int(p.Level) }
func (Paths) Clash(p Clash) int      { return p.C }

// Two takes one value per parameter, the second by pointer.
func (Paths) Two(a Item, b *Item) string { return a.SKU + b.SKU }

// A validation problem names the value at fault as JSON does (package
// internal/fields): by its JSON name, and a field JSON does not decode by
// its Go name, never by a name JSON gives another field or none.
func TestValidationPathsFollowJSON(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Paths{}))
	tests := []struct{ name, transcript string }{
		{`a field tagged "-" is named by its Go name`, `
			--> {"jsonrpc":"2.0","method":"hidden","params":{"name":"a"},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"Secret","rule":"required","message":"Secret is required"}]},"id":1}`},
		{"an embedded field of a non-struct type is a field of its type's name", `
			--> {"jsonrpc":"2.0","method":"leveled","params":{"Level":0},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"Level","rule":"gte","param":"1","message":"Level must be at least 1"}]},"id":1}`},
		{"a field whose name another holds too is named by its Go name", `
			--> {"jsonrpc":"2.0","method":"clash","params":{"c":0},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"B","rule":"gte","param":"1","message":"B must be at least 1"},{"field":"c","rule":"gte","param":"1","message":"c must be at least 1"}]},"id":1}`},
		{"one value per parameter: the path starts with its index", `
			--> {"jsonrpc":"2.0","method":"two","params":[{"sku":"a","qty":1},{"sku":"","qty":0}],"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1].sku","rule":"required","message":"[1].sku is required"},{"field":"[1].qty","rule":"gte","param":"1","message":"[1].qty must be at least 1"}]},"id":1}
			--> {"jsonrpc":"2.0","method":"two","params":[{"sku":"a","qty":1},{"sku":"b","qty":"1"}],"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1].qty","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"two","params":[{"sku":"a","qty":1},null],"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1]","rule":"type","param":"object","message":"expected an object, got null"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"two","params":[{"sku":"a","qty":1},{"sku":"b","qty":2}],"id":4}
			<-- {"jsonrpc":"2.0","result":"ab","id":4}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiretest.Serve(t, svc, tt.transcript, nil)
		})
	}
}
