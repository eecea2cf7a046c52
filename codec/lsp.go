package codec

import (
	"bytes"
	"io"
	"strconv"
)

// Framing is how messages are delimited on a stream.
type Framing int

const (
	// FramingNewline is one message per line: newline-delimited JSON (the
	// default, the zero Framing).
	FramingNewline Framing = iota
	// FramingLSP is the base protocol of the Language Server Protocol:
	// each message is a header block ("Content-Length: N\r\n", other
	// headers, and an empty line, "\r\n") followed by exactly N bytes of
	// JSON.
	FramingLSP
)

// String returns the framing's name: "newline" or "lsp".
func (f Framing) String() string {
	switch f {
	case FramingNewline:
		return "newline"
	case FramingLSP:
		return "lsp"
	}
	return "Framing(" + strconv.Itoa(int(f)) + ")"
}

// Bounds of a header block read by an LSP Reader (see [NewLSPReader]).
const (
	// MaxHeaderLine is the longest header line accepted, in bytes, not
	// counting its line end.
	MaxHeaderLine = 1024
	// MaxHeaders is the most header lines a header block may have.
	MaxHeaders = 32
)

// HeaderError reports a message whose header block could not be read (LSP
// framing, see [NewLSPReader]): a Content-Length that is missing, not a
// number, or given twice with different values; a header line that is not
// a header, too long, or one too many; or input that ended inside a
// message. Reading may go on after it: the Reader skips to the next header
// block.
type HeaderError struct {
	Reason string // what was wrong, in fixed words of toolrpc's own
}

func (e *HeaderError) Error() string { return "codec: bad LSP header block: " + e.Reason }

// The reasons of a HeaderError.
const (
	reasonNoLength     = "no Content-Length header"
	reasonBadLength    = "Content-Length is not a decimal number of bytes"
	reasonTwoLengths   = "Content-Length given twice with different values"
	reasonNotHeader    = "a header line is not a header field (name: value)"
	reasonLongHeader   = "a header line longer than 1024 bytes" // MaxHeaderLine
	reasonManyHeaders  = "more than 32 header lines"            // MaxHeaders
	reasonEndInHeaders = "input ended inside a header block"
	reasonEndInBody    = "input ended inside a message body"
)

// headerError returns a HeaderError for reason.
func headerError(reason string) error { return &HeaderError{Reason: reason} }

// NewLSPReader returns a Reader of r whose frames are the messages of the
// Language Server Protocol's base protocol ([FramingLSP]), each at most
// maxFrameSize bytes long (maxFrameSize <= 0 means [DefaultMaxFrameSize]).
//
// A message is a header block, then exactly as many bytes as its
// Content-Length header says: the frame. A header block is header lines,
// each "name: value" ended by "\r\n" (a bare "\n" is taken too), then an
// empty line. Header names are matched without regard to case, and every
// header but Content-Length is ignored (Content-Type included: the body is
// read as UTF-8 JSON, the only encoding the protocol has). Empty lines
// before a header block are skipped.
//
// Reading is bounded: a header line is at most [MaxHeaderLine] bytes and a
// block at most [MaxHeaders] lines. A Content-Length over the limit gives
// a *FrameTooLargeError as soon as its header is read (the body need not
// have come); its body is skipped while it is read, never held
// in memory, and reading goes on with the next message.
//
// A header block that cannot be read gives a *[HeaderError]: a missing
// Content-Length, one that is not a plain decimal number (a sign, a
// fraction, nothing), two that disagree, a line that is not a header
// field, too long or one too many. The Reader then resynchronises: it
// drops the rest of that message (the body of a block it read to its end,
// whose length it does not know) by skipping the input up to the next
// "Content-Length:" (any case), where the next header block starts — a
// body of JSON holds that text only inside a string, where a false start
// is itself a bad header block, skipped in turn. Input that ends inside a
// header block or a body gives a HeaderError too, then io.EOF.
func NewLSPReader(r io.Reader, maxFrameSize int) *Reader {
	cr := NewReader(r, maxFrameSize)
	cr.lsp = true
	cr.room = max(cr.room, MaxHeaderLine+2) // a header line and its CR LF
	return cr
}

// readLSP is ReadFrame for LSP framing.
func (r *Reader) readLSP() ([]byte, error) {
	r.shrink()
	if r.skip > 0 { // the body of a message over the limit, reported already
		if err := r.skipBody(); err != nil {
			return nil, err
		}
	}
	resynced := r.resync
	if resynced {
		if err := r.skipToHeader(); err != nil {
			return nil, err
		}
	}
	n, err := r.readHeaders(resynced)
	if err != nil {
		return nil, err
	}
	if n > r.max {
		// Reported at once, so that it is answered before its body comes
		// (it may be long, or never end); the body is skipped as it is
		// read, by the next ReadFrame.
		r.skip = n
		return nil, &FrameTooLargeError{Limit: r.max}
	}
	for r.end-r.start < n {
		if r.err != nil {
			r.start, r.end = 0, 0
			if r.err == io.EOF {
				return nil, headerError(reasonEndInBody)
			}
			return nil, r.err
		}
		r.fill() // doubling as the body arrives: what is held follows what came, not what was announced
	}
	frame := r.buf[r.start : r.start+n]
	r.start += n
	r.last = n
	return frame, nil
}

// readHeaders reads a header block and returns its Content-Length. At the
// end of the input before a block it returns io.EOF. After a HeaderError,
// the next read skips to the next header block.
//
// A block found by resynchronising may be a false start, a
// "Content-Length:" inside a string, whose line runs on into the next
// message's header when nothing ends the body: such a first line is a bad
// Content-Length up to the next "Content-Length:", where reading goes on.
func (r *Reader) readHeaders(resynced bool) (int, error) {
	length, lines := -1, 0
	bad := ""
	for {
		line, err := r.headerLine(resynced && lines == 0)
		if err != nil {
			if err == io.EOF && lines > 0 {
				err = headerError(reasonEndInHeaders)
			}
			return 0, err
		}
		if len(line) == 0 {
			if lines == 0 {
				continue // an empty line before a block
			}
			break
		}
		if lines++; lines > MaxHeaders {
			r.resync = true
			return 0, headerError(reasonManyHeaders)
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || !isToken(name) {
			r.resync = true
			return 0, headerError(reasonNotHeader)
		}
		if !bytes.EqualFold(name, []byte("content-length")) {
			continue // any other header is ignored
		}
		n, ok := parseLength(value)
		switch {
		case bad != "":
		case !ok:
			bad = reasonBadLength
		case length >= 0 && n != length:
			bad = reasonTwoLengths
		}
		length = n
	}
	if bad == "" && length < 0 {
		bad = reasonNoLength
	}
	if bad != "" {
		r.resync = true
		return 0, headerError(bad)
	}
	return length, nil
}

// headerLine returns the next line, without its "\r\n" or "\n", from the
// buffer; with cut, a line that holds a "Content-Length:" other than at
// its start is a bad Content-Length, dropped up to the other. A line over
// MaxHeaderLine is a HeaderError, its first byte dropped; a last line
// without its end is a HeaderError too, and the end of the input io.EOF.
func (r *Reader) headerLine(cut bool) ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.buf[r.start:min(r.end, r.start+MaxHeaderLine+2)], '\n'); i >= 0 {
			line := r.buf[r.start : r.start+i]
			if j := indexHeaderStart(line[min(1, len(line)):]); cut && j >= 0 {
				// A false start: its value runs on into the next header.
				r.start += j + 1
				r.resync = true
				return nil, headerError(reasonBadLength)
			}
			line = trimCR(line)
			r.start += i + 1
			if len(line) > MaxHeaderLine {
				r.resync = true
				return nil, headerError(reasonLongHeader)
			}
			return line, nil
		}
		if r.end-r.start > MaxHeaderLine+1 {
			r.start++ // a header may start inside it
			r.resync = true
			return nil, headerError(reasonLongHeader)
		}
		if r.err != nil {
			partial := r.end > r.start
			r.start, r.end = 0, 0
			if r.err == io.EOF && partial {
				return nil, headerError(reasonEndInHeaders)
			}
			return nil, r.err
		}
		r.fill()
	}
}

// skipBody drops the r.skip bytes left of a body over the limit, as they
// are read, never holding them. The input's end before them is io.EOF.
func (r *Reader) skipBody() error {
	for {
		k := min(r.skip, r.end-r.start)
		r.start += k
		if r.skip -= k; r.skip == 0 {
			return nil
		}
		r.start, r.end = 0, 0
		if r.err != nil {
			r.skip = 0
			return r.err
		}
		r.fill()
	}
}

// skipToHeader drops input up to the next "Content-Length:" (any case),
// where reading goes on. At the end of the input it returns io.EOF.
func (r *Reader) skipToHeader() error {
	const keep = len("content-length:") - 1 // a match may straddle a read
	for {
		if i := indexHeaderStart(r.buf[r.start:r.end]); i >= 0 {
			r.start += i
			r.resync = false
			return nil
		}
		if r.end-r.start > keep {
			r.start = r.end - keep
		}
		if r.err != nil {
			r.start, r.end = 0, 0
			return r.err
		}
		r.fill()
	}
}

// indexHeaderStart is the index in b of the first "content-length:" in any
// case, or -1.
func indexHeaderStart(b []byte) int {
	const name = "content-length:"
	for i := 0; i+len(name) <= len(b); {
		j := bytes.IndexAny(b[i:len(b)-len(name)+1], "cC")
		if j < 0 {
			return -1
		}
		i += j
		if bytes.EqualFold(b[i:i+len(name)], []byte(name)) {
			return i
		}
		i++
	}
	return -1
}

// parseLength parses a Content-Length value: optional spaces or tabs
// around one or more ASCII digits. A value too large for an int is the
// largest int (it is over any limit).
func parseLength(v []byte) (int, bool) {
	v = bytes.Trim(v, " \t")
	if len(v) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (maxLength-int(c-'0'))/10 {
			n = maxLength
		} else {
			n = n*10 + int(c-'0')
		}
	}
	return n, true
}

// maxLength is the largest length parseLength returns.
const maxLength = int(^uint(0) >> 1)

// isToken reports whether b is an HTTP token (RFC 9110, section 5.6.2): a
// header field name.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
}
