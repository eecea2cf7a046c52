package codec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvalidRequestError(t *testing.T) {
	e := InvalidRequestError("method is required")
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
	assert.Equal(t, "jsonrpc error -32602: Invalid params", NewError(InvalidParams, "").WithData(InvalidRequestData{Reason: "x"}).Error())
}
