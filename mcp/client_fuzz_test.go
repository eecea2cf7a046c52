package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzClientResponses holds clientResponses, which splits a batch at any
// depth, to encoding/json's split for any body it reads (nested no more
// than 10000 deep): the same responses, byte for byte, and whether
// anything else is in the batch; nothing for a batch of more than its
// maxBatch entries (here 4).
func FuzzClientResponses(f *testing.F) {
	for _, seed := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}]`,
		` [ {"id":1,"result":[[1]]} ] `, `[]`, `[1]`, `[{"id":1,"result":1},]`, `[{"id":1,"result":1}`, `[{"id":1,"result":1}] x`,
		`[{"id":1,"result":1} {"id":2,"result":1}]`, `[{"id":1,"method":"m"}]`, `{"id":1,"result":1}`, `[,{"id":1,"result":1}]`,
		`[{"id":1,"result":1},{"id":2,"result":1},{"id":3,"result":1},{"id":4,"result":1}]`,
		`[{"id":1,"result":1},{"id":2,"result":1},{"id":3,"result":1},{"id":4,"result":1},{"id":5,"result":1}]`,
	} {
		f.Add(seed)
	}
	rev := revision{name: "2025-03-26", batches: true}
	f.Fuzz(func(t *testing.T, body string) {
		b := []byte(body)
		if !utf8.Valid(b) {
			return // not JSON for us, where encoding/json takes it: served, and answered a parse error
		}
		got, gotOthers := clientResponses(readEnvelope(b), b, rev, 4)
		var want [][]byte
		var wantOthers bool
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil && len(batch) > 4 {
			// refused whole: nothing
		} else if json.Unmarshal(b, &batch) == nil && len(batch) > 0 {
			for _, m := range batch {
				if isResponse(readEnvelope(m), m) {
					want = append(want, m)
				} else {
					wantOthers = true
				}
			}
		} else if isResponse(readEnvelope(b), b) {
			want = [][]byte{b}
		}
		if len(got) != len(want) || gotOthers != wantOthers {
			t.Fatalf("%q: %q, want %q", body, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: %q, want %q", body, got, want)
			}
		}
	})
}
