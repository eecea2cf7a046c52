package jsonx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Members finds several members in one scan, as Member finds each.
func TestMembers(t *testing.T) {
	names := []string{"a", "b", "c"}
	tests := []struct {
		obj  string
		ok   bool
		want []string // "" for none
	}{
		{`{"a":1,"b":[2,{"x":3}],"z":true}`, true, []string{"1", `[2,{"x":3}]`, ""}},
		{` { "c" : "s" , "a":null, "a":2 } `, true, []string{"2", "", `"s"`}},
		{`{}`, true, []string{"", "", ""}},
		{`{"a":1,}`, false, []string{"", "", ""}},
		{`{"a":1} x`, false, []string{"", "", ""}},
		{`[1]`, false, []string{"", "", ""}},
		{``, false, []string{"", "", ""}},
	}
	for _, tt := range tests {
		values := make([][]byte, len(names))
		assert.Equal(t, tt.ok, Members([]byte(tt.obj), names, values), tt.obj)
		for i, name := range names {
			assert.Equal(t, tt.want[i], string(values[i]), "%s in %s", name, tt.obj)
			assert.Equal(t, string(Member([]byte(tt.obj), name)), string(values[i]), "as Member: %s in %s", name, tt.obj)
		}
		if tt.ok { // an object the codec checked: CheckedMembers finds the same
			checked := make([][]byte, len(names))
			CheckedMembers([]byte(tt.obj), names, checked)
			assert.Equal(t, values, checked, "CheckedMembers: %s", tt.obj)
		}
	}
	// What is not an object gives nothing (params that are an array, or none).
	for _, obj := range []string{`[1,{"a":2}]`, ``, `"a"`} {
		checked := [][]byte{[]byte("stale"), nil, nil}
		CheckedMembers([]byte(obj), names, checked)
		assert.Equal(t, [][]byte{nil, nil, nil}, checked, "CheckedMembers: %q", obj)
	}
}
