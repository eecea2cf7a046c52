package redisstore_test

import (
	"context"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// redisAddr is where the examples' Redis listens: a redis-server TestMain
// starts.
var redisAddr string

func TestMain(m *testing.M) {
	flag.Parse()
	cmd, err := exampleRedis()
	if err != nil { // outside CI, without redis-server: the examples are skipped, as the tests are
		skip := flag.Lookup("test.skip").Value.String()
		if skip != "" {
			skip += "|"
		}
		_ = flag.Set("test.skip", skip+"^Example")
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if cmd != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait() // killed: its error says so
		}
		os.Exit(code)
	}))
}

// exampleRedis starts a redis-server for the examples, at redisAddr, and
// waits until it answers; in CI, a missing redis-server is an error the
// examples see.
func exampleRedis() (*exec.Cmd, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		bin = "/usr/bin/redis-server"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			redisAddr = "127.0.0.1:1" // the examples fail
			return nil, nil
		}
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	redisAddr = ln.Addr().String()
	ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", os.TempDir(), "--logfile", "")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: redisAddr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(hang); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return cmd, nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, err
		}
		time.Sleep(10 * time.Millisecond) // polling another process, bounded above
	}
}

// redisServer is a redis-server of a test's own, on a loopback port,
// keeping nothing on disk.
type redisServer struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
}

// Addr is where the server listens.
func (r *redisServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// startRedis starts Debian's redis-server on a free loopback port, and
// stops it at the test's end. In CI (CI set) a missing redis-server
// fails the test; elsewhere it is skipped.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		bin = "/usr/bin/redis-server"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is missing: .ci/run installs Debian's redis-server")
		}
		t.Skip("no redis-server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	r := &redisServer{t: t, bin: bin, dir: t.TempDir(), port: port}
	r.start()
	t.Cleanup(func() {
		if r.cmd != nil {
			r.signal(syscall.SIGCONT)
			r.kill()
		}
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			t.Logf("redis-server's log:\n%s", log)
		}
	})
	return r
}

// start starts the server on its port, and waits until it answers.
func (r *redisServer) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir, "--logfile", filepath.Join(r.dir, "redis.log"))
	require.NoError(r.t, r.cmd.Start())
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer c.Close()
	eventually(r.t, "redis-server answers PING", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx).Err() == nil
	})
}

// kill ends the server with SIGKILL, and waits for it.
func (r *redisServer) kill() {
	r.t.Helper()
	require.NoError(r.t, r.cmd.Process.Kill())
	_ = r.cmd.Wait() // killed: its error says so
	r.cmd = nil
}

// signal sends sig to the server.
func (r *redisServer) signal(sig syscall.Signal) {
	r.t.Helper()
	require.NoError(r.t, r.cmd.Process.Signal(sig))
}

// hang is how long a test waits for what must happen before it calls it
// a hang: a guard against waiting forever, never a measure of speed.
const hang = 30 * time.Second

// eventually polls ok, which observes another process (Redis) through
// the network, until it holds, failing the test after hang.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("hang: still waiting, after %v, until %s", hang, what)
		}
		time.Sleep(10 * time.Millisecond) // polling another process, bounded above
	}
}

// subscribers waits until n clients are subscribed to channel, as Redis
// tells (PUBSUB NUMSUB).
func subscribers(t *testing.T, c *redis.Client, channel string, n int64) {
	t.Helper()
	eventually(t, strconv.FormatInt(n, 10)+" subscribers to "+channel, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		got, err := c.PubSubNumSub(ctx, channel).Result()
		return err == nil && got[channel] == n
	})
}
