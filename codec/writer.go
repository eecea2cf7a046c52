package codec

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// Errors of Writer.WriteLine.
var (
	// ErrNewline: the line holds a '\n'.
	ErrNewline = errors.New("codec: line holds a newline")
	// ErrWriterClosed: the Writer was closed.
	ErrWriterClosed = errors.New("codec: writer closed")
)

// DefaultMaxPending is how many bytes a Writer holds for a slow peer before
// WriteLine waits for them to be written.
const DefaultMaxPending = 4 << 20

// keepWriteBuffer is the largest buffer a Writer keeps once it is written.
const keepWriteBuffer = 1 << 20

// Writer writes lines to an io.Writer, one whole line at a time, from any
// number of goroutines. Lines are never interleaved and appear in the order
// their WriteLine calls took them.
//
// Lines that arrive while a write is under way are gathered and written
// together by the goroutine already writing, so a busy connection makes few
// system calls. No goroutine of its own runs: each write happens in some
// caller's WriteLine.
//
// After the underlying writer fails, every WriteLine returns that error.
type Writer struct {
	w          io.Writer
	maxPending int

	mu      sync.Mutex
	drained sync.Cond // signalled when pending has been taken for writing, or on error
	pending []byte    // lines waiting to be written
	spare   []byte    // a written buffer, for reuse
	writing bool      // a goroutine is writing
	err     error     // the first error of w
}

// NewWriter returns a Writer of w.
func NewWriter(w io.Writer) *Writer {
	cw := &Writer{w: w, maxPending: DefaultMaxPending}
	cw.drained.L = &cw.mu
	return cw
}

// WriteLine writes line and a '\n'. line must not hold a '\n'; it is copied,
// and may be reused once WriteLine returns.
//
// WriteLine returns once the line is written or queued behind a write under
// way; if more than DefaultMaxPending bytes are already queued, it waits for
// them to be written first. The error is the underlying writer's, from this
// line or from any before it.
func (w *Writer) WriteLine(line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return ErrNewline
	}
	w.mu.Lock()
	for w.err == nil && w.writing && len(w.pending) > 0 && len(w.pending)+len(line) > w.maxPending {
		w.drained.Wait()
	}
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	w.pending = append(w.pending, line...)
	w.pending = append(w.pending, '\n')
	if w.writing {
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	for len(w.pending) > 0 && w.err == nil {
		buf := w.pending
		w.pending = w.spare[:0]
		w.spare = nil
		w.drained.Broadcast()
		w.mu.Unlock()

		_, err := w.w.Write(buf)

		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
			w.pending = nil
			w.drained.Broadcast()
		}
		if cap(buf) <= keepWriteBuffer {
			w.spare = buf[:0]
		}
	}
	w.writing = false
	err := w.err
	w.mu.Unlock()
	return err
}

// Close makes every later WriteLine return ErrWriterClosed without writing,
// and drops lines queued behind a write under way. It does not close the
// underlying writer, nor wait for a write under way.
func (w *Writer) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = ErrWriterClosed
	}
	w.pending = nil
	w.drained.Broadcast()
}

// Err returns the error of the underlying writer, or nil if it has not
// failed.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
