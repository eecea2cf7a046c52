package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// capabilityStatus is the ResponseWriter of a 2026-07-28 POST: an answer
// that is MissingRequiredClientCapability (-32021) is sent with 400 Bad
// Request, as 2026-07-28's servers send it ("modern servers also use 400
// for UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError,
// and header-validation failures"), and so is the -32602 of a request
// whose _meta lacks a required field or has a malformed one ("A request
// missing any required field is malformed; the server MUST reject it with
// JSON-RPC error code -32602 (Invalid params). On HTTP, the response
// status MUST be 400 Bad Request"); the JSON-RPC error is the body. The
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
			if code, field := errorCode(p); code == int(MissingRequiredClientCapability) ||
				code == int(rpc.InvalidParams) && strings.HasPrefix(field, `_meta["io.modelcontextprotocol/`) {
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

// FlushError writes the header, if no body came yet (an event stream
// opened before its first event), then flushes, as http.ResponseController
// asks.
func (c *capabilityStatus) FlushError() error {
	if !c.written {
		c.written = true
		c.ResponseWriter.WriteHeader(cmp.Or(c.status, http.StatusOK))
	}
	return http.NewResponseController(c.ResponseWriter).Flush()
}

// finish writes the header if no body came.
func (c *capabilityStatus) finish() {
	if !c.written && c.status != 0 {
		c.written = true
		c.ResponseWriter.WriteHeader(c.status)
	}
}

// errorCode is the code of the JSON-RPC error the first line of first (a
// JSON line or an event) holds, or 0, and the field its data's first
// problem names, if any (service.FieldErrors).
func errorCode(first []byte) (int, string) {
	first = bytes.TrimPrefix(first, []byte("data: "))
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	e := jsonx.Member(first, "error")
	code, err := strconv.Atoi(string(jsonx.Member(e, "code")))
	if err != nil {
		return 0, ""
	}
	var problems []struct {
		Field string `json:"field"`
	}
	if data := jsonx.Member(e, "data"); len(data) > 0 && data[0] == '[' && json.Unmarshal(data, &problems) == nil && len(problems) > 0 {
		return code, problems[0].Field
	}
	return code, ""
}
