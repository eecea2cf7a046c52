package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/jsonx"
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
	// Slowness itself, neither set-up awaited nor proof of absence: on the
	// synctest bubble's clock in TestWriterConcurrentLinesNeverInterleave
	// (it ends once every writer is blocked), on the real clock in
	// TestWriterEnqueueAndWithdrawConcurrently, where it only varies which
	// lines are still queued when withdrawn: what either test asserts holds
	// at any speed.
	time.Sleep(100 * time.Microsecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.out.Write(p)
}

// TestWriterConcurrentLinesNeverInterleave runs in a synctest bubble: the
// slow writer's sleeps are on the bubble's clock, which moves only once
// every goroutine is blocked, so lines are always queued behind a write
// under way and gathered, whatever the machine's load.
func TestWriterConcurrentLinesNeverInterleave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
	})
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

// TestWriterBackpressure runs in a synctest bubble, so that synctest.Wait
// tells when every WriteLine that will return has returned and the others
// are blocked for good: no sleep stands as proof that none returns.
func TestWriterBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
		// lines queue behind it while they fit in DefaultMaxPending: 3 lines
		// of 1 MiB and their newlines, and a fourth would go over. Those 3
		// return; every other WriteLine waits.
		synctest.Wait()
		queued := DefaultMaxPending / (len(line) + 1)
		require.Equal(t, queued, len(returned), "WriteLine calls returned with nothing read")
		got, err := io.ReadAll(io.LimitReader(pr, lines*(1<<20+1)))
		require.NoError(t, err)
		assert.Len(t, got, lines*(1<<20+1))
		synctest.Wait() // every WriteLine has returned, or never will
		assert.Equal(t, lines, len(returned), "WriteLine calls returned once their lines were read")
		_ = pr.Close()
	})
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
	select {
	case g.entered <- struct{}{}:
	default: // a long line comes in many pieces: the first ones tell
	}
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

// In a synctest bubble: synctest.Wait tells when Close is waiting for the
// write under way.
func TestWriterCloseWaitsForQueuedLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedWriter()
		w := NewWriter(g)
		go func() { _ = w.WriteLine([]byte(`1`)) }() // the writer: blocks in Write
		<-g.entered
		require.NoError(t, w.WriteLine([]byte(`2`))) // queued behind it
		closed := make(chan error)
		go func() { closed <- w.Close(context.Background()) }()
		synctest.Wait()
		require.True(t, closing(w), "Close waits for the write under way")
		assert.Equal(t, ErrWriterClosed, w.WriteLine([]byte(`3`)), "no new lines once closing")
		close(g.gate)
		require.NoError(t, <-closed)
		assert.Equal(t, "1\n2\n", g.String(), "the queued line was written before Close returned")
	})
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
// in one Write before) or is made in parts (writeLineFunc, whose parts
// went on being written).
func TestWriterCloseStopsALineUnderWayAtAPiece(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 1<<20)
	tests := []struct {
		name  string
		write func(w *Writer) error
	}{
		{"WriteLine", func(w *Writer) error { return w.WriteLine(long) }},
		{"writeLineFunc", func(w *Writer) error {
			return w.writeLineFunc(-1, func(emit func([]byte) error) error {
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
			// In a synctest bubble: synctest.Wait tells when the write
			// has returned.
			synctest.Test(t, func(t *testing.T) {
				g := newGatedWriter()
				w := NewWriter(g)
				done := make(chan error, 1)
				go func() { done <- tt.write(w) }()
				<-g.entered // the first Write is under way
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				assert.ErrorIs(t, w.Close(ctx), context.Canceled)
				close(g.gate)
				synctest.Wait() // the write has returned, or never will
				require.Len(t, done, 1, "the line under way was given up when its Write returned")
				assert.ErrorIs(t, <-done, ErrWriterClosed)
				assert.Equal(t, maxWrite, len(g.String()), "bytes written: the piece under way when Close returned, and no more")
			})
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
	require.NoError(t, w.writeLineFunc(-1, func(emit func([]byte) error) error {
		for _, p := range []string{`{"a":`, `[1,`, `2]}`} {
			if err := emit([]byte(p)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, w.WriteLine([]byte(`{}`)))
	assert.Equal(t, "{\"a\":[1,2]}\n{}\n", out.String())
	assert.Equal(t, ErrNewline, w.writeLineFunc(-1, func(emit func([]byte) error) error { return emit([]byte("a\nb")) }))
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
				assert.NoError(t, w.writeLineFunc(-1, func(emit func([]byte) error) error {
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

// WriteStringInResponse writes nothing when a line waits to be written,
// for the caller to make its line whole and queue it after; on a closed
// Writer it says so.
func TestWriteStringInResponseWhenIdle(t *testing.T) {
	v, err := jsonx.NewStringIn(`{"t":`, "x", `}`)
	require.NoError(t, err)
	var out bytes.Buffer
	w := NewWriter(&out)
	// A line waiting: it goes first.
	w.mu.Lock()
	w.pending = append(w.pending, "{}\n"...)
	w.mu.Unlock()
	ok, err := WriteStringInResponse(w, []byte("1"), v)
	assert.False(t, ok)
	assert.NoError(t, err)
	w.flush()
	ok, err = WriteStringInResponse(w, []byte("1"), v)
	assert.True(t, ok)
	assert.NoError(t, err)
	assert.Equal(t, "{}\n"+`{"jsonrpc":"2.0","result":{"t":"x"},"id":1}`+"\n", out.String())
	require.NoError(t, w.Close(context.Background()))
	ok, err = WriteStringInResponse(w, []byte("1"), v)
	assert.True(t, ok, "a closed Writer")
	assert.ErrorIs(t, err, ErrWriterClosed)
}

// WriteStringInResponse called while a line is being written waits for
// it, and the lines queued meanwhile come after its own, in the order
// they were queued; a second one meanwhile is left to be made whole.
func TestWriteStringInResponseAfterTheWriteUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, pw := io.Pipe()
		w := NewWriter(pw)
		var wg sync.WaitGroup
		wg.Go(func() { assert.NoError(t, w.WriteLine([]byte(`{"first":1}`))) })
		synctest.Wait()
		wg.Go(func() {
			v, err := jsonx.NewStringIn(`{"t":`, "second", `}`)
			require.NoError(t, err)
			ok, err := WriteStringInResponse(w, []byte("2"), v)
			assert.True(t, ok)
			assert.NoError(t, err)
		})
		synctest.Wait()
		ok, err := WriteStringInResponse(w, []byte("3"), jsonx.StringIn{}.WithText("x"))
		assert.False(t, ok, "another waits to go next")
		assert.NoError(t, err)
		require.NoError(t, w.QueueLine([]byte(`{"third":3}`)))
		wg.Go(func() { assert.NoError(t, w.WriteLine([]byte(`{"fourth":4}`))) })
		synctest.Wait()
		// Nothing was read so far: the first write blocked all along.
		read := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(r)
			read <- string(b)
		}()
		require.NoError(t, w.Flush(context.Background()))
		wg.Wait()
		require.NoError(t, pw.Close())
		assert.Equal(t, `{"first":1}`+"\n"+`{"jsonrpc":"2.0","result":{"t":"second"},"id":2}`+"\n"+`{"third":3}`+"\n"+`{"fourth":4}`+"\n", <-read)
	})
}

// Enqueue never writes in its caller's goroutine: with the output blocked,
// it returns at once; a line no write has taken yet can be withdrawn, and
// then nothing of it is written; a line taken is written whole.
func TestWriterEnqueueAndWithdraw(t *testing.T) {
	g := newGatedWriter()
	w := NewWriter(g)
	ctx := context.Background()
	first, err := w.Enqueue(ctx, []byte(`1`))
	require.NoError(t, err)
	<-g.entered // a goroutine of the Writer's is writing 1, blocked
	second, err := w.Enqueue(ctx, []byte("2\n"))
	require.NoError(t, err)
	third, err := w.Enqueue(ctx, []byte(`3`))
	require.NoError(t, err)
	fourth, err := w.Enqueue(ctx, []byte(`4`))
	require.NoError(t, err)

	assert.False(t, w.Withdraw(first), "1 is being written")
	assert.True(t, w.Withdraw(third))
	assert.True(t, w.Withdraw(third), "withdrawing twice is harmless")
	assert.True(t, w.Withdraw(second))
	assert.False(t, w.Withdraw(Ticket{}), "the zero Ticket is no line")
	close(g.gate)
	require.NoError(t, w.Close(ctx))
	assert.Equal(t, "1\n4\n", g.String())
	assert.False(t, w.Withdraw(fourth), "4 was written")
}

// Enqueue waits for room as WriteLine does, but no longer than its context.
// In a synctest bubble: synctest.Wait tells when Enqueue is waiting, and
// when it has returned.
func TestWriterEnqueueEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedWriter()
		w := NewWriter(g)
		_, err := w.Enqueue(context.Background(), []byte(`1`))
		require.NoError(t, err)
		<-g.entered
		big := []byte(strings.Repeat("x", DefaultMaxPending))
		_, err = w.Enqueue(context.Background(), big) // queued: alone in pending
		require.NoError(t, err)

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := w.Enqueue(ctx, []byte(`2`))
			done <- err
		}()
		synctest.Wait() // Enqueue waits for room
		require.Empty(t, done, "Enqueue returned with no room")
		cancel()
		synctest.Wait()
		require.Len(t, done, 1, "Enqueue returned once its context was done")
		assert.ErrorIs(t, <-done, context.Canceled)
		_, err = w.Enqueue(ctx, []byte(`3`))
		assert.ErrorIs(t, err, context.Canceled, "a context already done: not queued")
		assert.Equal(t, ErrNewline, func() error { _, err := w.Enqueue(context.Background(), []byte("4\n5")); return err }())

		// QueueLine never waits: it takes a short line past DefaultMaxPending,
		// and refuses one that would make twice that.
		require.NoError(t, w.QueueLine([]byte(`6`)))
		assert.Equal(t, ErrWriterFull, w.QueueLine(big))
		close(g.gate)
		require.NoError(t, w.Close(context.Background()))
		assert.Equal(t, "1\n"+string(big)+"\n6\n", g.String())
		assert.Equal(t, ErrWriterClosed, w.QueueLine([]byte(`7`)))
		_, err = w.Enqueue(context.Background(), []byte(`8`))
		assert.Equal(t, ErrWriterClosed, err)
	})
}

// A line queued by Enqueue or QueueLine after the underlying writer failed
// gets its error; the lines it dropped cannot be withdrawn (they never
// will be written either).
func TestWriterEnqueueAfterAFailure(t *testing.T) {
	epipe := errors.New("broken pipe")
	w := NewWriter(&failWriter{err: epipe})
	tk, err := w.Enqueue(context.Background(), []byte(`1`))
	require.NoError(t, err)
	require.NoError(t, w.Close(context.Background()), "waits for the writing goroutine")
	assert.Equal(t, epipe, w.Err())
	assert.False(t, w.Withdraw(tk))
	assert.Equal(t, epipe, w.QueueLine([]byte(`2`)))
}

// Flush waits for the lines queued to be written, as long as its context
// lets it. In a synctest bubble: synctest.Wait tells when Flush is
// waiting, and when it has returned.
func TestWriterFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedWriter()
		w := NewWriter(g)
		require.NoError(t, w.Flush(context.Background()), "nothing to write")
		require.NoError(t, w.QueueLine([]byte(`1`)))
		<-g.entered
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, w.Flush(ctx), context.Canceled, "the write is blocked")
		flushed := make(chan error, 1)
		go func() { flushed <- w.Flush(context.Background()) }()
		synctest.Wait()
		require.Empty(t, flushed, "Flush returned while the write was blocked")
		close(g.gate)
		synctest.Wait()
		require.Len(t, flushed, 1, "Flush returned once the line was written")
		require.NoError(t, <-flushed)
		assert.Equal(t, "1\n", g.String(), "written before Flush returned")
		require.NoError(t, w.Close(context.Background()))
	})
}

// WaitWritten waits for the Write of every line queued before it to
// return, as long as its context lets it, and not for lines queued after
// it; a line withdrawn counts as written once the lines around it are; a
// line the Writer dropped (it failed, or Close gave up) gets why. In a
// synctest bubble: synctest.Wait tells when WaitWritten is waiting, and
// when it has returned.
func TestWriterWaitWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		g := newGatedWriter()
		w := NewWriter(g)
		require.NoError(t, w.WaitWritten(ctx), "nothing queued")
		_, err := w.Enqueue(ctx, []byte(`1`))
		require.NoError(t, err)
		<-g.entered // a goroutine of the Writer's is writing 1, blocked

		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		assert.ErrorIs(t, w.WaitWritten(cancelled), context.Canceled, "1's Write has not returned")
		waits := make(chan error, 2)
		go func() { waits <- w.WaitWritten(ctx) }() // for 1
		synctest.Wait()
		second, err := w.Enqueue(ctx, []byte(`2`))
		require.NoError(t, err)
		_, err = w.Enqueue(ctx, []byte(`3`))
		require.NoError(t, err)
		require.True(t, w.Withdraw(second))
		go func() { waits <- w.WaitWritten(ctx) }() // for 1, 2 (withdrawn) and 3
		synctest.Wait()
		require.Empty(t, waits, "WaitWritten returned while the write was blocked")

		// 1's Write returns; 3 is taken and blocks in turn: the first
		// wait is over, the second is not.
		g.gate <- struct{}{}
		<-g.entered
		synctest.Wait()
		require.Len(t, waits, 1, "the wait for 1 is over, not the one for 3")
		require.NoError(t, <-waits)
		close(g.gate)
		synctest.Wait()
		require.Len(t, waits, 1, "the wait for 3 is over")
		require.NoError(t, <-waits)
		assert.Equal(t, "1\n3\n", g.String(), "written before WaitWritten returned")
		require.NoError(t, w.WaitWritten(ctx), "written already")
		require.NoError(t, w.Close(ctx))

		// Close gives up on a line no write took: it is dropped.
		g = newGatedWriter()
		w = NewWriter(g)
		_, err = w.Enqueue(ctx, []byte(`1`))
		require.NoError(t, err)
		<-g.entered
		_, err = w.Enqueue(ctx, []byte(`2`))
		require.NoError(t, err)
		assert.ErrorIs(t, w.Close(cancelled), context.Canceled)
		assert.Equal(t, ErrWriterClosed, w.WaitWritten(ctx))
		close(g.gate)
		synctest.Wait() // the Writer's goroutine ends

		// The underlying writer fails: the line is not written.
		epipe := errors.New("broken pipe")
		w = NewWriter(&failWriter{err: epipe})
		_, err = w.Enqueue(ctx, []byte(`1`))
		require.NoError(t, err)
		assert.Equal(t, epipe, w.WaitWritten(ctx))
	})
}

// Lines enqueued and withdrawn from many goroutines while the output is
// slow: every line withdrawn is absent, every other one is there whole, in
// each goroutine's order, never interleaved.
func TestWriterEnqueueAndWithdrawConcurrently(t *testing.T) {
	sw := &slowWriter{}
	w := NewWriter(sw)
	const writers, each = 8, 200
	withdrawn := make([][]bool, writers)
	var wg sync.WaitGroup
	for g := range writers {
		withdrawn[g] = make([]bool, each)
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("x", (g*i)%3000))
				tk, err := w.Enqueue(context.Background(), []byte(line))
				if !assert.NoError(t, err) {
					return
				}
				if (g+i)%3 == 0 {
					withdrawn[g][i] = w.Withdraw(tk)
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, w.Close(context.Background()))
	next := make([]int, writers)
	for _, line := range strings.Split(strings.TrimSuffix(sw.out.String(), "\n"), "\n") {
		var g, i int
		_, err := fmt.Sscanf(line, `{"g":%d,"i":%d,`, &g, &i)
		require.NoError(t, err, line)
		for next[g] < i {
			assert.True(t, withdrawn[g][next[g]], "line %d of %d is missing, not withdrawn", next[g], g)
			next[g]++
		}
		require.Equal(t, next[g], i, "each goroutine's lines stay in order")
		assert.False(t, withdrawn[g][i], "line %d of %d was withdrawn, and written", i, g)
		assert.Equal(t, fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("x", (g*i)%3000)), line)
		next[g]++
	}
	for g := range writers {
		for ; next[g] < each; next[g]++ {
			assert.True(t, withdrawn[g][next[g]], "line %d of %d is missing, not withdrawn", next[g], g)
		}
	}
}

// The bound on what QueueLine queues counts the bytes the Writer writes:
// with LSP framing, each message's header too. It refuses a short message
// that a count of its body and a '\n' would have let pass twice
// DefaultMaxPending.
func TestWriterLSPBoundsCountTheHeader(t *testing.T) {
	for _, n := range []int{0, 9, 10, 99, 12345, 1 << 23} {
		assert.Len(t, appendHeader(nil, n), lspHeaderLen(n), "the header of %d bytes", n)
	}
	synctest.Test(t, func(t *testing.T) {
		g := newGatedWriter()
		w := NewLSPWriter(g)
		require.NoError(t, w.QueueLine([]byte(`1`)))
		<-g.entered // a goroutine of the Writer's is writing 1, blocked
		// A message that leaves 10 bytes under twice DefaultMaxPending,
		// header included (27 bytes: a length of 7 digits).
		big := []byte(strings.Repeat("x", 2*DefaultMaxPending-10-lspHeaderLen(2*DefaultMaxPending)))
		require.NoError(t, w.QueueLine(big))
		// `2` takes 22 bytes framed ("Content-Length: 1\r\n\r\n2"), 2 as a line.
		assert.Equal(t, ErrWriterFull, w.QueueLine([]byte(`2`)), "past twice DefaultMaxPending, header included")
		close(g.gate)
		require.NoError(t, w.Close(context.Background()))
		assert.Equal(t, lspMsg(`1`)+lspMsg(string(big)), g.String())
	})
}
