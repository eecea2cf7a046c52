package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/option"
)

// DefaultProcessGrace is how long [Process.Close] waits for a tool server to
// exit once its input is closed, before killing it.
const DefaultProcessGrace = 5 * time.Second

// ProcessOptions configure [StartProcess]. A nil *ProcessOptions, and every
// zero field, means the documented default.
type ProcessOptions struct {
	// Options configure the connection to the process.
	Options
	// Stderr receives the process's standard error, one record per line,
	// with the attribute "pid". A line that is a JSON object, as slog's
	// JSONHandler writes them, is forwarded as the record it is: its time,
	// level ("INFO", "WARN+2"...), message ("msg") and the other members
	// as attributes (objects as groups; see StartProcess). Any other line
	// is an Info record "tool server stderr" with the attribute "line".
	// Records below the logger's level are dropped. Default:
	// Options.Logger, or slog.Default().
	Stderr *slog.Logger
	// MaxStderrLine is the longest line of standard error forwarded whole,
	// in bytes. A longer line is cut to it (at a UTF-8 character boundary)
	// and forwarded as plain text, its record saying how many bytes were
	// dropped (the attribute "dropped"); the rest of the line is skipped
	// as it is read, never held. Default: DefaultMaxStderrLine (64 KiB).
	MaxStderrLine int
	// Grace is how long Close waits for the process to exit once its
	// standard input is closed, before killing it. Default:
	// DefaultProcessGrace.
	Grace time.Duration
}

// Process is a tool server running as a child process, and the connection
// to it: its standard output is the protocol's input, its standard input
// the protocol's output. Call, Notify and Batch come from the embedded
// [Conn].
type Process struct {
	*Conn
	cmd        *exec.Cmd
	grace      time.Duration
	log        *slog.Logger
	stdin      *os.File      // ours: the process's input
	stdout     *childPipe    // ours: the process's output, the connection's input
	stderr     *childPipe    // ours: the process's standard error
	waited     chan struct{} // closed when the process has exited (waitErr is set)
	waitErr    error
	outEnded   chan struct{} // closed when stdout ended (see childPipe.onEnd)
	exited     chan struct{} // closed when the session ended (see Exited)
	stderrDone chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// StartProcess starts cmd and connects to it; h answers the process's own
// calls and notifications (nil: MethodNotFound). cmd's Stdin, Stdout and
// Stderr must be unset: StartProcess wires them. ctx bounds the
// connection, as for [NewConn]; to bound the process's life, give cmd a
// context ([exec.CommandContext]).
//
// The process's exit ends the session, even when a process it started
// holds its standard output open: once what it wrote before exiting was
// read, calls waiting for it, and later ones, fail with an error that
// wraps [ErrClosed] and says how it exited (an [*exec.ExitError], for
// [errors.As], unless it exited with status 0). Its standard error is
// forwarded until then too (see [ProcessOptions.Stderr]). A JSON log record
// is forwarded with every member after time, level and msg as an
// attribute: strings, numbers (int64, uint64 or float64), booleans and
// null as values of their kind, objects as groups (nested at most 8 deep;
// an empty or deeper object is one json.RawMessage), arrays as
// json.RawMessage.
func StartProcess(ctx context.Context, cmd *exec.Cmd, h Handler, opts *ProcessOptions) (*Process, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("rpc: StartProcess wires the command's stdin, stdout and stderr: leave them unset")
	}
	var o ProcessOptions
	if opts != nil {
		o = *opts
	}
	if err := o.Options.check(); err != nil {
		return nil, err
	}
	o.Grace = option.PositiveOr(o.Grace, DefaultProcessGrace)
	logger := o.Options.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if o.Stderr == nil {
		o.Stderr = logger
	}
	// Pipes of our own, not cmd's: cmd.Wait would close them under a
	// connection still reading, or wait for every holder of stderr.
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return nil, fmt.Errorf("rpc: pipes for the process: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("rpc: starting the process: %w", err)
	}
	// The process has its ends; keep ours only.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()

	p := &Process{
		cmd:        cmd,
		grace:      o.Grace,
		log:        logger,
		stdin:      inW,
		waited:     make(chan struct{}),
		outEnded:   make(chan struct{}),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	pid := cmd.Process.Pid
	connected := make(chan struct{}) // p.Conn is set
	p.stdout = &childPipe{f: outR, exited: p.waited, onEnd: func(exited bool) {
		<-connected
		cause := fmt.Errorf("the tool server (pid %d) closed its standard output", pid)
		if exited {
			cause = p.exitCause()
		}
		p.Conn.calls.fail(cause)
		close(p.outEnded)
	}}
	p.stderr = &childPipe{f: errR, exited: p.waited}
	go func() {
		defer close(p.exited)
		p.waitErr = cmd.Wait()
		close(p.waited)
		p.stderr.setExited()
		woken := p.stdout.setExited()
		<-connected
		if !woken {
			// The reader cannot be woken: end the session now, though an
			// answer the process wrote may be left unread.
			p.Conn.calls.fail(p.exitCause())
			return
		}
		// The session ends as the reader has read what the process wrote
		// (or the connection ended first).
		select {
		case <-p.outEnded:
		case <-p.Conn.Done():
		}
	}()
	go func() {
		defer close(p.stderrDone)
		forwardStderr(p.stderr, o.Stderr, pid, option.PositiveOr(o.MaxStderrLine, DefaultMaxStderrLine), stderrBufferSize)
	}()
	p.Conn = NewConn(ctx, p.stdout, inW, h, &o.Options)
	close(connected)
	return p, nil
}

// exitCause says how the process exited, once it has.
func (p *Process) exitCause() error {
	<-p.waited
	if p.waitErr != nil {
		return fmt.Errorf("the tool server (pid %d) exited: %w", p.cmd.Process.Pid, p.waitErr)
	}
	return fmt.Errorf("the tool server (pid %d) exited: %s", p.cmd.Process.Pid, p.cmd.ProcessState)
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill kills the process at once. Calls waiting for it fail with ErrClosed
// as it exits; Close must still be called, and returns the exit status.
func (p *Process) Kill() error { return p.cmd.Process.Kill() }

// Exited returns a channel closed when the process has exited and the
// session has ended with it: what the process wrote before exiting was
// read, and calls waiting for it, and later ones, fail (see StartProcess).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr waits for the process to exit and returns how it did: nil for
// status 0, an *exec.ExitError otherwise.
func (p *Process) ExitErr() error {
	<-p.waited
	return p.waitErr
}

// Close ends the session: it closes the process's standard input, so that
// a well-behaved tool server answers what it read and exits; waits up to
// the grace period for it to exit, and for what it wrote to be read,
// killing it if it has not exited by then; then closes the connection
// (calls still waiting fail with ErrClosed). It returns how the process
// exited: nil for status 0, the *exec.ExitError otherwise, wrapped with a
// note when the process had to be killed. Close may be called more than
// once; it returns the same each time.
//
// Close returns once the process's standard error was forwarded, and
// leaves no goroutine behind, even when a process it started holds its
// output open: reading ends with the exit. A write to the Stderr logger's
// handler that blocks holds Close until it returns.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		// What we queued (a cancellation, say) reaches the process
		// before its input ends, within the grace period.
		deadline := time.Now().Add(p.grace)
		flush, cancel := context.WithDeadline(context.Background(), deadline)
		_ = p.Conn.w.Flush(flush)
		cancel()
		_ = p.stdin.Close()
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		killed := false
		select {
		case <-p.waited:
			// Answers it wrote before exiting are delivered: wait for the
			// session to end (no longer than the grace period: the
			// connection's queue may be full).
			select {
			case <-p.exited:
			case <-t.C:
			}
		case <-t.C:
			killed = true
			_ = p.cmd.Process.Kill()
			<-p.waited
		}
		_ = p.Conn.Close()
		<-p.exited
		<-p.stderrDone
		_ = p.stdout.f.Close()
		_ = p.stderr.f.Close()
		p.closeErr = p.waitErr
		if killed {
			p.closeErr = fmt.Errorf("rpc: tool server killed after a grace period of %v: %w", p.grace, p.waitErr)
		}
		p.log.Info("tool server exited", "pid", p.cmd.Process.Pid, "status", p.cmd.ProcessState.String())
	})
	return p.closeErr
}

var _ io.Closer = (*Process)(nil)
