// Package service turns plain Go values into JSON-RPC methods.
//
// Register a value and its exported methods become RPC methods; a [Service]
// is an [rpc.Handler]:
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
// Everything is worked out at registration ([Service.Register]): which
// methods can be served, how their params decode (a decoder per method,
// built once), which need validation, and what each method publishes
// ([Service.Describe]: its documentation, from [Documented], and the JSON
// Schemas of its params and result, from package
// [github.com/toolrpc/toolrpc/schema], with the validate tags as keywords).
// A method that cannot be served is reported then, by name, not at its
// first call. A call looks its method up, decodes, validates, calls.
//
// # Methods and names
//
// A method has the form
//
//	M([ctx context.Context,] [params...]) ([R,] [error])
//
// the context first if at all, then zero, one or several parameters;
// results (R, error), error, R or none. ctx is the call's
// context, cancelled with the call ([rpc.RequestFromContext] gives the
// request, [rpc.Notify] notifies the caller). R is encoded with
// encoding/json; a [json.RawMessage] passes through, compacted. Methods
// promoted from embedded fields are not served; a value with
// pointer-receiver methods must be registered by pointer.
//
// Names are lowerCamelCase by default ([LowerCamel]: GetData is getData),
// [SnakeCase] gives get_data, and [Options.Names] takes any mapping; a
// namespace prefixes them (calc.getData). Names under "rpc." are refused,
// as are duplicates.
//
// # Params
//
// How params bind depends on what the method takes (see [Service.Register]
// for every case): one struct takes named params by JSON field name, or
// positional params one per exported field in declaration order; one slice
// takes the whole array; one map takes named params by key; one
// json.RawMessage takes the params as they came; several parameters take
// positional params, one each, exactly as many.
//
// Params are decoded strictly: member names match JSON field names exactly
// (case matters), an unknown member or a member given twice is an error
// (unknown members can be allowed: [Options.AllowUnknownFields]), numbers
// must fit their Go type. A "_meta" member of named params is the
// protocol's metadata, never a param: neither bound nor refused, it is
// [rpc.Request.Meta]. Structs, and slices of structs, are then validated
// with go-playground/validator's validate tags ([Options.Validator] takes
// an instance with custom rules). With the service's own validator, a
// struct whose every rule is a common one on numbers, strings or booleans
// (required, omitempty, gt, gte, lt, lte, min, max, len, eq, ne, oneof) is
// checked by this package in a few comparisons; params that fail are
// checked again by the validator, so every answer is the validator's.
//
// # What a call answers
//
// A method's result is the response's result. A request for a method that
// is not registered is answered MethodNotFound (-32601). Params that cannot
// be bound or fail validation are answered InvalidParams (-32602), before
// the method is called, whose data, [FieldErrors], lists each problem as a
// [FieldError] naming the JSON path at fault, the rule and its parameter:
//
//	{"code":-32602,"message":"Invalid params","data":[
//	  {"field":"items[2].qty","rule":"type","param":"integer","message":"expected an integer, got a string"},
//	  {"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]}
//
// A method's error is answered as the connection answers any handler's
// (see [rpc.Handler]): an [rpc.Error], or an error wrapping one, keeps its
// code, message and data; any other error is InternalError (-32603) with
// data {"exception": "<Go type>", "message": "<text>"}.
//
// An InvalidParams answer costs a bounded amount, whatever the params: its
// data lists at most [MaxFieldErrors] (100) problems, then one entry of
// rule "more" that counts the rest; what the peer sent (a member name, a
// key, a value) is repeated at most [codec.MaxEcho] (256) bytes at a time,
// cut before a character and followed by "…" and its length; a
// FieldError's Field, Param and Message are at most [MaxFieldText] (1 KiB)
// each. FieldErrors is a [codec.Appender]: the answer is encoded once,
// straight into its line.
//
// # Discovery
//
// [Service.Describe] and [Service.Method] give each method's name,
// description, [ParamStructure] and JSON Schemas (a [MethodInfo]).
// [Service.OpenRPC] gives the OpenRPC 1.3.2 document of the methods, and
// [Service.ServeDiscover] makes the Service answer rpc.discover
// ([rpc.Discover]) with it; a Service that does not serve it answers
// rpc.discover MethodNotFound.
package service
