package codec

import (
	"bytes"
	"context"
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

// maxWrite is the most bytes a Writer hands the underlying writer in one
// Write: a long line goes in pieces, and a Writer closed while one is
// written stops after that piece (see Close).
const maxWrite = 32 << 10

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
	w io.Writer

	mu      sync.Mutex
	drained sync.Cond // signalled when pending has been taken for writing, or on error
	pending []byte    // lines waiting to be written
	spare   []byte    // a written buffer, for reuse
	writing bool      // a goroutine is writing
	closing bool      // Close was called: no new lines
	err     error     // the first error of w, or ErrWriterClosed
}

// NewWriter returns a Writer of w.
func NewWriter(w io.Writer) *Writer {
	cw := &Writer{w: w}
	cw.drained.L = &cw.mu
	return cw
}

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
func (w *Writer) WriteLine(line []byte) error {
	body, ended := line, false
	if n := len(line); n > 0 && line[n-1] == '\n' {
		body, ended = line[:n-1], true
	}
	if bytes.IndexByte(body, '\n') >= 0 {
		return ErrNewline
	}
	w.mu.Lock()
	for w.err == nil && !w.closing && w.writing && len(w.pending) > 0 && len(w.pending)+len(line) > DefaultMaxPending {
		w.drained.Wait()
	}
	if err := w.refusing(); err != nil {
		w.mu.Unlock()
		return err
	}
	direct := ended && !w.writing && len(w.pending) == 0
	if !direct {
		w.pending = append(w.pending, body...)
		w.pending = append(w.pending, '\n')
	}
	if w.writing {
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	if direct {
		w.writeOut(line)
	}
	w.flushLocked()
	err := w.err
	w.mu.Unlock()
	return err
}

// refusing returns why no line can be taken (the underlying writer's
// error, or ErrWriterClosed), or nil; w.mu is held.
func (w *Writer) refusing() error {
	switch {
	case w.err != nil:
		return w.err
	case w.closing:
		return ErrWriterClosed
	}
	return nil
}

// flushLocked writes the pending lines, as the goroutine that writes (w.mu
// held, w.writing set), until none are left, then gives up writing.
func (w *Writer) flushLocked() {
	for len(w.pending) > 0 && w.err == nil {
		buf := w.pending
		w.pending = w.spare[:0]
		w.spare = nil
		w.drained.Broadcast()
		w.writeOut(buf)
		if cap(buf) <= keepWriteBuffer {
			w.spare = buf[:0]
		}
	}
	w.writing = false
	w.drained.Broadcast()
}

// writeOut writes p to the underlying writer with w.mu released, as the
// goroutine that writes, in pieces of at most maxWrite bytes, until an
// error (or Close giving up) stops it; w.mu is held before and after.
func (w *Writer) writeOut(p []byte) {
	for len(p) > 0 && w.err == nil {
		n := min(len(p), maxWrite)
		w.mu.Unlock()
		_, err := w.w.Write(p[:n])
		w.mu.Lock()
		w.fail(err)
		p = p[n:]
	}
}

// fail records the first error of the underlying writer and drops the
// pending lines; w.mu is held.
func (w *Writer) fail(err error) {
	if err != nil && w.err == nil {
		w.err = err
		w.pending = nil
		w.drained.Broadcast()
	}
}

// WriteLineFunc writes one line made in parts, for a line too long to hold
// whole: fn is called with emit, which writes a part to the underlying
// writer at once; no other line is written until fn returns, and the
// Writer ends the line with '\n'. A part must not hold a '\n'.
//
// fn must not fail once it has emitted a part: the line would be cut short.
// An error from emit (the underlying writer's) is sticky, as for
// WriteLine; once Close has given up on the line, emit writes nothing more
// and returns ErrWriterClosed.
func (w *Writer) WriteLineFunc(fn func(emit func([]byte) error) error) error {
	w.mu.Lock()
	for w.err == nil && !w.closing && w.writing {
		w.drained.Wait()
	}
	if err := w.refusing(); err != nil {
		w.mu.Unlock()
		return err
	}
	w.writing = true
	w.mu.Unlock()

	var werr error
	emit := func(p []byte) error {
		if werr == nil && bytes.IndexByte(p, '\n') >= 0 {
			werr = ErrNewline
		}
		for len(p) > 0 && werr == nil {
			// The piece goes out unless Close gave up on the line.
			if werr = w.Err(); werr == nil {
				n := min(len(p), maxWrite)
				_, werr = w.w.Write(p[:n])
				p = p[n:]
			}
		}
		return werr
	}
	ferr := fn(emit)
	if werr == nil && ferr == nil {
		_, werr = w.w.Write(newline)
	}

	w.mu.Lock()
	if werr != ErrNewline {
		w.fail(werr)
	}
	w.flushLocked()
	err := w.err
	w.mu.Unlock()
	if err == nil {
		err = ferr
	}
	if err == nil && werr == ErrNewline {
		err = ErrNewline
	}
	return err
}

var newline = []byte{'\n'}

// Close stops the Writer: every later WriteLine returns ErrWriterClosed
// without writing. Lines already taken are still written: Close waits until
// they are, or until ctx is done; then it drops those left and returns
// ctx's error. A Write under way cannot be interrupted, so on that path it
// may end after Close returns; it holds at most 32 KiB (a line is written
// in pieces of that size, and once Close gave up no other piece starts).
// Close does not close the underlying writer.
func (w *Writer) Close(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.drained.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closing = true
	w.drained.Broadcast() // WriteLine calls waiting for room give up
	for w.writing && w.err == nil && ctx.Err() == nil {
		w.drained.Wait()
	}
	if w.err == nil {
		w.err = ErrWriterClosed
	}
	w.pending = nil
	if w.writing {
		return ctx.Err()
	}
	return nil
}

// Err returns the error of the underlying writer, or nil if it has not
// failed.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
