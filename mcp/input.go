package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// InputStateTTL is how long the requestState of an input_required answer
// is honored: a retry that brings it later is refused.
const InputStateTTL = 10 * time.Minute

// InputRequired is the error a tool returns (or a prompt, or a resource's
// Read), in a 2026-07-28 request (tools/call, prompts/get,
// resources/read), to ask its client for input before it answers
// (2026-07-28, Multi Round-Trip Requests): the request is answered with
// resultType "input_required", the
// requests in inputRequests, each under its key, and State (when not "")
// as requestState; the client retries the call with the answers
// (inputResponses, read with [InputResponse]) and the requestState, and
// the tool, run again, gets State back ([RequestState]). [CreateMessage]
// and [Elicit] return one for the question they ask; a tool asks several
// questions at once, or keeps state between rounds, with its own.
//
// The server seals the state it sends: requestState is State with its
// expiry ([InputStateTTL]), authenticated (HMAC-SHA256, with the first of
// Options.StateKeys, by default a key made at random by New) with the
// name of the tool (or prompt), a digest of the call's arguments and the
// caller's principal (its verified identity's issuer, subject and client
// id, behind auth.ResourceServer.Require). A retry whose requestState fails that
// check with every key (altered, expired, another tool's, another call's
// or another principal's) is refused with -32602 and never reaches the
// tool. State is not secret from the client: it is
// signed, not encrypted.
//
// Each request's method must be one the client declared the capability
// for ([ClientCan]): otherwise the call is an isError result, and nothing
// is asked. In a legacy session the error is a tool's failure as any
// other (use CreateMessage and Elicit, which ask at once there).
type InputRequired struct {
	Requests []*InputRequest
	State    string
}

func (e *InputRequired) Error() string {
	if len(e.Requests) == 0 {
		return "mcp: input required from the client"
	}
	return "mcp: input required from the client: " + e.Requests[0].Method + " (" + e.Requests[0].Key + ")"
}

// Unwrap returns ErrInputRequired.
func (e *InputRequired) Unwrap() error { return ErrInputRequired }

// InputRequest is a request of an [InputRequired]: what the client is
// asked, under the key its answer comes back with.
type InputRequest struct {
	// Key is the request's key in inputRequests and inputResponses: not
	// empty, and distinct among the requests of one InputRequired.
	Key string
	// Method is the request's method: elicitation/create,
	// sampling/createMessage or roots/list.
	Method string
	// Params are its params, encoded with encoding/json when the call is
	// answered.
	Params any
}

// ElicitRequest is the request, under key, for the form of params
// (elicitation/create).
func ElicitRequest(key string, params *ElicitParams) *InputRequest {
	return &InputRequest{Key: key, Method: methodElicit, Params: params}
}

// CreateMessageRequest is the request, under key, for the sampling of
// params (sampling/createMessage).
func CreateMessageRequest(key string, params *CreateMessageParams) *InputRequest {
	return &InputRequest{Key: key, Method: methodCreateMessage, Params: params}
}

// ListRootsRequest is the request, under key, for the client's roots
// (roots/list).
func ListRootsRequest(key string) *InputRequest {
	return &InputRequest{Key: key, Method: methodListRoots, Params: json.RawMessage(`{}`)}
}

// ClientCan reports whether the client of the call ctx belongs to
// declared the capability a request of method needs: sampling for
// sampling/createMessage, elicitation (in form mode) for
// elicitation/create, roots for roots/list; false for any other method,
// and for a ctx of no call.
func ClientCan(ctx context.Context, method string) bool {
	var caps json.RawMessage
	req := rpc.RequestFromContext(ctx)
	if req == nil {
		return false
	}
	if isModern(req) {
		caps = jsonx.Member(req.Meta, metaCapabilities)
	} else if p := peerFrom(ctx); p != nil {
		caps = p.capabilities()
	}
	return declares(caps, method)
}

// declares reports whether caps declare what a request of method needs
// (clientMethods): false for a method that is no server's request.
func declares(caps json.RawMessage, method string) bool {
	m := clientMethods[method]
	return m != nil && m.declared != nil && m.declared(caps)
}

// InputResponse decodes into result the client's answer under key in the
// inputResponses of the 2026-07-28 call ctx belongs to (a retry), and
// reports whether there was one. An answer that is not the result of a
// request (not an object, or not what result takes; for an
// [*ElicitResult] or a [*CreateMessageResult], not of the shape the
// protocol gives it) is an error. An elicitation's answer is not checked
// against its form here, which InputResponse does not know: call
// [ElicitParams.Check] with the form asked.
func InputResponse(ctx context.Context, key string, result any) (bool, error) {
	req := rpc.RequestFromContext(ctx)
	if req == nil {
		return false, ErrNoClient
	}
	answer := jsonx.Member(jsonx.Member(req.Params, "inputResponses"), key)
	if answer == nil {
		return false, nil
	}
	if answer[0] != '{' || json.Unmarshal(answer, result) != nil || !shaped(result) {
		return false, fmt.Errorf("mcp: the client's answer %q is not the result of a request", key)
	}
	return true, nil
}

// stateKey is the context key of the state a retry brought back.
type stateKey struct{}

// RequestState returns the State of the [InputRequired] the tool returned
// before, as the client's retry of the call ctx belongs to brought it back
// (verified), and whether it brought one.
func RequestState(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(stateKey{}).(string)
	return s, ok
}

// inputRequired is the answer of a 2026-07-28 call whose tool needs the
// client's input first: an InputRequiredResult. caps are the client's.
func (s *Server) inputRequired(ctx context.Context, r revision, what string, args, caps json.RawMessage, e *InputRequired) (json.RawMessage, error) {
	if len(e.Requests) == 0 && e.State == "" {
		return nil, errors.New("mcp: an InputRequired holds no request and no state")
	}
	b := append(make([]byte, 0, 256), `{"resultType":"input_required"`...)
	if len(e.Requests) > 0 {
		b = append(b, `,"inputRequests":{`...)
		seen := map[string]bool{}
		for i, q := range e.Requests {
			switch {
			case q == nil || q.Key == "" || seen[q.Key]:
				return nil, errors.New("mcp: the requests of an InputRequired need distinct keys, not empty")
			case !declares(caps, q.Method):
				return nil, missing(q.Method)
			}
			seen[q.Key] = true
			params, err := encode(q.Params)
			if err != nil {
				return nil, fmt.Errorf("mcp: the params of %s cannot be encoded: %w", q.Method, err)
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, q.Key)
			b = append(b, `:{"method":`...)
			b = jsonx.AppendString(b, q.Method)
			b = append(b, `,"params":`...)
			b = append(b, params...)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if e.State != "" {
		b = append(b, `,"requestState":`...)
		b = jsonx.AppendString(b, s.seal(callerOf(ctx), what, args, e.State, time.Now().Add(InputStateTTL)))
	}
	return s.closeResult(r, append(b, ',')), nil
}

// seal makes the requestState of state: its expiry and state, then a MAC
// of them, the principal of the call (principalOf: a retry with another's
// token is refused, as MCP's Multi Round-Trip Requests say servers
// SHOULD), what it is for (a tool, a prompt) and the digest of the call's
// arguments.
func (s *Server) seal(principal, tool string, args json.RawMessage, state string, expiry time.Time) string {
	body := binary.BigEndian.AppendUint64(nil, uint64(expiry.Unix()))
	body = append(body, state...)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(body) + "." + enc.EncodeToString(mac(s.stateKeys[0], principal, tool, argsDigest(args), body))
}

// argsDigest is the digest of a call's arguments that a requestState is
// bound to: of their compact form, so that spacing does not count.
func argsDigest(args json.RawMessage) [sha256.Size]byte {
	var compact bytes.Buffer
	if len(args) > 0 && json.Compact(&compact, args) != nil {
		compact.Reset()
	}
	return sha256.Sum256(compact.Bytes())
}

// mac authenticates body with key for the principal, the tool and the
// digest of the arguments.
func mac(key []byte, principal, tool string, digest [sha256.Size]byte, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("toolrpc mcp requestState v2\x00"))
	m.Write([]byte(principal))
	m.Write([]byte{0})
	m.Write([]byte(tool))
	m.Write([]byte{0})
	m.Write(digest[:])
	m.Write(body)
	return m.Sum(nil)
}

// unseal returns the state of a requestState seal made for the
// principal, the tool and arguments, and whether it is one, unexpired at
// now.
func (s *Server) unseal(principal, tool string, args json.RawMessage, sealed []byte, now time.Time) (string, bool) {
	enc := base64.RawURLEncoding
	i := bytes.IndexByte(sealed, '.')
	if i < 0 {
		return "", false
	}
	body, err1 := enc.DecodeString(string(sealed[:i]))
	sum, err2 := enc.DecodeString(string(sealed[i+1:]))
	if err1 != nil || err2 != nil || len(body) < 8 {
		return "", false
	}
	digest := argsDigest(args)
	if !slices.ContainsFunc(s.stateKeys, func(key []byte) bool { return hmac.Equal(sum, mac(key, principal, tool, digest, body)) }) {
		return "", false
	}
	if now.Unix() > int64(binary.BigEndian.Uint64(body[:8])) {
		return "", false
	}
	return string(body[8:]), true
}

// retry checks what a 2026-07-28 retry brings (Multi Round-Trip Requests)
// to the handler called what (a tool's, a prompt's), called with args:
// its inputResponses (responses) must be an object of objects, and its
// requestState (state) one this server sealed for the same principal,
// handler and arguments, unexpired. It returns ctx holding the state, or the -32602
// refusing them.
func (s *Server) retry(ctx context.Context, what string, args, responses, state json.RawMessage) (context.Context, error) {
	if responses != nil && !inputResponses(responses) {
		return nil, invalid(&service.FieldError{Field: "inputResponses", Rule: "type", Param: "object",
			Message: "inputResponses must be an object whose every member is an object: the client's result for each request"})
	}
	if state == nil {
		return ctx, nil
	}
	if sealed, ok := stringValue(state); ok {
		if state, ok := s.unseal(callerOf(ctx), what, args, sealed, time.Now()); ok {
			return context.WithValue(ctx, stateKey{}, state), nil
		}
	}
	return nil, invalid(&service.FieldError{Field: "requestState", Rule: "requestState",
		Message: "requestState is not one this server sent for this call, or it expired: call again without it"})
}

// asked answers, in 2026-07-28, the call of a handler (what, called with
// args; meta the request's _meta) whose err asks the client first
// (InputRequired: an input_required answer) or needs a capability the
// client did not declare (-32021), and reports whether it did.
func (s *Server) asked(ctx context.Context, r revision, what string, args, meta json.RawMessage, err error) (any, bool, error) {
	if !r.modern {
		return nil, false, nil
	}
	if ir := (*InputRequired)(nil); errors.As(err, &ir) {
		answer, ierr := s.inputRequired(ctx, r, what, args, jsonx.Member(meta, metaCapabilities), ir)
		if ierr == nil {
			return answer, true, nil
		}
		err = ierr
	}
	if ce := (*capabilityError)(nil); errors.As(err, &ce) {
		return nil, true, missingCapability(ce)
	}
	return nil, false, nil
}

// capabilityError is the error of a request the client did not declare
// the capability for; it is ErrClientCapability.
type capabilityError struct{ method string }

// missing is the error of a request of method the client cannot answer.
func missing(method string) error { return &capabilityError{method} }

func (e *capabilityError) Error() string {
	return ErrClientCapability.Error() + ": " + e.method + " needs it"
}

func (e *capabilityError) Is(target error) bool { return target == ErrClientCapability }

// capability is the client capability the request needs (clientMethods);
// roots for a method that is no server's request.
func (e *capabilityError) capability() string {
	if m := clientMethods[e.method]; m != nil && m.capability != "" {
		return m.capability
	}
	return "roots"
}

// missingCapability is the answer of a 2026-07-28 call whose tool needs a
// capability the client did not declare: MissingRequiredClientCapability
// (-32021), its data naming the capability ("requiredCapabilities", a
// ClientCapabilities object), as 2026-07-28 requires ("If processing a
// request requires a capability the client did not include ... the server
// MUST return a MissingRequiredClientCapabilityError").
func missingCapability(e *capabilityError) error {
	data := json.RawMessage(`{"requiredCapabilities":{"` + e.capability() + `":{}}}`)
	return rpc.NewError(MissingRequiredClientCapability, "Missing required client capability: "+e.capability()).WithData(data)
}
