package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/rpc"
)

// A runner makes n calls of its workload (n ops: a batch op is batchSize
// calls) against one contestant and checks every answer. It allocates
// nothing per call itself.
type runner interface {
	run(n int) error
	close()
}

// defaultStall is how long a runner waits for a response before it gives
// up on the contestant (and fails the cell).
const defaultStall = 60 * time.Second

// newRunner starts c for w: the contestant's server on a pair of io.Pipes,
// and the requests for w encoded ahead of time.
func newRunner(c *contestant, w *workload, stall time.Duration) (runner, error) {
	if ok, why := c.supports(w); !ok {
		return nil, fmt.Errorf("%s does not run %s: %s", c.name, w.key, why)
	}
	if c.clientOnly {
		return newClientRunner(stall), nil
	}
	if w.http {
		return newHTTPRunner(c, w, stall)
	}
	return newSession(c, w, stall), nil
}

// watchdog kills a runner that gets no response for stall.
type watchdog struct {
	progress atomic.Int64 // responses read
	busy     atomic.Bool  // a run is under way
	stop     chan struct{}
	once     sync.Once
}

func startWatchdog(stall time.Duration, kill func(error)) *watchdog {
	wd := &watchdog{stop: make(chan struct{})}
	tick := stall / 20
	if tick > time.Second {
		tick = time.Second
	}
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		last, since := int64(-1), time.Now()
		for {
			select {
			case <-wd.stop:
				return
			case now := <-t.C:
				p := wd.progress.Load()
				if p != last || !wd.busy.Load() {
					last, since = p, now
					continue
				}
				if now.Sub(since) >= stall {
					kill(fmt.Errorf("no response for %v", stall))
					return
				}
			}
		}
	}()
	return wd
}

func (wd *watchdog) close() { wd.once.Do(func() { close(wd.stop) }) }

// killSwitch cuts a run's pipe ends all at once and keeps the first error
// that cut them.
type killSwitch struct {
	mu   sync.Mutex
	dead error // set once the run failed; every later run returns it
	ends []interface{ CloseWithError(error) error }
}

// kill cuts every pipe end: every read and write under way returns err.
func (k *killSwitch) kill(err error) {
	k.mu.Lock()
	if k.dead == nil {
		k.dead = err
	}
	k.mu.Unlock()
	for _, e := range k.ends {
		_ = e.CloseWithError(err)
	}
}

// cause returns the first error given to kill, or nil.
func (k *killSwitch) cause() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dead
}

// session is the line driver: it writes pre-encoded request lines into the
// contestant's input and reads its response lines.
type session struct {
	c *contestant
	w *workload

	reqR, respR *io.PipeReader
	reqW, respW *io.PipeWriter
	lr          *lineReader
	wait        func()
	wd          *watchdog

	line    []byte // one request line, '\n' included (all kinds but pipelined)
	nextID  int    // the rotating id patched into line
	idWidth int    // its digits: 5, or 9 for MCP (no id reused in a session)
	// handshake: an MCP legacy session, which opens with initialize and
	// notifications/initialized before its first call.
	handshake bool
	want      []byte // the result every call must have
	resp      response

	// pipelined
	lines      [][]byte // a line per id
	free       chan int // ids whose response came back
	inflight   []atomic.Bool
	bw         *bufio.Writer
	readerDone chan error
	tokens     [][]byte // the id tokens: "0" ... "9999"

	seen []bool // batch: ids answered in the current batch

	killSwitch
	closeOnce sync.Once
}

func newSession(c *contestant, w *workload, stall time.Duration) *session {
	s := prepareSession(c, w)
	s.start(stall)
	return s
}

// prepareSession makes the driver's side of a session: the pipes and the
// pre-encoded requests.
func prepareSession(c *contestant, w *workload) *session {
	s := &session{c: c, w: w}
	s.reqR, s.reqW = io.Pipe()
	s.respR, s.respW = io.Pipe()
	s.ends = append(s.ends, s.reqW, s.respR, s.reqR, s.respW)
	s.lr = newLineReader(s.respR)

	const firstID = 10000 // ids 10000-99999: the id is always 5 bytes
	s.nextID, s.idWidth = firstID-1, 5
	if w.mcp {
		// ids 100000000-999999999: MCP forbids reusing an id in a session.
		const firstMCPID = 100000000
		s.nextID, s.idWidth = firstMCPID-1, 9
		s.handshake = !c.modern
		s.want = mcpWant(w)
		tool, args := mcpArgs(w, s.want)
		s.line = append(requestLine(make([]byte, 0, len(args)+256), strconv.Itoa(firstMCPID), "tools/call", mcpCallParams(tool, args, c.modern)), '\n')
		// Sized ahead for a response as long as the request and more.
		s.lr.acc = make([]byte, 0, len(s.line)+4096)
		return s
	}
	switch w.kind {
	case kindPingpong, kindNamed:
		s.want = []byte(sumResult)
		s.line = append(requestLine(nil, "10000", c.sum, sumParams(w.kind == kindNamed)), '\n')
	case kindEcho, kindLine:
		size := echoSize
		if w.kind == kindLine {
			// The payload that makes the whole line w.lineSize bytes.
			overhead := len(requestLine(nil, "10000", c.echo, echoParams(quoted(nil)))) + 1
			size = w.lineSize - overhead
		}
		s.want = quoted(payload(size))
		s.line = append(requestLine(make([]byte, 0, len(s.want)+64), "10000", c.echo, echoParams(s.want)), '\n')
		// The response is shorter than the request: the line reader never
		// grows its buffer, not even on the first call.
		s.lr.acc = make([]byte, 0, len(s.line))
	case kindBatch:
		s.want = []byte(sumResult)
		s.line = append(s.line, '[')
		for i := range batchSize {
			if i > 0 {
				s.line = append(s.line, ',')
			}
			s.line = requestLine(s.line, fmt.Sprint(i), c.sum, sumParams(false))
		}
		s.line = append(s.line, "]\n"...)
		s.seen = make([]bool, batchSize)
	case kindPipelined:
		s.want = []byte(sumResult)
		s.lines = make([][]byte, pipelineDepth)
		s.tokens = make([][]byte, pipelineDepth)
		s.free = make(chan int, pipelineDepth)
		s.inflight = make([]atomic.Bool, pipelineDepth)
		for id := range pipelineDepth {
			s.tokens[id] = []byte(fmt.Sprint(id))
			s.lines[id] = append(requestLine(nil, string(s.tokens[id]), c.sum, sumParams(false)), '\n')
			s.free <- id
		}
		s.bw = bufio.NewWriterSize(s.reqW, 64<<10)
		s.readerDone = make(chan error, 1)
	}
	return s
}

// start starts the contestant's server and the watchdog.
func (s *session) start(stall time.Duration) {
	s.wait = s.c.serve(s.reqR, s.respW, s.want)
	s.wd = startWatchdog(stall, s.kill)
}

// fail records err as the session's failure (unless one came first, such
// as the watchdog's) and kills it.
func (s *session) fail(err error) error {
	s.kill(err)
	return fmt.Errorf("%s/%s: %w", s.c.name, s.w.key, s.cause())
}

func (s *session) failed() error {
	if dead := s.cause(); dead != nil {
		return fmt.Errorf("%s/%s: %w", s.c.name, s.w.key, dead)
	}
	return nil
}

func (s *session) run(n int) error {
	if err := s.failed(); err != nil {
		return err
	}
	s.wd.busy.Store(true)
	defer s.wd.busy.Store(false)
	if s.handshake {
		if err := s.initialize(); err != nil {
			return s.fail(err)
		}
		s.handshake = false
	}
	switch s.w.kind {
	case kindPipelined:
		return s.runPipelined(n)
	case kindBatch:
		return s.runBatch(n)
	}
	return s.runSingle(n)
}

// initialize opens an MCP legacy session: initialize (protocolVersion
// 2025-11-25), whose answer must negotiate that revision, then
// notifications/initialized, which has none.
func (s *session) initialize() error {
	if _, err := io.WriteString(s.reqW, mcpInitialize); err != nil {
		return err
	}
	line, err := s.lr.readLine()
	if err != nil {
		return err
	}
	end, err := parseResponse(line, 0, &s.resp)
	if err == nil && skipSpace(line, end) != len(line) {
		err = errors.New("more after the response")
	}
	if err != nil {
		return fmt.Errorf("initialize: %v: %s", err, clip(line))
	}
	if err := s.resp.checkHead([]byte(mcpInitID)); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if v, err := member(s.resp.result, "protocolVersion"); err != nil || string(v) != `"`+mcpVersion+`"` {
		return fmt.Errorf("initialize negotiated %s, not %s: %s", clip(v), mcpVersion, clip(line))
	}
	_, err = io.WriteString(s.reqW, mcpInitialized)
	return err
}

// runSingle makes n calls one at a time, each with a new id patched into
// the line in place (io.PipeWriter.Write returns once the server has read
// every byte, so the line is free again).
func (s *session) runSingle(n int) error {
	id := s.line[idOffset : idOffset+s.idWidth]
	first, last := 1, 9
	for range s.idWidth - 1 {
		first, last = first*10, last*10+9
	}
	for range n {
		s.nextID++
		if s.nextID > last {
			s.nextID = first
		}
		for i, v := s.idWidth-1, s.nextID; i >= 0; i, v = i-1, v/10 {
			id[i] = byte('0' + v%10)
		}
		if _, err := s.reqW.Write(s.line); err != nil {
			return s.fail(err)
		}
		line, err := s.lr.readLine()
		if err != nil {
			return s.fail(err)
		}
		s.wd.progress.Add(1)
		if err := s.checkOne(line, id); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

// checkOne checks that line is exactly one response, to id, with s.want.
func (s *session) checkOne(line, id []byte) error {
	return checkAnswer(line, id, s.want, &s.resp, s.w.mcp)
}

// checkAnswer checks that msg is exactly one response, to id, with want
// (an MCP tool result whose text is want when tool), scanned into r.
func checkAnswer(msg, id, want []byte, r *response, tool bool) error {
	end, err := parseResponse(msg, 0, r)
	if err == nil && skipSpace(msg, end) != len(msg) {
		err = errors.New("more after the response")
	}
	if err != nil {
		return fmt.Errorf("%v: %s", err, clip(msg))
	}
	if tool {
		return r.checkTool(id, want)
	}
	return r.check(id, want)
}

// runBatch sends n batch lines, one at a time, and checks that each is
// answered by an array with an answer for each of its batchSize ids, in
// any order.
func (s *session) runBatch(n int) error {
	for range n {
		if _, err := s.reqW.Write(s.line); err != nil {
			return s.fail(err)
		}
		line, err := s.lr.readLine()
		if err != nil {
			return s.fail(err)
		}
		s.wd.progress.Add(1)
		if err := s.checkBatch(line); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

func (s *session) checkBatch(line []byte) error {
	clear(s.seen)
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '[' {
		return fmt.Errorf("a batch answered by a non-array: %s", clip(line))
	}
	i = skipSpace(line, i+1)
	count := 0
	for i < len(line) && line[i] != ']' {
		end, err := parseResponse(line, i, &s.resp)
		if err != nil {
			return fmt.Errorf("%v: %s", err, clip(line))
		}
		id := atoi(s.resp.id)
		switch {
		case id < 0 || id >= batchSize:
			return fmt.Errorf("unexpected id %s in a batch response", clip(s.resp.id))
		case s.seen[id]:
			return fmt.Errorf("id %d answered twice in a batch response", id)
		}
		s.seen[id] = true
		if err := s.resp.check(s.resp.id, s.want); err != nil {
			return err
		}
		count++
		i = skipSpace(line, end)
		if i < len(line) && line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	if i >= len(line) || skipSpace(line, i+1) != len(line) {
		return fmt.Errorf("malformed batch response: %s", clip(line))
	}
	if count != batchSize {
		return fmt.Errorf("%d answers to a batch of %d", count, batchSize)
	}
	return nil
}

// runPipelined makes n calls with up to pipelineDepth in flight: the
// writer takes a free id, marks it in flight and writes its line (through
// a bufio.Writer, flushed whenever no id is free); a reader goroutine
// matches each response to its id, checks it, and frees the id.
func (s *session) runPipelined(n int) error {
	go s.readPipelined(n)
	for range n {
		var id int
		select {
		case id = <-s.free:
		default:
			if err := s.bw.Flush(); err != nil {
				return s.pipelinedFailed(err)
			}
			select {
			case id = <-s.free:
			case err := <-s.readerDone:
				if err == nil {
					err = errors.New("all responses read before all requests were written")
				}
				return s.fail(err)
			}
		}
		s.inflight[id].Store(true)
		if _, err := s.bw.Write(s.lines[id]); err != nil {
			return s.pipelinedFailed(err)
		}
	}
	if err := s.bw.Flush(); err != nil {
		return s.pipelinedFailed(err)
	}
	if err := <-s.readerDone; err != nil {
		return s.fail(err)
	}
	return nil
}

// pipelinedFailed kills the session on a write error and waits for the
// reader, whose error, if any, says more.
func (s *session) pipelinedFailed(err error) error {
	s.kill(err)
	if rerr := <-s.readerDone; rerr != nil && !errors.Is(rerr, err) {
		err = rerr
	}
	return s.fail(err)
}

func (s *session) readPipelined(n int) {
	var err error
	for range n {
		var line []byte
		line, err = s.lr.readLine()
		if err != nil {
			break
		}
		s.wd.progress.Add(1)
		var end int
		end, err = parseResponse(line, 0, &s.resp)
		if err == nil && skipSpace(line, end) != len(line) {
			err = errors.New("more after the response")
		}
		if err != nil {
			err = fmt.Errorf("%v: %s", err, clip(line))
			break
		}
		id := atoi(s.resp.id)
		if id < 0 || id >= pipelineDepth || !s.inflight[id].CompareAndSwap(true, false) {
			err = fmt.Errorf("response to an id not in flight: %s", clip(line))
			break
		}
		if err = s.resp.check(s.tokens[id], s.want); err != nil {
			break
		}
		s.free <- id
	}
	if err != nil {
		s.kill(err)
	}
	s.readerDone <- err
}

// close ends the contestant's input and waits for it to finish (draining
// its output meanwhile), then closes everything.
func (s *session) close() { s.closeOnce.Do(s.doClose) }

func (s *session) doClose() {
	_ = s.reqW.Close()
	go func() { _, _ = io.Copy(io.Discard, s.respR) }()
	done := make(chan struct{})
	go func() {
		s.wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		fmt.Fprintf(os.Stderr, "bench: %s did not finish within 10s of the end of its input\n", s.c.name)
	}
	s.kill(io.ErrClosedPipe)
	s.wd.close()
}

// clientRunner is our client (rpc.Conn.Call) against our server, over the
// same pipes: ping-pong, positional params.
type clientRunner struct {
	srv, cli   *rpc.Conn
	toServer   *io.PipeWriter
	toClient   *io.PipeWriter
	fromServer *io.PipeReader
	fromClient *io.PipeReader
	wd         *watchdog
	out        int
	killSwitch
	closeOnce sync.Once
}

var sumArgs = [2]int{sumA, sumB}

func newClientRunner(stall time.Duration) *clientRunner {
	r := &clientRunner{}
	r.fromClient, r.toServer = io.Pipe()
	r.fromServer, r.toClient = io.Pipe()
	r.ends = append(r.ends, r.toServer, r.toClient, r.fromServer, r.fromClient)
	r.srv = rpc.NewConn(context.Background(), r.fromClient, r.toClient, toolrpcHandler(), toolrpcOptions())
	r.cli = rpc.NewConn(context.Background(), r.fromServer, r.toServer, nil, toolrpcOptions())
	r.wd = startWatchdog(stall, r.kill)
	return r
}

func (r *clientRunner) run(n int) error {
	r.wd.busy.Store(true)
	defer r.wd.busy.Store(false)
	ctx := context.Background()
	for range n {
		r.out = 0
		if err := r.cli.Call(ctx, "sum", &sumArgs, &r.out); err != nil {
			if dead := r.cause(); dead != nil {
				err = fmt.Errorf("%w (%v)", err, dead)
			}
			r.kill(err)
			return fmt.Errorf("toolrpc-client/pingpong: %w", err)
		}
		r.wd.progress.Add(1)
		if r.out != sumA+sumB {
			err := fmt.Errorf("toolrpc-client/pingpong: result %d, want %d", r.out, sumA+sumB)
			r.kill(err)
			return err
		}
	}
	return nil
}

// close ends a session as wiretest.Pair does: the client's output ends,
// the server finishes, its output ends, the client finishes.
func (r *clientRunner) close() {
	r.closeOnce.Do(func() {
		_ = r.toServer.Close()
		waitOrWarn("toolrpc-client (server end)", r.srv)
		_ = r.toClient.Close()
		waitOrWarn("toolrpc-client (client end)", r.cli)
		r.kill(io.ErrClosedPipe)
		r.wd.close()
	})
}

func waitOrWarn(name string, c *rpc.Conn) {
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		fmt.Fprintf(os.Stderr, "bench: %s did not finish within 10s\n", name)
	}
}

// heapSampler samples the heap while a run goes on: the bytes of heap
// objects (live and not yet swept, what MemStats.HeapAlloc counts) and the
// live heap as of the last GC.
type heapSampler struct {
	baseHeap, baseLive uint64
	peakHeap, peakLive uint64
	stop, done         chan struct{}
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

func readHeap(samples []metrics.Sample) (heap, live uint64) {
	metrics.Read(samples)
	return samples[0].Value.Uint64(), samples[1].Value.Uint64()
}

// startHeapSampler collects garbage, takes the baseline, and samples every
// 20µs (or as often as the timer allows) until stopped.
func startHeapSampler() *heapSampler {
	samples := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		samples[i].Name = name
	}
	runtime.GC()
	runtime.GC()
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	h.baseHeap, h.baseLive = readHeap(samples)
	go func() {
		defer close(h.done)
		for {
			heap, live := readHeap(samples)
			h.peakHeap, h.peakLive = max(h.peakHeap, heap), max(h.peakLive, live)
			select {
			case <-h.stop:
				return
			default:
			}
			time.Sleep(20 * time.Microsecond)
		}
	}()
	return h
}

// finish stops sampling and returns the peaks over the baseline.
func (h *heapSampler) finish() (heap, live uint64) {
	close(h.stop)
	<-h.done
	sub := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return sub(h.peakHeap, h.baseHeap), sub(h.peakLive, h.baseLive)
}

// measurePeak measures the heap a contestant needs to serve w (the 1 MiB
// echo): with the driver's side of a new session ready (requests encoded,
// line buffer sized), it collects garbage and takes the baseline, then
// starts the server and makes calls calls while sampling. GOGC is 1 during
// the measurement, so that the heap holds little garbage: the peak heap is
// close to the most the server holds at once (its buffers, pooled or not,
// included), not to where the GC pacer lets the heap grow.
func measurePeak(c *contestant, w *workload, calls int) (heap, live uint64, err error) {
	s := prepareSession(c, w)
	old := debug.SetGCPercent(1)
	defer debug.SetGCPercent(old)
	h := startHeapSampler()
	s.start(defaultStall)
	err = s.run(calls)
	heap, live = h.finish()
	s.close()
	return heap, live, err
}
