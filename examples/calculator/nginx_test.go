package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// nginxConf is a round-robin reverse proxy to two upstreams, unbuffered
// so that events reach the client as they come, saying which upstream
// answered.
const nginxConf = `worker_processes 1;
error_log %[1]s/error.log;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	upstream calculators {
		server %[2]s;
		server %[3]s;
	}
	server {
		listen %[4]s;
		location / {
			proxy_pass http://calculators;
			proxy_http_version 1.1;
			proxy_set_header Host $host;
			proxy_set_header Connection "";
			proxy_buffering off;
			add_header X-Upstream $upstream_addr always;
		}
	}
}
`

// Many instances: two calculators behind nginx (Debian's package),
// round-robin, no affinity. Plain JSON-RPC needs none: every call, batch
// and progress report goes through whichever instance nginx picks, and
// both are picked. In CI (CI set) a missing nginx fails the test;
// elsewhere it is skipped.
func TestBehindNginxRoundRobin(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
	}
	if _, err := os.Stat(nginx); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is missing: .ci/run installs Debian's nginx-light")
		}
		t.Skip("no nginx")
	}
	bin := buildCalculator(t)
	_, a := startHTTP(t, bin, "127.0.0.1:0")
	_, b := startHTTP(t, bin, "127.0.0.1:0")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	front := ln.Addr().String()
	require.NoError(t, ln.Close())
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(conf, fmt.Appendf(nil, nginxConf, dir,
		strings.TrimPrefix(a, "http://"), strings.TrimPrefix(b, "http://"), front), 0o600))
	proxy := exec.Command(nginx, "-p", dir, "-c", conf, "-g", "daemon off;")
	out, err := os.Create(filepath.Join(dir, "nginx.out"))
	require.NoError(t, err)
	proxy.Stdout, proxy.Stderr = out, out
	require.NoError(t, proxy.Start())
	defer func() {
		_ = proxy.Process.Signal(syscall.SIGQUIT)
		_ = proxy.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx's error log:\n%s", log)
		}
	}()
	url := "http://" + front
	ready := time.Now().Add(10 * time.Second)
	for { // nginx is another process: wait until it listens, or give up
		conn, err := net.Dial("tcp", front)
		if err == nil {
			conn.Close()
			break
		}
		require.True(t, time.Now().Before(ready), "nginx does not listen on %s: %v", front, err)
		time.Sleep(20 * time.Millisecond) // polling another process's readiness, bounded above
	}

	upstreams := map[string]int{}
	for i := range 10 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[42,%d],"id":%d}`, i, i)
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`+"\n", 42-i, i), string(got))
		upstreams[resp.Header.Get("X-Upstream")]++
	}
	assert.Equal(t, map[string]int{strings.TrimPrefix(a, "http://"): 5, strings.TrimPrefix(b, "http://"): 5}, upstreams,
		"round-robin: each instance answers half")

	c := rpc.NewHTTPClient(url, nil)
	ctx := context.Background()
	for range 2 { // one on each instance
		var reports []rpc.Progress
		var n int
		require.NoError(t, c.Call(rpc.WithProgress(ctx, func(p rpc.Progress) { reports = append(reports, p) }), "count", map[string]int{"n": 3}, &n))
		assert.Equal(t, 3, n)
		assert.Equal(t, []rpc.Progress{{Progress: 1, Total: 3}, {Progress: 2, Total: 3}, {Progress: 3, Total: 3}}, reports)
	}
	var sum int
	var quotient float64
	calls := []rpc.BatchCall{
		{Method: "sum", Params: []int{1, 2, 4}, Result: &sum},
		{Method: "notify_hello", Params: []int{7}, Notification: true},
		{Method: "divide", Params: map[string]float64{"a": 1, "b": 4}, Result: &quotient},
	}
	require.NoError(t, c.Batch(ctx, calls))
	assert.Equal(t, 7, sum)
	assert.Equal(t, 0.25, quotient)
}
