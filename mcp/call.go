package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/recovery"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// ToolResult is a tools/call result a tool returns itself, for content a
// plain value does not give: several blocks, images, an error result with
// content of its own.
type ToolResult struct {
	// Content is the result's content blocks.
	Content []Content
	// StructuredContent, when not nil, is sent as structuredContent
	// (2025-06-18 and later), encoded with encoding/json.
	StructuredContent any
	// IsError marks the result as the tool's failure.
	IsError bool
}

// Content is a content block of a [ToolResult] (and of a [PromptMessage]):
// [TextContent], [ImageContent], [AudioContent], [EmbeddedResource] or
// [ResourceLink].
type Content interface {
	appendContent(dst []byte) []byte
}

// TextContent is a block of text.
type TextContent struct {
	Text string
}

func (c TextContent) appendContent(dst []byte) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	dst = jsonx.AppendString(dst, c.Text)
	return append(dst, '}')
}

// appendText appends a text block holding the bytes raw, without copying
// them into a string: raw is not modified while it is read.
func appendText(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return TextContent{}.appendContent(dst)
	}
	return TextContent{unsafe.String(&raw[0], len(raw))}.appendContent(dst)
}

// ImageContent is an image: its bytes (sent in base64) and its MIME type.
type ImageContent struct {
	Data     []byte
	MIMEType string
}

func (c ImageContent) appendContent(dst []byte) []byte {
	return appendMedia(dst, "image", c.Data, c.MIMEType)
}

// MaxErrorText is the most bytes of an error's text an isError result
// holds; a longer one is cut before a character, and "…" and its length
// follow.
const MaxErrorText = 4 << 10

// callMembers are the members of tools/call's params that call reads.
var callMembers = [4]string{"name", "arguments", "inputResponses", "requestState"}

// runTool answers tools/call.
func (s *Server) runTool(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	var members [4][]byte // one walk of what may be a long object
	jsonx.CheckedMembers(req.Params, callMembers[:], members[:])
	v, args := members[0], members[1]
	if v == nil {
		return nil, invalid(&service.FieldError{Field: "name", Rule: "required", Message: "name is required"})
	}
	name, ok := stringValue(v)
	if !ok {
		return nil, invalid(&service.FieldError{Field: "name", Rule: "type", Param: "string", Message: "name must be a string"})
	}
	if args != nil && args[0] != '{' {
		return nil, invalid(&service.FieldError{Field: "arguments", Rule: "type", Param: "object", Message: "arguments must be an object"})
	}
	t := s.cat.Load().items[string(name)]
	if t == nil {
		return nil, rpc.NewError(rpc.InvalidParams, "Unknown tool: "+jsonx.Echo(name))
	}
	if err := lacking(ctx, "tool "+t.name, t.scopes); err != nil { // before its arguments are bound (Scoped)
		return s.errorResult(r, err.(*rpc.Error).Message), nil // a tool's failure is its result
	}
	if (members[2] != nil || members[3] != nil) && r.modern { // a retry (Multi Round-Trip Requests)
		var err error
		if ctx, err = s.retry(ctx, "tool "+t.name, args, members[2], members[3]); err != nil {
			return nil, err
		}
	}
	// A panic of the tool is the tool's error result (MCP), which the
	// middleware around the protocol sees as a result: the connection
	// recovers it (a call has one recover) and answers as
	// answerToolPanic says.
	placed := recovery.On(ctx, s.toolPanicked, r.entry())
	res, err := t.svc.Handle(ctx, &rpc.Request{ID: req.ID, Method: t.name, Params: args, Meta: req.Meta})
	placed.Restore()
	switch {
	case err == nil:
		return s.success(r, t, res)
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, err // cancelled or timed out: the connection's to answer
	}
	if answer, ok, err := s.asked(ctx, r, "tool "+t.name, args, req.Meta, err); ok {
		return answer, err // it asks the client first, or needs what the client cannot give
	}
	var e *rpc.Error
	if errors.As(err, &e) {
		if list, ok := e.Data.(service.FieldErrors); ok && e.Code == rpc.InvalidParams {
			if s.opts.InvalidParamsAsErrors {
				return nil, err
			}
			return s.errorResult(r, argumentErrors(list)), nil
		}
		return s.errorResult(r, e.Message), nil
	}
	return s.errorResult(r, err.Error()), nil
}

// answerToolPanic answers the panic v of a tool, recovered with stack
// (internal/recovery; arg is the call's *revision): it is logged with its
// stack and at most MaxErrorText bytes of its value's text (which may hold
// the peer's arguments), and answered as the tool's error result.
func (s *Server) answerToolPanic(ctx context.Context, arg, v any, stack []byte) (any, error) {
	text := fmt.Sprint(v)
	var name []byte
	if req := rpc.RequestFromContext(ctx); req != nil {
		name, _ = stringValue(jsonx.Member(req.Params, "name"))
	}
	rpc.LoggerFromContext(ctx).ErrorContext(ctx, "mcp: tool panicked", "tool", jsonx.Echo(name),
		"panic", jsonx.Shorten(text, MaxErrorText), "stack", string(stack))
	return s.errorResult(*arg.(*revision), "the tool failed: "+text), nil
}

// argumentErrors is the text of an isError result for arguments that
// failed binding or validation: one line per problem, its JSON path first
// (unless its message starts with it).
func argumentErrors(list service.FieldErrors) string {
	var b strings.Builder
	b.WriteString("Invalid arguments:")
	for _, fe := range list {
		b.WriteString("\n- ")
		if fe.Field != "" && fe.Rule != "more" && !strings.HasPrefix(fe.Message, fe.Field+" ") {
			b.WriteString(fe.Field)
			b.WriteString(": ")
		}
		b.WriteString(fe.Message)
	}
	return b.String()
}

// errorResult is a tool result with isError true and text.
func (s *Server) errorResult(r revision, text string) json.RawMessage {
	b := append(s.openResult(r), `"content":[`...)
	b = TextContent{jsonx.Shorten(text, MaxErrorText)}.appendContent(b)
	b = append(b, `],"isError":true`...)
	return s.closeResult(r, b)
}

// success is the tool result of res.
func (s *Server) success(r revision, t *tool, res any) (any, error) {
	var tr *ToolResult
	switch v := res.(type) {
	case *ToolResult:
		tr = v
		if v == nil { // nothing to say: no content, not the text "null"
			tr = &ToolResult{}
		}
	case ToolResult:
		tr = &v
	case string:
		return s.textResult(r, v), nil
	}
	if tr != nil {
		return s.toolResult(r, tr)
	}
	if !t.hasResult {
		return s.closeResult(r, append(s.openResult(r), `"content":[]`...)), nil
	}
	// The result's JSON, encoded once in a pooled buffer, then written
	// into its text block (escaped) and as the structured content.
	scratch := scratchBuffers.Get().(*[]byte)
	defer func() {
		if cap(*scratch) <= maxScratch {
			scratchBuffers.Put(scratch)
		}
	}()
	raw, err := jsonx.AppendValue((*scratch)[:0], res)
	*scratch = raw
	if err != nil {
		return nil, fmt.Errorf("mcp: the result of tool %s cannot be encoded: %w", t.name, err)
	}
	if !t.structured || !r.structured {
		return s.textResult(r, string(raw)), nil // its text block alone
	}
	b := append(s.openResult(r), `"content":[`...)
	b = appendText(b, raw)
	b = append(b, `],"structuredContent":`...)
	b = append(b, raw...)
	return s.closeResult(r, b), nil
}

// textResult is the result of a tool that returned a string: one text
// block, written straight into the response (jsonx.StringIn), so that a
// long text is neither built apart nor copied again, nor scanned once
// written.
func (s *Server) textResult(r revision, text string) jsonx.StringIn {
	if r.modern {
		return s.text.modern.WithText(text)
	}
	return s.text.legacy.WithText(text)
}

// scratchBuffers hold results' JSON while their envelope is built; one of
// more than maxScratch bytes is not kept.
var scratchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxScratch = 64 << 10

// toolResult is the result a tool made itself.
func (s *Server) toolResult(r revision, tr *ToolResult) (any, error) {
	b := append(s.openResult(r), `"content":[`...)
	for i, c := range tr.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if c == nil {
			return nil, errors.New("mcp: a ToolResult holds a nil Content")
		}
		b = appendBlock(b, c, r)
	}
	b = append(b, ']')
	if tr.StructuredContent != nil && r.structured {
		raw, err := encode(tr.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("mcp: a ToolResult's StructuredContent cannot be encoded: %w", err)
		}
		b = append(b, `,"structuredContent":`...)
		b = append(b, raw...)
	}
	if tr.IsError {
		b = append(b, `,"isError":true`...)
	}
	return s.closeResult(r, b), nil
}
