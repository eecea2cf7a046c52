package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Shapes has a method of every servable shape.
type Shapes struct {
	mu    sync.Mutex
	calls []string
}

type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

type Item struct {
	SKU string `json:"sku" validate:"required"`
	Qty int    `json:"qty" validate:"gte=1"`
}

type Order struct {
	Customer string            `json:"customer" validate:"required,max=5"`
	Items    []Item            `json:"items" validate:"required,min=1,dive"`
	Notes    map[string]string `json:"notes,omitempty" validate:"omitempty,dive,max=3"`
	Express  *bool             `json:"express"`
}

type Divide struct {
	A float64 `json:"a"`
	B float64 `json:"b" validate:"ne=0"`
}

type Embedded struct {
	Base
	Name string `json:"name"`
}

type Base struct {
	ID int `json:"id" validate:"gt=0"`
}

type Small struct {
	N int8 `json:"n"`
	U uint `json:"u"`
	F float32
}

func (s *Shapes) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *Shapes) Nothing()                                  { s.record("nothing") }
func (s *Shapes) OnlyError() error                          { return nil }
func (s *Shapes) OnlyResult() string                        { return "r" }
func (s *Shapes) WithCtx(ctx context.Context) (bool, error) { return ctx != nil, nil }
func (s *Shapes) Add(p Pair) int                            { return p.A + p.B }
func (s *Shapes) AddPtr(ctx context.Context, p *Pair) int   { return p.A + p.B }
func (s *Shapes) Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
func (s *Shapes) Variadic(xs ...string) string { return strings.Join(xs, "+") }
func (s *Shapes) Pow(base float64, exp int) float64 {
	r := 1.0
	for range exp {
		r *= base
	}
	return r
}
func (s *Shapes) Negate(x int) int                         { return -x }
func (s *Shapes) Count(m map[string]int) int               { return len(m) }
func (s *Shapes) Raw(p json.RawMessage) json.RawMessage    { return p }
func (s *Shapes) Place(o Order) string                     { return fmt.Sprintf("%s:%d", o.Customer, len(o.Items)) }
func (s *Shapes) Quotient(p Divide) float64                { return p.A / p.B }
func (s *Shapes) Named(e Embedded) string                  { return fmt.Sprintf("%d/%s", e.ID, e.Name) }
func (s *Shapes) Sizes(p Small) Small                      { return p }
func (s *Shapes) Orders(os []Order) int                    { return len(os) }
func (s *Shapes) Meta(ctx context.Context) json.RawMessage { return rpc.RequestFromContext(ctx).Meta }
func (s *Shapes) Any(x any) any                            { return x }
func (s *Shapes) Fail() error                              { return errors.New("disk full") }
func (s *Shapes) FailCoded() (int, error) {
	return 7, fmt.Errorf("wrapped: %w", rpc.NewError(4001, "quota exceeded").WithData(map[string]int{"retry": 30}))
}
func (s *Shapes) Notify(ctx context.Context, p Pair) error {
	return rpc.Notify(ctx, "note", p)
}

func newShapes(t *testing.T, opts *service.Options) *service.Service {
	t.Helper()
	svc := service.New(opts)
	require.NoError(t, svc.Register("", &Shapes{}))
	return svc
}

func TestMethodShapes(t *testing.T) {
	wiretest.Serve(t, newShapes(t, nil), `
		--> {"jsonrpc":"2.0","method":"nothing","id":1}
		<-- {"jsonrpc":"2.0","result":null,"id":1}
		--> {"jsonrpc":"2.0","method":"onlyError","id":2}
		<-- {"jsonrpc":"2.0","result":null,"id":2}
		--> {"jsonrpc":"2.0","method":"onlyResult","id":3}
		<-- {"jsonrpc":"2.0","result":"r","id":3}
		--> {"jsonrpc":"2.0","method":"withCtx","id":4}
		<-- {"jsonrpc":"2.0","result":true,"id":4}
		--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2},"id":5}
		<-- {"jsonrpc":"2.0","result":3,"id":5}
		--> {"jsonrpc":"2.0","method":"addPtr","params":[40,2],"id":6}
		<-- {"jsonrpc":"2.0","result":42,"id":6}
		--> {"jsonrpc":"2.0","method":"sum","params":[1,2,3],"id":7}
		<-- {"jsonrpc":"2.0","result":6,"id":7}
		--> {"jsonrpc":"2.0","method":"variadic","params":["a","b","c"],"id":8}
		<-- {"jsonrpc":"2.0","result":"a+b+c","id":8}
		--> {"jsonrpc":"2.0","method":"pow","params":[2,10],"id":9}
		<-- {"jsonrpc":"2.0","result":1024,"id":9}
		--> {"jsonrpc":"2.0","method":"negate","params":[5],"id":10}
		<-- {"jsonrpc":"2.0","result":-5,"id":10}
		--> {"jsonrpc":"2.0","method":"count","params":{"x":1,"y":2},"id":11}
		<-- {"jsonrpc":"2.0","result":2,"id":11}
		--> {"jsonrpc":"2.0","method":"raw","params":{ "any" : [ "thing" ] },"id":12}
		<-- {"jsonrpc":"2.0","result":{"any":["thing"]},"id":12}
		--> {"jsonrpc":"2.0","method":"named","params":{"id":3,"name":"x"},"id":13}
		<-- {"jsonrpc":"2.0","result":"3/x","id":13}
		--> {"jsonrpc":"2.0","method":"any","params":[{"a":[1,"x",null,true]}],"id":14}
		<-- {"jsonrpc":"2.0","result":{"a":[1,"x",null,true]},"id":14}
		--> {"jsonrpc":"2.0","method":"notify","params":{"a":1,"b":2},"id":15}
		<-- {"jsonrpc":"2.0","method":"note","params":{"a":1,"b":2}}
		<-- {"jsonrpc":"2.0","result":null,"id":15}`, nil)
}

func TestBinding(t *testing.T) {
	tests := []struct{ name, transcript string }{
		// The params table of docs/tools-and-schemas.md, column "no params", and Register's
		// doc comment, shape by shape.
		{"absent params: the zero value, then validated", `
			--> {"jsonrpc":"2.0","method":"add","id":1}
			<-- {"jsonrpc":"2.0","result":0,"id":1}
			--> {"jsonrpc":"2.0","method":"sum","id":2}
			<-- {"jsonrpc":"2.0","result":0,"id":2}
			--> {"jsonrpc":"2.0","method":"quotient","id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"addPtr","id":4}
			<-- {"jsonrpc":"2.0","result":0,"id":4}
			--> {"jsonrpc":"2.0","method":"variadic","id":5}
			<-- {"jsonrpc":"2.0","result":"","id":5}
			--> {"jsonrpc":"2.0","method":"count","id":6}
			<-- {"jsonrpc":"2.0","result":0,"id":6}
			--> {"jsonrpc":"2.0","method":"raw","id":7}
			<-- {"jsonrpc":"2.0","result":null,"id":7}`},
		{"absent params for positional parameters: -32602 (count)", `
			--> {"jsonrpc":"2.0","method":"pow","id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"2","message":"expected 2 positional params, got 0"}]},"id":1}
			--> {"jsonrpc":"2.0","method":"negate","id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"1","message":"expected 1 positional param, got 0"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"any","id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"1","message":"expected 1 positional param, got 0"}]},"id":3}`},
		{"no params: absent, empty, or only _meta", `
			--> {"jsonrpc":"2.0","method":"nothing","params":[],"id":1}
			<-- {"jsonrpc":"2.0","result":null,"id":1}
			--> {"jsonrpc":"2.0","method":"nothing","params":{},"id":2}
			<-- {"jsonrpc":"2.0","result":null,"id":2}
			--> {"jsonrpc":"2.0","method":"nothing","params":{"_meta":{"progressToken":1}},"id":3}
			<-- {"jsonrpc":"2.0","result":null,"id":3}
			--> {"jsonrpc":"2.0","method":"nothing","params":[1],"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"0","message":"the method takes no params"}]},"id":4}`},
		{"positional struct: one value per field, in order", `
			--> {"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}
			<-- {"jsonrpc":"2.0","result":3,"id":1}
			--> {"jsonrpc":"2.0","method":"add","params":[1],"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"2","message":"expected 2 positional params, got 1"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"add","params":[1,2,3],"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"2","message":"expected 2 positional params, got 3"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"add","params":[1,"2"],"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":4}`},
		{"named struct: exact names, no unknown or repeated members", `
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1},"id":1}
			<-- {"jsonrpc":"2.0","result":1,"id":1}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"c":2},"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"c","rule":"unknown","message":"unknown field \"c\""}]},"id":2}
			--> {"jsonrpc":"2.0","method":"add","params":{"A":1},"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"A","rule":"unknown","message":"unknown field \"A\""}]},"id":3}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"a":2},"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"a","rule":"duplicate","message":"member \"a\" given more than once"}]},"id":4}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2,"_meta":{"progressToken":"t"}},"id":5}
			<-- {"jsonrpc":"2.0","result":3,"id":5}
			--> {"jsonrpc":"2.0","method":"add","params":{"\u0061":1},"id":6}
			<-- {"jsonrpc":"2.0","result":1,"id":6}`},
		{"type mismatches name the JSON path", `
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":[{"sku":"a","qty":1},{"sku":"b","qty":2},{"sku":"c","qty":"3"}]},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"items[2].qty","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":1}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":{}},"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"items","rule":"type","param":"array","message":"expected an array, got an object"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":[{"sku":"a","qty":1}],"notes":{"k":7}},"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notes[\"k\"]","rule":"type","param":"string","message":"expected a string, got a number"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":[{"sku":"a","qty":1}],"express":"yes"},"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"express","rule":"type","param":"boolean","message":"expected a boolean, got a string"}]},"id":4}
			--> {"jsonrpc":"2.0","method":"pow","params":[2,"x"],"id":5}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1]","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":5}
			--> {"jsonrpc":"2.0","method":"sum","params":[1,2.5],"id":6}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1]","rule":"type","param":"integer","message":"expected an integer, got 2.5"}]},"id":6}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"n":128},"id":7}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"n","rule":"range","param":"int8","message":"128 does not fit in int8"}]},"id":7}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"u":-1},"id":8}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"u","rule":"range","param":"uint","message":"-1 does not fit in uint"}]},"id":8}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"F":1e39},"id":9}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"F","rule":"range","param":"float32","message":"1e39 does not fit in float32"}]},"id":9}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"n":-128,"u":18446744073709551615,"F":1.5},"id":10}
			<-- {"jsonrpc":"2.0","result":{"n":-128,"u":18446744073709551615,"F":1.5},"id":10}`},
		{"an integral number in any notation is that integer; a fraction is not", `
			--> {"jsonrpc":"2.0","method":"sum","params":[3.0,3e0,30e-1,0.3e1,-0.0],"id":1}
			<-- {"jsonrpc":"2.0","result":12,"id":1}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":14278.0,"b":14278e0},"id":2}
			<-- {"jsonrpc":"2.0","result":28556,"id":2}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"n":-1.28e2,"u":1.8446744073709551615e19},"id":3}
			<-- {"jsonrpc":"2.0","result":{"n":-128,"u":18446744073709551615,"F":0},"id":3}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"u":-0.0,"F":3.0},"id":4}
			<-- {"jsonrpc":"2.0","result":{"n":0,"u":0,"F":3},"id":4}
			--> {"jsonrpc":"2.0","method":"sum","params":[3.0,2.5],"id":5}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1]","rule":"type","param":"integer","message":"expected an integer, got 2.5"}]},"id":5}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"n":1.28e2},"id":6}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"n","rule":"range","param":"int8","message":"1.28e2 does not fit in int8"}]},"id":6}
			--> {"jsonrpc":"2.0","method":"sizes","params":{"u":-1.0},"id":7}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"u","rule":"range","param":"uint","message":"-1.0 does not fit in uint"}]},"id":7}`},
		{"shapes that need the other kind of params", `
			--> {"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"shape","param":"array","message":"the method takes positional params (an array)"}]},"id":1}
			--> {"jsonrpc":"2.0","method":"pow","params":{"base":2},"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"shape","param":"array","message":"the method takes positional params (an array)"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"count","params":[1],"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"shape","param":"object","message":"the method takes named params (an object)"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"pow","params":[2],"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"2","message":"expected 2 positional params, got 1"}]},"id":4}
			--> {"jsonrpc":"2.0","method":"negate","params":[1,2],"id":5}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"1","message":"expected 1 positional param, got 2"}]},"id":5}
			--> {"jsonrpc":"2.0","method":"negate","id":6}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"1","message":"expected 1 positional param, got 0"}]},"id":6}`},
		{"validation lists every failing field by JSON name", `
			--> {"jsonrpc":"2.0","method":"quotient","params":{"a":1,"b":0},"id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":1}
			--> {"jsonrpc":"2.0","method":"quotient","params":[1,0],"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":2}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"annabel","items":[{"sku":"a","qty":1},{"sku":"","qty":0}],"notes":{"k":"long"}},"id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"customer","rule":"max","param":"5","message":"customer must be at most 5 characters long"},{"field":"items[1].sku","rule":"required","message":"items[1].sku is required"},{"field":"items[1].qty","rule":"gte","param":"1","message":"items[1].qty must be at least 1"},{"field":"notes[\"k\"]","rule":"max","param":"3","message":"notes[\"k\"] must be at most 3 characters long"}]},"id":3}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann"},"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"items","rule":"required","message":"items is required"}]},"id":4}
			--> {"jsonrpc":"2.0","method":"named","params":{"id":0,"name":"x"},"id":5}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"id","rule":"gt","param":"0","message":"id must be greater than 0"}]},"id":5}
			--> {"jsonrpc":"2.0","method":"orders","params":[{"customer":"a","items":[{"sku":"x","qty":1}]},{"customer":"b"}],"id":6}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"[1].items","rule":"required","message":"[1].items is required"}]},"id":6}
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":[{"sku":"a","qty":1}]},"id":7}
			<-- {"jsonrpc":"2.0","result":"ann:1","id":7}`},
		{"_meta is exposed from the context, never bound", `
			--> {"jsonrpc":"2.0","method":"meta","params":{"_meta":{"progressToken":"t1"}},"id":1}
			<-- {"jsonrpc":"2.0","result":{"progressToken":"t1"},"id":1}`},
		{"errors keep their code, or become internal errors", `
			--> {"jsonrpc":"2.0","method":"fail","id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"disk full"}},"id":1}
			--> {"jsonrpc":"2.0","method":"failCoded","id":2}
			<-- {"jsonrpc":"2.0","error":{"code":4001,"message":"quota exceeded","data":{"retry":30}},"id":2}
			--> {"jsonrpc":"2.0","method":"noSuchMethod","id":3}
			<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiretest.Serve(t, newShapes(t, nil), tt.transcript, nil)
		})
	}
}

func TestAllowUnknownFields(t *testing.T) {
	wiretest.Serve(t, newShapes(t, &service.Options{AllowUnknownFields: true}), `
		--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2,"c":{"deep":[1]}},"id":1}
		<-- {"jsonrpc":"2.0","result":3,"id":1}
		--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"a":2},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"a","rule":"duplicate","message":"member \"a\" given more than once"}]},"id":2}`, nil)
}

// With KeepMeta, a "_meta" member of named params is a member like any
// other: refused as unknown by a struct and by a method without params,
// a key for a map, there as it came for a json.RawMessage; allowed by
// AllowUnknownFields. Without it, _meta is skipped (TestMethodShapes).
func TestKeepMeta(t *testing.T) {
	wiretest.Serve(t, newShapes(t, &service.Options{KeepMeta: true}), `
		--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2,"_meta":{}},"id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta","rule":"unknown","message":"unknown field \"_meta\""}]},"id":1}
		--> {"jsonrpc":"2.0","method":"nothing","params":{"_meta":{}},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"0","message":"the method takes no params"}]},"id":2}
		--> {"jsonrpc":"2.0","method":"count","params":{"x":1,"_meta":2},"id":3}
		<-- {"jsonrpc":"2.0","result":2,"id":3}
		--> {"jsonrpc":"2.0","method":"raw","params":{"_meta":{"k":1}},"id":4}
		<-- {"jsonrpc":"2.0","result":{"_meta":{"k":1}},"id":4}
		--> {"jsonrpc":"2.0","method":"nothing","params":{},"id":5}
		<-- {"jsonrpc":"2.0","result":null,"id":5}`, nil)
	wiretest.Serve(t, newShapes(t, &service.Options{KeepMeta: true, AllowUnknownFields: true}), `
		--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2,"_meta":{}},"id":1}
		<-- {"jsonrpc":"2.0","result":3,"id":1}`, nil)
}

type Shouter struct{}

type ShoutParams struct {
	Text string `json:"text" validate:"loud"`
}

func (Shouter) Shout(p ShoutParams) string { return p.Text + "!" }

func TestCustomValidator(t *testing.T) {
	v := validator.New()
	require.NoError(t, v.RegisterValidation("loud", func(fl validator.FieldLevel) bool {
		return strings.ToUpper(fl.Field().String()) == fl.Field().String()
	}))
	svc := service.New(&service.Options{Validator: v})
	require.NoError(t, svc.Register("", Shouter{}))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"shout","params":{"text":"HEY"},"id":1}
		<-- {"jsonrpc":"2.0","result":"HEY!","id":1}
		--> {"jsonrpc":"2.0","method":"shout","params":{"text":"hey"},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"text","rule":"loud","message":"text fails the loud rule"}]},"id":2}`, nil)
}

func TestNotificationsCallTheMethod(t *testing.T) {
	shapes := &Shapes{}
	svc := service.New(nil)
	require.NoError(t, svc.Register("", shapes))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"nothing"}
		--> {"jsonrpc":"2.0","method":"nothing","params":[1]}
		--> {"jsonrpc":"2.0","method":"nothing","params":{}}`, nil)
	assert.Equal(t, []string{"nothing", "nothing"}, shapes.calls, "the call with bad params is not made")
}

type Calc struct{}

func (Calc) GetData() string               { return "data" }
func (Calc) HTTPStatus() int               { return 200 }
func (Calc) Subtract(a, b float64) float64 { return a - b }

func TestNamesAndNamespaces(t *testing.T) {
	tests := []struct {
		name      string
		mapper    func(string) string
		namespace string
		want      []string
	}{
		{"lowerCamel by default", nil, "", []string{"getData", "httpStatus", "subtract"}},
		{"snake_case", service.SnakeCase, "", []string{"get_data", "http_status", "subtract"}},
		{"namespace", nil, "calc", []string{"calc.getData", "calc.httpStatus", "calc.subtract"}},
		{"custom mapper", strings.ToUpper, "", []string{"GETDATA", "HTTPSTATUS", "SUBTRACT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := service.New(&service.Options{Names: tt.mapper})
			require.NoError(t, svc.Register(tt.namespace, Calc{}))
			assert.Equal(t, tt.want, svc.Methods())
		})
	}
	svc := service.New(nil)
	require.NoError(t, svc.Register("calc", Calc{}))
	require.NoError(t, svc.Register("shapes", &Shapes{}))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"calc.subtract","params":[3,1],"id":1}
		<-- {"jsonrpc":"2.0","result":2,"id":1}
		--> {"jsonrpc":"2.0","method":"shapes.negate","params":[3],"id":2}
		<-- {"jsonrpc":"2.0","result":-3,"id":2}
		--> {"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}`, nil)
}

func TestNameMappers(t *testing.T) {
	tests := []struct{ in, camel, snake string }{
		{"GetData", "getData", "get_data"},
		{"ID", "id", "id"},
		{"GetID", "getID", "get_id"},
		{"HTTPStatus", "httpStatus", "http_status"},
		{"GetHTTPStatus", "getHTTPStatus", "get_http_status"},
		{"NotifyHello", "notifyHello", "notify_hello"},
		{"Sum2", "sum2", "sum2"},
		{"A", "a", "a"},
		{"Ünïcode", "ünïcode", "ünïcode"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.camel, service.LowerCamel(tt.in), tt.in)
		assert.Equal(t, tt.snake, service.SnakeCase(tt.in), tt.in)
	}
}

type TwoResults struct{}

func (TwoResults) Good() int                    { return 1 }
func (TwoResults) Bad() (int, int)              { return 1, 2 }
func (TwoResults) AlsoBad(c chan int)           {}
func (TwoResults) CtxLate(int, context.Context) {}

type NoMethods struct{}

type Pointy struct{}

func (*Pointy) Method() {}

type WithMutex struct {
	sync.Mutex
}

func (*WithMutex) Own() {}

type Reserved struct{}

func (Reserved) Echo() {}

func TestRegistrationErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(s *service.Service) error
		want string
	}{
		{"nil", func(s *service.Service) error { return s.Register("", nil) }, "cannot register nil"},
		{"no servable method", func(s *service.Service) error { return s.Register("", NoMethods{}) }, "has no method that can be served"},
		{"results", func(s *service.Service) error { return s.Register("", TwoResults{}) }, "method service_test.TwoResults.AlsoBad cannot be served: parameter 1: type chan int cannot be decoded from JSON"},
		{"value with pointer methods", func(s *service.Service) error { return s.Register("", Pointy{}) }, "register a *service_test.Pointy"},
		{"reserved namespace", func(s *service.Service) error { return s.Register("rpc", Reserved{}) }, `maps to "rpc.echo": names starting with rpc. are reserved`},
		{"duplicate", func(s *service.Service) error {
			if err := s.Register("", Reserved{}); err != nil {
				return err
			}
			return s.Register("", Reserved{})
		}, `maps to "echo", which is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do(service.New(nil))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestUnservableMethodsByName(t *testing.T) {
	// By default the first unservable method fails the registration.
	err := service.New(nil).Register("", TwoResults{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TwoResults.AlsoBad cannot be served")

	// With SkipUnservable, each is skipped and logged by name.
	var logs wiretest.Buffer
	svc := service.New(&service.Options{SkipUnservable: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, svc.Register("", TwoResults{}))
	assert.Equal(t, []string{"good"}, svc.Methods())
	for _, want := range []string{
		"TwoResults.AlsoBad cannot be served: parameter 1: type chan int cannot be decoded from JSON",
		"TwoResults.Bad cannot be served: results int, int: the second result must be error",
		"TwoResults.CtxLate cannot be served: context.Context must be the first parameter",
	} {
		assert.Contains(t, logs.String(), want)
	}
}

func TestPromotedMethodsAreNotServed(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", &WithMutex{}))
	assert.Equal(t, []string{"own"}, svc.Methods(), "Lock and Unlock come from the embedded Mutex")
}

func TestHandleDirectlyWithBrokenParams(t *testing.T) {
	svc := newShapes(t, nil)
	for _, params := range []string{`{"a":`, `[1,`, `{"a":1}x`, `"str"`, `{"a":"\x"}`} {
		_, err := svc.Handle(context.Background(), &rpc.Request{Method: "add", Params: json.RawMessage(params)})
		var e *codec.Error
		require.ErrorAs(t, err, &e, params)
		assert.Equal(t, codec.InvalidParams, e.Code, params)
	}
}
