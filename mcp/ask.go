package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
	"github.com/toolrpc/toolrpc/internal/scan"
	"github.com/toolrpc/toolrpc/rpc"
)

// Why a tool cannot ask its client.
var (
	// ErrClientCapability is wrapped by the error of [CreateMessage] and
	// [Elicit] when the client did not declare the capability the request
	// needs (sampling; elicitation, in form mode): the request is not
	// sent, as the protocol forbids.
	ErrClientCapability = errors.New("mcp: the client did not declare the capability")
	// ErrNoClient is wrapped by the error of [CreateMessage] and [Elicit]
	// when ctx is not the context of a tools/call a Server serves on a
	// connection of its own serving (Serve, ServeStdio, an HTTPHandler):
	// there is no client to ask.
	ErrNoClient = errors.New("mcp: no client to ask: the context is not that of a call a Server serves")
	// ErrInputRequired is wrapped by the error of [CreateMessage] and
	// [Elicit] in a 2026-07-28 request whose retry does not hold the
	// client's answer yet. A tool returns it (as it returns any error):
	// the call is then answered with resultType "input_required", asking
	// the client the question, and the client retries the call with the
	// answer (inputResponses), when the tool, run again, gets it.
	ErrInputRequired = errors.New("mcp: input required from the client")
)

// peerKey is the context key of the connection's peer.
type peerKey struct{}

// clientPeer is the client of a connection, as the tools that ask it see
// it: the capabilities its initialize declared and, over HTTP, the
// session's handler, whose registry of calls to the client (rpc's, as an
// rpc.Conn's on a stream connection) holds those waiting for its
// responses.
type clientPeer struct {
	mu   sync.Mutex
	c    *session       // the session its initialize opened; nil before it
	http rpchttp.Server // nil on a stream connection
}

// withPeer returns ctx holding p, the peer of the connection it serves.
func withPeer(ctx context.Context, p *clientPeer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// peerFrom returns the peer of the connection ctx's call belongs to.
func peerFrom(ctx context.Context) *clientPeer {
	p, _ := ctx.Value(peerKey{}).(*clientPeer)
	return p
}

// bind makes c, whose initialize came on p's connection, the session
// whose state (the capabilities declared) p reads.
func (p *clientPeer) bind(c *session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c = c
}

// capabilities returns what the client declared: its session's.
func (p *clientPeer) capabilities() json.RawMessage {
	p.mu.Lock()
	c := p.c
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.capabilities
}

// call sends the client a request on behalf of ctx's call, and returns
// its result: over HTTP on the event stream of the call's response (the
// client's response comes as a POST of its own), on a stream connection
// as a call of the rpc.Conn.
func (p *clientPeer) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if p.http != nil {
		result, sent, err := p.http.Call(ctx, method, params)
		if !sent {
			return nil, fmt.Errorf("mcp: %s cannot be sent: %w", method, err)
		}
		return result, err
	}
	conn := rpc.ConnFromContext(ctx)
	if conn == nil {
		return nil, ErrNoClient
	}
	var result json.RawMessage
	if err := conn.Call(ctx, method, params, &result); err != nil {
		return nil, err
	}
	return result, nil
}

// clientResponses returns the responses body holds: one response, or, in
// 2025-03-26 (the one revision with batches), those of an array, and
// whether the array holds anything else too (requests, notifications, or
// entries that are none: a batch may mix them, and its other entries are
// served as any batch's). It is nil, false for any other body, a batch
// of more than maxBatch entries included (refused whole, as any batch
// is: none of its responses delivered), and nil, true for a batch of no
// response.
func clientResponses(env envelope, body []byte, rev revision, maxBatch int) (responses [][]byte, others bool) {
	if isResponse(env, body) {
		return [][]byte{body}, false
	}
	if !rev.batches || len(bytes.TrimLeft(body, " \t\r\n")) == 0 || bytes.TrimLeft(body, " \t\r\n")[0] != '[' {
		return nil, false
	}
	// The entries, split at any depth (json.Unmarshal refuses one nested
	// more than 10000 deep: such a batch went to no call, which waited).
	i := scan.SkipSpace(body, scan.SkipSpace(body, 0)+1)
	for n := 1; i < len(body) && body[i] != ']'; n++ {
		if n > maxBatch {
			return nil, false
		}
		end, st := scan.Value(body, i, 1, scan.Unlimited)
		if st != scan.OK {
			return nil, false
		}
		if m := body[i:end]; isResponse(readEnvelope(m), m) {
			responses = append(responses, m)
		} else {
			others = true
		}
		if i = scan.SkipSpace(body, end); i < len(body) && body[i] == ',' {
			i = scan.SkipSpace(body, i+1)
			if i < len(body) && body[i] == ']' {
				return nil, false // a trailing comma
			}
		} else if i >= len(body) || body[i] != ']' {
			return nil, false
		}
	}
	if i >= len(body) || len(responses) == 0 && !others || scan.SkipSpace(body, i+1) != len(body) {
		return nil, false
	}
	return responses, others
}

// isResponse reports whether body is a JSON-RPC response: valid JSON, an
// object with an id, a result or an error, and no method. The envelope's
// object is valid JSON at any depth (json.Valid refuses one nested more
// than 10000 deep: such an answer went to no call, which waited).
func isResponse(env envelope, body []byte) bool {
	return env.object && env.method == nil && env.id != nil &&
		(jsonx.Member(body, "result") != nil || jsonx.Member(body, "error") != nil)
}

// ask sends the client the request method with params, on behalf of the
// tools/call ctx belongs to, once the client declared the capability
// (declares), and decodes its result into result. In 2026-07-28 the
// answer is the retried call's inputResponses, or, before it came,
// ErrInputRequired (see it).
func ask(ctx context.Context, method string, params any, result any) error {
	raw, err := encode(params)
	if err != nil {
		return fmt.Errorf("mcp: the params of %s cannot be encoded: %w", method, err)
	}
	req := rpc.RequestFromContext(ctx)
	if req == nil {
		return ErrNoClient
	}
	var answer json.RawMessage
	if isModern(req) {
		if !declares(jsonx.Member(req.Meta, metaCapabilities), method) {
			return missing(method)
		}
		key := inputKey(method, raw)
		answer = jsonx.Member(jsonx.Member(req.Params, "inputResponses"), key)
		if answer == nil {
			return &InputRequired{Requests: []*InputRequest{{Key: key, Method: method, Params: json.RawMessage(raw)}}}
		}
	} else {
		p := peerFrom(ctx)
		if p == nil {
			return ErrNoClient
		}
		if !declares(p.capabilities(), method) {
			return missing(method)
		}
		if answer, err = p.call(ctx, method, raw); err != nil {
			return err
		}
	}
	if answer[0] != '{' || json.Unmarshal(answer, result) != nil || !shaped(result) {
		return fmt.Errorf("mcp: the client's answer to %s is not the result of one", method)
	}
	return nil
}

// shaped reports whether result, decoded from a client's answer, has the
// shape the protocol gives the result of its request (its required
// members, its enums), when it is a result whose shape is checked.
func shaped(result any) bool {
	v, ok := result.(interface{ shaped() bool })
	return !ok || v.shaped()
}

// inputResponses reports whether v, a 2026-07-28 request's
// inputResponses, is an InputResponses: an object of objects. It is
// scanned, not decoded: a retry with a million members holds none of them.
func inputResponses(v json.RawMessage) bool {
	return eachMember(v, func(_, r []byte) bool { return r[0] == '{' })
}

// inputKey is the key of a request in a 2026-07-28 inputRequests: the
// capability it needs (clientMethods), and a digest of its method and
// params, so that a tool run again finds the answer to each question it
// asks, whatever their order.
func inputKey(method string, params []byte) string {
	sum := sha256.Sum256(append([]byte(method+"\n"), params...))
	kind := "sampling"
	if m := clientMethods[method]; m != nil && m.capability != "" {
		kind = m.capability
	}
	return kind + "-" + hex.EncodeToString(sum[:8])
}
