package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// DefaultProcessGrace is how long Process.Close waits for a tool server to
// exit once its input is closed, before killing it.
const DefaultProcessGrace = 5 * time.Second

// ProcessOptions configure StartProcess. A nil *ProcessOptions, and every
// zero field, means the documented default.
type ProcessOptions struct {
	// Options configure the connection to the process.
	Options
	// Stderr receives the process's standard error, one Info record per
	// line (attributes "pid" and "line"). Default: Options.Logger, or
	// slog.Default().
	Stderr *slog.Logger
	// Grace is how long Close waits for the process to exit once its
	// standard input is closed, before killing it. Default:
	// DefaultProcessGrace.
	Grace time.Duration
}

// Process is a tool server running as a child process, and the connection
// to it: its standard output is the protocol's input, its standard input
// the protocol's output. Call, Notify and Batch come from the embedded
// Conn.
type Process struct {
	*Conn
	cmd        *exec.Cmd
	grace      time.Duration
	log        *slog.Logger
	stdin      *os.File // ours: the process's input
	stderr     *os.File // ours: the process's standard error
	exited     chan struct{}
	waitErr    error
	stderrDone chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// StartProcess starts cmd and connects to it; h answers the process's own
// calls and notifications (nil: MethodNotFound). cmd's Stdin, Stdout and
// Stderr must be unset: StartProcess wires them. ctx bounds the
// connection, as for NewConn; to bound the process's life, give cmd a
// context (exec.CommandContext).
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
	o.Grace = positiveOr(o.Grace, DefaultProcessGrace)
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
		stderr:     errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	pid := cmd.Process.Pid
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer close(p.stderrDone)
		lines := bufio.NewReader(errR)
		for {
			line, err := lines.ReadString('\n')
			if len(line) > 0 {
				o.Stderr.Info("tool server stderr", "pid", pid, "line", trimNewline(line))
			}
			if err != nil {
				return
			}
		}
	}()
	p.Conn = NewConn(ctx, outR, inW, h, &o.Options)
	return p, nil
}

func trimNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill kills the process at once. Calls waiting for it fail with ErrClosed
// as its output ends; Close must still be called, and returns the exit
// status.
func (p *Process) Kill() error { return p.cmd.Process.Kill() }

// Exited returns a channel closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr returns how the process exited, once Exited is closed: nil for
// status 0, an *exec.ExitError otherwise.
func (p *Process) ExitErr() error {
	<-p.exited
	return p.waitErr
}

// Close ends the session: it closes the process's standard input, so that
// a well-behaved tool server answers what it read and exits; waits up to
// the grace period for it to exit, then kills it; then closes the
// connection (calls still waiting fail with ErrClosed). It returns how the
// process exited: nil for status 0, the *exec.ExitError otherwise, wrapped
// with a note when the process had to be killed. Close may be called more
// than once; it returns the same each time.
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
		killed := false
		select {
		case <-p.exited:
		case <-t.C:
			killed = true
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		t.Stop()
		_ = p.Conn.Close()
		// A descendant of the process may hold its stderr open: stop
		// reading once what is there was read.
		select {
		case <-p.stderrDone:
		case <-time.After(100 * time.Millisecond):
			_ = p.stderr.Close()
			<-p.stderrDone
		}
		_ = p.stderr.Close()
		p.closeErr = p.waitErr
		if killed {
			p.closeErr = fmt.Errorf("rpc: tool server killed after a grace period of %v: %w", p.grace, p.waitErr)
		}
		p.log.Info("tool server exited", "pid", p.cmd.Process.Pid, "status", p.cmd.ProcessState.String())
	})
	return p.closeErr
}

var _ io.Closer = (*Process)(nil)
