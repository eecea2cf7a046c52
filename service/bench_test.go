package service_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

type benchAdder struct{}

type AddParams struct {
	A int `json:"a" validate:"gte=0"`
	B int `json:"b" validate:"ne=0"`
}

func (benchAdder) Add(p AddParams) (int, error) { return p.A + p.B, nil }

// handwritten is the same method written by hand against rpc.Handler: the
// params decoded with encoding/json, the rules checked in code.
var handwritten = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	if req.Method != "add" {
		return nil, rpc.NewError(codec.MethodNotFound, "")
	}
	var p AddParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, rpc.NewError(codec.InvalidParams, "")
	}
	if p.A < 0 || p.B == 0 {
		return nil, rpc.NewError(codec.InvalidParams, "")
	}
	return p.A + p.B, nil
})

// BenchmarkHandle compares one call through a Service (reflection binding
// and validation) with the same call through the hand-written handler.
func BenchmarkHandle(b *testing.B) {
	svc := service.New(nil)
	if err := svc.Register("", benchAdder{}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		h      rpc.Handler
		params string
	}{
		{"handwritten/named", handwritten, `{"a":40,"b":2}`},
		{"service/named", svc, `{"a":40,"b":2}`},
		{"service/positional", svc, `[40,2]`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := &rpc.Request{ID: json.RawMessage(`1`), Method: "add", Params: json.RawMessage(bc.params)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := bc.h.Handle(ctx, req)
				if err != nil || res.(int) != 42 {
					b.Fatal(res, err)
				}
			}
		})
	}
}

type benchDefaulted struct{}

// DefaultedParams are AddParams with a default for b.
type DefaultedParams struct {
	A    int      `json:"a" validate:"gte=0"`
	B    int      `json:"b" default:"2" validate:"ne=0"`
	Tags []string `json:"tags" default:"[\"x\"]"`
}

func (benchDefaulted) Add(p DefaultedParams) (int, error) { return p.A + p.B + len(p.Tags) - 1, nil }

// BenchmarkDefaults measures a call whose params leave members with a
// default out: b (a copy of the value decoded at registration) and tags
// (a slice: decoded anew from the tag's JSON, so calls share nothing),
// against the same call with every member given.
func BenchmarkDefaults(b *testing.B) {
	svc := service.New(nil)
	if err := svc.Register("", benchDefaulted{}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, params string }{
		{"given", `{"a":40,"b":2,"tags":["x"]}`},
		{"absent_int", `{"a":40,"tags":["x"]}`},
		{"absent_slice", `{"a":40,"b":2}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := &rpc.Request{ID: json.RawMessage(`1`), Method: "add", Params: json.RawMessage(bc.params)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := svc.Handle(ctx, req)
				if err != nil || res.(int) != 42 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
