package codec

import (
	"bytes"
	"unicode/utf8"
)

// streamChunk is the size of the pieces WriteStringResponse writes.
const streamChunk = 32 << 10

// WriteStringResponse writes to w the response that answers id with the
// string s, in pieces of about 32 KiB that no other line comes between,
// so that a long result is never copied whole: the line is the one
// [AppendResponse] would make.
func WriteStringResponse(w *Writer, id []byte, s string) error {
	return w.writeLineFunc(func(emit func([]byte) error) error {
		buf := make([]byte, 0, streamChunk+64)
		buf = append(buf, `{"jsonrpc":"2.0","result":"`...)
		for len(s) > 0 {
			n := min(len(s), streamChunk)
			for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
				n-- // never split a character: its escape depends on all of it
			}
			if n == 0 {
				n = min(len(s), streamChunk) // no character starts nearby: invalid bytes
			}
			buf = appendStringBody(buf, s[:n])
			if err := emit(buf); err != nil {
				return err
			}
			buf, s = buf[:0], s[n:]
		}
		buf = appendID(append(buf, '"'), id)
		return emit(buf)
	})
}

// writeLineFunc writes one line made in parts, for a line too long to hold
// whole: fn is called with emit, which writes a part to the underlying
// writer at once; no other line is written until fn returns, and the
// Writer ends the line with '\n'. A part must not hold a '\n'.
//
// fn must not fail once it has emitted a part: the line would be cut short.
// An error from emit (the underlying writer's) is sticky, as for
// WriteLine; once Close has given up on the line, emit writes nothing more
// and returns ErrWriterClosed.
func (w *Writer) writeLineFunc(fn func(emit func([]byte) error) error) error {
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
