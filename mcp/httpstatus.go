package mcp

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/toolrpc/toolrpc/codec"
)

// capabilityStatus is the ResponseWriter of a 2026-07-28 POST: an answer
// that is MissingRequiredClientCapability (-32021) is sent with 400 Bad
// Request, as 2026-07-28's servers send it ("modern servers also use 400
// for UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError,
// and header-validation failures"), the JSON-RPC error in the body. The
// header waits for the first bytes, which say which answer it is.
type capabilityStatus struct {
	http.ResponseWriter
	status  int
	written bool
}

func (c *capabilityStatus) WriteHeader(status int) {
	if c.written {
		return
	}
	c.status = status
}

func (c *capabilityStatus) Write(p []byte) (int, error) {
	if !c.written {
		status := c.status
		if status == 0 || status == http.StatusOK {
			status = http.StatusOK
			if errorCode(p) == int(MissingRequiredClientCapability) {
				status = http.StatusBadRequest
			}
		}
		c.written = true
		c.ResponseWriter.WriteHeader(status)
	}
	return c.ResponseWriter.Write(p)
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (c *capabilityStatus) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// finish writes the header if no body came.
func (c *capabilityStatus) finish() {
	if !c.written && c.status != 0 {
		c.written = true
		c.ResponseWriter.WriteHeader(c.status)
	}
}

// errorCode is the code of the JSON-RPC error the first line of first (a
// JSON line or an event) holds, or 0.
func errorCode(first []byte) int {
	first = bytes.TrimPrefix(first, []byte("data: "))
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	code, err := strconv.Atoi(string(codec.Member(codec.Member(first, "error"), "code")))
	if err != nil {
		return 0
	}
	return code
}
