package bind

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bounded's fields bound their lengths in their validate tags.
type bounded struct {
	Values []float64          `json:"values" validate:"required,min=1,max=3"`
	Ptr    *[]int             `json:"ptr" validate:"omitempty,lte=2"`
	Exact  []string           `json:"exact" validate:"len=1"`
	Dived  [][]int            `json:"dived" validate:"max=2,dive,max=1"`
	Map    map[string]float64 `json:"map" validate:"max=2"`
	Free   []int              `json:"free" validate:"dive,max=1"` // bounds the elements, not the length
}

// An array (or object) longer than its field's bound is decoded up to one
// element past it, the rest only scanned: however long the peer makes it,
// the decoded field holds bound+1 elements, and validation refuses it as it
// would have refused it whole.
func TestBoundedLengthsAreDecodedOnePastTheBound(t *testing.T) {
	bd := binder{cache: map[reflect.Type]*decodeFunc{}}
	dec, err := bd.decoder(reflect.TypeFor[bounded]())
	require.NoError(t, err)
	long := func(open, elem, close string, n int) string {
		return open + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + close
	}
	var members []string
	for i := range 100000 {
		members = append(members, `"k`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`":1`)
	}
	in := `{"values":` + long("[", "1.5", "]", 1_000_000) +
		`,"ptr":` + long("[", "7", "]", 1000) +
		`,"exact":` + long("[", `"s"`, "]", 1000) +
		`,"dived":` + long("[", "[1,2,3]", "]", 1000) +
		`,"map":{` + strings.Join(members[:30], ",") + `}` +
		`,"free":` + long("[", "1", "]", 1000) + `}`
	var v bounded
	end, fe := dec(decodeState{}, []byte(in), 0, reflect.ValueOf(&v).Elem())
	require.Nil(t, fe)
	assert.Equal(t, len(in), end, "the whole input is read")
	assert.Equal(t, 4, len(v.Values))
	assert.LessOrEqual(t, cap(v.Values), 8, "no more grown than the bound needs")
	require.NotNil(t, v.Ptr)
	assert.Equal(t, 3, len(*v.Ptr))
	assert.Equal(t, 2, len(v.Exact))
	assert.Equal(t, 3, len(v.Dived))
	assert.Equal(t, 3, len(v.Dived[0]), "an element's bound is not its container's")
	assert.Equal(t, 3, len(v.Map))
	assert.Equal(t, 1000, len(v.Free), "dive bounds the elements, not the length")

	// What is skipped is still read as JSON: a syntax error past the bound
	// is one.
	_, fe = dec(decodeState{}, []byte(`{"values":[1,2,3,4,5,}`), 0, reflect.ValueOf(&v).Elem())
	require.NotNil(t, fe)
	assert.Equal(t, "syntax", fe.Rule)
}

func TestLengthBound(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		tag  string
		n    int
		want bool
	}{
		{reflect.TypeFor[[]int](), "max=5", 5, true},
		{reflect.TypeFor[[]int](), "required,min=1,max=10000", 10000, true},
		{reflect.TypeFor[[]int](), "len=3,max=5", 3, true},
		{reflect.TypeFor[[]int](), "lte=4", 4, true},
		{reflect.TypeFor[*[]int](), "max=2", 2, true},
		{reflect.TypeFor[map[string]int](), "max=2", 2, true},
		{reflect.TypeFor[[]int](), "dive,max=5", 0, false},
		{reflect.TypeFor[[]int](), "min=5", 0, false},
		{reflect.TypeFor[[]int](), "max=x", 0, false},
		{reflect.TypeFor[string](), "max=5", 0, false},
		{reflect.TypeFor[[2]int](), "max=1", 0, false},
	}
	for _, tt := range tests {
		n, ok := lengthBound(tt.t, tt.tag)
		assert.Equal(t, tt.want, ok, "%s %q", tt.t, tt.tag)
		assert.Equal(t, tt.n, n, "%s %q", tt.t, tt.tag)
	}
}
