package toolrpc_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The imports point one way (docs/architecture.md): each package of the
// module, by its path under the module, may not import the ones listed.
// The test helpers under internal/wiretest serve tests of every layer and
// are exempt.
func TestDependenciesPointOneWay(t *testing.T) {
	above := map[string][]string{
		"codec":      {"rpc", "service", "middleware", "schema", "mcp", "auth", ""},
		"rpc":        {"service", "middleware", "schema", "mcp", "auth", ""},
		"schema":     {"rpc", "service", "middleware", "mcp", "auth", ""},
		"middleware": {"service", "mcp", "auth", ""},
		"service":    {"middleware", "mcp", "auth", ""},
		"auth":       {"service", "middleware", "schema", "mcp", ""},
		"mcp":        {""},
		"internal":   {"rpc", "service", "middleware", "schema", "mcp", "auth", ""},
	}
	const module = "github.com/toolrpc/toolrpc"
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if strings.HasPrefix(rel, "internal/wiretest") || strings.HasPrefix(rel, "examples") {
			continue
		}
		layer, _, _ := strings.Cut(rel, "/")
		forbidden, ok := above[layer]
		if !ok {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			toLayer, _, _ := strings.Cut(to, "/")
			for _, f := range forbidden {
				assert.NotEqual(t, f, toLayer, "%s imports %s", p.ImportPath, imp)
			}
		}
	}
	assert.Greater(t, checked, 8)
}

// go-jose is package auth/jwt's alone (the JWT verifier): no other
// package of the module imports it, so a program of the root package,
// rpc, mcp, service or auth links none of it (and, go-jose having no
// dependency of its own, a module that requires toolrpc gains no module
// but it, only if it imports auth/jwt).
func TestJOSEIsJWTsAlone(t *testing.T) {
	const module, jose = "github.com/toolrpc/toolrpc", "github.com/go-jose/go-jose/v4"
	for _, pkg := range []string{".", "./codec", "./rpc", "./service", "./mcp", "./middleware", "./schema", "./auth"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err, pkg)
		assert.NotContains(t, string(out), jose, "%s imports go-jose", pkg)
	}
	out, err := exec.Command("go", "list", "-deps", "./auth/jwt").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), jose+"\n", "the check would see it")
	out, err = exec.Command("go", "mod", "graph").Output()
	require.NoError(t, err)
	for _, line := range strings.Split(string(out), "\n") {
		from, to, _ := strings.Cut(line, " ")
		if strings.HasPrefix(from, jose+"@") && !strings.HasPrefix(to, "go@") && !strings.HasPrefix(to, "toolchain@") {
			t.Errorf("go-jose requires a module: %s", line)
		}
	}
}

// The Redis stores are module github.com/toolrpc/toolrpc/redisstore's
// (redisstore/go.mod): no package of the main module depends on
// go-redis, and its go.mod does not require it.
func TestRedisIsRedisstoresAlone(t *testing.T) {
	const goRedis = "github.com/redis/go-redis"
	out, err := exec.Command("go", "list", "-deps", "-test", "./...").Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), goRedis)
	assert.NotContains(t, string(out), "github.com/toolrpc/toolrpc/redisstore", "a module of its own")
	out, err = exec.Command("go", "list", "-m", "all").Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), goRedis)
	nested := exec.Command("go", "list", "-deps", ".")
	nested.Dir = "redisstore"
	out, err = nested.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), goRedis+"/v9\n", "the check would see it")
}

// OpenTelemetry is the nested module otel's alone: no package of the main
// module, its tests' imports included, depends on it, and the main go.mod
// does not require it.
func TestNoOpenTelemetry(t *testing.T) {
	const otel = "go.opentelemetry.io"
	out, err := exec.Command("go", "list", "-deps", "-test", "./...").Output()
	require.NoError(t, err)
	assert.Greater(t, strings.Count(string(out), "\n"), 100, "the check would see the packages")
	for _, pkg := range strings.Split(string(out), "\n") {
		assert.False(t, strings.HasPrefix(pkg, otel+"/"), "the main module depends on %s", pkg)
	}
	out, err = exec.Command("go", "list", "-m", "all").Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), otel+"/", "the main go.mod requires OpenTelemetry")
	out, err = exec.Command("go", "list", "-deps", "./otel/...").CombinedOutput()
	assert.Error(t, err, "otel/ is a module of its own, outside the main one: %s", out)
}
