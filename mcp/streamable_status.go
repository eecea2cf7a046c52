package mcp

import (
	"net/http"
	"strings"

	"github.com/toolrpc/toolrpc/internal/rpchttp"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// modernHook is the hook of a 2026-07-28 POST's response (rpchttp.Hook):
// an answer that is MissingRequiredClientCapability (-32021) is sent with
// 400 Bad Request, as 2026-07-28's servers send it ("modern servers also
// use 400 for UnsupportedProtocolVersionError,
// MissingRequiredClientCapabilityError, and header-validation failures"),
// and so is the -32602 of a request whose _meta lacks a required field or
// has a malformed one ("A request missing any required field is
// malformed; the server MUST reject it with JSON-RPC error code -32602
// (Invalid params). On HTTP, the response status MUST be 400 Bad
// Request"); the JSON-RPC error is the body. An event stream gets
// X-Accel-Buffering: no.
type modernHook struct{}

// Header picks the status of the answer that starts the response; see
// rpchttp.Hook.
func (modernHook) Header(h http.Header, s rpchttp.Start) int {
	if s.Events {
		h["X-Accel-Buffering"] = noBuffering
	}
	if e := s.Err; s.Answered && e != nil && (e.Code == MissingRequiredClientCapability ||
		e.Code == rpc.InvalidParams && strings.HasPrefix(firstField(e.Data), `_meta["io.modelcontextprotocol/`)) {
		return http.StatusBadRequest
	}
	return 0
}

// firstField is the field the first problem of an error's data names, if
// its data lists problems (service.FieldErrors).
func firstField(data any) string {
	if problems, ok := data.(service.FieldErrors); ok && len(problems) > 0 && problems[0] != nil {
		return problems[0].Field
	}
	return ""
}
