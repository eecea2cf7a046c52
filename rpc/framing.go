package rpc

import (
	"fmt"
	"io"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wire"
)

// The framings of a stream connection (Options.Framing), of type
// [codec.Framing].
const (
	// FramingNewline is newline-delimited JSON, one message per line: the
	// default.
	FramingNewline = codec.FramingNewline
	// FramingLSP is the Language Server Protocol's base protocol: each
	// message is "Content-Length: N\r\n", any other headers (ignored), an
	// empty line "\r\n", then exactly N bytes of JSON. The connection
	// writes the Content-Length header alone, and no newline after the
	// body. A bad header block is answered ParseError, id null, and the
	// stream resynchronised at the next header block (see
	// codec.NewLSPReader).
	FramingLSP = codec.FramingLSP
)

// checkFraming reports a Framing that is neither FramingNewline nor
// FramingLSP.
func checkFraming(f codec.Framing) error {
	switch f {
	case FramingNewline, FramingLSP:
		return nil
	}
	return fmt.Errorf("rpc: Options.Framing is %v: want rpc.FramingNewline or rpc.FramingLSP", f)
}

// newFrameReader returns the reader of frames of r that o asks for.
func newFrameReader(r io.Reader, o *Options) *codec.Reader {
	if o.Framing == FramingLSP {
		return codec.NewLSPReader(r, o.MaxFrameSize)
	}
	return codec.NewReader(r, o.MaxFrameSize)
}

// newFrameWriter returns the writer of messages to w that o asks for.
func newFrameWriter(w io.Writer, o *Options) *wire.Writer {
	if o.Framing == FramingLSP {
		return wire.NewLSPWriter(w)
	}
	return wire.NewWriter(w)
}
