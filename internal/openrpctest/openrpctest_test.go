package openrpctest

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorder is a testing.TB that records whether it failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

// Validate holds documents to the meta-schema, their schemas included.
func TestValidate(t *testing.T) {
	const method = `{"name":"m","params":[{"name":"a","schema":%s}],"result":{"name":"r","schema":true}}`
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"minimal", `{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[]}`, true},
		{"a method", `{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[` + fmt.Sprintf(method, `{"type":"integer","items":[true],"additionalItems":false}`) + `]}`, true},
		{"no info", `{"openrpc":"1.3.2","methods":[]}`, false},
		{"an unknown version", `{"openrpc":"9.9.9","info":{"title":"t","version":"1"},"methods":[]}`, false},
		{"a bad schema", `{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[` + fmt.Sprintf(method, `{"type":5}`) + `]}`, false},
		{"a bad paramStructure", `{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[{"name":"m","params":[],"paramStructure":"any"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Validate(r, []byte(tt.doc))
			if r.failed == tt.ok {
				t.Errorf("Validate failed: %v, want %v", r.failed, !tt.ok)
			}
		})
	}
}
