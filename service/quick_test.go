package service

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// quickKinds are the field types quickRules check, with values on and
// around quickParams: zeros (-0 too), bounds, NaN, multi-byte strings.
var quickKinds = []struct {
	typ    reflect.Type
	values []any
}{
	{reflect.TypeFor[int](), []any{0, 1, -1, 2, 3, 4, 5, 16, 17, 1000, -1000, math.MaxInt, math.MinInt}},
	{reflect.TypeFor[int8](), []any{int8(0), int8(1), int8(-1), int8(3), int8(16), int8(127), int8(-128)}},
	{reflect.TypeFor[int64](), []any{int64(0), int64(2), int64(3), int64(4), int64(-3), int64(math.MaxInt64)}},
	{reflect.TypeFor[uint](), []any{uint(0), uint(1), uint(2), uint(3), uint(16), uint(math.MaxUint)}},
	{reflect.TypeFor[uint16](), []any{uint16(0), uint16(3), uint16(4), uint16(65535)}},
	{reflect.TypeFor[float32](), []any{float32(0), float32(math.Copysign(0, -1)), float32(2.5), float32(2.4), float32(3), float32(0.1), float32(math.NaN()), float32(math.Inf(1)), float32(-1)}},
	{reflect.TypeFor[float64](), []any{0.0, math.Copysign(0, -1), 2.5, 2.5000000001, 3.0, 0.1, math.NaN(), math.Inf(-1), -1.0, 1000.0}},
	{reflect.TypeFor[string](), []any{"", "a", "ab", "abc", "abcd", "héé", "日本語", "0", "1", "3", "abc ", "x y"}},
	{reflect.TypeFor[bool](), []any{false, true}},
	{reflect.TypeFor[level](), []any{level(0), level(3), level(-5)}},
	{reflect.TypeFor[name](), []any{name(""), name("3"), name("héé"), name("\xff\xfe"), name("a=b")}},
	{reflect.TypeFor[uint64](), []any{uint64(0), uint64(3), uint64(math.MaxUint64), uint64(math.MaxInt64) + 1}},
}

// level is a named integer: the validator reads it by its kind.
type level int

// name is a named string with a method: the validator reads it by its kind.
type name string

func (n name) String() string { return string(n) }

// quickRuleNames and quickParams make the tags tried: each rule with each
// parameter, and pairs of them.
var (
	quickRuleNames = []string{"gt", "gte", "lt", "lte", "min", "max", "len", "eq", "ne", "oneof"}
	quickParams    = []string{"0", "3", "-1", "2.5", "0.1", "0x10", "1_0", "1e3", "", "true", "abc", "a b 3", "héé",
		"+3", " 3", "3 ", "0b11", "0o17", "0X1F", "1e2", "Inf", "-Inf", "NaN", "-0", "0x1p-2", "T", "1", "F",
		"99999999999999999999", "18446744073709551615", "-9223372036854775808", "3.4028236e38", "1e-46",
		"a=b", "3\t4", "3\u00a04", "3\v4", "' 3'", "0x7C", "a0x2Cb"}
)

// TestQuick holds quickRules to the validator's verdict: for every tag of
// one or two rules (each rule with each parameter) on a field of every
// kind, and every value, pass is true exactly when the validator finds no
// problem; and no struct the validator would refuse, or panic over, gets
// quickRules.
func TestQuick(t *testing.T) {
	v := validator.New(validator.WithRequiredStructEnabled())
	var tags []string
	for _, name := range quickRuleNames {
		for _, p := range quickParams {
			tags = append(tags, name+"="+p)
		}
	}
	tags = append(tags, "required", "omitempty", "omitempty,gte=3", "required,lt=3", "gte=1,omitempty,lte=2",
		"oneof=3 4", "oneof= 3  abc ", "min=2,max=3", "ne=0,ne=3")
	compiled, checked := 0, 0
	for _, k := range quickKinds {
		for _, tag := range tags {
			typ := reflect.StructOf([]reflect.StructField{
				{Name: "F", Type: k.typ, Tag: reflect.StructTag(`validate:"` + tag + `"`)},
				{Name: "G", Type: reflect.TypeFor[int]()},
			})
			q := compileQuick(typ)
			if q == nil {
				continue
			}
			compiled++
			for _, x := range k.values {
				val := reflect.New(typ).Elem()
				val.Field(0).Set(reflect.ValueOf(x).Convert(k.typ))
				var err error
				require.NotPanics(t, func() { err = v.Struct(val.Addr().Interface()) },
					"%s `%s` with %v: quickRules for a tag the validator panics over", k.typ, tag, x)
				assert.Equal(t, err == nil, q.pass(val), "%s `%s` with %#v: validator says %v", k.typ, tag, x, err)
				checked++
			}
		}
	}
	t.Logf("%d tags compiled, %d values checked", compiled, checked)
	assert.Greater(t, compiled, 300)
}

// TestQuickDeclines lists structs the validator must check itself.
func TestQuickDeclines(t *testing.T) {
	type inner struct {
		N int `validate:"gte=0"`
	}
	type embedded struct{ inner }
	tests := []struct {
		name string
		typ  reflect.Type
	}{
		{"a nested struct", reflect.TypeFor[struct{ In inner }]()},
		{"a pointer", reflect.TypeFor[struct {
			P *int `validate:"required"`
		}]()},
		{"a slice", reflect.TypeFor[struct {
			S []int `validate:"dive,gte=0"`
		}]()},
		{"an embedded struct", reflect.TypeFor[embedded]()},
		{"time.Duration, whose parameters are durations", reflect.TypeFor[struct {
			D time.Duration `validate:"gte=1s"`
		}]()},
		{"alternatives", reflect.TypeFor[struct {
			N int `validate:"eq=1|eq=2"`
		}]()},
		{"an escaped comma", reflect.TypeFor[struct {
			S string `validate:"eq=a0x2Cb"`
		}]()},
		{"another rule", reflect.TypeFor[struct {
			S string `validate:"email"`
		}]()},
		{"an empty rule", reflect.TypeFor[struct {
			N int `validate:"required,"`
		}]()},
		{"a bad parameter", reflect.TypeFor[struct {
			N int `validate:"gte=x"`
		}]()},
		{"oneof with quotes", reflect.TypeFor[struct {
			S string `validate:"oneof='a b' c"`
		}]()},
		{"oneof on a float", reflect.TypeFor[struct {
			F float64 `validate:"oneof=1 2"`
		}]()},
		{"a length of a bool", reflect.TypeFor[struct {
			B bool `validate:"min=1"`
		}]()},
		{"time.Time", reflect.TypeFor[time.Time]()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Nil(t, compileQuick(tt.typ))
		})
	}
	// Unexported fields and fields tagged "-" are not the validator's.
	q := compileQuick(reflect.TypeFor[struct {
		n int           `validate:"gte=x"` //nolint:unused // read by reflection only
		D time.Duration `validate:"-"`
		N int           `validate:"gte=1"`
		S string
	}]())
	require.NotNil(t, q)
	assert.Len(t, q.fields, 1)
}

// FuzzQuick holds quickRules to the validator's verdict for any values of
// a struct of every quick kind under many rules at once.
func FuzzQuick(f *testing.F) {
	type subject struct {
		I  int     `validate:"required,gte=-3,lte=1000,ne=7"`
		I8 int8    `validate:"omitempty,gt=-100,lt=100"`
		U  uint32  `validate:"omitempty,min=2,max=0x20"`
		F  float64 `validate:"gte=-2.5,lt=1e6"`
		G  float32 `validate:"omitempty,ne=0.1,gt=-1"`
		S  string  `validate:"required,min=1,max=8"`
		T  string  `validate:"omitempty,oneof=red green blue"`
		L  string  `validate:"len=3"`
		E  string  `validate:"ne=stop"`
		N  int     `validate:"oneof=1 2 3"`
		B  bool    `validate:"eq=true"`
	}
	q := compileQuick(reflect.TypeFor[subject]())
	require.NotNil(f, q)
	v := validator.New(validator.WithRequiredStructEnabled())
	f.Add(1, int8(0), uint32(0), 0.0, float32(0), "a", "", "abc", "", 1, true)
	f.Add(7, int8(-100), uint32(33), 1e6, float32(0.1), "123456789", "pink", "日本語", "stop", 4, false)
	f.Add(-3, int8(99), uint32(32), -2.5, float32(-1), "héé", "blue", "ab", "go", 3, true)
	f.Fuzz(func(t *testing.T, i int, i8 int8, u uint32, fl float64, g float32, s, tt, l, e string, n int, b bool) {
		x := subject{i, i8, u, fl, g, s, tt, l, e, n, b}
		err := v.Struct(&x)
		if got := q.pass(reflect.ValueOf(x)); got != (err == nil) {
			t.Fatalf("%+v: quickRules say %v, the validator %v", x, got, err)
		}
	})
}

// quickSubject is a struct every rule of which quickRules check.
type quickSubject struct {
	N     int     `json:"n" validate:"required,gte=1,lte=10"`
	Name  string  `json:"name" validate:"omitempty,min=2,max=4"`
	Color string  `json:"color,omitempty" validate:"omitempty,oneof=red blue"`
	Ratio float64 `json:"ratio" validate:"gte=0,lt=1"`
}

type quickMethods struct{}

func (quickMethods) One(p quickSubject) (int, error)        { return p.N, nil }
func (quickMethods) Ptr(p *quickSubject) (int, error)       { return p.N, nil }
func (quickMethods) List(p []*quickSubject) (int, error)    { return len(p), nil }
func (quickMethods) Two(a quickSubject, b int) (int, error) { return a.N + b, nil }

// TestQuickAnswersAsTheValidator holds a service that checks the rules
// itself to the answers of one that leaves them all to the validator (a
// supplied validator has no quickRules): the same result, or the same
// error with the same field errors, for params that pass and params that
// break one rule, several, or rules in several elements.
func TestQuickAnswersAsTheValidator(t *testing.T) {
	own := New(nil)
	supplied := New(&Options{Validator: validator.New(validator.WithRequiredStructEnabled())})
	for _, s := range []*Service{own, supplied} {
		require.NoError(t, s.Register("q", quickMethods{}))
	}
	require.NotNil(t, own.methods["q.one"].params[0].quick)
	require.NotNil(t, own.methods["q.list"].params[0].quick)
	require.Nil(t, supplied.methods["q.one"].params[0].quick)
	tests := []struct{ method, params string }{
		{"q.one", `{"n":3,"name":"abc","color":"red","ratio":0.5}`},
		{"q.one", `{"n":3}`},
		{"q.one", `{"n":0}`},
		{"q.one", `{"n":11,"name":"a","color":"green","ratio":1}`},
		{"q.one", `{"n":5,"name":"héééé"}`},
		{"q.one", `{"n":5,"ratio":-0}`},
		{"q.ptr", `{"n":5,"ratio":0.99}`},
		{"q.ptr", `{"n":-5}`},
		{"q.list", `[{"n":1},{"n":2,"name":"xy"}]`},
		{"q.list", `[{"n":1},null,{"n":20},{"n":2,"color":"pink"}]`},
		{"q.two", `[{"n":1},2]`},
		{"q.two", `[{"n":100},2]`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			req := &rpc.Request{ID: []byte(`1`), Method: tt.method, Params: []byte(tt.params)}
			wantRes, wantErr := supplied.Handle(t.Context(), req)
			gotRes, gotErr := own.Handle(t.Context(), req)
			assert.Equal(t, wantRes, gotRes)
			assert.Equal(t, wantErr, gotErr)
		})
	}
}

// FuzzQuickTags holds compileQuick to the validator for any validate tag:
// on a field of each quick kind, a tag quickRules compile is one the
// validator does not panic over, and pass agrees with its verdict for any
// value.
func FuzzQuickTags(f *testing.F) {
	v := validator.New(validator.WithRequiredStructEnabled())
	for _, tag := range []string{"gte=+5", "lt= 5", "eq=0b101,ne=0o17", "len=1_000", "oneof=1\t2", "omitempty,gt=-0",
		"eq=Inf", "ne=NaN", "lte=0x1p-2", "eq=T", "max=-1", "required,required", "min=1e2", "eq=a=b", "oneof= ", "eq="} {
		for k := range quickKinds {
			f.Add(uint8(k), tag, int64(5), 2.5, "héé", true)
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, tag string, i int64, fl float64, s string, b bool) {
		k := quickKinds[int(kind)%len(quickKinds)].typ
		if strings.ContainsAny(tag, "`\"\\") {
			return // not a tag reflect can read back
		}
		typ := reflect.StructOf([]reflect.StructField{
			{Name: "F", Type: k, Tag: reflect.StructTag(`validate:"` + tag + `"`)},
		})
		q := compileQuick(typ)
		if q == nil {
			return
		}
		val := reflect.New(typ).Elem()
		fv := val.Field(0)
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			fv.SetInt(i)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			fv.SetUint(uint64(i))
		case reflect.Float32, reflect.Float64:
			fv.SetFloat(fl)
		case reflect.String:
			fv.SetString(s)
		case reflect.Bool:
			fv.SetBool(b)
		}
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s `%s`: quickRules for a tag the validator panics over: %v", k, tag, r)
				}
			}()
			err = v.Struct(val.Addr().Interface())
		}()
		if got := q.pass(val); got != (err == nil) {
			t.Fatalf("%s `%s` with %#v: quickRules say %v, the validator %v", k, tag, fv.Interface(), got, err)
		}
	})
}
