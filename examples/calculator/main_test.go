package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/openrpctest"
	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// buildCalculator builds the calculator binary into a temporary directory.
func buildCalculator(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a binary")
	}
	bin := filepath.Join(t.TempDir(), "calculator")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// runCalculator runs the binary with in as its stdin.
func runCalculator(t *testing.T, bin, in string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "the calculator exits 0 at the end of its input; stderr: %s", errOut.String())
	return out.String(), errOut.String()
}

// The examples of section 7 of the specification, through the real binary's
// stdin and stdout: every line byte for byte. Each example is its own
// exchange (they reuse ids), so each runs in its own process. Calls run
// concurrently, so lines (not a batch's entries) may come in another order.
func TestSpecExamplesThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	for _, ex := range wiretest.SpecExamples {
		t.Run(ex.Name, func(t *testing.T) {
			in, want := wiretest.Split(ex.Transcript)
			stdout, stderr := runCalculator(t, bin, in)
			assert.ElementsMatch(t, want, wiretest.Lines(t, stdout))
			assert.NotContains(t, stdout, "level=", "logs never reach stdout")
			if strings.Contains(in, "notify_hello") {
				assert.Contains(t, stderr, "notify_hello", "notifications are logged to stderr")
			}
		})
	}
}

func TestDivideThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	in, want := wiretest.Split(`
		--> {"jsonrpc":"2.0","method":"divide","params":{"a":1,"b":4},"id":1}
		<-- {"jsonrpc":"2.0","result":0.25,"id":1}
		--> {"jsonrpc":"2.0","method":"divide","params":{"a":1,"b":0},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":2}
		--> {"jsonrpc":"2.0","method":"divide","params":{"a":1},"id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":3}
		--> {"jsonrpc":"2.0","method":"divide","params":{"a":"1","b":2},"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"a","rule":"type","param":"number","message":"expected a number, got a string"}]},"id":4}`)
	stdout, _ := runCalculator(t, bin, in)
	assert.ElementsMatch(t, want, wiretest.Lines(t, stdout))
}

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestCountThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	in, want := wiretest.Split(`
		--> {"jsonrpc":"2.0","id":1,"method":"count","params":{"n":3,"_meta":{"progressToken":"t1"}}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":3}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":3}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":3,"total":3}}
		<-- {"jsonrpc":"2.0","result":3,"id":1}`)
	stdout, _ := runCalculator(t, bin, in)
	assert.Equal(t, want, wiretest.Lines(t, stdout), "progress before the result, in order")
}

// startCalculator starts the binary with pipes to its stdin and from its
// stdout, and its stderr to stderr (nil: discarded).
func startCalculator(t *testing.T, bin string, stderr io.Writer) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	return cmd, stdin, stdout
}

// A long count is cancelled through the binary's real stdin.
func TestCancelThroughTheBinary(t *testing.T) {
	cmd, stdin, stdout := startCalculator(t, buildCalculator(t), nil)
	lines := bufio.NewScanner(stdout)
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","id":7,"method":"count","params":{"n":10,"delay_ms":60000,"_meta":{"progressToken":"x"}}}`)
	require.True(t, lines.Scan())
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1,"total":10}}`, lines.Text())
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
	require.True(t, lines.Scan())
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":7}`, lines.Text())
	require.NoError(t, stdin.Close())
	assert.False(t, lines.Scan(), "nothing more")
	require.NoError(t, cmd.Wait(), "exit 0 at the end of the input")
}

// readLine reads one line from r, however long, and returns its length and
// at most its first keep bytes: a test reading an unbounded answer must not
// hold it.
func readLine(t *testing.T, r *bufio.Reader, keep int) (n int, head string) {
	t.Helper()
	var b strings.Builder
	for {
		chunk, err := r.ReadSlice('\n')
		if room := keep - b.Len(); room > 0 {
			b.Write(chunk[:min(len(chunk), room)])
		}
		n += len(chunk)
		if err != bufio.ErrBufferFull {
			require.NoError(t, err)
			return n, b.String()
		}
	}
}

// What a peer sends is repeated at most codec.MaxEcho bytes at a time, in
// answers and logs alike, and an error answer costs a bounded amount: an
// 8 MiB member name is answered in under 1 KiB, with the server's peak RSS
// under 4x the line plus 16 MiB (the line read, the runtime, the
// collector's slack: 33 MiB measured); an unexpected response and a request
// with 8 MiB ids are logged in under 2 KiB each (the request's answer echoes
// its id whole, as the specification requires). Before: an 80 MiB answer
// (the name quoted twice over, twice), a peak of 60x the line, 4 bytes
// logged per id byte.
func TestHostileLinesThroughTheBinary(t *testing.T) {
	var stderr wiretest.Buffer
	cmd, stdin, stdout := startCalculator(t, buildCalculator(t), &stderr)
	out := bufio.NewReaderSize(stdout, 64<<10)

	const size = 8 << 20
	name := strings.Repeat("\x7f", size)
	kept := strings.Repeat("\x7f", codec.MaxEcho) + "…(8388609 bytes)"
	hostile := `{"jsonrpc":"2.0","method":"subtract","params":{"` + name + `.":1},"id":1}`
	wiretest.Send(t, stdin, hostile)
	n, answer := readLine(t, out, 4<<10)
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[`+
		`{"field":"[\"`+kept+`\"]","rule":"unknown","message":"unknown field \"`+kept+`\""}]},"id":1}`+"\n", answer)
	assert.Less(t, n, 1<<10, "the answer's size")
	peak := wiretest.PeakRSS(t, cmd.Process.Pid)
	assert.Less(t, peak, 4*len(hostile)+16<<20, "peak RSS %d MiB for a line of %d MiB", peak>>20, len(hostile)>>20)
	t.Logf("peak RSS %d KiB for a line of %d KiB", peak>>10, len(hostile)>>10)

	id := `"` + name + `"`
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","result":1,"id":`+id+`}`)
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","method":"nosuch","id":`+id+`}`)
	const notFound = `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":`
	n, answer = readLine(t, out, len(notFound)+8)
	assert.Equal(t, notFound+id[:8], answer)
	assert.Equal(t, len(notFound)+len(id)+len("}\n"), n, "the id of a response is echoed whole")
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())

	logs := wiretest.Lines(t, stderr.String())
	require.Len(t, logs, 3, "the bad params, the unexpected response, the unknown method")
	for _, want := range []string{"unexpected response dropped", "Method not found"} {
		i := slices.IndexFunc(logs, func(l string) bool { return strings.Contains(l, want) })
		require.GreaterOrEqual(t, i, 0, want)
		require.Less(t, len(logs[i]), 2<<10, "the record's size: %s", want) // before its text is shown
		assert.Contains(t, logs[i], `\x7f…(8388610 bytes)`, "the id is cut: %s", want)
	}
}

// echo '{"jsonrpc":"2.0","method":"rpc.discover","id":1}' | calculator
// answers the OpenRPC document; the other rpc. names stay reserved.
func TestDiscoverThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	stdout, _ := runCalculator(t, bin, `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`+"\n"+`{"jsonrpc":"2.0","method":"rpc.other","id":2}`+"\n")
	lines := wiretest.Lines(t, stdout)
	require.Len(t, lines, 2)
	var discover, other string
	for _, l := range lines {
		if strings.HasSuffix(l, `"id":1}`) {
			discover = l
		} else {
			other = l
		}
	}
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}`, other)
	var answer struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		ID      int             `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(discover), &answer), discover)
	assert.Equal(t, "2.0", answer.JSONRPC)
	openrpctest.Validate(t, answer.Result)
	assert.Contains(t, string(answer.Result), `{"openrpc":"1.3.2","info":{"title":"calculator","version":`)
	assert.Contains(t, string(answer.Result), `{"name":"b","description":"the divisor, not zero","required":true,"schema":{"description":"the divisor, not zero","not":{"const":0},"type":"number"}}`)
}

// startHTTP starts the binary with -http addr and returns it with the URL
// it logs that it serves; it is killed at the end of the test unless it
// ended before.
func startHTTP(t *testing.T, bin, addr string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "-http", addr)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	var url string
	for url == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "address=http://"); ok {
			url = "http://" + strings.Fields(after)[0]
		}
	}
	require.NotEmpty(t, url, "the address is logged")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return cmd, url
}

// With -http, the binary serves JSON-RPC over HTTP on loopback: calls
// (named and positional, a batch, progress as events) through a real
// socket, then a graceful exit on SIGTERM.
func TestHTTPThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	cmd, url := startHTTP(t, bin, ":0")
	assert.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), "loopback by default: %s", url)

	post := func(body, accept string) (int, string) {
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	for _, tt := range []struct{ body, accept, want string }{
		{`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, "", `{"jsonrpc":"2.0","result":19,"id":1}` + "\n"},
		{`{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":2}`, "", `{"jsonrpc":"2.0","result":19,"id":2}` + "\n"},
		{`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"divide","params":{"a":1,"b":0},"id":"2"}]`, "",
			`[{"jsonrpc":"2.0","result":7,"id":"1"},{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":"2"}]` + "\n"},
		{`{"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"p"}},"id":3}`, "application/json, text/event-stream",
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1,\"total\":2}}\n\n" +
				"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":2,\"total\":2}}\n\n" +
				"data: {\"jsonrpc\":\"2.0\",\"result\":2,\"id\":3}\n\n"},
	} {
		status, got := post(tt.body, tt.accept)
		assert.Equal(t, 200, status)
		assert.Equal(t, tt.want, got)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "a graceful exit")
}

// lspFrames splits LSP-framed output into its bodies, failing t if it is
// not framed exactly as toolrpc frames it.
func lspFrames(t *testing.T, out string) []string {
	t.Helper()
	r := codec.NewLSPReader(strings.NewReader(out), 0)
	var bodies []string
	var again strings.Builder
	for {
		frame, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "output: %q", out)
		bodies = append(bodies, string(frame))
		fmt.Fprintf(&again, "Content-Length: %d\r\n\r\n%s", len(frame), frame)
	}
	require.Equal(t, again.String(), out, "one Content-Length header per message, nothing else")
	return bodies
}

// With -framing lsp, the binary speaks LSP's framing on stdio: named and
// positional params, an error, a notification, a batch, progress before
// its result, and a bad header block answered as a parse error.
func TestLSPFramingThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	in, want := wiretest.Split(`
		--> {"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}
		<-- {"jsonrpc":"2.0","result":19,"id":1}
		--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}
		<-- {"jsonrpc":"2.0","result":19,"id":2}
		--> {"jsonrpc":"2.0","method":"divide","params":{"a":1,"b":0},"id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]},"id":3}
		--> {"jsonrpc":"2.0","method":"notify_hello","params":[7]}
		--> [{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"b1"},{"jsonrpc":"2.0","method":"nope","id":"b2"}]
		<-- [{"jsonrpc":"2.0","result":7,"id":"b1"},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"b2"}]
		--> {"jsonrpc":"2.0","id":4,"method":"count","params":{"n":2,"_meta":{"progressToken":"t4"}}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t4","progress":1,"total":2}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t4","progress":2,"total":2}}
		<-- {"jsonrpc":"2.0","result":2,"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`)
	var framed strings.Builder
	for _, line := range strings.SplitAfter(in, "\n") {
		if body := strings.TrimSuffix(line, "\n"); body != "" {
			fmt.Fprintf(&framed, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
	}
	framed.WriteString("Content-Length: twelve\r\n\r\n{}") // a bad header block, then the end

	cmd := exec.Command(bin, "-framing", "lsp")
	cmd.Stdin = strings.NewReader(framed.String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "exit 0 at the end of the input; stderr: %s", errOut.String())
	got := lspFrames(t, out.String())
	assert.ElementsMatch(t, want, got)
	assert.Contains(t, errOut.String(), "notify_hello", "the notification was handled")
	progress := slices.Index(got, want[4])
	assert.True(t, progress >= 0 && progress < slices.Index(got, want[5]) && slices.Index(got, want[5]) < slices.Index(got, want[6]),
		"progress before the result, in order: %q", got)
}

func TestFramingFlagRefused(t *testing.T) {
	bin := buildCalculator(t)
	for _, args := range [][]string{{"-framing", "json"}, {"-framing", "lsp", "-http", ":0"}} {
		err := exec.Command(bin, args...).Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v", args)
		assert.Equal(t, 2, exit.ExitCode(), "%v", args)
	}
}
