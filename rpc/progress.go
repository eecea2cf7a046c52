package rpc

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// Progress is a progress report the peer sent for a call of ours, in the
// Model Context Protocol's notifications/progress.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0 when unknown
	Message  string  `json:"message,omitempty"`
}

type progressKey struct{}

// WithProgress returns a context whose calls (Conn.Call, Conn.Batch) ask
// the peer for progress reports: a progress token goes into the call's
// params._meta.progressToken, and each notifications/progress for that
// token is passed to fn, in the calling goroutine, before Call returns.
// Progress needs named params (an object, or none).
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressQueue holds the reports of one call until its caller takes them.
type progressQueue struct {
	fn      func(Progress)
	mu      sync.Mutex
	reports []Progress
	ready   chan struct{} // signalled (capacity 1) when reports were added
}

// maxQueuedReports bounds the reports held for a caller that does not take
// them: older ones are dropped, the latest kept.
const maxQueuedReports = 1024

func (q *progressQueue) add(p Progress) {
	q.mu.Lock()
	if len(q.reports) == maxQueuedReports {
		q.reports = append(q.reports[:0], q.reports[1:]...)
	}
	q.reports = append(q.reports, p)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// deliver passes the queued reports to the callback.
func (q *progressQueue) deliver() {
	q.mu.Lock()
	reports := q.reports
	q.reports = nil
	q.mu.Unlock()
	for _, p := range reports {
		q.fn(p)
	}
}

// withProgressToken sets _meta.progressToken in the params object raw (or
// makes one when raw is null). The token is the call's id, unique among the
// calls under way.
func withProgressToken(raw []byte, token string) ([]byte, error) {
	member := `"progressToken":` + token
	switch {
	case string(raw) == "null":
		return []byte(`{"_meta":{` + member + `}}`), nil
	case raw[0] != '{':
		return nil, errors.New("rpc: progress needs named params (an object)")
	}
	meta := jsonx.Member(raw, "_meta")
	if meta == nil {
		if bytes.Equal(raw, []byte("{}")) {
			return []byte(`{"_meta":{` + member + `}}`), nil
		}
		return append([]byte(`{"_meta":{`+member+`},`), raw[1:]...), nil
	}
	if meta[0] != '{' || jsonx.Member(meta, "progressToken") != nil {
		return nil, errors.New("rpc: params._meta must be an object without a progressToken")
	}
	at := cap(raw) - cap(meta) // meta is a subslice of raw: where it starts
	out := append([]byte(nil), raw[:at+1]...)
	out = append(out, member...)
	if !bytes.Equal(meta, []byte("{}")) {
		out = append(out, ',')
	}
	return append(out, raw[at+1:]...), nil
}
