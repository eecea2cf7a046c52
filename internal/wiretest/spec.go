package wiretest

// Example is a named transcript.
type Example struct {
	Name       string
	Transcript string
}

// SpecExamples are the examples of section 7 of the JSON-RPC 2.0
// specification, request for request as the specification writes them
// (batches on one line, since a line is a frame), each answer its example
// compacted. The one difference is toolrpc's: an error -32600 carries the
// rule broken in its data, {"reason": "..."} (the specification leaves data
// to the server; code, message and id are its examples' exactly). A server
// that serves subtract, sum, get_data and the notifications update,
// notify_hello and notify_sum must answer exactly these lines.
var SpecExamples = []Example{
	{"positional parameters", `
		--> {"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}
		<-- {"jsonrpc":"2.0","result":19,"id":1}
		--> {"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}
		<-- {"jsonrpc":"2.0","result":-19,"id":2}`},
	{"named parameters", `
		--> {"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}
		<-- {"jsonrpc":"2.0","result":19,"id":3}
		--> {"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}
		<-- {"jsonrpc":"2.0","result":19,"id":4}`},
	{"notifications", `
		--> {"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}
		--> {"jsonrpc": "2.0", "method": "foobar"}`},
	{"non-existent method", `
		--> {"jsonrpc": "2.0", "method": "foobar", "id": "1"}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
	{"invalid JSON", `
		--> {"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]
		<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
	{"invalid request object", `
		--> {"jsonrpc": "2.0", "method": 1, "params": "bar"}
		<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"method must be a string"}},"id":null}`},
	{"batch, invalid JSON", `
		--> [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]
		<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
	{"empty array", `
		--> []
		<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a batch must not be empty"}},"id":null}`},
	{"invalid batch, not empty", `
		--> [1]
		<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null}]`},
	{"invalid batch", `
		--> [1,2,3]
		<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null}]`},
	{"batch", `
		--> [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}, {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"}, {"foo": "boo"}, {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"}, {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
		<-- [{"jsonrpc":"2.0","result":7,"id":"1"},{"jsonrpc":"2.0","result":19,"id":"2"},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"jsonrpc must be the string 2.0"}},"id":null},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"5"},{"jsonrpc":"2.0","result":["hello",5],"id":"9"}]`},
	{"batch, all notifications", `
		--> [{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]`},
}
