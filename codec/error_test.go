package codec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every code has a message: its own for the codes the package names, else
// what JSON-RPC 2.0 (section 5.1) sets its range aside for.
func TestCodeString(t *testing.T) {
	tests := []struct {
		code Code
		want string
	}{
		{ParseError, "Parse error"},
		{InvalidRequest, "Invalid Request"},
		{MethodNotFound, "Method not found"},
		{InvalidParams, "Invalid params"},
		{InternalError, "Internal error"},
		{ServerShuttingDown, "Server shutting down"},
		{RequestTimeout, "Request timed out"},
		{ServerBusy, "Server busy"},
		{RequestCancelled, "Request cancelled"},

		// -32099..-32000: implementation-defined server errors.
		{-32003, "Server error"},
		{-32044, "Server error"},
		{-32099, "Server error"},
		// The rest of -32768..-32000: reserved for pre-defined errors.
		{-32100, "Reserved error"},
		{-32604, "Reserved error"},
		{-32699, "Reserved error"},
		{-32701, "Reserved error"},
		{-32768, "Reserved error"},
		// Everything else is the application's.
		{-32769, "Application error"},
		{-31999, "Application error"},
		{-32801, "Application error"},
		{-1, "Application error"},
		{0, "Application error"},
		{1234, "Application error"},
		{Code(^uint(0) >> 1), "Application error"},
		{-Code(^uint(0)>>1) - 1, "Application error"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.code.String(), "code %d", int(tt.code))
	}
}

func TestInvalidRequestReason(t *testing.T) {
	e := invalidRequest("method is required")
	assert.Equal(t, &Error{Code: InvalidRequest, Message: "Invalid Request",
		Data: InvalidRequestData{Reason: "method is required"}}, e)
	assert.Equal(t, "jsonrpc error -32600: Invalid Request: method is required", e.Error())

	var read Error
	require.NoError(t, json.Unmarshal([]byte(`{"code":-32600,"message":"Invalid Request","data":{"reason":"method is required"}}`), &read))
	assert.Equal(t, e.Error(), read.Error(), "the reason of an error read from the wire")
	for _, data := range []string{`[1]`, `{"reason":7}`, `"x"`, `{}`} {
		require.NoError(t, json.Unmarshal([]byte(`{"code":-32600,"message":"Invalid Request","data":`+data+`}`), &read))
		assert.Equal(t, "jsonrpc error -32600: Invalid Request", read.Error(), "data %s", data)
	}
	assert.Equal(t, "jsonrpc error -32602: Invalid params", errorOf(InvalidParams).WithData(InvalidRequestData{Reason: "x"}).Error())
}
