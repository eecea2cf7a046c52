//go:build !unix

package rpc

// catchSIGPIPE does nothing where there is no SIGPIPE.
func catchSIGPIPE() (stop func()) { return func() {} }
