package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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

// A long count is cancelled through the binary's real stdin.
func TestCancelThroughTheBinary(t *testing.T) {
	bin := buildCalculator(t)
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
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
