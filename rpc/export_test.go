package rpc

// ForwardStderr is forwardStderr, for the tests of package rpc_test.
var ForwardStderr = forwardStderr
