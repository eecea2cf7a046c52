package toolotel

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/propagation"
)

// bounded is a carrier whose values longer than their bound (see
// MaxTraceparent) read as absent. It is only read from.
type bounded struct{ propagation.TextMapCarrier }

// Get returns the value of key, or "" when it is longer than key's bound.
func (b bounded) Get(key string) string {
	v := b.TextMapCarrier.Get(key)
	if len(v) > maxValue(key) {
		return ""
	}
	return v
}

// maxValue is the bound of the value of key.
func maxValue(key string) int {
	switch strings.ToLower(key) {
	case "traceparent":
		return MaxTraceparent
	case "tracestate":
		return MaxTracestate
	}
	return MaxBaggage
}

// metaCarrier reads the string members of params._meta. Its members are
// case-sensitive, as JSON's are, and the propagators ask for lowercase
// names (traceparent, tracestate, baggage), MCP's spelling.
type metaCarrier map[string]string

// newMetaCarrier reads the members of meta that are strings of at most
// MaxBaggage bytes: no value a propagator may read is longer.
func newMetaCarrier(meta json.RawMessage) metaCarrier {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return nil
	}
	c := make(metaCarrier, 4)
	for k, raw := range m {
		if len(raw) == 0 || raw[0] != '"' || len(raw) > 6*MaxBaggage+2 {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && len(s) <= MaxBaggage {
			c[k] = s
		}
	}
	return c
}

// Get returns the member key, or "".
func (c metaCarrier) Get(key string) string { return c[key] }

// Set does nothing: the carrier is only read from.
func (c metaCarrier) Set(string, string) {}

// Keys returns the members' names.
func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
