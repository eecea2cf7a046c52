package codec

import (
	"encoding/json"
	"fmt"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// Code is a JSON-RPC 2.0 error code.
type Code int

// The error codes of JSON-RPC 2.0 (section 5.1 of the specification), the
// cancellation code of the Language Server Protocol, and the server errors
// toolrpc itself uses. Codes from -32768 to -32000 are reserved by the
// specification; applications use codes outside that range.
const (
	// ParseError is the code for a frame that is not valid JSON (invalid
	// UTF-8 included).
	ParseError Code = -32700
	// InvalidRequest is the code for JSON that is not a valid request
	// object, an empty batch, or a limit passed (frame size, batch length,
	// nesting depth). toolrpc says which in its data, an
	// [InvalidRequestData].
	InvalidRequest Code = -32600
	// MethodNotFound is the code for a method no one serves.
	MethodNotFound Code = -32601
	// InvalidParams is the code for params that cannot be decoded into
	// what the method takes, or that fail validation.
	InvalidParams Code = -32602
	// InternalError is the code for a handler that returned an error
	// without a JSON-RPC code, panicked, or returned a result that cannot
	// be encoded (its data says which: an [InternalErrorData]).
	InternalError Code = -32603

	// ServerShuttingDown is the code for a request read but not run to
	// completion because the connection was shut down (its context
	// cancelled, or its output failed).
	ServerShuttingDown Code = -32000
	// RequestTimeout is the code for a request that ran past the deadline
	// a middleware gave it.
	RequestTimeout Code = -32001
	// ServerBusy is the code for a request that found the connection's
	// queue full even for reading on while it awaited the peer's response
	// (see rpc.Options.QueueSize).
	ServerBusy Code = -32002

	// RequestCancelled is the code for a request the peer cancelled
	// ($/cancelRequest), as in the Language Server Protocol.
	RequestCancelled Code = -32800
)

// String returns the code's message: the standard one for the codes above,
// and for any other code what the specification sets it aside for: "Server
// error" from -32099 to -32000 (implementation-defined server errors),
// "Reserved error" for the rest of -32768 to -32000 (reserved for
// pre-defined errors), and "Application error" outside that range.
func (c Code) String() string {
	switch c {
	case ParseError:
		return "Parse error"
	case InvalidRequest:
		return "Invalid Request"
	case MethodNotFound:
		return "Method not found"
	case InvalidParams:
		return "Invalid params"
	case InternalError:
		return "Internal error"
	case ServerShuttingDown:
		return "Server shutting down"
	case RequestTimeout:
		return "Request timed out"
	case ServerBusy:
		return "Server busy"
	case RequestCancelled:
		return "Request cancelled"
	}
	switch {
	case -32099 <= c && c <= -32000:
		return "Server error"
	case -32768 <= c && c <= -32000:
		return "Reserved error"
	}
	return "Application error"
}

// Error is the JSON-RPC 2.0 error object, and a Go error.
//
// A handler that returns an *Error (or an error wrapping one, found with
// [errors.As]) has it written as is: code, message and data. Data is encoded
// with encoding/json when the response is written; an error object read from
// the wire carries its data as a json.RawMessage.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// InvalidRequestData is the data of every InvalidRequest error toolrpc
// answers with (a Decoder's, and a connection's for its limits): the
// message stays the specification's "Invalid Request", and Reason says
// which rule the message broke.
type InvalidRequestData struct {
	// Reason is the rule broken, in toolrpc's own words: a fixed phrase,
	// with at most a configured limit in it, never text the peer sent.
	Reason string `json:"reason"`
}

// invalidRequest returns an [InvalidRequest] error with the
// specification's message and reason in its data, an [InvalidRequestData].
func invalidRequest(reason string) *Error {
	return &Error{Code: InvalidRequest, Message: "Invalid Request", Data: InvalidRequestData{Reason: reason}}
}

// InternalErrorData is the data of the InternalError toolrpc answers with
// when a handler fails without a JSON-RPC code, panics, or returns what
// cannot be encoded: Exception is the Go type of the error (or panic value,
// or result), as %T prints it, and Message its text. It encodes as
// {"exception":"...","message":"..."}, in that order.
type InternalErrorData struct {
	Exception string `json:"exception"`
	Message   string `json:"message"`
}

// internalError returns an InternalError with the specification's
// message, "Internal error", and an [InternalErrorData] of exception and
// message as its data.
func internalError(exception, message string) *Error {
	return &Error{Code: InternalError, Message: "Internal error",
		Data: InternalErrorData{Exception: exception, Message: message}}
}

// WithData returns a copy of e that carries data.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

// Error implements the error interface: the code and the message, and for
// an InvalidRequest error the reason its data gives (see
// InvalidRequestData), as sent or as read from the wire.
func (e *Error) Error() string {
	if r := e.reason(); r != "" {
		return fmt.Sprintf("jsonrpc error %d: %s: %s", e.Code, e.Message, r)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// reason returns the reason in the data of an InvalidRequest error, or "".
func (e *Error) reason() string {
	if e.Code != InvalidRequest {
		return ""
	}
	switch d := e.Data.(type) {
	case InvalidRequestData:
		return d.Reason
	case json.RawMessage:
		var r InvalidRequestData
		_ = json.Unmarshal(d, &r) // data of another shape has no reason
		return r.Reason
	}
	return ""
}

// UnmarshalJSON decodes an error object strictly: code must be an integer and
// message a string, both present; data, when present, is kept as a
// json.RawMessage.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w struct {
		Code    *json.Number    `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("codec: error object: %w", err)
	}
	if w.Code == nil || w.Message == nil {
		return fmt.Errorf("codec: error object needs a code and a message")
	}
	code, err := w.Code.Int64()
	if err != nil || int64(Code(code)) != code {
		return fmt.Errorf("codec: error code %s is not an integer", *w.Code)
	}
	*e = Error{Code: Code(code), Message: *w.Message}
	if w.Data != nil {
		e.Data = w.Data
	}
	return nil
}

// MaxEcho, 256, is the most bytes of a string a peer sent (a member name,
// a value, a method name, an id) that toolrpc repeats in an error answer or
// a log record: a longer one is cut before a character, and "…" and its
// length in bytes follow. A response's id is the exception: it is echoed
// whole, as the specification requires.
const MaxEcho = jsonx.MaxEcho
