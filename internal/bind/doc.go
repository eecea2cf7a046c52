// Package bind decodes the params of a JSON-RPC call into the arguments of
// a Go method: package service's binder, behind one entry point, [Params].
//
// It is a JSON decoder of its own, not encoding/json (v1), because params
// must be decoded strictly, and every problem reported as package service
// reports it (an [Error]: a JSON path, a rule, a message):
//   - member names match field names exactly (encoding/json also takes a
//     member whose name differs only in case);
//   - a member given twice is an error (encoding/json keeps the last);
//   - a Go array takes exactly its length of elements (encoding/json drops
//     the extra ones, zeroes the missing ones);
//   - a number that does not fit its Go type, or an integer written with a
//     fraction or an exponent, is reported as such (rule range, or type),
//     naming the type;
//   - every error names the JSON path of the value at fault, array indexes
//     and map keys included (items[2].qty, tags["a.b"]), which
//     encoding/json's errors do not.
//
// Otherwise it decodes as encoding/json does, and its tests hold it to
// that (FuzzBind: where both accept an input, both give the same value):
// field names and promotion by the rules of package internal/fields (which
// the schema generator shares), the ",string" option, []byte from base64,
// interface{} values as map[string]any, []any, float64, string, bool or
// nil, json.Unmarshaler, encoding.TextUnmarshaler, json.RawMessage and
// json.Number.
//
// encoding/json/v2 gives all of this (exact names, duplicate members
// refused, a JSON Pointer in its errors), but in Go 1.26 it is still an
// experiment, built only with GOEXPERIMENT=jsonv2. When it no longer is,
// this package can be replaced by it behind the same entry point: the
// params conventions (an array spread over several parameters or a
// struct's fields, "_meta" skipped) on top of json.Unmarshal with
// RejectUnknownMembers, and its SemanticError turned into an [Error].
package bind
