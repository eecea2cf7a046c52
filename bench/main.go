// Command bench measures toolrpc's server against peer JSON-RPC servers and
// two floors, and its package mcp against MCP servers (mark3labs/mcp-go, the
// official Go SDK) and a stdlib MCP loop, over an in-memory pipe (io.Pipe),
// with one driver for all: it writes pre-encoded request lines, reads
// response lines, checks every answer, and allocates nothing per call
// itself.
//
//	cd bench && go run .                  # 5 interleaved rounds, 1s per cell
//	go run . -rounds 3 -benchtime 300ms   # shorter
//	go run . -contestants 'toolrpc|floor' -workloads 'pingpong|pipelined'
//
// Each round runs every workload against every contestant in turn, in an
// order that changes from round to round (roundOrder): over a few rounds
// each contestant runs at every place, and right after every other. The
// report gives medians over the rounds. See BENCHMARKS.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"
)

func main() {
	testing.Init()
	rounds := flag.Int("rounds", 5, "interleaved rounds; the report gives medians over them")
	benchtime := flag.String("benchtime", "1s", "time per cell per round (testing's -benchtime: a duration or Nx)")
	onlyC := flag.String("contestants", "", "regexp: run only the contestants whose name matches")
	onlyW := flag.String("workloads", "", "regexp: run only the workloads whose key matches (pingpong, named, pipelined, batch, echo1MiB, line16MiB, line64MiB, mcp-add, mcp-echo1MiB, http-sum, http-sum16)")
	peakCalls := flag.Int("peakcalls", 20, "calls of the 1 MiB echo made while sampling the heap")
	flag.Parse()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fatalf("-benchtime: %v", err)
	}
	cs, err := selectNamed(*onlyC, "contestant", contestants, func(c *contestant) string { return c.name })
	if err != nil {
		fatalf("-contestants: %v", err)
	}
	ws, err := selectNamed(*onlyW, "workload", workloads, func(w *workload) string { return w.key })
	if err != nil {
		fatalf("-workloads: %v", err)
	}
	if *rounds < 1 {
		fatalf("-rounds must be at least 1")
	}

	res := newResults(cs, ws)
	start := time.Now()
	for round := range *rounds {
		for _, w := range ws {
			var runs []*contestant // those that run w
			for _, c := range cs {
				if ok, _ := c.supports(w); ok {
					runs = append(runs, c)
				}
			}
			for _, i := range roundOrder(len(runs), round) {
				c := runs[i]
				s := runCell(c, w, *peakCalls)
				if w.kind == kindLine {
					debug.FreeOSMemory() // give the huge lines' memory back
				}
				res.add(c, w, s)
				progress(round, *rounds, c, w, s)
			}
		}
	}
	res.print(os.Stdout, reportInfo{
		rounds:    *rounds,
		benchtime: *benchtime,
		elapsed:   time.Since(start),
	})
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(2)
}

// selectNamed returns the items whose name matches the regular expression
// expr; none is an error, what names the kind of item in it.
func selectNamed[T any](expr, what string, items []T, name func(T) string) ([]T, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, it := range items {
		if re.MatchString(name(it)) {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s matches %q", what, expr)
	}
	return out, nil
}

// sample is one cell's measurement in one round, per call.
type sample struct {
	ns, bytes, allocs  float64
	peakHeap, peakLive float64 // echo: bytes over the baseline
	cpu                float64 // HTTP and MCP: the process's CPU time per call (ns)
	err                error
}

// runCell measures c on w once: with testing.Benchmark for the timed
// workloads (then, for the echo, the peak heap over peakCalls more calls),
// or one timed call for the huge lines.
func runCell(c *contestant, w *workload, peakCalls int) (s sample) {
	r, err := newRunner(c, w, defaultStall)
	if err != nil {
		return sample{err: err}
	}
	defer r.close()
	if !w.timed() {
		t0 := time.Now()
		err := r.run(1)
		return sample{ns: float64(time.Since(t0).Nanoseconds()), err: err}
	}
	var runErr error
	cpu0, calls0 := cpuTime(), progressOf(r)
	br := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		if err := r.run(b.N); err != nil {
			runErr = err
			b.FailNow()
		}
	})
	if runErr == nil && br.N == 0 {
		runErr = fmt.Errorf("%s/%s: the benchmark failed", c.name, w.key)
	}
	if runErr != nil {
		return sample{err: runErr}
	}
	cpu, made := cpuTime()-cpu0, progressOf(r)-calls0
	calls := float64(br.N) * float64(w.callsPerOp)
	s = sample{
		ns:     float64(br.T.Nanoseconds()) / calls,
		bytes:  float64(br.MemBytes) / calls,
		allocs: float64(br.MemAllocs) / calls,
	}
	if (w.http || w.mcp) && made > 0 {
		s.cpu = float64(cpu.Nanoseconds()) / float64(made)
	}
	if w.kind == kindEcho {
		r.close() // before measuring another session's heap
		heap, live, err := measurePeak(c, w, peakCalls)
		s.peakHeap, s.peakLive, s.err = float64(heap), float64(live), err
	}
	return s
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// progressOf is how many calls an HTTP runner has made over all its runs
// (testing.Benchmark's ramp-up included), 0 for the others.
func progressOf(r runner) int64 {
	switch r := r.(type) {
	case *httpRunner:
		return r.wd.progress.Load()
	case *session:
		return r.wd.progress.Load()
	}
	return 0
}

func progress(round, rounds int, c *contestant, w *workload, s sample) {
	var msg string
	switch {
	case s.err != nil:
		msg = "FAIL: " + s.err.Error()
	case !w.timed():
		msg = fmt.Sprintf("%.1f ms", s.ns/1e6)
	default:
		msg = fmt.Sprintf("%.0f ns/call %.0f B/call %.2f allocs/call", s.ns, s.bytes, s.allocs)
		if w.kind == kindEcho {
			msg += fmt.Sprintf(" peak heap +%.1f MiB", s.peakHeap/(1<<20))
		}
		if w.http {
			msg += fmt.Sprintf(" %.0f calls/s %.0f ns CPU/call", 1e9/s.ns, s.cpu)
		}
	}
	fmt.Fprintf(os.Stderr, "round %d/%d  %-10s %-15s %s\n", round+1, rounds, w.key, c.name, msg)
	runtime.Gosched()
}

// roundOrder is the order in which round runs n contestants: row round of
// a balanced Latin square (Williams' design), whose rows put each
// contestant at each place once and right after each other once, over n
// rows for an even n and 2n for an odd one (each row then followed by its
// reverse). A cell's figures depend a little on the cell before it (what
// the previous contestant left to the garbage collector and the
// scheduler), so no contestant may always follow the same one.
func roundOrder(n, round int) []int {
	rows := n
	if n%2 == 1 {
		rows = 2 * n
	}
	r := round % max(rows, 1)
	order := make([]int, n)
	for j := range order {
		// The first row is 0, 1, n-1, 2, n-2, ...; row i adds i to each.
		v := (j + 1) / 2
		if j%2 == 0 && j > 0 {
			v = n - j/2
		}
		order[j] = (v + r%n) % n
	}
	if r >= n { // the odd case's second half
		slices.Reverse(order)
	}
	return order
}
