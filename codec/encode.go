package codec

import (
	"fmt"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// AppendResponse appends a response line (without the '\n') that answers id
// with result. A nil id is written as null. result is encoded as compact
// JSON: an [Appender] appends itself, a json.RawMessage is validated and
// compacted, anything else is encoded with encoding/json, without HTML
// escaping.
func AppendResponse(dst, id []byte, result any) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"jsonrpc":"2.0","result":`...)
	dst, err := jsonx.AppendValue(dst, result)
	if err != nil {
		return dst[:start], err
	}
	return jsonx.AppendID(dst, id), nil
}

// AppendErrorResponse appends a response line (without the '\n') that answers
// id with the error object e. If e's data cannot be encoded, the line carries
// an InternalError that says so instead, and the encoding error is returned.
func AppendErrorResponse(dst, id []byte, e *Error) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"jsonrpc":"2.0","error":`...)
	dst, err := appendErrorObject(dst, e)
	if err != nil {
		dst = append(dst[:start], `{"jsonrpc":"2.0","error":`...)
		dst, _ = appendErrorObject(dst, internalError("codec.dataError", err.Error()))
	}
	return jsonx.AppendID(dst, id), err
}

// appendErrorObject appends e as a JSON-RPC error object.
func appendErrorObject(dst []byte, e *Error) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	if e.Data != nil {
		var err error
		dst = append(dst, `,"data":`...)
		if dst, err = jsonx.AppendValue(dst, e.Data); err != nil {
			return dst[:start], fmt.Errorf("codec: error data: %w", err)
		}
	}
	return append(dst, '}'), nil
}

// AppendRequest appends a request line (without the '\n'). A nil id makes it
// a notification. params must be nil or encode to an object or an array.
func AppendRequest(dst, id []byte, method string, params any) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = jsonx.AppendString(dst, method)
	if params != nil {
		dst = append(dst, `,"params":`...)
		p := len(dst)
		var err error
		if dst, err = jsonx.AppendValue(dst, params); err != nil {
			return dst[:start], err
		}
		switch dst[p] {
		case '{', '[':
		case 'n': // null: no params
			dst = dst[:p-len(`,"params":`)]
		default:
			return dst[:start], fmt.Errorf("codec: params must be an object or an array, not %s", dst[p:])
		}
	}
	if id != nil {
		dst = jsonx.AppendID(dst, id)
	} else {
		dst = append(dst, '}')
	}
	return dst, nil
}

// An Appender appends its own encoding as JSON, in one pass and with no
// copy: the Append functions call it for a value (a result, params, an
// error's data) instead of encoding/json. What it appends must be one valid
// JSON value with no line break, or the Append function fails.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}
