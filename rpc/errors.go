package rpc

import (
	"fmt"

	"github.com/toolrpc/toolrpc/codec"
)

// Error is the JSON-RPC 2.0 error object, and a Go error: a handler that
// returns an *Error, or an error wrapping one (found with [errors.As]), has
// it sent as it is, code, message and data. Any other error a handler
// returns is answered [InternalError]. A call of ours answered with an
// error response returns an *Error too, its Data the [encoding/json.RawMessage]
// that came.
//
// Error is [codec.Error] under the name a tool uses: a tool needs no
// import of package codec for its errors.
type Error = codec.Error

// Code is a JSON-RPC 2.0 error code, [codec.Code]. Its String method gives
// the code's standard message.
type Code = codec.Code

// The error codes of JSON-RPC 2.0 (section 5.1 of the specification), the
// server errors toolrpc answers with, and the cancellation code of the
// Language Server Protocol: the codes of package codec, under the same
// names. Codes from -32768 to -32000 are reserved by the specification; a
// tool's own errors use codes outside that range.
const (
	// ParseError (-32700) is the code for a line that is not valid JSON.
	ParseError = codec.ParseError
	// InvalidRequest (-32600) is the code for JSON that is not a valid
	// request, an empty batch, or a limit passed; its data is an
	// [codec.InvalidRequestData] that says which.
	InvalidRequest = codec.InvalidRequest
	// MethodNotFound (-32601) is the code for a method no one serves.
	MethodNotFound = codec.MethodNotFound
	// InvalidParams (-32602) is the code for params the method cannot take:
	// of the wrong shape, or failing its validation.
	InvalidParams = codec.InvalidParams
	// InternalError (-32603) is the code for a handler that returned an
	// error without a JSON-RPC code, panicked, or returned a result that
	// cannot be encoded; its data is a [codec.InternalErrorData].
	InternalError = codec.InternalError

	// ServerShuttingDown (-32000) is the code for a request read but not
	// answered before the connection shut down.
	ServerShuttingDown = codec.ServerShuttingDown
	// RequestTimeout (-32001) is the code for a request that ran past the
	// deadline a middleware gave it.
	RequestTimeout = codec.RequestTimeout
	// ServerBusy (-32002) is the code for a request that found the queue
	// full even for reading on while a call of ours awaited the peer (see
	// [Options].QueueSize).
	ServerBusy = codec.ServerBusy

	// RequestCancelled (-32800) is the code for a request the peer
	// cancelled ($/cancelRequest), as in the Language Server Protocol.
	RequestCancelled = codec.RequestCancelled
)

// NewError returns an [Error] with the code and the message; an empty
// message is replaced by the code's standard message. A handler returns it
// to answer with that error object:
//
//	return nil, rpc.NewError(rpc.InvalidParams, "b must not be 0")
//
// and its WithData method gives a copy that carries data too.
func NewError(code Code, message string) *Error {
	if message == "" {
		message = code.String()
	}
	return &Error{Code: code, Message: message}
}

// Errorf returns an [Error] with the code and a message formatted as by
// [fmt.Sprintf].
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// invalidRequest is the InvalidRequest error a connection answers with for
// a message that breaks a rule of its own (a limit, an id in use): the
// specification's message, and the rule in its data.
func invalidRequest(reason string) *Error {
	return &Error{Code: InvalidRequest, Message: "Invalid Request", Data: codec.InvalidRequestData{Reason: reason}}
}

// internalError is the InternalError a connection answers with for a
// handler's plain Go error, panic or result that cannot be encoded: the
// specification's message, and exception (the Go type at fault) and
// message (its text) in its data.
func internalError(exception, message string) *Error {
	return &Error{Code: InternalError, Message: "Internal error",
		Data: codec.InternalErrorData{Exception: exception, Message: message}}
}
