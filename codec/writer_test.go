package codec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
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
	const lines = 20
	returned := make(chan int, lines)
	for i := range lines {
		go func() {
			assert.NoError(t, w.WriteLine(line))
			returned <- i
		}()
	}
	// Nobody reads: one goroutine is writing (blocked in the pipe), and
	// lines queue behind it while they fit in DefaultMaxPending: 3 lines of
	// 1 MiB and their newlines, and a fourth would go over. Those 3 return;
	// every other WriteLine waits.
	queued := DefaultMaxPending / (len(line) + 1)
	for range queued {
		wiretestReceive(t, returned)
	}
	time.Sleep(20 * time.Millisecond) // would any more return?
	assert.Zero(t, len(returned), "WriteLine returned with more than DefaultMaxPending queued")
	got, err := io.ReadAll(io.LimitReader(pr, lines*(1<<20+1)))
	require.NoError(t, err)
	assert.Len(t, got, lines*(1<<20+1))
	for range lines - queued {
		wiretestReceive(t, returned)
	}
	_ = pr.Close()
}

// wiretestReceive is wiretest.Receive, which package codec's tests cannot
// import (wiretest imports rpc, which imports codec).
func wiretestReceive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("hang")
		panic("unreachable")
	}
}

func TestWriterClose(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	require.NoError(t, w.WriteLine([]byte(`1`)))
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, ErrWriterClosed, w.WriteLine([]byte(`2`)))
	assert.Equal(t, "1\n", out.String())
}

// gatedWriter blocks each Write until its gate lets it through; entered
// receives a value as each Write begins.
type gatedWriter struct {
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	out     bytes.Buffer
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{gate: make(chan struct{}), entered: make(chan struct{}, 100)}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
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
	g := newGatedWriter()
	w := NewWriter(g)
	go func() { _ = w.WriteLine([]byte(`1`)) }() // the writer: blocks in Write
	<-g.entered
	require.NoError(t, w.WriteLine([]byte(`2`))) // queued behind it
	closed := make(chan error)
	go func() { closed <- w.Close(context.Background()) }()
	for !closing(w) {
		runtime.Gosched()
	}
	assert.Equal(t, ErrWriterClosed, w.WriteLine([]byte(`3`)), "no new lines once closing")
	close(g.gate)
	require.NoError(t, <-closed)
	assert.Equal(t, "1\n2\n", g.String(), "the queued line was written before Close returned")
}

func TestWriterCloseGivesUpAtItsDeadline(t *testing.T) {
	g := newGatedWriter()
	w := NewWriter(g)
	first := make(chan error)
	go func() { first <- w.WriteLine([]byte(`1`)) }()
	<-g.entered
	require.NoError(t, w.WriteLine([]byte(`2`)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, w.Close(ctx), context.DeadlineExceeded)
	close(g.gate)
	assert.Equal(t, ErrWriterClosed, <-first, "the writing goroutine learns the rest was dropped")
	assert.Equal(t, "1\n", g.String(), "the queued line was dropped; the write under way ended")
}

// Once Close gives up, a line under way stops at the piece being written:
// after Close returns, at most one piece (maxWrite bytes) reaches the
// underlying writer, whether the line was taken whole (WriteLine, written
// in one Write before) or is made in parts (WriteLineFunc, whose parts
// went on being written).
func TestWriterCloseStopsALineUnderWayAtAPiece(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 1<<20)
	tests := []struct {
		name  string
		write func(w *Writer) error
	}{
		{"WriteLine", func(w *Writer) error { return w.WriteLine(long) }},
		{"WriteLineFunc", func(w *Writer) error {
			return w.WriteLineFunc(func(emit func([]byte) error) error {
				for range 4 {
					if err := emit(long[:256<<10]); err != nil {
						return err
					}
				}
				return nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGatedWriter()
			w := NewWriter(g)
			done := make(chan error, 1)
			go func() { done <- tt.write(w) }()
			<-g.entered // the first Write is under way
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			assert.ErrorIs(t, w.Close(ctx), context.Canceled)
			close(g.gate)
			assert.ErrorIs(t, wiretestReceive(t, done), ErrWriterClosed)
			assert.Equal(t, maxWrite, len(g.String()), "bytes written: the piece under way when Close returned, and no more")
		})
	}
}

// closing reports whether Close has begun on w.
func closing(w *Writer) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closing
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
	lines := strings.Split(strings.TrimSuffix(sw.out.String(), "\n"), "\n")
	require.Len(t, lines, 4*50, "every line, whole")
	seen := map[string]bool{}
	for _, line := range lines {
		var g, i int
		_, err := fmt.Sscanf(line, `{"g":%d,"i":%d}`, &g, &i)
		require.NoError(t, err, line)
		require.Equal(t, fmt.Sprintf(`{"g":%d,"i":%d}`, g, i), line, "nothing around or inside it")
		require.False(t, seen[line], "twice: %s", line)
		seen[line] = true
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
