// Package service turns plain Go values into JSON-RPC methods.
//
// Register a value and its exported methods become RPC methods; a Service
// is an rpc.Handler:
//
//	type Calc struct{}
//
//	type DivideParams struct {
//		A float64 `json:"a"`
//		B float64 `json:"b" validate:"ne=0"`
//	}
//
//	func (Calc) Divide(p DivideParams) (float64, error) { return p.A / p.B, nil }
//
//	svc := service.New(nil)
//	if err := svc.Register("", Calc{}); err != nil { ... }
//	err := rpc.ServeStdio(ctx, svc, nil)
//
// Everything is worked out at registration: which methods can be served, how
// their params decode (a decoder per method, built once), which need
// validation, and what each method publishes ([Service.Describe]: its
// documentation, from [Documented], and the JSON Schemas of its params and
// result, from package schema, with the validate tags as keywords). A call
// looks its method up, decodes, validates, calls.
//
// Params are decoded strictly: member names match JSON field names exactly,
// an unknown member or a member given twice is an error (unknown members can
// be allowed), numbers must fit their Go type, and every failure is an
// InvalidParams error whose data is a list of FieldError naming the JSON
// path at fault (items[2].qty). Validation uses go-playground/validator's
// validate tags; its failures are reported the same way, with the rule and
// its parameter.
//
// An InvalidParams answer costs a bounded amount, whatever the params: its
// data, [FieldErrors], lists at most [MaxFieldErrors] (100) problems, then
// one entry of rule "more" that counts the rest; what the peer sent (a
// member name, a key, a value) is repeated at most [codec.MaxEcho] (256)
// bytes at a time, cut before a character and followed by "…" and its
// length, as [codec.Echo] does; a [FieldError]'s Field, Param and Message
// are at most [MaxFieldText] (1 KiB) each. FieldErrors is a
// [codec.Appender]: the answer is encoded once, straight into its line.
package service
