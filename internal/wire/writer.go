// Package wire writes a connection's lines: the [Writer] that codec.Writer
// wraps and rpc uses itself, with what only rpc needs of it (a line queued
// without waiting and taken back before it is written, a wait for what is
// queued to be written, a response holding a long string written in pieces),
// and the Language Server Protocol's header block.
package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
)

// Errors of a [Writer].
var (
	// ErrNewline is returned for a line that holds a '\n' before its end.
	ErrNewline = errors.New("codec: line holds a newline")
	// ErrWriterClosed is returned for a line given to a Writer once it is
	// closed (see [Writer.Close]).
	ErrWriterClosed = errors.New("codec: writer closed")
	// ErrWriterFull is returned by [Writer.QueueLine] when it finds more
	// than twice DefaultMaxPending bytes already queued.
	ErrWriterFull = errors.New("codec: writer full")
)

// DefaultMaxPending is how many bytes a [Writer] holds for a slow peer before
// [Writer.WriteLine] waits for them to be written.
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
// system calls. WriteLine writes in its caller's goroutine when no write is
// under way; Enqueue and QueueLine, whose callers must not wait for the
// peer, never do: when no write is under way they start a goroutine that
// writes what is queued and ends when nothing is left (or the underlying
// writer fails).
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
	// next: a line made in parts (WriteStringInResponse) waits for the
	// write under way, to go next: the lines queued meanwhile, after it,
	// are left for it to write. nextLen is its length, counted as
	// waiting (see full).
	next    bool
	nextLen int
	// base is the place in the stream of pending[0]: the bytes taken from
	// pending (for writing, or dropped) so far. Tickets are places in it.
	base int64
	// written is the place in that stream up to which the bytes taken
	// have been written: the underlying writer's Write of them returned
	// (see WaitWritten).
	written int64
	// holes are the lines withdrawn from pending (Withdraw), as spans of
	// it, in the order they were withdrawn; they are cut out when pending
	// is taken for writing.
	holes []span
	// flushFn is w.flush, made once: a goroutine started with it costs no
	// allocation (go w.flush() allocates its closure each time).
	flushFn func()
	// onFail is told of a failure of w that only a goroutine of the
	// Writer's own saw (see OnFail).
	onFail func(error)
	// lsp: each line is written as an LSP message (NewLSPWriter); hdr is
	// the header of a line written directly, the writing goroutine's.
	lsp bool
	hdr []byte
}

// span is a part of a buffer: [at, end).
type span struct{ at, end int }

// Ticket is the place of a line queued by [Writer.Enqueue], for
// [Writer.Withdraw]. The zero Ticket is no line.
type Ticket struct{ at, end int64 }

// NewWriter returns a Writer of w.
func NewWriter(w io.Writer) *Writer {
	cw := &Writer{w: w}
	cw.drained.L = &cw.mu
	cw.flushFn = cw.flush
	return cw
}

// NewLSPWriter returns a Writer of w that writes each line as a message of
// the Language Server Protocol's base protocol (codec.FramingLSP): the header
// "Content-Length: N\r\n\r\n", then the line's N bytes, without the '\n'
// (no other header: Content-Type has its default). Everything else is
// as for a Writer of lines: "line" in the documentation of its methods
// means a message, and a line still must not hold a '\n' before its end.
func NewLSPWriter(w io.Writer) *Writer {
	cw := NewWriter(w)
	cw.lsp = true
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
	body, ended := splitLine(line)
	if bytes.IndexByte(body, '\n') >= 0 {
		return ErrNewline
	}
	w.mu.Lock()
	for w.err == nil && !w.closing && w.full(w.framedLen(len(body))) {
		w.drained.Wait()
	}
	if err := w.refusing(); err != nil {
		w.mu.Unlock()
		return err
	}
	direct := ended && !w.writing && !w.next && len(w.pending) == 0
	if direct && w.lsp {
		// A header and its body, written apart: only for a body too long
		// to be worth copying.
		direct = len(body) >= maxWrite
	}
	if !direct {
		w.pending = w.appendLine(w.pending, body)
	}
	if w.writing || w.next {
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	switch {
	case direct && w.lsp:
		w.hdr = appendHeader(w.hdr[:0], len(body))
		w.writeOut(w.hdr)
		w.writeOut(body)
	case direct:
		w.writeOut(line)
	}
	w.flushLocked()
	err := w.err
	w.mu.Unlock()
	return err
}

// Enqueue queues line (as WriteLine: a '\n' at its end is its end) to be
// written, and returns without writing in the caller's goroutine: the
// write under way takes the line, or, when none is, a goroutine Enqueue
// starts. It waits for room as WriteLine does, but only as long as ctx
// lets it; when ctx ends first it returns ctx's error and the line is not
// taken.
//
// The Ticket lets the caller take the line back (Withdraw) as long as no
// write has taken it. A line is written whole or not at all, never in part
// next to another.
func (w *Writer) Enqueue(ctx context.Context, line []byte) (Ticket, error) {
	body, _ := splitLine(line)
	if bytes.IndexByte(body, '\n') >= 0 {
		return Ticket{}, ErrNewline
	}
	if err := ctx.Err(); err != nil {
		return Ticket{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.framedLen(len(body)); w.full(n) {
		stop := w.wakeWhenDone(ctx)
		for w.err == nil && !w.closing && w.full(n) && ctx.Err() == nil {
			w.drained.Wait()
		}
		stop()
	}
	if err := w.refusing(); err != nil {
		return Ticket{}, err
	}
	if err := ctx.Err(); err != nil {
		return Ticket{}, err
	}
	return w.queueLocked(body), nil
}

// QueueLine queues line (as WriteLine: a '\n' at its end is its end) to be
// written, never waiting and never writing in the caller's goroutine, as
// Enqueue does. To stay bounded it refuses the line (ErrWriterFull) when
// it would make more than twice DefaultMaxPending bytes queued (counted as
// written: with LSP framing, the headers too): it is for short lines that
// must not wait, such as a cancellation.
func (w *Writer) QueueLine(line []byte) error {
	body, _ := splitLine(line)
	if bytes.IndexByte(body, '\n') >= 0 {
		return ErrNewline
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.refusing(); err != nil {
		return err
	}
	if len(w.pending)+w.framedLen(len(body)) > 2*DefaultMaxPending {
		return ErrWriterFull
	}
	w.queueLocked(body)
	return nil
}

// Withdraw takes back the line of t, queued by Enqueue, if no write has
// taken it yet, and reports whether it did: then nothing of it is written.
// Once taken, a line is written whole (unless the underlying writer fails).
func (w *Writer) Withdraw(t Ticket) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t.end == 0 || t.at < w.base || t.end > w.base+int64(len(w.pending)) {
		return false
	}
	w.holes = append(w.holes, span{int(t.at - w.base), int(t.end - w.base)})
	return true
}

// splitLine is line without its final '\n', and whether it had one.
func splitLine(line []byte) (body []byte, ended bool) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		return line[:n-1], true
	}
	return line, false
}

// appendLine appends body as the Writer frames it: with its '\n', or
// after its LSP header.
func (w *Writer) appendLine(dst, body []byte) []byte {
	if w.lsp {
		return append(appendHeader(dst, len(body)), body...)
	}
	dst = append(dst, body...)
	return append(dst, '\n')
}

// framedLen is how many bytes a line of n bytes (without its '\n') takes
// in the stream, as appendLine frames it: with its '\n', or after its LSP
// header. The bounds on what is queued count these bytes.
func (w *Writer) framedLen(n int) int {
	if w.lsp {
		return lspHeaderLen(n) + n
	}
	return n + 1
}

// full reports whether a line of n bytes (framed) must wait for room; w.mu
// is held. A line made in parts that waits to go next counts as waiting.
func (w *Writer) full(n int) bool {
	waiting := len(w.pending) + w.nextLen
	return (w.writing || w.next) && waiting > 0 && waiting+n > DefaultMaxPending
}

// queueLocked appends body and its '\n' to the pending lines and makes
// sure a goroutine writes them; w.mu is held.
func (w *Writer) queueLocked(body []byte) Ticket {
	t := Ticket{at: w.base + int64(len(w.pending))}
	w.pending = w.appendLine(w.pending, body)
	t.end = w.base + int64(len(w.pending))
	if !w.writing && !w.next {
		w.writing = true
		go w.flushFn()
	}
	return t
}

// OnFail sets f to be told when the underlying writer fails in a goroutine
// of the Writer's own (the one Enqueue or QueueLine start), where no caller
// gets the error back from a write of its own. f is called at most once per
// such goroutine, with no lock held. Set it before the Writer is used.
func (w *Writer) OnFail(f func(error)) { w.onFail = f }

// flush writes the pending lines, as the goroutine that writes.
func (w *Writer) flush() {
	w.mu.Lock()
	w.flushLocked()
	err := w.err
	w.mu.Unlock()
	if err != nil && err != ErrWriterClosed && w.onFail != nil {
		w.onFail(err)
	}
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
	for len(w.pending) > 0 && w.err == nil && !w.next {
		buf := w.takeLocked()
		end := w.base
		w.drained.Broadcast()
		if len(buf) > 0 {
			w.writeOut(buf)
		}
		if w.err == nil {
			// The broadcast after the next take, or at the end, tells
			// WaitWritten.
			w.written = end
		}
		if cap(buf) <= keepWriteBuffer {
			w.spare = buf[:0]
		}
	}
	w.writing = false
	w.drained.Broadcast()
}

// takeLocked takes the pending lines for writing, without the ones
// withdrawn; w.mu is held.
func (w *Writer) takeLocked() []byte {
	buf := w.pending
	w.base += int64(len(buf))
	w.pending = w.spare[:0]
	w.spare = nil
	if len(w.holes) > 0 {
		slices.SortFunc(w.holes, func(a, b span) int { return a.at - b.at })
		kept, from := 0, 0
		for _, h := range w.holes {
			if h.at > from {
				kept += copy(buf[kept:], buf[from:h.at])
			}
			from = max(from, h.end)
		}
		kept += copy(buf[kept:], buf[from:])
		buf = buf[:kept]
		w.holes = w.holes[:0]
	}
	return buf
}

// dropPendingLocked drops the lines not yet taken; w.mu is held.
func (w *Writer) dropPendingLocked() {
	w.base += int64(len(w.pending))
	w.pending = nil
	w.holes = nil
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
		w.dropPendingLocked()
		w.drained.Broadcast()
	}
}

// Close stops the Writer: every later WriteLine returns ErrWriterClosed
// without writing. Lines already taken are still written: Close waits until
// they are, or until ctx is done; then it drops those left and returns
// ctx's error. A Write under way cannot be interrupted, so on that path it
// may end after Close returns; it holds at most 32 KiB (a line is written
// in pieces of that size, and once Close gave up no other piece starts).
// Close does not close the underlying writer.
func (w *Writer) Close(ctx context.Context) error {
	defer w.wakeWhenDone(ctx)()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closing = true
	w.drained.Broadcast() // WriteLine calls waiting for room give up
	w.waitWrittenLocked(ctx)
	if w.err == nil {
		w.err = ErrWriterClosed
	}
	w.dropPendingLocked()
	if w.writing {
		return ctx.Err()
	}
	return nil
}

// wakeWhenDone wakes the waits on w.drained once ctx is done, so that
// they see it (from a goroutine of its own: w.mu may be held); the func
// returned stops that.
func (w *Writer) wakeWhenDone(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.drained.Broadcast()
		w.mu.Unlock()
	})
}

// waitWrittenLocked waits until no write is under way, the underlying
// writer failed, or ctx is done; w.mu is held.
func (w *Writer) waitWrittenLocked(ctx context.Context) {
	for (w.writing || w.next) && w.err == nil && ctx.Err() == nil {
		w.drained.Wait()
	}
}

// Flush waits until every line taken so far is written (or the underlying
// writer failed), or until ctx is done, and returns ctx's error then. It
// does not stop new lines, which it may wait for too.
func (w *Writer) Flush(ctx context.Context) error {
	defer w.wakeWhenDone(ctx)()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waitWrittenLocked(ctx)
	if w.writing && w.err == nil {
		return ctx.Err()
	}
	return nil
}

// WaitWritten waits until every line queued so far (by Enqueue,
// QueueLine, or WriteLine behind a write under way) is written: the
// underlying writer's Write of it has returned. A line withdrawn counts as
// written once the lines around it are. It returns nil then (at once when
// nothing is queued or being written); the underlying writer's error, or
// ErrWriterClosed, when that fails or Close drops a line first; ctx's
// error when ctx ends first. Lines queued after it is called are not
// waited for.
func (w *Writer) WaitWritten(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	end := w.base + int64(len(w.pending))
	if w.written >= end {
		return nil
	}
	defer w.wakeWhenDone(ctx)()
	for w.written < end && w.err == nil && ctx.Err() == nil {
		w.drained.Wait()
	}
	switch {
	case w.written >= end:
		return nil
	case w.err != nil:
		return w.err
	}
	return ctx.Err()
}

// Err returns the error of the underlying writer, or nil if it has not
// failed.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// lspHeaderLen is the length of the header block of a message of n bytes
// (appendHeader's), without making it.
func lspHeaderLen(n int) int {
	digits := 1
	for ; n >= 10; n /= 10 {
		digits++
	}
	return len("Content-Length: \r\n\r\n") + digits
}

// appendHeader appends the header block of a message of n bytes.
func appendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}
