package middleware

import (
	"context"
	"encoding/hex"
	"math/rand/v2"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// Correlation gives every call a trace id: the one of the W3C trace context
// in the request's params._meta.traceparent when it is valid, otherwise a
// new random one. [TraceID] reads it; [Logging] and [Recover] log it. A call
// made inside a traced call (a handler calling another handler with its
// context) shares that call's trace id.
func Correlation() Middleware {
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			if ctx.Value(traceKey{}) == nil {
				ctx = withCallValue(ctx, req, traceKey{}, nil)
			}
			return next.Handle(ctx, req)
		})
	}
}

// traceKey is the key of a call's trace id: a string of 32 hex digits,
// made when first read (most calls never log, and minting one is not
// free), then kept.
type traceKey struct{}

// TraceID returns the trace id of the call ctx belongs to, as 32 lowercase
// hex digits, or "" if no [Correlation] middleware gave it one.
func TraceID(ctx context.Context) string {
	id, _ := callValue(ctx, traceKey{}, mintTraceID).(string)
	return id
}

// WithTraceID returns ctx with id as the trace id of the call req, the one
// [TraceID] returns and [Logging] and [Recover] log: for middleware that
// knows the call's trace better than Correlation, such as a tracer whose
// span's trace id the call's records must carry (its trace may come from
// elsewhere than params._meta, an HTTP header, or be new). Outside
// Correlation (before it in a [Chain]), Correlation keeps id; inside it,
// id replaces the one Correlation gives, for every middleware of the call,
// those outside included, from the next read of TraceID on. An all-zero
// id is no trace id: ctx is returned as it is.
func WithTraceID(ctx context.Context, req *rpc.Request, id [16]byte) context.Context {
	if id == ([16]byte{}) {
		return ctx
	}
	return withCallValue(ctx, req, traceKey{}, id)
}

// mintTraceID is the trace id of req, in hex: conf's when WithTraceID gave
// one.
func mintTraceID(req *rpc.Request, conf any) any {
	id, ok := conf.([16]byte)
	if !ok {
		id = traceID(req)
	}
	return hex.EncodeToString(id[:])
}

// traceID is the trace id of req's traceparent, or a new random one.
func traceID(req *rpc.Request) [16]byte {
	if id, ok := parseTraceparent(jsonx.Member(req.Meta, "traceparent")); ok {
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
