package codec

import "github.com/toolrpc/toolrpc/internal/wiretest/jsonref"

// validJSON is the reference grammar the codec is held to, shared with the
// other packages' tests.
var validJSON = jsonref.Valid

// errorOf is the error object of code with the code's own message.
func errorOf(code Code) *Error { return &Error{Code: code, Message: code.String()} }
