package bind

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/fields"
)

type defaultsEmbedded struct {
	E int `json:"e" default:"1"`
}

// defaults has a default of each sort: flat ones (copied), ones holding
// references (decoded anew per call), one decoded by its own UnmarshalJSON,
// a quoted one, and one in an embedded struct.
type defaults struct {
	defaultsEmbedded
	N     int            `json:"n" default:"7"`
	Arr   [2]int         `json:"arr" default:"[1,2]"`
	S     []int          `json:"s" default:"[1, 2]"`
	M     map[string]int `json:"m" default:"{\"a\":1}"`
	P     *int           `json:"p" default:"3"`
	Any   any            `json:"any" default:"{\"k\":[true]}"`
	At    time.Time      `json:"at" default:"\"2026-01-02T03:04:05Z\""`
	Q     int            `json:"q,string" default:"\"9\""`
	Plain int            `json:"plain"`
}

func defaultsDecoder(t *testing.T) func([]byte) (reflect.Value, *Error) {
	dec, err := Params([]reflect.Type{reflect.TypeFor[defaults]()}, false, false, false)
	require.NoError(t, err)
	return dec
}

// Every default applies to an absent member, decoded as the tag says;
// one call changing its values leaves the next one's defaults alone.
func TestDefaultsIsolated(t *testing.T) {
	dec := defaultsDecoder(t)
	for _, params := range []string{``, `{}`, ` { } `} {
		for range 2 {
			v, fe := dec([]byte(params))
			require.Nil(t, fe)
			d := v.Interface().(*defaults)
			assert.Equal(t, 1, d.E)
			assert.Equal(t, 7, d.N)
			assert.Equal(t, [2]int{1, 2}, d.Arr)
			assert.Equal(t, []int{1, 2}, d.S)
			assert.Equal(t, map[string]int{"a": 1}, d.M)
			require.NotNil(t, d.P)
			assert.Equal(t, 3, *d.P)
			assert.Equal(t, map[string]any{"k": []any{true}}, d.Any)
			assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), d.At)
			assert.Equal(t, 9, d.Q)
			assert.Equal(t, 0, d.Plain)
			// Scribble on everything the call got.
			d.S[0], d.M["b"], *d.P, d.Arr[0], d.N = 100, 2, 100, 100, 100
			d.Any.(map[string]any)["k"].([]any)[0] = false
		}
	}
	v, fe := dec([]byte(`{"n":1,"s":null,"p":null,"m":{},"e":5}`))
	require.Nil(t, fe)
	d := v.Interface().(*defaults)
	assert.Equal(t, 1, d.N)
	assert.Nil(t, d.S, "null is a value")
	assert.Nil(t, d.P, "null is a value")
	assert.Equal(t, map[string]int{}, d.M)
	assert.Equal(t, 5, d.E)
}

type viaPointer struct {
	*defaultsEmbedded
}

type checked struct {
	N int `json:"n" default:"5"`
}

// A default on a field promoted through an embedded pointer is refused,
// and so is one the check refuses, with the field and its type named.
func TestDefaultErrors(t *testing.T) {
	_, err := Params([]reflect.Type{reflect.TypeFor[viaPointer]()}, false, false, false)
	require.EqualError(t, err, "field E of bind.viaPointer: default 1: a field promoted through an embedded pointer cannot have a default")
	var te *TypeError
	require.ErrorAs(t, err, &te)

	refuse := errors.New("refused")
	var got []string
	_, err = ParamsChecked([]reflect.Type{reflect.TypeFor[checked]()}, false, false, false,
		func(st reflect.Type, f fields.Field, v reflect.Value) error {
			got = append(got, st.String()+"."+f.GoName+"="+v.String())
			return refuse
		})
	require.ErrorIs(t, err, refuse)
	assert.EqualError(t, err, "field N of bind.checked: default 5: refused")
	assert.Equal(t, []string{"bind.checked.N=<int Value>"}, got)
}
