// Package callattrs carries, in a request's context, the log attributes
// that every record of its calls holds: what a layer below the calls
// knows of them (package auth: the caller's subject and client) and
// middleware's log records write, neither importing the other.
package callattrs

import (
	"context"
	"log/slog"
)

// key is the context key of the attributes.
type key struct{}

// With returns ctx holding attrs after those it holds already.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	held, _ := ctx.Value(key{}).([]slog.Attr)
	return context.WithValue(ctx, key{}, append(held[:len(held):len(held)], attrs...))
}

// Append appends to dst the attributes ctx holds.
func Append(ctx context.Context, dst []slog.Attr) []slog.Attr {
	held, _ := ctx.Value(key{}).([]slog.Attr)
	return append(dst, held...)
}
