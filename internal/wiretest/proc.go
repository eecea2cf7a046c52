package wiretest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// StartHTTP builds the package in the test's directory (an example's
// main) and serves it with -http on loopback, and args after it; it
// returns the endpoint (its /mcp path), the process (named after the
// directory, as a server names itself after its program), and stop, which
// ends it (SIGTERM) and returns how it exited; stop is called at the
// test's end if not before. It skips the test under -short.
func StartHTTP(t *testing.T, args ...string) (url string, cmd *exec.Cmd, stop func() error) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	dir, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), filepath.Base(dir)) // its name is the server's
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd = exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stderr)
	require.True(t, lines.Scan(), "the address logged")
	m := regexp.MustCompile(`address=(http://127\.0\.0\.1:\d+)`).FindStringSubmatch(lines.Text())
	require.NotNil(t, m, lines.Text())
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for lines.Scan() {
		}
	}()
	stop = sync.OnceValue(func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-drained // Wait closes the pipe: read it to its end first
		return cmd.Wait()
	})
	t.Cleanup(func() { _ = stop() })
	return m[1] + "/mcp", cmd, stop
}

// PeakRSS is the most memory the process pid has held (VmHWM), in bytes;
// it skips the test where there is no /proc.
func PeakRSS(t testing.TB, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in %s", status)
	return 0
}

// Allocated is how many bytes f allocates, counted from a collection
// before it (runtime.MemStats.TotalAlloc).
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
