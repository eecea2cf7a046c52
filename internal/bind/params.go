package bind

import (
	"errors"
	"reflect"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/fields"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// Params returns the decoder of the params of a method whose parameters,
// after its context, have the types ts (a pointer parameter is given as
// the type it points to), or a [*TypeError] naming the first that cannot
// be decoded from JSON.
//
// The decoder takes the params as they came: absent (empty, or only white
// space), an object or an array; the caller refuses anything else, and an
// object or an array where the parameters cannot take it. It returns a
// pointer to the values decoded, or the first problem found with the
// others after it ([Error.Others]: every member of an object is decoded,
// an array stops at its first problem):
//   - ts empty: the params must be absent, [] or {} (an object with only
//     "_meta" too); the value is the zero Value;
//   - spread: the params must be an array of one value per type, exactly
//     as many; the value points to a struct whose field j holds the value
//     of ts[j];
//   - otherwise ts holds one type T, and the value is a *T: absent params
//     leave it zero (a struct with defaults: as {}, see [ParamsChecked]); an array into a struct (one that decodes no JSON
//     itself) fills its fields in declaration order, exactly one element
//     per field; anything else decodes as T.
//
// The "_meta" member of params that are an object is the protocol's
// metadata, never decoded, unless keepMeta: then it is a member like any
// other. A member that matches no field is an error unless allowUnknown.
func Params(ts []reflect.Type, spread, allowUnknown, keepMeta bool) (func(params []byte) (reflect.Value, *Error), error) {
	return ParamsChecked(ts, spread, allowUnknown, keepMeta, nil)
}

// ParamsChecked is [Params] with the defaults of struct fields judged by
// check (nil: not judged) at registration.
//
// A field's default is its tag default:"<JSON value>", the value as its
// member would be sent (a string quoted: default:"\"asc\""). It is
// decoded once, here, with the field's decoder, and then checked; a
// default that is not JSON, does not decode, or that check refuses is an
// error naming the field and its struct type, as is one on a field
// promoted through an embedded pointer. An object decoded into the struct
// that lacks the member gets the default (a copy of it: no call sees what
// another did to its value); null is a value, not an absence. Absent
// params, for a struct parameter, are {}: every default applies. Params
// given by position are unchanged: each field takes one element, exactly.
func ParamsChecked(ts []reflect.Type, spread, allowUnknown, keepMeta bool, check DefaultCheck) (func(params []byte) (reflect.Value, *Error), error) {
	bd := binder{cache: map[reflect.Type]*decodeFunc{}, check: check}
	decs := make([]decodeFunc, len(ts))
	for j, t := range ts {
		dec, err := bd.decoder(t)
		if err != nil {
			return nil, &TypeError{Index: j, Err: err}
		}
		decs[j] = dec
	}
	switch {
	case len(ts) == 0 && keepMeta:
		return noArguments, nil
	case len(ts) == 0:
		return noParams, nil
	case spread:
		return spreadParams(ts, decs, allowUnknown), nil
	case len(ts) > 1:
		return nil, errors.New("bind: several parameters need spread params")
	}
	t, dec := ts[0], decs[0]
	byPosition := dec
	defaults := false // absent params are {}
	if t.Kind() == reflect.Struct && !implementsDecoding(t) {
		fs, err := bd.fields(t)
		if err != nil {
			return nil, &TypeError{Index: 0, Err: err}
		}
		byPosition = positionalStruct(fs)
		for _, f := range fs {
			defaults = defaults || f.def != nil
		}
	}
	return func(params []byte) (reflect.Value, *Error) {
		v := reflect.New(t)
		i := scan.SkipSpace(params, 0)
		if i == len(params) {
			if defaults {
				_, fe := dec(decodeState{}, emptyObject, 0, v.Elem())
				return v, complete(emptyObject, 2, fe)
			}
			return v, nil
		}
		d := decodeState{allowUnknown: allowUnknown, skipMeta: params[i] == '{' && !keepMeta}
		dec := dec
		if params[i] == '[' {
			dec = byPosition
		}
		end, fe := dec(d, params, i, v.Elem())
		return v, complete(params, end, fe)
	}, nil
}

var emptyObject = []byte("{}")

// A TypeError reports a parameter whose type cannot be decoded from JSON.
type TypeError struct {
	Index int   // the parameter's index in the types given to Params
	Err   error // what in its type cannot be decoded
}

// Error returns what in the type cannot be decoded.
func (e *TypeError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *TypeError) Unwrap() error { return e.Err }

// spreadParams decodes an array of one value per type of ts, whose
// decoders are decs, into a struct of one field per type.
func spreadParams(ts []reflect.Type, decs []decodeFunc, allowUnknown bool) func([]byte) (reflect.Value, *Error) {
	sfs := make([]reflect.StructField, len(ts))
	fs := make([]field, len(ts))
	for j, t := range ts {
		sfs[j] = reflect.StructField{Name: "P" + strconv.Itoa(j), Type: t}
		fs[j] = field{Field: fields.Field{Name: indexSegment(j), Index: []int{j}, Type: t}, dec: decs[j]}
	}
	st := reflect.StructOf(sfs)
	dec := positionalStruct(fs)
	return func(params []byte) (reflect.Value, *Error) {
		v := reflect.New(st)
		i := scan.SkipSpace(params, 0)
		switch {
		case i == len(params):
			return v, countError(len(ts), 0)
		case params[i] != '[':
			_, fe := typeError(params, i, "array")
			return v, complete(params, i, fe)
		}
		end, fe := dec(decodeState{allowUnknown: allowUnknown}, params, i, v.Elem())
		return v, complete(params, end, fe)
	}
}

// noParams checks the params of a method that takes none: absent, [] or
// {} (or {} with only "_meta").
func noParams(params []byte) (reflect.Value, *Error) { return checkEmpty(params, false) }

// noArguments is noParams with keepMeta: {} with "_meta" is not empty.
func noArguments(params []byte) (reflect.Value, *Error) { return checkEmpty(params, true) }

func checkEmpty(params []byte, keepMeta bool) (reflect.Value, *Error) {
	i := scan.SkipSpace(params, 0)
	if i < len(params) && !emptyParams(params[i:], keepMeta) {
		return reflect.Value{}, &Error{Rule: "count", Param: "0", Message: "the method takes no params"}
	}
	return reflect.Value{}, nil
}

// emptyParams reports whether params are [] or {} (or {} with only _meta,
// unless keepMeta).
func emptyParams(b []byte, keepMeta bool) bool {
	if b[0] == '[' {
		i := scan.SkipSpace(b, 1)
		return i < len(b) && b[i] == ']'
	}
	empty := true
	_, fe := eachMember(b, 0, func(key []byte, at int) (int, *Error) {
		if keepMeta || string(key) != "_meta" {
			empty = false
		}
		return rawEnd(b, at)
	})
	return empty && fe == nil
}

// complete ends the decoding of params b, stopped at end with fe: fe, its
// path set, or a syntax error for anything but white space after end.
func complete(b []byte, end int, fe *Error) *Error {
	if fe == nil && scan.SkipSpace(b, end) != len(b) {
		fe = syntaxError()
	}
	if fe != nil {
		fe.finish()
	}
	return fe
}

// positionalStruct decodes an array into a struct's fields in declaration
// order: exactly one element per field.
func positionalStruct(fields []field) decodeFunc {
	return func(d decodeState, b []byte, i int, v reflect.Value) (int, *Error) {
		end, count, fe := eachSlot(b, i, len(fields), func(j, at int) (int, *Error) {
			f := &fields[j]
			fv, fe := f.value(v)
			if fe == nil {
				var end int
				if end, fe = f.dec(d, b, at, fv); fe == nil {
					return end, nil
				}
			}
			return at, fe.under(f.Name)
		})
		if fe != nil {
			return i, fe
		}
		if count != len(fields) {
			return i, countError(len(fields), count)
		}
		return end, nil
	}
}
