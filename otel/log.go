package toolotel

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler returns a handler that adds to each record made with a context
// inside a span (a call's span, and those started from it) the span's
// span_id, and its trace_id unless the record has one already (Logging's
// and Recover's do: the same one, see [middleware.WithTraceID]), then hands
// it to h. Records made without such a context pass through as they are.
func LogHandler(h slog.Handler) slog.Handler { return &logHandler{h} }

type logHandler struct{ h slog.Handler }

func (l *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *logHandler) Handle(ctx context.Context, r slog.Record) error {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return l.h.Handle(ctx, r)
	}
	hasTrace := false
	r.Attrs(func(a slog.Attr) bool {
		hasTrace = a.Key == "trace_id"
		return !hasTrace
	})
	r = r.Clone()
	if !hasTrace {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()))
	}
	r.AddAttrs(slog.String("span_id", sc.SpanID().String()))
	return l.h.Handle(ctx, r)
}

func (l *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{l.h.WithAttrs(attrs)}
}

func (l *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{l.h.WithGroup(name)}
}
