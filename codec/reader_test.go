package codec

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll reads every frame of r, rendering a frame as its text, a skipped
// frame as "TOO LARGE", a bad LSP header block (after which it goes on) as
// "BAD: " and its reason, and the end as "EOF" or the error.
func readAll(r *Reader) []string {
	var out []string
	for range 1000 {
		frame, err := r.ReadFrame()
		var tooLarge *FrameTooLargeError
		var bad *HeaderError
		switch {
		case errors.As(err, &tooLarge):
			out = append(out, "TOO LARGE")
		case errors.As(err, &bad):
			out = append(out, "BAD: "+bad.Reason)
		case err == io.EOF:
			return append(out, "EOF")
		case err != nil:
			return append(out, "error: "+err.Error())
		default:
			out = append(out, string(frame))
		}
	}
	return append(out, "no end")
}

func TestReaderFrames(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty input", "", 0, []string{"EOF"}},
		{"one line", "{}\n", 0, []string{"{}", "EOF"}},
		{"no final newline", "{}\n[1]", 0, []string{"{}", "[1]", "EOF"}},
		{"crlf", "{}\r\n[1]\r\n", 0, []string{"{}", "[1]", "EOF"}},
		{"cr at eof", "{}\r", 0, []string{"{}", "EOF"}},
		{"only the last cr goes", "a\r\r\n", 0, []string{"a\r", "EOF"}},
		{"blank lines skipped", "\n\n  \n\t\r\n{}\n \n", 0, []string{"{}", "EOF"}},
		{"blank last line", "{}\n   ", 0, []string{"{}", "EOF"}},
		{"other white space is a frame", "\v\n\u00a0\n", 0, []string{"\v", "\u00a0", "EOF"}},
		{"spaces kept inside", " {} \n", 0, []string{" {} ", "EOF"}},
		{"at the limit", "12345\n", 5, []string{"12345", "EOF"}},
		{"at the limit with crlf", "12345\r\n", 5, []string{"12345", "EOF"}},
		{"over the limit", "123456\n{}\n", 5, []string{"TOO LARGE", "{}", "EOF"}},
		{"over the limit at eof", "{}\n123456", 5, []string{"{}", "TOO LARGE", "EOF"}},
		{"far over the limit", strings.Repeat("x", 100000) + "\n{}\n", 5, []string{"TOO LARGE", "{}", "EOF"}},
		{"far over the limit at eof", strings.Repeat("x", 100000), 5, []string{"TOO LARGE", "EOF"}},
		{"two in a row", "123456\n1234567\n1\n", 5, []string{"TOO LARGE", "TOO LARGE", "1", "EOF"}},
		{"a long blank line is still skipped", "        \n1\n", 5, []string{"1", "EOF"}},
		{"a very long blank line is still skipped", strings.Repeat(" \t", 50000) + "\r\n1\n" + strings.Repeat(" ", 20000), 5, []string{"1", "EOF"}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+err": iotest.DataErrReader,
	}
	for _, tt := range tests {
		for rname, wrap := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				r := NewReader(wrap(strings.NewReader(tt.in)), tt.max)
				assert.Equal(t, tt.want, readAll(r))
			})
		}
	}
}

func TestReaderLongLines(t *testing.T) {
	// Far beyond bufio.Scanner's 64 KiB default, and the buffer's start size.
	big := `"` + strings.Repeat("a", 16<<20) + `"`
	in := "{}\n" + big + "\n" + big + "\r\n[]"
	r := NewReader(strings.NewReader(in), 0)
	for _, want := range []string{"{}", big, big, "[]"} {
		frame, err := r.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, len(want), len(frame))
		require.True(t, string(frame) == want)
	}
	_, err := r.ReadFrame()
	assert.Equal(t, io.EOF, err)
	for range 16 {
		_, _ = r.ReadFrame()
	}
	assert.LessOrEqual(t, len(r.buf), keepBufferSize, "a large buffer is let go after a run of short frames")
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("{}\n[1"), iotest.ErrReader(boom)), 0)
	assert.Equal(t, []string{"{}", "error: boom"}, readAll(r))
	_, err := r.ReadFrame()
	assert.Equal(t, boom, err, "the error sticks")
}

func TestReaderNoProgress(t *testing.T) {
	r := NewReader(zeroReader{}, 0)
	_, err := r.ReadFrame()
	assert.Equal(t, io.ErrNoProgress, err)
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// endless yields an endless line of 'x' with no newline.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), e.n)
	for i := range p[:n] {
		p[i] = 'x'
	}
	e.n -= n
	return int(n), nil
}

func TestReaderSkipsWithoutHoldingTheFrame(t *testing.T) {
	const limit = 1 << 20
	line := &endless{n: 256 << 20}
	r := NewReader(io.MultiReader(line, strings.NewReader("\n{}\n")), limit)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	assert.Equal(t, []string{"TOO LARGE", "{}", "EOF"}, readAll(r))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*limit),
		"skipping 256 MiB allocated more than a few buffers of the limit")
}

func TestReaderFrameAliasesBuffer(t *testing.T) {
	r := NewReader(bytes.NewReader([]byte("aaa\nbbb\n")), 0)
	first, err := r.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "aaa", string(first))
	allocs := testing.AllocsPerRun(1, func() { _, _ = r.ReadFrame() })
	assert.Zero(t, allocs)
}

func TestReaderHugeLimit(t *testing.T) {
	// A limit too large to do arithmetic on means no limit, not a panic.
	r := NewReader(strings.NewReader("{}\n[]"), int(^uint(0)>>1))
	assert.Equal(t, []string{"{}", "[]", "EOF"}, readAll(r))
}

func TestReadFrameOwned(t *testing.T) {
	big := strings.Repeat("b", handOverSize+10)
	for _, r := range []*Reader{
		NewReader(strings.NewReader("small\n"+big+"\nafter\n"+big), 0),
		NewLSPReader(strings.NewReader(lspMsg("small")+lspMsg(big)+lspMsg("after")+lspMsg(big)), 0),
	} {
		var frames [][]byte
		for {
			f, err := r.ReadFrameOwned()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			frames = append(frames, f)
		}
		// Every frame is intact after the reads that followed it: each is the
		// caller's own, copied or handed over.
		require.Len(t, frames, 4)
		assert.Equal(t, "small", string(frames[0]))
		assert.True(t, string(frames[1]) == big)
		assert.Equal(t, "after", string(frames[2]))
		assert.True(t, string(frames[3]) == big)
	}
}

// Frames of 64 KiB and more, many to a read: each is copied, not handed
// over with a buffer full of the others (which would keep them all alive,
// and copy the rest at every frame).
func TestReadFrameOwnedWithManyLongFrames(t *testing.T) {
	line := strings.Repeat("y", handOverSize) + "\n"
	in := strings.Repeat(line, 64)
	r := NewReader(strings.NewReader(in), 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for {
		f, err := r.ReadFrameOwned()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.Equal(t, handOverSize, len(f))
		assert.LessOrEqual(t, cap(f), 2*handOverSize, "a frame keeps no more than about twice itself alive")
		n++
	}
	runtime.ReadMemStats(&after)
	assert.Equal(t, 64, n)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16*len(in)), "linear, not quadratic, in the input")
}
