package toolrpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// serverEnv names the environment variable that makes the test binary one
// of servers (see TestMain).
const serverEnv = "TOOLRPC_TEST_SERVER"

// servers are tool servers, each a main function built on the front door,
// that the tests run as child processes.
var servers = map[string]func(){
	"probe":      func() { probeServer(0).Main(probe{}) },
	"patient":    func() { probeServer(time.Hour).Main(probe{}) },
	"impatient":  func() { probeServer(time.Nanosecond).Main(probe{}) },
	"unservable": func() { toolrpc.Main(probe{}) },
	"nothing":    func() { toolrpc.Main() },
}

// probeServer serves with one logger, set once, that writes JSON records
// to standard error, and the given shutdown grace period.
func probeServer(grace time.Duration) *toolrpc.Server {
	return &toolrpc.Server{
		Logger:  slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Service: service.Options{SkipUnservable: true},
		RPC:     rpc.Options{Sequential: true, ShutdownGrace: grace},
	}
}

// probe has a method per behaviour under test.
type probe struct{}

func (probe) Echo(s string) string { return s }

func (probe) Panic() { panic("boom") }

func (probe) Log(ctx context.Context) { rpc.LoggerFromContext(ctx).Info("a handler's record") }

func (probe) Print() { fmt.Println("a stray print") }

// Wait returns when its call is cancelled; it says when it started.
func (probe) Wait(ctx context.Context) error {
	_ = rpc.Notify(ctx, "started", nil)
	<-ctx.Done()
	return ctx.Err()
}

// Stubborn never returns; it says when it started.
func (probe) Stubborn(ctx context.Context) {
	_ = rpc.Notify(ctx, "started", nil)
	<-make(chan struct{})
}

// Skipped cannot be served (a channel has no JSON form): with
// SkipUnservable it is skipped with a warning, without, refused.
func (probe) Skipped(chan int) {}

// child is one of servers running as a child process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout chan string // its lines, closed at its end
	stderr chan string
}

// start runs the server named name.
func start(t *testing.T, name string) *child {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0])
	// Under the race detector, a program sleeps a second before it exits,
	// unless GORACE (in the environment, which wins) says otherwise.
	cmd.Env = append(append([]string{"GORACE=atexit_sleep_ms=0"}, os.Environ()...), serverEnv+"="+name)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, stdin: stdin, stdout: lines(stdout), stderr: lines(stderr)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = c.exit()
	})
	return c
}

// lines sends the lines read from r until its end.
func lines(r io.Reader) chan string {
	ch := make(chan string, 1024)
	go func() {
		defer close(ch)
		s := bufio.NewScanner(r)
		for s.Scan() {
			ch <- s.Text()
		}
	}()
	return ch
}

// send writes a line to the child's standard input.
func (c *child) send(t *testing.T, line string) { t.Helper(); wiretest.Send(t, c.stdin, line) }

// read returns the next line of the child's standard output.
func (c *child) read(t *testing.T) string {
	t.Helper()
	return wiretest.Receive(t, c.stdout, "a line on standard output")
}

// awaitLog waits for a line of the child's standard error that holds
// substr.
func (c *child) awaitLog(t *testing.T, substr string) {
	t.Helper()
	hang := time.After(wiretest.Hang)
	for {
		select {
		case line, ok := <-c.stderr:
			require.True(t, ok, "the child ended without logging %q", substr)
			if strings.Contains(line, substr) {
				return
			}
		case <-hang:
			t.Fatalf("hang: the child did not log %q in %v", substr, wiretest.Hang)
		}
	}
}

// exit drains the child's outputs and waits for it.
func (c *child) exit() error {
	for range c.stdout {
	}
	for range c.stderr {
	}
	return c.cmd.Wait()
}

// rest reads the child's outputs to their end, then waits for it.
func (c *child) rest(t *testing.T) (stdout, stderr []string, err error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for line := range c.stdout {
			stdout = append(stdout, line)
		}
		for line := range c.stderr {
			stderr = append(stderr, line)
		}
		err = c.cmd.Wait()
	}()
	wiretest.Receive(t, done, "the child's end")
	return stdout, stderr, err
}

// One logger, set once in the Server, gets every record the framework
// writes — the connection's, Logging's, Recover's, the registration's —
// and a handler's: every line on standard error is one of its JSON records.
func TestMainLogsEverythingThroughOneLogger(t *testing.T) {
	c := start(t, "probe")
	in, want := wiretest.Split(`
		--> {"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}
		<-- {"jsonrpc":"2.0","result":"hi","id":1}
		--> {"jsonrpc":"2.0","method":"panic","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":2}
		--> {"jsonrpc":"2.0","result":1,"id":99}
		--> {"jsonrpc":"2.0","method":"log","id":3}
		<-- {"jsonrpc":"2.0","result":null,"id":3}`)
	_, err := io.WriteString(c.stdin, in)
	require.NoError(t, err)
	require.NoError(t, c.stdin.Close())
	stdout, stderr, err := c.rest(t)
	require.NoError(t, err, "exit 0 at the end of the input; stderr: %s", strings.Join(stderr, "\n"))
	assert.Equal(t, want, stdout)

	type record struct{ level, msg string }
	var got []record
	for _, line := range stderr {
		var r struct{ Level, Msg string }
		require.NoError(t, json.Unmarshal([]byte(line), &r), "every line on stderr is a record of the one logger: %s", line)
		got = append(got, record{r.Level, r.Msg})
	}
	assert.Subset(t, got, []record{
		{"WARN", "service: method skipped"},          // registration
		{"DEBUG", "rpc call"},                        // Logging
		{"ERROR", "rpc: handler panicked"},           // Recover
		{"WARN", "rpc: unexpected response dropped"}, // the connection
		{"INFO", "a handler's record"},               // rpc.LoggerFromContext
	})
}

// Whatever a method writes to standard output goes to standard error: the
// protocol stays whole.
func TestMainKeepsStrayPrintsOffTheProtocol(t *testing.T) {
	c := start(t, "probe")
	c.send(t, `{"jsonrpc":"2.0","method":"print","id":1}`)
	require.NoError(t, c.stdin.Close())
	stdout, stderr, err := c.rest(t)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"jsonrpc":"2.0","result":null,"id":1}`}, stdout)
	assert.Contains(t, stderr, "a stray print")
}

// A value that cannot be served, or none, ends the program before it reads
// anything: status 1, the reason on standard error, prefixed with the
// program's name, and nothing on standard output.
func TestMainRefusesWhatItCannotServe(t *testing.T) {
	name := filepath.Base(os.Args[0])
	for _, tt := range []struct{ server, stderr string }{
		{"unservable", name + ": service: method toolrpc_test.probe.Skipped cannot be served: "},
		{"nothing", name + ": toolrpc: no value to serve"},
	} {
		t.Run(tt.server, func(t *testing.T) {
			stdout, stderr, err := start(t, tt.server).rest(t)
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the program fails: %v", err)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Empty(t, stdout)
			require.Len(t, stderr, 1, "one line: %q", stderr)
			assert.True(t, strings.HasPrefix(stderr[0], tt.stderr), "%q starts with %q", stderr[0], tt.stderr)
		})
	}
}

// rpc.discover is on in a Server, with its Info, and NoDiscover turns it
// off.
func TestServerDiscover(t *testing.T) {
	tests := []struct {
		name       string
		server     toolrpc.Server
		transcript string
	}{
		{"on, with its info", toolrpc.Server{Info: service.Info{Title: "probe", Version: "2.0.0"}}, `
			--> {"jsonrpc":"2.0","method":"rpc.discover","id":1}
			<-- {"jsonrpc":"2.0","result":{"openrpc":"1.3.2","info":{"title":"probe","version":"2.0.0"},"methods":[{"name":"ping","params":[],"paramStructure":"either","result":{"name":"result","schema":{"type":"string"}}}]},"id":1}`},
		{"off", toolrpc.Server{NoDiscover: true}, `
			--> {"jsonrpc":"2.0","method":"rpc.discover","id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := tt.server.Handler(discoverProbe{})
			require.NoError(t, err)
			wiretest.Serve(t, h, tt.transcript, nil)
		})
	}
}

type discoverProbe struct{}

func (discoverProbe) Ping() string { return "pong" }
