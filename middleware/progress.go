package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// Report is one progress report of a call.
type Report struct {
	Progress float64 // how much is done; increases from report to report
	Total    float64 // how much there is to do; 0 when unknown
	Message  string  // what is being done; "" for nothing to say
	Seq      int     // 1 for the call's first report sent, then 2, 3...
}

// ProgressOptions configure Progress. A nil *ProgressOptions, and every
// zero field, means the documented default: the Model Context Protocol's
// progress notifications.
type ProgressOptions struct {
	// Method is the notification's method. Default:
	// [rpc.ProgressNotification].
	Method string
	// Params builds the notification's params from the call's progress
	// token and a report. Default: MCP's
	// {"progressToken", "progress", "total", "message"}, without total and
	// message when they are zero.
	Params func(token json.RawMessage, r Report) any
	// Token finds the caller's progress token in its request; nil means
	// none. Default: params._meta.progressToken, when a string or a number
	// of at most MaxProgressToken bytes. A token longer than that gets no
	// progress (each report would repeat it: a peer could make every
	// report cost megabytes).
	Token func(req *rpc.Request) json.RawMessage
	// UseRequestID reports progress, for a request that carries no token,
	// with the request's id as the token. Default: no token, no reports
	// (MCP's rule: progress only for a caller that asked for it).
	//
	// Its cost: callers get progress they did not ask for, which MCP
	// forbids, and which a client may refuse or log as an error (toolrpc's
	// own client drops it, logged at Debug); and an id is only unique among
	// the requests in flight, so a caller that also hands out tokens of its
	// own may see a report for one call taken for another's. Use it only
	// with peers known to expect it.
	UseRequestID bool
	// MinInterval drops a report made sooner than MinInterval after the
	// last one sent, unless it completes the work (Progress == Total).
	// Default: 0, every report is sent.
	MinInterval time.Duration
}

// MaxProgressToken is the longest progress token (its JSON, quotes
// included) that gets progress reports: every report repeats the token, so
// a longer one would let a peer make each report cost what it likes. A
// call with a longer token runs as one that asked for no progress.
const MaxProgressToken = 1024

// Errors of ReportProgress.
var (
	// ErrNoReporter is returned when no Progress middleware handles the
	// call.
	ErrNoReporter = errors.New("middleware: no Progress middleware for this call")
	// ErrProgressNotIncreasing is returned for a report whose progress is
	// not more than the last one sent. Progress must increase (MCP
	// requires it).
	ErrProgressNotIncreasing = errors.New("middleware: progress must increase")

	errNotFinite = errors.New("middleware: progress and total must be finite numbers")
)

// Progress lets handlers report progress with [ReportProgress]: each report
// is a notification to the caller, written before the call's response. A
// report made after the response was written is dropped. opts may be nil.
func Progress(opts *ProgressOptions) Middleware {
	o := ProgressOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Method == "" {
		o.Method = rpc.ProgressNotification
	}
	if o.Params == nil {
		o.Params = mcpProgressParams
	}
	if o.Token == nil {
		o.Token = mcpProgressToken
	}
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			return next.Handle(withCallValue(ctx, req, progressKey{}, &o), req)
		})
	}
}

// progressKey is the key of a call's *callProgress, made at its first
// report.
type progressKey struct{}

// callProgress is the progress of one call: the caller's token and the
// reports sent so far.
type callProgress struct {
	opts  *ProgressOptions
	token json.RawMessage // nil: the caller wants no progress

	mu     sync.Mutex
	seq    int
	last   float64
	lastAt time.Time
}

// mintProgress is the progress of the call req, under opts (a
// *ProgressOptions), before its first report.
func mintProgress(req *rpc.Request, opts any) any {
	p := &callProgress{opts: opts.(*ProgressOptions)}
	p.token = p.opts.Token(req)
	if len(p.token) > MaxProgressToken {
		p.token = nil
	}
	if p.token == nil && p.opts.UseRequestID && len(req.ID) <= MaxProgressToken {
		p.token = req.ID
	}
	return p
}

// ReportProgress reports the progress of the call ctx belongs to: progress
// done out of total (0: unknown), with an optional message.
//
// It returns nil when the report is sent, and also when it is not sent by
// rule: the caller gave no progress token, or the report came too soon
// after the last ([ProgressOptions.MinInterval]). It returns
// [ErrProgressNotIncreasing] for a progress not above the last one sent,
// [rpc.ErrAnswered] once the call's response is written, [ErrNoReporter]
// if no [Progress] middleware handles the call, ctx.Err() once ctx is done
// (a report waiting for room in an output the peer does not read waits no
// longer, and is not sent: see [rpc.Notify]), or the error of writing.
func ReportProgress(ctx context.Context, progress, total float64, message string) error {
	pc, _ := callValue(ctx, progressKey{}, mintProgress).(*callProgress)
	if pc == nil {
		return ErrNoReporter
	}
	if pc.token == nil {
		return nil
	}
	if math.IsNaN(progress) || math.IsInf(progress, 0) || math.IsNaN(total) || math.IsInf(total, 0) {
		return errNotFinite
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.seq > 0 && !(progress > pc.last) {
		return ErrProgressNotIncreasing
	}
	now := time.Now()
	complete := total > 0 && progress >= total
	if pc.seq > 0 && pc.opts.MinInterval > 0 && now.Sub(pc.lastAt) < pc.opts.MinInterval && !complete {
		return nil
	}
	r := Report{Progress: progress, Total: total, Message: message, Seq: pc.seq + 1}
	if err := rpc.Notify(ctx, pc.opts.Method, pc.opts.Params(pc.token, r)); err != nil {
		return err
	}
	pc.seq, pc.last, pc.lastAt = r.Seq, progress, now
	return nil
}

// mcpProgressToken is params._meta.progressToken when it is a string or a
// number.
func mcpProgressToken(req *rpc.Request) json.RawMessage {
	return tokenMember(req.Meta, "progressToken")
}

// tokenMember is the member name of the object obj when it is a string or
// a number, else nil.
func tokenMember(obj []byte, name string) json.RawMessage {
	tok := jsonx.Member(obj, name)
	if !jsonx.IsID(tok) || tok[0] == 'n' {
		return nil
	}
	return tok
}

// mcpParams are the params of MCP's notifications/progress.
type mcpParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    float64         `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
}

func mcpProgressParams(token json.RawMessage, r Report) any {
	return mcpParams{Token: token, Progress: r.Progress, Total: r.Total, Message: r.Message}
}

// LSPProgress returns options that speak the Language Server Protocol's
// work done progress: $/progress with the request's params.workDoneToken,
// the first report as "begin" (its message the title), the one that
// completes the work (Progress == Total) as "end", the others as "report"
// with a percentage when the total is known.
func LSPProgress() *ProgressOptions {
	return &ProgressOptions{
		Method: "$/progress",
		Token: func(req *rpc.Request) json.RawMessage {
			return tokenMember(req.Params, "workDoneToken")
		},
		Params: lspProgressParams,
	}
}

type lspParams struct {
	Token json.RawMessage `json:"token"`
	Value lspValue        `json:"value"`
}

type lspValue struct {
	Kind       string `json:"kind"`
	Title      string `json:"title,omitempty"`
	Message    string `json:"message,omitempty"`
	Percentage *int   `json:"percentage,omitempty"`
}

func lspProgressParams(token json.RawMessage, r Report) any {
	v := lspValue{Kind: "report", Message: r.Message}
	if r.Total > 0 {
		pct := int(math.Min(100, math.Floor(100*r.Progress/r.Total)))
		v.Percentage = &pct
	}
	switch {
	case r.Seq == 1:
		v.Kind, v.Title, v.Message = "begin", r.Message, ""
	case r.Total > 0 && r.Progress >= r.Total:
		v.Kind, v.Percentage = "end", nil
	}
	return lspParams{Token: token, Value: v}
}
