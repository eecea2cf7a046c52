package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrameSize is the largest frame a Reader accepts unless told
// otherwise: 64 MiB.
const DefaultMaxFrameSize = 64 << 20

const (
	// minBufferSize is the size of a Reader's buffer when it starts, and the
	// size it shrinks back to after a large frame.
	minBufferSize = 32 << 10
	// keepBufferSize is the largest buffer a Reader keeps between frames.
	keepBufferSize = 1 << 20
)

// FrameTooLargeError reports a frame longer than the Reader's limit. The
// frame has been skipped: the next ReadFrame reads the line after it.
type FrameTooLargeError struct {
	Limit int // the limit, in bytes
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("codec: frame larger than the limit of %d bytes", e.Limit)
}

// Reader reads newline-delimited frames from an io.Reader.
//
// A frame is the bytes up to a '\n', without it and without a '\r' just before
// it. Lines that are empty or hold only JSON white space are skipped. A last
// line without '\n' at the end of the input is a frame too. There is no limit
// on line length other than the maximum frame size, and a line over it is
// skipped while it is read, without being held in memory.
type Reader struct {
	r     io.Reader
	max   int
	buf   []byte
	start int   // buf[start:end] is read but not yet returned
	end   int   //
	seen  int   // buf[start:start+seen] is known to hold no '\n'
	err   error // the error the underlying reader returned, if any

	last  int // the length of the last frame returned
	small int // frames in a row far smaller than the buffer
	want  int // the size of the next buffer, made when first needed

	room   int  // the largest buffer needed
	lsp    bool // LSP framing (NewLSPReader)
	resync bool // LSP framing: skip to the next header block first
	skip   int  // LSP framing: bytes of a body over the limit still to skip
}

// NewReader returns a Reader of r whose frames are at most maxFrameSize bytes
// long (not counting the line end). maxFrameSize <= 0 means
// [DefaultMaxFrameSize].
func NewReader(r io.Reader, maxFrameSize int) *Reader {
	if maxFrameSize <= 0 {
		maxFrameSize = DefaultMaxFrameSize
	}
	// Room for the arithmetic on the limit: any larger limit is as good as
	// none.
	maxFrameSize = min(maxFrameSize, int(^uint(0)>>2))
	// Never more than a frame of the maximum size, its CR LF and one byte
	// to tell it is over the limit.
	return &Reader{r: r, max: maxFrameSize, room: maxFrameSize + 3}
}

// ReadFrame returns the next frame. The frame aliases the Reader's buffer and
// is valid until the next call.
//
// At the end of the input it returns io.EOF. A frame over the limit gives a
// *FrameTooLargeError; reading may go on after it. Any other error is the
// underlying reader's, and a partial line before it is dropped.
//
// A Reader made by [NewLSPReader] reads LSP framing instead (see it).
func (r *Reader) ReadFrame() ([]byte, error) {
	if r.lsp {
		return r.readLSP()
	}
	return r.readLine()
}

// readLine is ReadFrame for newline framing.
func (r *Reader) readLine() ([]byte, error) {
	r.shrink()
	for {
		if i := bytes.IndexByte(r.buf[r.start+r.seen:r.end], '\n'); i >= 0 {
			n := r.seen + i
			line := r.buf[r.start : r.start+n]
			r.start += n + 1
			r.seen = 0
			if frame, err := r.take(line); frame != nil || err != nil {
				return frame, err
			}
			continue // a blank line
		}
		r.seen = r.end - r.start
		if r.seen > r.max+1 { // +1: room for a '\r' before the '\n'
			if err := r.skipLine(); err != nil {
				return nil, err
			}
			continue // the long line was blank
		}
		if r.err != nil {
			return r.atError()
		}
		r.fill()
	}
}

// atError ends the input: a last line without '\n' is a frame at io.EOF.
func (r *Reader) atError() ([]byte, error) {
	if r.err != io.EOF {
		r.start, r.end, r.seen = 0, 0, 0
		return nil, r.err
	}
	line := r.buf[r.start:r.end]
	r.start, r.seen = r.end, 0
	if frame, err := r.take(line); frame != nil || err != nil {
		return frame, err
	}
	return nil, io.EOF
}

// take returns line, without its '\r', as the next frame: nil for a
// blank line, a *FrameTooLargeError for one over the limit.
func (r *Reader) take(line []byte) ([]byte, error) {
	line = trimCR(line)
	switch {
	case isBlank(line):
		return nil, nil
	case len(line) > r.max:
		return nil, &FrameTooLargeError{Limit: r.max}
	}
	r.last = len(line)
	return line, nil
}

// skipLine discards input up to and including the next '\n'. It returns a
// *FrameTooLargeError, or nil if the line held only white space, or the
// underlying reader's error.
func (r *Reader) skipLine() error {
	blank := isBlank(r.buf[r.start:r.end])
	tooLarge := func() error {
		if blank {
			return nil
		}
		return &FrameTooLargeError{Limit: r.max}
	}
	for {
		r.start, r.end, r.seen = 0, 0, 0
		if r.err != nil {
			if r.err == io.EOF {
				return tooLarge()
			}
			return r.err
		}
		r.fill()
		i := bytes.IndexByte(r.buf[:r.end], '\n')
		if i < 0 {
			blank = blank && isBlank(r.buf[:r.end])
			continue
		}
		blank = blank && isBlank(r.buf[:i])
		r.start = i + 1
		return tooLarge()
	}
}

// fill reads more input into the buffer, making room first: it moves unread
// bytes to the front, or grows the buffer (never beyond what the longest
// frame needs).
func (r *Reader) fill() {
	if r.start > 0 && (r.end == len(r.buf) || r.start == r.end) {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		// A first buffer is small, whatever the last frames were: a
		// reader waiting for input holds little. Once a line outgrows it,
		// it grows to what the last long frame needed, or doubles.
		size := minBufferSize
		if len(r.buf) > 0 {
			size = max(2*len(r.buf), r.want)
			r.want = 0
		}
		// Never more than r.room. ReadFrame skips a line before it would
		// need more than that, so the buffer always grows here.
		size = min(size, r.room)
		buf := make([]byte, size)
		r.end = copy(buf, r.buf[r.start:r.end])
		r.start = 0
		r.buf = buf
	}
	for range 100 {
		n, err := r.r.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.err = errors.New("codec: reader returned an invalid count")
			return
		}
		r.end += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// handOverSize is the length from which ReadFrameOwned hands its buffer
// over instead of copying the frame.
const handOverSize = 64 << 10

// ReadFrameOwned is ReadFrame, but the frame is the caller's to keep. A
// short frame is copied. A long one is the Reader's own buffer, handed
// over, the Reader taking a new one for what follows — a frame of many
// megabytes is never copied — when the buffer holds little else: at most
// about twice the frame in all, and little read beyond it. (Handing over a
// buffer full of other frames would keep it all alive for one, and copy
// the rest for every one.) A handed-over frame's capacity runs to the end
// of the buffer it keeps alive.
func (r *Reader) ReadFrameOwned() ([]byte, error) {
	frame, err := r.ReadFrame()
	if err != nil || len(frame) < handOverSize ||
		len(r.buf) > 2*len(frame)+minBufferSize || r.end-r.start > minBufferSize {
		return bytes.Clone(frame), err
	}
	// The next frame may well be as long: once the next line outgrows a
	// first small buffer, the buffer grows to room for one like this one
	// at once, not by doubling; and a reader waiting for input holds only
	// the small one while this frame is served.
	want := max(minBufferSize, len(frame)+len(frame)/8)
	if rest := r.buf[r.start:r.end]; len(rest) > 0 {
		buf := make([]byte, want+len(rest))
		r.end = copy(buf, rest)
		r.buf = buf
	} else {
		r.buf, r.end, r.want = nil, 0, want
	}
	r.start, r.seen = 0, 0
	return frame, nil
}

// shrink lets go of a large buffer once it has been far too large for the
// frames read for a while: a stream of long frames keeps its buffer.
func (r *Reader) shrink() {
	if len(r.buf) <= keepBufferSize {
		return
	}
	if 4*r.last > len(r.buf) {
		r.small = 0
		return
	}
	if r.small++; r.small < 16 || r.end-r.start > minBufferSize {
		return
	}
	buf := make([]byte, minBufferSize)
	r.end = copy(buf, r.buf[r.start:r.end])
	r.start, r.buf, r.small = 0, buf, 0
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
