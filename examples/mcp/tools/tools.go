// Package tools holds the tools of the example MCP server: plain Go methods,
// documented and annotated, with nothing MCP-specific but the annotations
// and the scopes stats needs when the server is a protected resource.
package tools

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/service"
)

// Tools are the example server's tools: add, count, sleep, stats and
// whoami.
type Tools struct{}

// AddParams are add's arguments: two numbers, both required (pointers, so
// that 0 is a value given and an absent member is not).
type AddParams struct {
	A *float64 `json:"a" validate:"required" jsonschema:"the first addend"`
	B *float64 `json:"b" validate:"required" jsonschema:"the second addend"`
}

// Add returns a + b.
func (Tools) Add(p AddParams) float64 { return *p.A + *p.B }

// CountParams are count's arguments.
type CountParams struct {
	N int `json:"n" default:"10" validate:"min=0,max=1000" jsonschema:"how far to count, at most 1000 (10 when not given)"`
}

// Count counts from 1 to n, reporting each step as progress, and returns n.
func (Tools) Count(ctx context.Context, p CountParams) (int, error) {
	for i := 1; i <= p.N; i++ {
		if err := middleware.ReportProgress(ctx, float64(i), float64(p.N), ""); err != nil &&
			err != middleware.ErrNoReporter {
			return 0, err
		}
	}
	return p.N, nil
}

// SleepParams are sleep's arguments.
type SleepParams struct {
	Ms int `json:"ms" validate:"min=0,max=600000" jsonschema:"how long to sleep, in milliseconds"`
}

// Sleep waits ms milliseconds, or until the call is cancelled; it reports
// progress 0 of ms as it starts.
func (Tools) Sleep(ctx context.Context, p SleepParams) (string, error) {
	if err := middleware.ReportProgress(ctx, 0, float64(p.Ms), "sleeping"); err != nil &&
		err != middleware.ErrNoReporter {
		return "", err
	}
	t := time.NewTimer(time.Duration(p.Ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return "slept", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// StatsParams are stats' arguments.
type StatsParams struct {
	Values []float64 `json:"values" validate:"required,min=1,max=10000" jsonschema:"the numbers, 1 to 10000 of them"`
}

// Stats summarize numbers.
type Stats struct {
	Count int     `json:"count"`
	Sum   float64 `json:"sum"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

// Stats returns the count, sum, mean, minimum and maximum of the values.
func (Tools) Stats(p StatsParams) Stats {
	s := Stats{Count: len(p.Values), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, v := range p.Values {
		s.Sum += v
		s.Min = min(s.Min, v)
		s.Max = max(s.Max, v)
	}
	s.Mean = s.Sum / float64(s.Count)
	return s
}

// Whoami says who calls: the subject of the caller's bearer token and its
// scopes ("machine: mcp stats"), or "anonymous" where there is no token
// (stdio, or HTTP without -issuer).
func (Tools) Whoami(ctx context.Context) string {
	id := auth.IdentityFrom(ctx)
	if id == nil {
		return "anonymous"
	}
	return id.Subject + ": " + strings.Join(id.Scopes, " ")
}

// MethodDocs gives each tool its title and description.
func (Tools) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{
		"Add":    {Title: "Add", Description: "Adds two numbers, a and b, and returns their sum."},
		"Count":  {Title: "Count", Description: "Counts from 1 to n, one progress notification per step, and returns n."},
		"Sleep":  {Title: "Sleep", Description: "Sleeps for ms milliseconds, or until cancelled; reports progress 0 as it starts."},
		"Stats":  {Title: "Statistics", Description: "Returns the count, sum, mean, minimum and maximum of 1 to 10000 numbers."},
		"Whoami": {Title: "Who am I", Description: "Returns the caller's subject and scopes, from its bearer token, or anonymous without one."},
	}
}

// ToolAnnotations says that every tool is read-only and closed-world.
func (Tools) ToolAnnotations() map[string]mcp.Annotations {
	pure := mcp.Annotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	return map[string]mcp.Annotations{"Add": pure, "Count": pure, "Sleep": pure, "Stats": pure, "Whoami": pure}
}

// ToolScopes says that stats needs the scope stats, beyond the scopes
// every request needs, where the server is a protected resource (-issuer):
// a call of it with a token without stats is answered 403, naming the
// scopes to ask for. Elsewhere there is no token, and no scope to check.
func (Tools) ToolScopes() map[string][]string {
	return map[string][]string{"Stats": {"stats"}}
}
