// Package httprec is an http.ResponseWriter for tests that read a response
// while its handler still writes it (an event stream), which
// httptest.ResponseRecorder does not allow. It imports nothing of toolrpc,
// so that the tests of every package (rpc's own included) can use it.
package httprec

import (
	"bytes"
	"net/http"
	"sync"
)

// Recorder is an http.ResponseWriter whose status, body and flushes may be
// read while a handler writes them.
type Recorder struct {
	header http.Header

	mu      sync.Mutex
	status  int
	body    bytes.Buffer
	flushes int
}

// New returns an empty Recorder.
func New() *Recorder { return &Recorder{header: http.Header{}} }

// Header returns the response's header. The handler writes it before the
// status; read it once the status is set.
func (r *Recorder) Header() http.Header { return r.header }

// WriteHeader records the status.
func (r *Recorder) WriteHeader(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = status
}

// Write appends p to the body.
func (r *Recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.Write(p)
}

// Flush counts a flush.
func (r *Recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
}

// Status returns the status written so far, 0 if none.
func (r *Recorder) Status() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// Flushes returns how many times the handler flushed.
func (r *Recorder) Flushes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushes
}

// String returns the body written so far.
func (r *Recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.String()
}
