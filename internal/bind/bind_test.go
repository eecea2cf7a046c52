package bind

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

type Promoted struct {
	P int `json:"p"`
}

// target has a field of every kind the binder decodes natively.
type target struct {
	Promoted
	I8      int8            `json:"i8"`
	I64     int64           `json:"i64"`
	U16     uint16          `json:"u16"`
	F32     float32         `json:"f32"`
	F64     float64         `json:"f64"`
	S       string          `json:"s"`
	B       bool            `json:"b"`
	Ptr     *int            `json:"ptr"`
	Slice   []int           `json:"slice"`
	Arr     [2]string       `json:"arr"`
	Nested  inner           `json:"nested"`
	NestPtr *inner          `json:"nest_ptr"`
	Inners  []inner         `json:"inners"`
	Map     map[string]int  `json:"map"`
	IntKeys map[int]bool    `json:"int_keys"`
	Any     any             `json:"any"`
	Raw     json.RawMessage `json:"raw"`
	Bytes   []byte          `json:"bytes"`
	Num     json.Number     `json:"num"`
	Quoted  int             `json:"quoted,string"`
	Time    time.Time       `json:"time"`
	Untag   int             // named by its Go name
	Skip    int             `json:"-"`
	//lint:ignore SA5008 deliberate: encoding/json names this field "-", and so must the binder
	Dash int               `json:"-,"`
	Deep map[string][]*int `json:"deep"`
}

func targetDecoder(t testing.TB) decodeFunc {
	bd := binder{cache: map[reflect.Type]*decodeFunc{}}
	dec, err := bd.decoder(reflect.TypeFor[target]())
	require.NoError(t, err)
	return dec
}

func bindTarget(dec decodeFunc, in []byte) (target, *Error) {
	var v target
	end, fe := dec(decodeState{}, in, 0, reflect.ValueOf(&v).Elem())
	if fe == nil && end != len(in) {
		fe = syntaxError()
	}
	return v, fe
}

func stdTarget(in []byte) (target, error) {
	var v target
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = errTrailing
	}
	return v, err
}

var errTrailing = &json.SyntaxError{}

var bindSeeds = []string{
	`{"p":1,"i8":-128,"i64":9223372036854775807,"u16":65535,"f32":1.5,"f64":-2.5e-3,"s":"a\"b\u00e9","b":true}`,
	`{"ptr":5,"slice":[1,2,3],"arr":["a","b"],"nested":{"x":1,"y":"z"},"nest_ptr":{"x":2},"inners":[{"x":1},{"x":2,"y":""}]}`,
	`{"map":{"a":1,"b":2},"int_keys":{"1":true,"-2":false},"any":{"k":[1,"x",null,true,{"z":1.5}]},"raw":[1, 2]}`,
	`{"bytes":"aGVsbG8=","num":12.5e3,"quoted":"42","time":"2024-01-02T03:04:05Z","Untag":7,"-":8,"deep":{"a":[1,null,3]}}`,
	`{"bytes":[1,2,255],"num":"7","ptr":null,"slice":null,"map":null,"nested":null,"any":null,"raw":null}`,
	`{"i8":128}`, `{"u16":-1}`, `{"f32":1e39}`, `{"i64":1.5}`, `{"i64":3.0}`, `{"u16":6.5e4}`, `{"i8":-0.0}`, `{"s":1}`, `{"b":"true"}`, `{"slice":{}}`,
	`{"arr":["a"]}`, `{"arr":["a","b","c"]}`, `{"unknown":1}`, `{"P":1}`, `{"i8":1,"i8":2}`, `{"quoted":42}`,
	`{"num":"x"}`, `{"bytes":"!!"}`, `{"time":"yesterday"}`, `{"int_keys":{"x":true}}`, `{"Skip":1}`, `{"map":{"a":1,"a":2}}`,
	`{"s":"\ud800"}`, `{"f64":-0}`, `{"i64":-0}`, `{"any":[]}`, `{"any":{}}`, `{"inners":[{},{"x":"1"}]}`,
}

func TestBindMatchesEncodingJSON(t *testing.T) {
	dec := targetDecoder(t)
	for _, in := range bindSeeds {
		checkAgainstEncodingJSON(t, dec, []byte(in))
	}
}

// checkAgainstEncodingJSON: the binder is stricter than encoding/json (exact
// names, no repeated members, exact array lengths, valid UTF-8), never
// looser, and where both accept the input they decode the same value.
func checkAgainstEncodingJSON(t *testing.T, dec decodeFunc, in []byte) {
	t.Helper()
	got, fe := bindTarget(dec, in)
	if fe != nil {
		fe.finish() // the path is made from its segments without a panic
	}
	want, err := stdTarget(in)
	if ute, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && fe == nil && integerKind(ute.Type) && strings.HasPrefix(ute.Value, "number ") {
		return // an integer written 3.0 or 3e0: the binder takes it, encoding/json does not
	}
	switch {
	case fe == nil && err != nil:
		t.Fatalf("%s: binder accepted what encoding/json refuses (%v)", in, err)
	case fe == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%s:\n binder        %+v\n encoding/json %+v", in, got, want)
	}
}

// integerKind reports whether t is an integer type.
func integerKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// TestBindIntegerNotations: an integral number in any notation is that
// integer, exactly, for every integer kind; a fraction is refused as not an
// integer, and one beyond the type's range as out of it.
func TestBindIntegerNotations(t *testing.T) {
	type level int16
	type ints struct {
		I   int     `json:"i"`
		I8  int8    `json:"i8"`
		I64 int64   `json:"i64"`
		U   uint    `json:"u"`
		U8  uint8   `json:"u8"`
		U64 uint64  `json:"u64"`
		L   level   `json:"l"`
		P   *uint32 `json:"p"`
		Q   int     `json:"q,string"`
		QU  uint    `json:"qu,string"`
	}
	bd := binder{cache: map[reflect.Type]*decodeFunc{}}
	dec, err := bd.decoder(reflect.TypeFor[ints]())
	require.NoError(t, err)
	three := uint32(3)
	tests := []struct {
		in   string
		want ints
		err  string // field: message
	}{
		{in: `{"i":3.0,"i8":3e0,"i64":30e-1,"u":0.3e1,"u8":3E+0,"u64":3.000,"l":3.0,"p":3e0}`,
			want: ints{I: 3, I8: 3, I64: 3, U: 3, U8: 3, U64: 3, L: 3, P: &three}},
		{in: `{"i":14278.0,"i64":14278e0}`, want: ints{I: 14278, I64: 14278}},
		{in: `{"i64":9007199254740993.0}`, want: ints{I64: 9007199254740993}},
		{in: `{"u64":1.8446744073709551615e19}`, want: ints{U64: 1<<64 - 1}},
		{in: `{"i64":-9.223372036854775808e18}`, want: ints{I64: -1 << 63}},
		{in: `{"u":-0,"u8":-0.0,"u64":0e5,"i8":-0e-7}`, want: ints{}},
		{in: `{"i8":-1.28e2}`, want: ints{I8: -128}},
		{in: `{"i":2.5}`, err: "i: expected an integer, got 2.5"},
		{in: `{"u8":-2.5}`, err: "u8: expected an integer, got -2.5"},
		{in: `{"l":1e-400}`, err: "l: expected an integer, got 1e-400"},
		{in: `{"p":3.01e0}`, err: "p: expected an integer, got 3.01e0"},
		{in: `{"i64":9223372036854775808.0}`, err: "i64: 9223372036854775808.0 does not fit in int64"},
		{in: `{"i8":1.28e2}`, err: "i8: 1.28e2 does not fit in int8"},
		{in: `{"u64":1.8446744073709551616e19}`, err: "u64: 1.8446744073709551616e19 does not fit in uint64"},
		{in: `{"u":-1.0}`, err: "u: -1.0 does not fit in uint"},
		{in: `{"i":1e400}`, err: "i: 1e400 does not fit in int"},
		{in: `{"l":4e4}`, err: "l: 4e4 does not fit in bind.level"},
		{in: `{"q":"3"}`, want: ints{Q: 3}},
		{in: `{"q":"3.0"}`, err: "q: expected an integer, got 3.0"},
		{in: `{"qu":"-0"}`, err: "qu: -0 does not fit in uint"},
	}
	for _, tt := range tests {
		var v ints
		end, fe := dec(decodeState{}, []byte(tt.in), 0, reflect.ValueOf(&v).Elem())
		if tt.err != "" {
			require.NotNil(t, fe, tt.in)
			fe.finish()
			assert.Equal(t, tt.err, fe.Field+": "+fe.Message, tt.in)
			continue
		}
		require.Nil(t, fe, tt.in)
		assert.Equal(t, len(tt.in), end, tt.in)
		assert.Equal(t, tt.want, v, tt.in)
	}
}

func FuzzBind(f *testing.F) {
	for _, in := range bindSeeds {
		f.Add([]byte(in))
	}
	dec := targetDecoder(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		checkAgainstEncodingJSON(t, dec, in)
	})
}

func TestBindErrorsNameTheirPath(t *testing.T) {
	dec := targetDecoder(t)
	tests := []struct{ in, field, rule, message string }{
		{`{"inners":[{},{"x":"1"}]}`, "inners[1].x", "type", "expected an integer, got a string"},
		{`{"deep":{"k":[1,"x"]}}`, `deep["k"][1]`, "type", "expected an integer, got a string"},
		{`{"nest_ptr":{"z":1}}`, "nest_ptr.z", "unknown", `unknown field "z"`},
		{`{"nest_ptr":{"":1}}`, `nest_ptr[""]`, "unknown", `unknown field ""`},
		{`{"":1}`, `[""]`, "unknown", `unknown field ""`},
		{`{"nest_ptr":{"a.b":1}}`, `nest_ptr["a.b"]`, "unknown", `unknown field "a.b"`},
		{`{"arr":["a"]}`, "arr", "count", "expected 2 elements, got 1"},
		{`{"any":{"a":{"b":1,"b":2}}}`, `any["a"]["b"]`, "duplicate", `member "b" given more than once`},
		{`{"int_keys":{"x":true}}`, `int_keys["x"]`, "type", `key "x": invalid syntax`},
		{`{"quoted":42}`, "quoted", "type", "expected a string, got a number"},
		{`{"p":true}`, "p", "type", "expected an integer, got a boolean"},
	}
	for _, tt := range tests {
		_, fe := bindTarget(dec, []byte(tt.in))
		require.NotNil(t, fe, tt.in)
		fe.finish()
		assert.Equal(t, tt.field, fe.Field, tt.in)
		assert.Equal(t, tt.rule, fe.Rule, tt.in)
		assert.Equal(t, tt.message, fe.Message, tt.in)
	}
}

type recursive struct {
	Name     string       `json:"name"`
	Children []*recursive `json:"children"`
}

func TestBindRecursiveTypes(t *testing.T) {
	bd := binder{cache: map[reflect.Type]*decodeFunc{}}
	dec, err := bd.decoder(reflect.TypeFor[recursive]())
	require.NoError(t, err)
	var v recursive
	in := []byte(`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`)
	_, fe := dec(decodeState{}, in, 0, reflect.ValueOf(&v).Elem())
	require.Nil(t, fe)
	assert.Equal(t, "c", v.Children[0].Children[0].Name)
}

// TestBindEveryMemberProblem: an object's members are all decoded, and each
// problem is reported with its path, in the order of the input; an array
// stops at its first.
func TestBindEveryMemberProblem(t *testing.T) {
	dec := targetDecoder(t)
	_, fe := bindTarget(dec, []byte(`{"i8":"x","zz":1,"nest_ptr":{"x":"1","q":2},"i8":3,"slice":[1,"a","b"],"u16":-1.0,"s":"ok"}`))
	require.NotNil(t, fe)
	fe.finish()
	var got []string
	for _, e := range append([]*Error{fe}, fe.Others()...) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"i8: expected an integer, got a string",
		`zz: unknown field "zz"`,
		"nest_ptr.x: expected an integer, got a string",
		`nest_ptr.q: unknown field "q"`,
		`i8: member "i8" given more than once`,
		"slice[1]: expected an integer, got a string",
		"u16: -1.0 does not fit in uint16",
	}, got)
	assert.Zero(t, fe.Omitted())

	in := []byte("{" + strings.Repeat(`"zz":1,`, 2*MaxErrors) + `"s":"ok"}`)
	_, fe = bindTarget(dec, in)
	require.NotNil(t, fe)
	assert.Len(t, fe.Others(), MaxErrors-1)
	assert.Equal(t, MaxErrors, fe.Omitted())
}

// TestNullBindsOnlyWhereGoHasOne: null is taken by a pointer, a slice, an
// interface, json.RawMessage and a type that decodes itself, and refused,
// as any other wrong type, by a string, a number, a boolean, a struct, an
// array and a map (encoding/json leaves those as they were).
func TestNullBindsOnlyWhereGoHasOne(t *testing.T) {
	dec := targetDecoder(t)
	tests := []struct{ in, field, param, message string }{
		{`{"ptr":null}`, "", "", ""},
		{`{"slice":null}`, "", "", ""},
		{`{"bytes":null}`, "", "", ""},
		{`{"any":null}`, "", "", ""},
		{`{"raw":null}`, "", "", ""},
		{`{"time":null}`, "", "", ""},
		{`{"nest_ptr":null}`, "", "", ""},
		{`{"deep":{"k":[null]}}`, "", "", ""},
		{`{"s":null}`, "s", "string", "expected a string, got null"},
		{`{"i64":null}`, "i64", "integer", "expected an integer, got null"},
		{`{"u16":null}`, "u16", "integer", "expected an integer, got null"},
		{`{"f64":null}`, "f64", "number", "expected a number, got null"},
		{`{"b":null}`, "b", "boolean", "expected a boolean, got null"},
		{`{"num":null}`, "num", "number", "expected a number, got null"},
		{`{"quoted":null}`, "quoted", "string", "expected a string, got null"},
		{`{"quoted":"null"}`, "quoted", "integer", "expected an integer, got null"},
		{`{"nested":null}`, "nested", "object", "expected an object, got null"},
		{`{"arr":null}`, "arr", "array", "expected an array, got null"},
		{`{"arr":["a",null]}`, "arr[1]", "string", "expected a string, got null"},
		{`{"map":null}`, "map", "object", "expected an object, got null"},
		{`{"map":{"a":null}}`, `map["a"]`, "integer", "expected an integer, got null"},
		{`{"inners":[null]}`, "inners[0]", "object", "expected an object, got null"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, fe := bindTarget(dec, []byte(tt.in))
			if tt.message == "" {
				assert.Nil(t, fe)
				return
			}
			require.NotNil(t, fe)
			fe.finish()
			assert.Equal(t, [4]string{tt.field, "type", tt.param, tt.message}, [4]string{fe.Field, fe.Rule, fe.Param, fe.Message})
		})
	}
}
