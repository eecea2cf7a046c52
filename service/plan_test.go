package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/service"
)

type ChanAfterCtx struct{}

func (ChanAfterCtx) M(ctx context.Context, c chan int) {}

type ChanThenCtx struct{}

func (ChanThenCtx) M(c chan int, ctx context.Context) {}

type CtxThenChan struct{}

func (CtxThenChan) M(x int, ctx context.Context, c chan int) {}

// A method's parameters are counted as it declares them, its context
// included, and the first that cannot be served is the one named.
func TestRegistrationErrorsNameTheParameter(t *testing.T) {
	tests := []struct {
		name string
		rcvr any
		want string
	}{
		{"after the context", ChanAfterCtx{},
			"service: method service_test.ChanAfterCtx.M cannot be served: parameter 2: type chan int cannot be decoded from JSON"},
		{"before a late context", ChanThenCtx{},
			"service: method service_test.ChanThenCtx.M cannot be served: parameter 1: type chan int cannot be decoded from JSON"},
		{"a late context first", CtxThenChan{},
			"service: method service_test.CtxThenChan.M cannot be served: context.Context must be the first parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.EqualError(t, service.New(nil).Register("", tt.rcvr), tt.want)
		})
	}
}
