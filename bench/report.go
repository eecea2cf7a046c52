package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// results holds every sample, by contestant and workload, one per round in
// round order.
type results struct {
	cs    []*contestant
	ws    []*workload
	cells map[string][]sample
}

func newResults(cs []*contestant, ws []*workload) *results {
	return &results{cs: cs, ws: ws, cells: map[string][]sample{}}
}

func cellKey(c *contestant, w *workload) string { return c.name + "/" + w.key }

func (r *results) add(c *contestant, w *workload, s sample) {
	k := cellKey(c, w)
	r.cells[k] = append(r.cells[k], s)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// stat is a cell's medians over its successful rounds.
type stat struct {
	ok, rounds         int
	ns, bytes, allocs  float64
	peakHeap, peakLive float64
	cpu                float64 // HTTP and MCP: CPU time per call
	errs               []string
}

func (r *results) stat(c *contestant, w *workload) stat {
	ss := r.cells[cellKey(c, w)]
	st := stat{rounds: len(ss)}
	var ns, bytes, allocs, heap, live, cpu []float64
	for _, s := range ss {
		if s.err != nil {
			if msg := s.err.Error(); !slices.Contains(st.errs, msg) {
				st.errs = append(st.errs, msg)
			}
			continue
		}
		st.ok++
		ns, bytes, allocs = append(ns, s.ns), append(bytes, s.bytes), append(allocs, s.allocs)
		heap, live = append(heap, s.peakHeap), append(live, s.peakLive)
		cpu = append(cpu, s.cpu)
	}
	st.ns, st.bytes, st.allocs = median(ns), median(bytes), median(allocs)
	st.peakHeap, st.peakLive = median(heap), median(live)
	st.cpu = median(cpu)
	return st
}

// ratio is the median over the rounds of c's time over the reference's in
// the same round: ratios are taken within a round, between cells measured
// close together, then the median is taken.
func (r *results) ratio(c *contestant, w *workload, ref func(round int) float64) float64 {
	var xs []float64
	for round, s := range r.cells[cellKey(c, w)] {
		if s.err != nil {
			continue
		}
		if d := ref(round); d > 0 && !math.IsNaN(d) {
			xs = append(xs, s.ns/d)
		}
	}
	return median(xs)
}

// cpuRatio is the median over the rounds of c's CPU time per call over
// ref's in the same round (HTTP workloads).
func (r *results) cpuRatio(c *contestant, w *workload, ref *contestant) float64 {
	var xs []float64
	refs := r.cells[cellKey(ref, w)]
	for round, s := range r.cells[cellKey(c, w)] {
		if s.err != nil || round >= len(refs) || refs[round].err != nil || refs[round].cpu <= 0 {
			continue
		}
		xs = append(xs, s.cpu/refs[round].cpu)
	}
	return median(xs)
}

// nsIn returns c's time per call on w in round, NaN if it failed or did
// not run.
func (r *results) nsIn(c *contestant, w *workload, round int) float64 {
	ss := r.cells[cellKey(c, w)]
	if round >= len(ss) || ss[round].err != nil {
		return math.NaN()
	}
	return ss[round].ns
}

// bestPeerIn is the best peer's time in round.
func (r *results) bestPeerIn(w *workload, round int) float64 {
	best := math.NaN()
	for _, c := range r.cs {
		if !c.peer {
			continue
		}
		if ns := r.nsIn(c, w, round); !math.IsNaN(ns) && (math.IsNaN(best) || ns < best) {
			best = ns
		}
	}
	return best
}

// bestPeer is the peer with the lowest median time on w.
func (r *results) bestPeer(w *workload) (*contestant, stat) {
	var best *contestant
	var bst stat
	for _, c := range r.cs {
		if !c.peer {
			continue
		}
		if st := r.stat(c, w); st.ok > 0 && (best == nil || st.ns < bst.ns) {
			best, bst = c, st
		}
	}
	return best, bst
}

// A reference is a column of ratios: a contestant's time over the
// reference's, in the same round.
type reference struct {
	name string
	ns   func(round int) float64
}

// refs are the ratio columns of w's table: floor-json and the best peer
// for JSON-RPC, floor-mcp, mcp-go and the Go SDK for MCP, floor-http and
// jhttp for HTTP.
func (r *results) refs(w *workload) []reference {
	of := func(name string) reference {
		c := contestantByName(name)
		return reference{name, func(round int) float64 { return r.nsIn(c, w, round) }}
	}
	if w.mcp {
		return []reference{of("floor-mcp"), of("mcp-go"), of("go-sdk")}
	}
	if w.http {
		return []reference{of("floor-http"), of("jhttp")}
	}
	return []reference{of("floor-json"), {"best peer", func(round int) float64 { return r.bestPeerIn(w, round) }}}
}

type reportInfo struct {
	rounds    int
	benchtime string
	elapsed   time.Duration
}

func (r *results) print(out io.Writer, info reportInfo) {
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	floor := contestantByName("floor-json")
	p("## Results\n\n")
	p("- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	p("- machine: %s, %d CPUs (GOMAXPROCS %d), %s/%s, %s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	p("- command: `cd bench && go run .%s`\n", argsString())
	p("- %d interleaved rounds, benchtime %s per cell, %s in all\n", info.rounds, info.benchtime, info.elapsed.Round(time.Second))
	p("- versions: %s\n", versions())
	p("\nPer call: a batch op is %d calls. Values are medians over the rounds; a ratio is the median over the rounds of the ratio within each round. \"best peer\" is the fastest of jrpc2, sourcegraph, x-exp and geth in that round. The MCP workloads are run by the MCP contestants only, and their ratios are to floor-mcp, mcp-go and the Go SDK (go-sdk). The HTTP workloads are run by the HTTP contestants only, and their ratios are to floor-http and jhttp; their B/call and allocs/call are the server's (net/http's server and the handler: the driver allocates nothing), their ns/call the whole round trip over loopback TCP, and with 16 clients the wall time over all calls (calls/s = 1e9 / ns/call); CPU/call is the process's CPU time (user and system, the driver's included) over the calls made, less sensitive than wall time to other programs on the machine.\n", batchSize)

	var notes []string
	note := func(s string) string {
		for i, n := range notes {
			if n == s {
				return fmt.Sprintf("[%d]", i+1)
			}
		}
		notes = append(notes, s)
		return fmt.Sprintf("[%d]", len(notes))
	}

	for _, w := range r.ws {
		p("\n### %s\n\n", w.title)
		if !w.timed() {
			p("| contestant | time | MiB/s | × floor-json | answered |\n|---|---:|---:|---:|---|\n")
			for _, c := range r.cs {
				if !c.entered(w) {
					continue
				}
				if ok, why := c.supports(w); !ok {
					p("| %s | n/a %s | | | |\n", c.name, note(why))
					continue
				}
				st := r.stat(c, w)
				answered := fmt.Sprintf("%d/%d rounds", st.ok, st.rounds)
				if st.ok == 0 {
					p("| %s | FAIL | | | %s %s |\n", c.name, answered, note(strings.Join(st.errs, "; ")))
					continue
				}
				if len(st.errs) > 0 {
					answered += " " + note(strings.Join(st.errs, "; "))
				}
				mibs := float64(w.lineSize) / (1 << 20) / (st.ns / 1e9)
				xf := r.ratio(c, w, func(round int) float64 { return r.nsIn(floor, w, round) })
				p("| %s | %.1f ms | %.0f | %s | %s |\n", c.name, st.ns/1e6, mibs, fmtRatio(xf), answered)
			}
			continue
		}
		if !w.mcp && !w.http {
			if bp, bst := r.bestPeer(w); bp != nil {
				p("best peer: %s (%s/call)\n\n", bp.name, fmtNs(bst.ns))
			}
		}
		refs := r.refs(w)
		echo := w.kind == kindEcho
		blank := strings.Repeat(" |", 2+len(refs)) // the cells after the second
		if echo {
			blank += " | | |"
		}
		if w.http {
			blank += " | | |"
		}
		if w.mcp {
			blank += " | |"
		}
		p("| contestant | ns/call | B/call | allocs/call |")
		if w.http {
			p(" calls/s | CPU/call | CPU × floor-http |")
		}
		if w.mcp {
			p(" CPU/call | CPU × floor-mcp |")
		}
		for _, rf := range refs {
			p(" × %s |", rf.name)
		}
		if echo {
			p(" peak heap | × payload | peak live |")
		}
		p("\n|---|---:|---:|---:|%s", strings.Repeat("---:|", len(refs)))
		if w.http {
			p("---:|---:|---:|")
		}
		if w.mcp {
			p("---:|---:|")
		}
		if echo {
			p("---:|---:|---:|")
		}
		p("\n")
		for _, c := range r.cs {
			if !c.entered(w) {
				continue
			}
			if ok, why := c.supports(w); !ok {
				p("| %s | n/a %s |%s\n", c.name, note(why), blank)
				continue
			}
			st := r.stat(c, w)
			if st.ok == 0 {
				p("| %s | FAIL %s |%s\n", c.name, note(strings.Join(st.errs, "; ")), blank)
				continue
			}
			name := c.name
			if len(st.errs) > 0 {
				name += fmt.Sprintf(" (failed %d/%d rounds %s)", st.rounds-st.ok, st.rounds, note(strings.Join(st.errs, "; ")))
			}
			p("| %s | %s | %s | %s |", name, fmtNs(st.ns), fmtBytes(st.bytes), fmtAllocs(st.allocs))
			if w.http {
				p(" %.0f | %s | %s |", 1e9/st.ns, fmtNs(st.cpu), fmtRatio(r.cpuRatio(c, w, contestantByName("floor-http"))))
			}
			if w.mcp {
				p(" %s | %s |", fmtNs(st.cpu), fmtRatio(r.cpuRatio(c, w, contestantByName("floor-mcp"))))
			}
			for _, rf := range refs {
				p(" %s |", fmtRatio(r.ratio(c, w, rf.ns)))
			}
			if echo {
				p(" %.1f MiB | %.1f× | %.1f MiB |", st.peakHeap/(1<<20), st.peakHeap/echoSize, st.peakLive/(1<<20))
			}
			p("\n")
		}
	}
	if len(notes) > 0 {
		p("\nNotes:\n\n")
		for i, n := range notes {
			p("%d. %s\n", i+1, n)
		}
	}
	r.printTargets(out)
	r.printMCPTargets(out)
	r.printHTTPTargets(out)
}

// printHTTPTargets checks toolrpc-http against issue 14's target on each
// HTTP workload: at or under 1.0× floor-http.
func (r *results) printHTTPTargets(out io.Writer) {
	c, floor := contestantByName("toolrpc-http"), contestantByName("floor-http")
	if !slices.Contains(r.cs, c) || !slices.Contains(r.cs, floor) {
		return
	}
	var rows []row
	for _, w := range r.ws {
		if !w.http {
			continue
		}
		label := w.title + ", toolrpc-http: ≤ 1.0× floor-http"
		x := r.ratio(c, w, func(round int) float64 { return r.nsIn(floor, w, round) })
		if math.IsNaN(x) {
			rows = append(rows, row{label, "no measurement", "**not met**"})
			continue
		}
		measured := fmt.Sprintf("%.2f× (CPU per call: %s×)", x, fmtRatio(r.cpuRatio(c, w, floor)))
		rows = append(rows, row{label, measured, verdict(x <= 1)})
	}
	printRows(out, "rpc.HTTPHandler against its target (issue 14)", rows)
}

// printMCPTargets checks package mcp against issue 13's targets, on each
// MCP workload: at least 4× faster than mcp-go and 10× faster than the Go
// SDK, at or under 1.0× floor-mcp, and no more allocations per call than
// floor-mcp. The legacy contestant answers the very requests the others
// do; the modern one is shown beside it.
func (r *results) printMCPTargets(out io.Writer) {
	floor := contestantByName("floor-mcp")
	var rows []row
	for _, w := range r.ws {
		if !w.mcp {
			continue
		}
		refs := r.refs(w) // floor-mcp, mcp-go, go-sdk
		for _, name := range []string{"toolrpc-mcp", "toolrpc-mcp-modern"} {
			c := contestantByName(name)
			if !slices.Contains(r.cs, c) {
				continue
			}
			label := func(s string) string { return fmt.Sprintf("%s, %s: %s", w.title, name, s) }
			for _, t := range []struct {
				ref    reference
				faster float64 // how many times faster toolrpc must be
			}{{refs[1], 4}, {refs[2], 10}, {refs[0], 1}} {
				if !slices.Contains(r.cs, contestantByName(t.ref.name)) {
					continue
				}
				target := fmt.Sprintf("≥ %.0f× faster than %s", t.faster, t.ref.name)
				if t.faster == 1 {
					target = "≤ 1.0× " + t.ref.name
				}
				x := r.ratio(c, w, t.ref.ns)
				if math.IsNaN(x) {
					rows = append(rows, row{label(target), "no measurement", "**not met**"})
					continue
				}
				measured := fmt.Sprintf("%.1f× faster (%.2f×; CPU per call: %s×)", 1/x, x, fmtRatio(r.cpuRatio(c, w, contestantByName(t.ref.name))))
				if t.faster == 1 {
					measured = fmt.Sprintf("%.2f× (CPU per call: %s×)", x, fmtRatio(r.cpuRatio(c, w, floor)))
				}
				rows = append(rows, row{label(target), measured, verdict(x <= 1/t.faster)})
			}
			if slices.Contains(r.cs, floor) {
				st, fst := r.stat(c, w), r.stat(floor, w)
				if st.ok == 0 || fst.ok == 0 {
					rows = append(rows, row{label("allocs/call ≤ floor-mcp's"), "no measurement", "**not met**"})
					continue
				}
				rows = append(rows, row{label("allocs/call ≤ floor-mcp's"),
					fmt.Sprintf("%s against %s", fmtAllocs(st.allocs), fmtAllocs(fst.allocs)), verdict(st.allocs <= fst.allocs)})
			}
		}
	}
	printRows(out, "package mcp against its targets (issue 13)", rows)
}

// A row is one target: what it is, what was measured, and whether it is
// met.
type row struct{ target, measured, verdict string }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// printRows prints a table of targets under title, if there are any.
func printRows(out io.Writer, title string, rows []row) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\n### %s\n\n| target | measured | |\n|---|---:|---|\n", title)
	for _, rw := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", rw.target, rw.measured, rw.verdict)
	}
}

// printTargets checks toolrpc against the numbers it is to be held to.
func (r *results) printTargets(out io.Writer) {
	tool, client, floor := contestantByName("toolrpc"), contestantByName("toolrpc-client"), contestantByName("floor-json")
	has := func(c *contestant) bool { return slices.Contains(r.cs, c) }
	if !has(tool) {
		return
	}
	var rows []row
	xFloor := func(c *contestant, w *workload, limit float64, label string) {
		if !has(floor) || !slices.Contains(r.ws, w) {
			return
		}
		x := r.ratio(c, w, func(round int) float64 { return r.nsIn(floor, w, round) })
		if math.IsNaN(x) {
			rows = append(rows, row{label, "no measurement", "**not met**"})
			return
		}
		rows = append(rows, row{label, fmt.Sprintf("%.2f×", x), verdict(x <= limit)})
	}
	allocs := func(w *workload, limit float64, label string) {
		if !slices.Contains(r.ws, w) {
			return
		}
		st := r.stat(tool, w)
		if st.ok == 0 {
			rows = append(rows, row{label, "no measurement", "**not met**"})
			return
		}
		rows = append(rows, row{label, fmt.Sprintf("%.1f allocs/call", st.allocs), verdict(st.allocs <= limit)})
	}
	ping, pipe, batch, echo := workloadByKey("pingpong"), workloadByKey("pipelined"), workloadByKey("batch"), workloadByKey("echo1MiB")
	xFloor(tool, ping, 1.0, "ping-pong ≤ 1.0× floor-json")
	allocs(ping, 12, "ping-pong ≤ 12 allocs per call")
	xFloor(tool, pipe, 1.0, "pipelined ≤ 1.0× floor-json")
	allocs(pipe, 12, "pipelined ≤ 12 allocs per call")
	xFloor(tool, batch, 1.0, "batch of 100 ≤ 1.0× floor-json per call")
	xFloor(tool, echo, 1.0, "1 MiB echo ≤ 1.0× floor-json")
	if slices.Contains(r.ws, echo) {
		st := r.stat(tool, echo)
		if st.ok > 0 {
			x := st.peakHeap / echoSize
			rows = append(rows, row{"1 MiB echo peak heap ≤ 4× the payload", fmt.Sprintf("%.1f× (%.1f MiB)", x, st.peakHeap/(1<<20)), verdict(x <= 4)})
		}
	}
	for _, key := range []string{"line16MiB", "line64MiB"} {
		w := workloadByKey(key)
		if !slices.Contains(r.ws, w) {
			continue
		}
		st := r.stat(tool, w)
		rows = append(rows, row{w.title + " answered correctly", fmt.Sprintf("%d/%d rounds", st.ok, st.rounds), verdict(st.ok == st.rounds && st.ok > 0)})
	}
	if has(client) {
		xFloor(client, ping, 1.5, "our client against our server, ping-pong ≤ 1.5× floor-json")
	}
	printRows(out, "toolrpc against its targets", rows)
}

func fmtNs(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "-"
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e4:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 10<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f", b)
}

func fmtAllocs(a float64) string {
	if a >= 100 {
		return fmt.Sprintf("%.0f", a)
	}
	return fmt.Sprintf("%.1f", a)
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func argsString() string {
	var b strings.Builder
	for _, a := range os.Args[1:] {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

// versions lists the contestants' modules as built.
func versions() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	want := []string{
		"github.com/toolrpc/toolrpc",
		"github.com/creachadair/jrpc2",
		"github.com/sourcegraph/jsonrpc2",
		"golang.org/x/exp/jsonrpc2",
		"github.com/ethereum/go-ethereum",
		"github.com/mark3labs/mcp-go",
		"github.com/modelcontextprotocol/go-sdk",
	}
	var out []string
	for _, m := range bi.Deps {
		if !slices.Contains(want, m.Path) {
			continue
		}
		v := m.Version
		if m.Replace != nil {
			v = "=> " + m.Replace.Path
		}
		out = append(out, m.Path+" "+v)
	}
	return strings.Join(out, ", ")
}
