package toolrpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// built holds the programs built for the package's tests, once each, in
// one temporary directory that TestMain removes.
var built struct {
	sync.Mutex
	dir   string
	paths map[string]string // by package path
}

// binary builds the main package pkg (a path relative to the module root,
// such as "./examples/calculator") and returns the program's path.
func binary(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs " + pkg)
	}
	built.Lock()
	defer built.Unlock()
	if path, ok := built.paths[pkg]; ok {
		return path
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "toolrpc-test")
		require.NoError(t, err)
		built.dir, built.paths = dir, map[string]string{}
	}
	path := filepath.Join(built.dir, filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput()
	require.NoError(t, err, "%s", out)
	built.paths[pkg] = path
	return path
}
