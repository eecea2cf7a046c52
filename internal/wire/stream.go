package wire

import (
	"bytes"
	"errors"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// WriteStringResponse writes to w the response that answers id with the
// string s, in pieces of about 32 KiB that no other line comes between,
// so that a long result is never copied whole: the line is the one
// codec.AppendResponse would make.
//
// A Writer of LSP framing (NewLSPWriter) must write the message's length
// before it: WriteStringResponse counts the escaped string first, without
// writing it anywhere (see jsonx.StringResponseLen).
func WriteStringResponse(w *Writer, id []byte, s string) error {
	v := jsonx.StringIn{}.WithText(s)
	n := -1
	if w.lsp {
		n = jsonx.StringResponseLen(id, v)
	}
	return w.writeLineFunc(n, func(emit func([]byte) error) error {
		return jsonx.StringResponse(make([]byte, 0, jsonx.StreamChunk+64), id, v, emit)
	})
}

// WriteStringInResponse writes to w the response that answers id with v,
// as WriteStringResponse writes a string's (in pieces, the text never
// copied whole), unless lines wait to be written before it: it waits for
// the write under way, if any, and the lines queued meanwhile come after
// it. It reports false, having written nothing, when lines wait (or
// another such response), so that the caller makes the line whole, to take
// its turn after them. Otherwise it reports true and the error WriteLine
// would return. The line is the one codec.AppendResponse makes.
func WriteStringInResponse(w *Writer, id []byte, v jsonx.StringIn) (bool, error) {
	w.mu.Lock()
	if err := w.refusing(); err != nil {
		w.mu.Unlock()
		return true, err
	}
	if w.next || len(w.pending) > 0 {
		w.mu.Unlock()
		return false, nil
	}
	if w.writing {
		w.next, w.nextLen = true, w.framedLen(v.SizeHint(id))
		for w.writing && w.err == nil && !w.closing {
			w.drained.Wait()
		}
		w.next, w.nextLen = false, 0
		w.drained.Broadcast() // what waits for it (Flush, Close) or for room (full)
		if err := w.refusing(); err != nil {
			w.mu.Unlock()
			return true, err
		}
	}
	w.writing = true
	w.mu.Unlock()
	n := -1
	if w.lsp {
		n = jsonx.StringResponseLen(id, v)
	}
	return true, w.writeClaimed(n, func(emit func([]byte) error) error {
		return jsonx.StringResponse(make([]byte, 0, jsonx.StreamChunk+64), id, v, emit)
	})
}

// writeLineFunc writes one line made in parts, for a line too long to hold
// whole: fn is called with emit, which writes a part to the underlying
// writer at once; no other line is written until fn returns, and the
// Writer ends the line with '\n'. A part must not hold a '\n'. n is the
// length of the whole line (without its '\n'), which a Writer of LSP
// framing writes first, in the header; a Writer of lines ignores it.
//
// fn must not fail once it has emitted a part: the line would be cut short.
// An error from emit (the underlying writer's) is sticky, as for
// WriteLine; once Close has given up on the line, emit writes nothing more
// and returns ErrWriterClosed.
func (w *Writer) writeLineFunc(n int, fn func(emit func([]byte) error) error) error {
	w.mu.Lock()
	for w.err == nil && !w.closing && (w.writing || w.next) {
		w.drained.Wait()
	}
	if err := w.refusing(); err != nil {
		w.mu.Unlock()
		return err
	}
	w.writing = true
	w.mu.Unlock()
	return w.writeClaimed(n, fn)
}

// writeClaimed is writeLineFunc once the line has the writer to itself
// (w.writing set by the caller).
func (w *Writer) writeClaimed(n int, fn func(emit func([]byte) error) error) error {
	// One value on the heap, as one closure over the error was: emit is
	// its method value.
	lp := &linePart{w: w, left: n}
	if w.lsp {
		w.hdr = appendHeader(w.hdr[:0], n)
		lp.write(w.hdr)
		lp.left = n
	}
	ferr := fn(lp.emit)
	werr := lp.err
	switch {
	case !w.lsp:
		if werr == nil && ferr == nil {
			_, werr = w.w.Write(newline)
		}
	case werr == ErrNewline || werr == nil && (ferr != nil || lp.left != 0):
		// The stream no longer holds what its header said: nothing more
		// can be read right after it.
		werr = errCutMessage
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

// linePart writes the parts of a line made by writeLineFunc's fn.
type linePart struct {
	w    *Writer
	err  error // the first error, which stops the writing
	left int   // LSP framing: bytes announced and not yet written
}

// emit writes a part of the line, which must not hold a '\n'.
func (lp *linePart) emit(p []byte) error {
	if lp.err == nil && bytes.IndexByte(p, '\n') >= 0 {
		lp.err = ErrNewline
	}
	lp.write(p)
	return lp.err
}

// write writes p, in pieces of at most maxWrite bytes, unless an error
// came first.
func (lp *linePart) write(p []byte) {
	lp.left -= len(p)
	for len(p) > 0 && lp.err == nil {
		// The piece goes out unless Close gave up on the line.
		if lp.err = lp.w.Err(); lp.err == nil {
			n := min(len(p), maxWrite)
			_, lp.err = lp.w.w.Write(p[:n])
			p = p[n:]
		}
	}
}

// errCutMessage fails a Writer of LSP framing whose message made in parts
// was not as long as its header said.
var errCutMessage = errors.New("codec: a message made in parts is not the length its header gave")
