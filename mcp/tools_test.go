package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// kit is the tools of the tests: one of each shape a tool may have.
type kit struct {
	started chan struct{} // Block says it has started
	ended   chan error    // Block's context's end
}

type addArgs struct {
	A *float64 `json:"a" validate:"required" jsonschema:"the first addend"`
	B *float64 `json:"b" validate:"required"`
}

type point struct {
	X int    `json:"x"`
	Y int    `json:"y"`
	L string `json:"label,omitempty"`
}

type divArgs struct {
	A int `json:"a"`
	B int `json:"b" validate:"ne=0"`
}

// Add returns a + b: a number, sent as text.
func (kit) Add(p addArgs) float64 { return *p.A + *p.B }

// Point is a struct: structuredContent and a text block of it.
func (kit) Point(p divArgs) point { return point{X: p.A / p.B, Y: p.A % p.B, L: "<q&a>"} }

// Hello is a string: a text block.
func (kit) Hello() string { return "hello, world" }

// Nothing returns nothing: no content.
func (kit) Nothing() {}

// Fail returns a plain error.
func (kit) Fail() error { return errors.New("the disk is full: free some space and retry") }

// Coded returns an *rpc.Error: its message is the text.
func (kit) Coded() error { return rpc.NewError(4000, "quota exceeded").WithData("detail") }

// Boom panics.
func (kit) Boom() int { panic(fmt.Errorf("index %d out of range", 7)) }

// Tags takes a map.
func (kit) Tags(m map[string]string) int { return len(m) }

// Raw takes the arguments as they came.
func (kit) Raw(m json.RawMessage) string { return string(m) }

// Rich returns content of its own.
func (kit) Rich() *mcp.ToolResult {
	return &mcp.ToolResult{
		Content:           []mcp.Content{mcp.TextContent{Text: "a"}, mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}},
		StructuredContent: map[string]int{"n": 1},
		IsError:           true,
	}
}

// Block reports progress, then waits for its context to end.
func (k kit) Block(ctx context.Context) error {
	if err := middleware.ReportProgress(ctx, 1, 0, "started"); err != nil {
		return err
	}
	close(k.started)
	<-ctx.Done()
	k.ended <- context.Cause(ctx)
	return ctx.Err()
}

func (kit) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{
		"Add":   {Title: "Add numbers", Description: "Adds a and b."},
		"Point": {Description: "Divides a by b: quotient and remainder."},
	}
}

func (kit) ToolAnnotations() map[string]mcp.Annotations {
	return map[string]mcp.Annotations{"Add": {ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}}
}

func newKit() kit { return kit{started: make(chan struct{}), ended: make(chan error, 1)} }

// newServer returns a Server of the kit's tools.
func newServer(opts *mcp.Options) (*mcp.Server, kit) {
	if opts == nil {
		opts = &mcp.Options{Name: "kit", Version: "1.0.0", Title: "Test kit", Instructions: "Use add to add."}
	}
	s := mcp.New(opts)
	k := newKit()
	if err := s.Register("", k); err != nil {
		panic(err)
	}
	return s, k
}
