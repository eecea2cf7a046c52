package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// The failure-mode soak. It is bounded by rounds, not by time: each
// scenario runs soakRounds times (the child processes fewer: each costs a
// process start), all scenarios at once.
const (
	soakRounds      = 12
	soakChildRounds = 8
	// soakHeapMargin is how much more live heap than at the start the soak
	// may end with: nothing should be left, but the runtime, the race
	// detector and package testing keep some state of their own (measured:
	// well under 1 MiB).
	soakHeapMargin = 8 << 20
)

// TestSoakFailureModes drives the failure modes of issue 16 together, each
// scenario in its own goroutine, for a bounded number of rounds: hostile
// inputs whose error answers and log records must stay small, calls with
// short deadlines against an output nobody reads, concurrent batches over
// MaxPendingCalls together, an output that fails mid-way, child processes
// that exit while a descendant holds their pipes or flood their stderr
// without a newline, a parent closing a server's stderr, calls racing the
// end of a process, Serve cancelled while a long string result streams,
// and queue floods with small limits. Each round checks its scenario's
// promise; at the end no goroutine is left and the live heap is back near
// where it started.
func TestSoakFailureModes(t *testing.T) {
	before := liveHeap()
	start := time.Now()
	scenarios := []struct {
		name   string
		rounds int
		round  func(t *testing.T, round int)
	}{
		{"hostile error answers", soakRounds, soakHostileAnswers},
		{"calls against a blocked output", soakRounds, soakBlockedOutput},
		{"concurrent batches over MaxPendingCalls", soakRounds, soakBatches},
		{"the output failing mid-way", soakRounds, soakOutputFails},
		{"child processes ending", soakChildRounds, soakChildren},
		{"calls racing the end of a process", 1, func(t *testing.T, _ int) { TestCallsRacingTheEndOfAProcess(t) }},
		{"Serve cancelled while a long string streams", soakRounds, func(t *testing.T, _ int) { TestNothingIsWrittenAfterServeReturns(t) }},
		{"queue floods with small limits", soakRounds, soakQueueFlood},
	}
	var wg sync.WaitGroup
	for _, s := range scenarios {
		wg.Go(func() {
			t.Run(s.name, func(t *testing.T) {
				for round := range s.rounds {
					s.round(t, round)
					if t.Failed() {
						return
					}
				}
			})
		})
	}
	wg.Wait()
	goleak.VerifyNone(t)
	after := liveHeap()
	t.Logf("soak done in %v; live heap %.2f MiB before, %.2f MiB after", time.Since(start).Round(time.Millisecond),
		mib(int64(before)), mib(int64(after)))
	assert.Less(t, int64(after)-int64(before), int64(soakHeapMargin), "the live heap did not come back near its start")
}

// soakStock is a service whose params a peer can make fail at length.
type soakStock struct{}

// soakItem is an element of restock's params.
type soakItem struct {
	Qty int `json:"qty" validate:"gte=1"`
}

// soakPoint is subtract's params, by name.
type soakPoint struct {
	A int `json:"a"`
}

func (soakStock) Restock(items []soakItem) int { return len(items) }
func (soakStock) Subtract(p soakPoint) int     { return p.A }

// soakHostileAnswers sends a service lines whose error answers and log
// records once grew with them: a 1 MiB unknown member name, 20,000 failing
// elements, a 1 MiB unknown method name, a response to no call of ours
// with a 1 MiB id. Every answer and record stays within a few KiB.
func soakHostileAnswers(t *testing.T, _ int) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", soakStock{}))
	var logs wiretest.Buffer
	p := wiretest.NewPipe(svc, &rpc.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	huge := strings.Repeat("\x7f", 1<<20)
	items := strings.TrimSuffix(strings.Repeat(`{"qty":0},`, 20_000), ",")
	exchanges := []struct {
		line, want string
		max        int // bytes of the answer
	}{
		{`{"jsonrpc":"2.0","method":"subtract","params":{"` + huge + `.":1},"id":1}`, `"rule":"unknown"`, 4 << 10},
		{`{"jsonrpc":"2.0","method":"restock","params":[` + items + `],"id":2}`, `"19900 more problems not listed"`, 16 << 10},
		{`{"jsonrpc":"2.0","result":1,"id":"` + huge + `"}`, "", 0}, // logged, not answered
		{`{"jsonrpc":"2.0","method":"` + huge + `","id":3}`, `"code":-32601`, 1 << 10},
	}
	for _, ex := range exchanges {
		require.NoError(t, p.Write([]byte(ex.line+"\n")))
		if ex.want == "" {
			continue
		}
		line, err := p.ReadLine()
		require.NoError(t, err)
		assert.Contains(t, string(line), ex.want)
		assert.LessOrEqual(t, len(line), ex.max, "the answer's bytes")
	}
	p.Close(t)
	records := wiretest.Lines(t, logs.String())
	assert.Contains(t, logs.String(), "rpc: unexpected response dropped")
	for _, r := range records {
		assert.LessOrEqual(t, len(r), 4<<10, "a log record's bytes")
	}
}

// soakBlockedOutput makes calls, notifications and batches with short
// deadlines from several goroutines against an output nobody reads: each
// returns its context's error (a notification may fit in the output's
// room, and return nil), and once the peer reads, the output is whole lines.
func soakBlockedOutput(t *testing.T, _ int) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{Logger: quiet})
	big := []string{strings.Repeat("x", 256<<10)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 6 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
				switch (g + i) % 3 {
				case 0:
					assert.ErrorIs(t, c.Call(ctx, "m", big, nil), context.DeadlineExceeded, "Call")
				case 1:
					if err := c.Notify(ctx, "n", big); err != nil {
						assert.ErrorIs(t, err, context.DeadlineExceeded, "Notify")
					}
				case 2:
					assert.ErrorIs(t, c.Batch(ctx, []rpc.BatchCall{{Method: "a"}, {Method: "b", Params: big}}),
						context.DeadlineExceeded, "Batch")
				}
				cancel()
			}
		})
	}
	wg.Wait()
	lines := make(chan int, 1)
	go func() {
		r := bufio.NewReader(tr)
		n := 0
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				assert.Empty(t, line, "a partial line")
				lines <- n
				return
			}
			assert.True(t, json.Valid(line), "a line is not whole: %.80q", line)
			n++
		}
	}()
	require.NoError(t, tw.Close())
	require.NoError(t, c.Wait())
	require.NoError(t, cw.Close())
	wiretest.Receive(t, lines, "the output to be read")
}

// soakBatches sends three batches at once, each within MaxPendingCalls
// alone and over it together, and single calls beside them: all complete.
func soakBatches(t *testing.T, round int) {
	p := wiretest.NewPair(newArith(), nil, nil, &rpc.Options{MaxPendingCalls: 256})
	defer p.Close(t)
	var wg sync.WaitGroup
	for b := range 3 {
		wg.Go(func() {
			calls := make([]rpc.BatchCall, 200+b*28)
			sums := make([]int, len(calls))
			for i := range calls {
				calls[i] = rpc.BatchCall{Method: "add", Params: []int{i, round}, Result: &sums[i]}
			}
			if !assert.NoError(t, p.Client.Batch(context.Background(), calls)) {
				return
			}
			for i, bc := range calls {
				assert.NoError(t, bc.Err)
				assert.Equal(t, i+round, sums[i])
			}
		})
		wg.Go(func() {
			var sum int
			assert.NoError(t, p.Client.Call(context.Background(), "add", []int{b, round}, &sum))
			assert.Equal(t, b+round, sum)
		})
	}
	wg.Wait()
}

// soakOutputFails runs calls, notifications and batches from several
// goroutines while the peer answers some requests, then stops reading:
// each either succeeds or fails with ErrClosed, and every later one fails
// the same way. A call whose request went out before the output failed
// waits for its answer until the input ends too (the peer may have read it).
func soakOutputFails(t *testing.T, round int) {
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	inR, inW := io.Pipe()
	c := rpc.NewConn(context.Background(), inR, outW, nil, &rpc.Options{Logger: quiet})
	peerDone := make(chan struct{})
	go func() { // the peer: answers the first lines it reads, then is gone
		defer close(peerDone)
		r := bufio.NewReader(outR)
		for range 20 + round*5 {
			line, err := r.ReadBytes('\n')
			if err != nil {
				break
			}
			if answer := soakAnswer(line); answer != nil {
				_, _ = inW.Write(answer)
			}
		}
		_ = outR.Close()
	}()
	ops := []func(ctx context.Context) error{
		func(ctx context.Context) error { return c.Call(ctx, "add", []int{1, 2}, nil) },
		func(ctx context.Context) error { return c.Notify(ctx, "note", nil) },
		func(ctx context.Context) error {
			return c.Batch(ctx, []rpc.BatchCall{{Method: "add"}, {Method: "note", Notification: true}})
		},
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	contexts := []context.Context{context.Background(), cancellable}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				err := ops[(g+i)%len(ops)](contexts[(g+i/3)%2])
				if err == nil {
					continue
				}
				if !assert.ErrorIs(t, err, rpc.ErrClosed) {
					return
				}
				for _, op := range ops {
					assert.Equal(t, err, op(context.Background()), "a later call")
				}
				return
			}
		})
	}
	wiretest.Receive(t, peerDone, "the peer to stop reading")
	// One more line written makes the output fail, if no caller's did. Calls
	// whose requests went out before may still be answered on the input:
	// they wait for it, and end with it.
	if err := c.Notify(context.Background(), "poke", nil); err != nil {
		assert.ErrorIs(t, err, rpc.ErrClosed)
	}
	require.NoError(t, inW.Close())
	wg.Wait()
	_ = c.Wait() // nil or the output's error, whichever end it saw first
	_ = outW.Close()
}

// soakAnswer is the line answering the requests of line (a request or a
// batch) with 3, or nil if there are none.
func soakAnswer(line []byte) []byte {
	var reqs []struct{ ID json.RawMessage }
	single := line[0] != '['
	if single {
		line = append(append([]byte{'['}, line...), ']')
	}
	if json.Unmarshal(line, &reqs) != nil {
		return nil
	}
	var answers []string
	for _, req := range reqs {
		if req.ID != nil {
			answers = append(answers, fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%s}`, req.ID))
		}
	}
	switch {
	case len(answers) == 0:
		return nil
	case single:
		return []byte(answers[0] + "\n")
	}
	return []byte("[" + strings.Join(answers, ",") + "]\n")
}

// soakChildren starts tool servers that end badly, in turn: one exits
// while a descendant holds its pipes (with and without an answer written
// first), one writes a 32 MiB stderr line without a newline, one serves
// under ServeStdio while its parent closed its stderr.
func soakChildren(t *testing.T, round int) {
	switch round % 4 {
	case 0:
		processExitEndsTheSession(t, "orphan")
	case 1:
		processExitEndsTheSession(t, "orphan-answer")
	case 2:
		const limit = 1000
		var logs wiretest.Buffer
		p, err := rpc.StartProcess(context.Background(), child("stderr-flood"), nil,
			&rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}, Stderr: stderrLog(&logs), MaxStderrLine: limit})
		require.NoError(t, err)
		wiretest.Receive(t, p.Exited(), "the process to exit")
		require.NoError(t, p.Close())
		records := wiretest.Lines(t, logs.String())
		assert.Len(t, records, 3)
		for _, r := range records {
			assert.LessOrEqual(t, len(r), limit+200, "a forwarded line's record")
		}
	case 3:
		TestServeStdioOutlivesAClosedStderr(t)
	}
}

// soakQueueFlood floods a connection with small queue limits with tiny
// requests, alone or in batches, with and without a call of ours awaiting
// the peer (the queue then reads on, and answers -32002 past 16x its
// bounds): every request is answered once.
func soakQueueFlood(t *testing.T, round int) {
	const n = 4000
	awaiting := round%2 == 1
	batch := []int{0, 100}[round/2%2]
	var out wiretest.Buffer
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return nil, nil })
	in := &tinyRequests{n: n, batch: batch, start: make(chan struct{})}
	c := rpc.NewConn(context.Background(), in, &out, h,
		&rpc.Options{Logger: quiet, Concurrency: 2, QueueSize: 16, MaxQueueBytes: 4 << 10})
	called := make(chan error, 1)
	if awaiting {
		go func() { called <- c.Call(context.Background(), "never_answered", nil, nil) }()
	}
	close(in.start)
	require.NoError(t, c.Wait())
	if awaiting {
		assert.ErrorIs(t, wiretest.Receive(t, called, "the call awaiting the peer"), rpc.ErrClosed)
	}
	s := out.String()
	answered := strings.Count(s, `{"jsonrpc":"2.0","result":null,"id":`) + strings.Count(s, `"code":-32002`)
	assert.Equal(t, n, answered, "requests answered")
}
