package codec

import (
	"context"
	"io"

	"github.com/toolrpc/toolrpc/internal/wire"
)

// Errors of a [Writer].
var (
	// ErrNewline is returned for a line that holds a '\n' before its end.
	ErrNewline = wire.ErrNewline
	// ErrWriterClosed is returned for a line given to a Writer once it is
	// closed (see [Writer.Close]).
	ErrWriterClosed = wire.ErrWriterClosed
)

// DefaultMaxPending, 4 MiB, is how many bytes a [Writer] holds for a slow
// peer before [Writer.WriteLine] waits for them to be written.
const DefaultMaxPending = wire.DefaultMaxPending

// Writer writes lines to an io.Writer, one whole line at a time, from any
// number of goroutines. Lines are never interleaved and appear in the order
// their WriteLine calls took them.
//
// Lines that arrive while a write is under way are gathered and written
// together by the goroutine already writing, in writes of at most 32 KiB,
// so a busy connection makes few system calls. WriteLine writes in its
// caller's goroutine when no write is under way.
//
// After the underlying writer fails, every WriteLine returns that error.
type Writer struct {
	w *wire.Writer
}

// NewWriter returns a Writer of w.
func NewWriter(w io.Writer) *Writer { return &Writer{wire.NewWriter(w)} }

// NewLSPWriter returns a Writer of w that writes each line as a message of
// the Language Server Protocol's base protocol ([FramingLSP]): the header
// "Content-Length: N\r\n\r\n", then the line's N bytes, without the '\n'
// (no other header: Content-Type has its default). Everything else is
// as for a Writer of lines: "line" in the documentation of its methods
// means a message, and a line still must not hold a '\n' before its end.
func NewLSPWriter(w io.Writer) *Writer { return &Writer{wire.NewLSPWriter(w)} }

// WriteLine writes line and a '\n'. If line already ends with its '\n', it
// is written as it is; a '\n' anywhere else is refused (ErrNewline). line
// may be reused once WriteLine returns.
//
// WriteLine returns once the line is written or queued behind a write under
// way; if more than DefaultMaxPending bytes are already queued, it waits for
// them to be written first. The error is the underlying writer's, from this
// line or from any before it.
//
// A line that ends with its '\n', written when no write is under way, goes
// to the underlying writer directly, without being copied.
func (w *Writer) WriteLine(line []byte) error { return w.w.WriteLine(line) }

// Flush waits until every line taken so far is written (or the underlying
// writer failed), or until ctx is done, and returns ctx's error then. It
// does not stop new lines, which it may wait for too.
func (w *Writer) Flush(ctx context.Context) error { return w.w.Flush(ctx) }

// Close stops the Writer: every later WriteLine returns ErrWriterClosed
// without writing. Lines already taken are still written: Close waits until
// they are, or until ctx is done; then it drops those left and returns
// ctx's error. A Write under way cannot be interrupted, so on that path it
// may end after Close returns; it holds at most 32 KiB (a line is written
// in pieces of that size, and once Close gave up no other piece starts).
// Close does not close the underlying writer.
func (w *Writer) Close(ctx context.Context) error { return w.w.Close(ctx) }

// Err returns the error of the underlying writer, or nil if it has not
// failed.
func (w *Writer) Err() error { return w.w.Err() }
