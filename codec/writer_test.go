package codec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriterLines(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	require.NoError(t, w.WriteLine([]byte(`{"a":1}`)))
	require.NoError(t, w.WriteLine([]byte(`[]`)))
	assert.Equal(t, ErrNewline, w.WriteLine([]byte("{}\n{}")))
	assert.Equal(t, "{\"a\":1}\n[]\n", out.String())
	assert.NoError(t, w.Err())
}

// slowWriter records each Write and takes a while over it.
type slowWriter struct {
	mu     sync.Mutex
	out    bytes.Buffer
	writes int
}

func (s *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(100 * time.Microsecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.out.Write(p)
}

func TestWriterConcurrentLinesNeverInterleave(t *testing.T) {
	sw := &slowWriter{}
	w := NewWriter(sw)
	const writers, each = 16, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				// Lines of different lengths, some larger than a pipe buffer.
				line := fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("x", (g*i)%5000))
				assert.NoError(t, w.WriteLine([]byte(line)))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(sw.out.String(), "\n"), "\n")
	require.Len(t, lines, writers*each)
	next := make([]int, writers)
	for _, line := range lines {
		var g, i int
		_, err := fmt.Sscanf(line, `{"g":%d,"i":%d,`, &g, &i)
		require.NoError(t, err, line)
		assert.Equal(t, next[g], i, "each goroutine's lines stay in order")
		next[g]++
		assert.Equal(t, fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("x", (g*i)%5000)), line)
	}
	assert.Less(t, sw.writes, writers*each, "lines written while a write was under way were gathered")
}

type failWriter struct {
	after int
	n     int
	err   error
}

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n >= f.after {
		return 0, f.err
	}
	f.n++
	return len(p), nil
}

func TestWriterErrorSticks(t *testing.T) {
	epipe := errors.New("broken pipe")
	w := NewWriter(&failWriter{after: 1, err: epipe})
	assert.NoError(t, w.WriteLine([]byte(`1`)))
	assert.Equal(t, epipe, w.WriteLine([]byte(`2`)))
	assert.Equal(t, epipe, w.WriteLine([]byte(`3`)))
	assert.Equal(t, epipe, w.Err())
}

func TestWriterBackpressure(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWriter(pw)
	line := []byte(strings.Repeat("x", 1<<20))
	queued := make(chan int, 100)
	go func() {
		defer close(queued)
		for i := range 20 {
			if w.WriteLine(line) != nil {
				return
			}
			queued <- i
		}
	}()
	// Nobody reads: the first line is being written, a few more fit under
	// the pending limit, then WriteLine must wait.
	time.Sleep(50 * time.Millisecond)
	assert.LessOrEqual(t, len(queued), DefaultMaxPending>>20+1)
	got, err := io.ReadAll(io.LimitReader(pr, 20*(1<<20+1)))
	require.NoError(t, err)
	assert.Len(t, got, 20*(1<<20+1))
	for range queued {
	}
	_ = pr.Close()
}

func TestWriterClose(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	require.NoError(t, w.WriteLine([]byte(`1`)))
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, ErrWriterClosed, w.WriteLine([]byte(`2`)))
	assert.Equal(t, "1\n", out.String())
}

// gatedWriter blocks each Write until its gate lets it through.
type gatedWriter struct {
	gate chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.Write(p)
}

func (g *gatedWriter) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.String()
}

func TestWriterCloseWaitsForQueuedLines(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{})}
	w := NewWriter(g)
	go func() { _ = w.WriteLine([]byte(`1`)) }() // the writer: blocks in Write
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, w.WriteLine([]byte(`2`))) // queued behind it
	closed := make(chan error)
	go func() { closed <- w.Close(context.Background()) }()
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, ErrWriterClosed, w.WriteLine([]byte(`3`)), "no new lines once closing")
	close(g.gate)
	require.NoError(t, <-closed)
	assert.Equal(t, "1\n2\n", g.String(), "the queued line was written before Close returned")
}

func TestWriterCloseGivesUpAtItsDeadline(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{})}
	w := NewWriter(g)
	go func() { _ = w.WriteLine([]byte(`1`)) }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, w.WriteLine([]byte(`2`)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, w.Close(ctx), context.DeadlineExceeded)
	close(g.gate)
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, "1\n", g.String(), "the queued line was dropped; the write under way ended")
}

func TestWriterLineWithItsNewline(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	require.NoError(t, w.WriteLine([]byte("{\"a\":1}\n")), "a line may end with its newline")
	require.NoError(t, w.WriteLine([]byte(`[]`)))
	assert.Equal(t, ErrNewline, w.WriteLine([]byte("{}\n{}\n")), "but hold no other")
	assert.Equal(t, "{\"a\":1}\n[]\n", out.String())
	line := []byte("{\"b\":2}\n")
	allocs := testing.AllocsPerRun(100, func() { _ = w.WriteLine(line) })
	assert.Zero(t, allocs, "written directly, without a copy")
}

func TestWriteLineFunc(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	require.NoError(t, w.WriteLineFunc(func(emit func([]byte) error) error {
		for _, p := range []string{`{"a":`, `[1,`, `2]}`} {
			if err := emit([]byte(p)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, w.WriteLine([]byte(`{}`)))
	assert.Equal(t, "{\"a\":[1,2]}\n{}\n", out.String())
	assert.Equal(t, ErrNewline, w.WriteLineFunc(func(emit func([]byte) error) error { return emit([]byte("a\nb")) }))
}

// Lines written by others while a line is written in parts wait for it:
// nothing interleaves.
func TestWriteLineFuncKeepsOthersOut(t *testing.T) {
	sw := &slowWriter{}
	w := NewWriter(sw)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if g%2 == 0 {
					assert.NoError(t, w.WriteLine([]byte(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))))
					continue
				}
				assert.NoError(t, w.WriteLineFunc(func(emit func([]byte) error) error {
					for _, p := range []string{fmt.Sprintf(`{"g":%d,`, g), fmt.Sprintf(`"i":%d`, i), `}`} {
						if err := emit([]byte(p)); err != nil {
							return err
						}
					}
					return nil
				}))
			}
		})
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSuffix(sw.out.String(), "\n"), "\n") {
		var g, i int
		n, err := fmt.Sscanf(line, `{"g":%d,"i":%d}`, &g, &i)
		require.NoError(t, err, line)
		require.Equal(t, 2, n, line)
	}
}

func TestWriteStringResponseMatchesAppendResponse(t *testing.T) {
	pieces := []string{"a", "é", "😀", "\u2028", "\"", "\\", "\n", "\x01", "\xff", "\xc3", strings.Repeat("x", 1000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		var b strings.Builder
		for b.Len() < n*3000 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		var out bytes.Buffer
		require.NoError(t, WriteStringResponse(NewWriter(&out), []byte(`"id"`), s))
		want, err := AppendResponse(nil, []byte(`"id"`), s)
		require.NoError(t, err)
		require.Equal(t, string(want)+"\n", out.String(), "length %d", len(s))
	}
}
