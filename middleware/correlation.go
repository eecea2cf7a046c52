package middleware

import (
	"context"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
)

// Correlation gives every call a trace id: the one of the W3C trace context
// in the request's params._meta.traceparent when it is valid, otherwise a
// new random one. TraceID reads it; Logging and Recover log it.
func Correlation() Middleware {
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			st, ctx := stateFor(ctx, req)
			if !st.tracing {
				// A call inside a traced call (a handler calling another
				// with its context) shares its trace id.
				st.tracing, st.traceLink = true, st.outer().tracedOut()
			}
			return next.Handle(ctx, req)
		})
	}
}

// traceID is the trace id of req's traceparent, or a new random one.
func traceID(req *rpc.Request) [16]byte {
	if id, ok := parseTraceparent(codec.Member(req.Meta, "traceparent")); ok {
		return id
	}
	var r [2]uint64
	for r == [2]uint64{} {
		r = [2]uint64{rand.Uint64(), rand.Uint64()}
	}
	var id [16]byte
	for i := range 8 {
		id[i], id[8+i] = byte(r[0]>>(8*i)), byte(r[1]>>(8*i))
	}
	return id
}

// TraceID returns the trace id of the call ctx belongs to, as 32 lowercase
// hex digits, or "" if no Correlation middleware gave it one.
func TraceID(ctx context.Context) string {
	if st := traced(ctx); st != nil {
		id := st.traceOf()
		return hex.EncodeToString(id[:])
	}
	return ""
}

// parseTraceparent reads the trace id of a W3C traceparent header value,
// given as a raw JSON string: "00-<32 hex trace id>-<16 hex parent id>-<2
// hex flags>". Any other version than ff is read by the same rule, as the
// recommendation asks; an all-zero id is invalid.
func parseTraceparent(raw []byte) (id [16]byte, ok bool) {
	// The raw token, quotes included: no escapes are possible in a valid one.
	if len(raw) < 2+55 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return id, false
	}
	s := raw[1 : len(raw)-1]
	if (len(s) != 55 && (len(s) < 56 || s[55] != '-')) || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return id, false
	}
	version, trace, parent, flags := s[0:2], s[3:35], s[36:52], s[53:55]
	if !lowerHex(version) || !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) ||
		string(version) == "ff" || (string(version) == "00" && len(s) != 55) {
		return id, false
	}
	if _, err := hex.Decode(id[:], trace); err != nil || id == [16]byte{} {
		return [16]byte{}, false
	}
	var pid [8]byte
	if _, err := hex.Decode(pid[:], parent); err != nil || pid == [8]byte{} {
		return [16]byte{}, false
	}
	return id, true
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// callAttrs are the log attributes that say which call a record is about.
func callAttrs(ctx context.Context, req *rpc.Request) []slog.Attr {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("method", codec.Echo(req.Method)))
	if req.ID != nil {
		attrs = append(attrs, slog.String("id", codec.Echo(req.ID)))
	}
	if id := TraceID(ctx); id != "" {
		attrs = append(attrs, slog.String("trace_id", id))
	}
	return attrs
}
