// Package schema computes JSON Schema 2020-12 from Go types and their
// go-playground/validator `validate` tags, so that the schema of a
// method's params says what the server enforces: the Go type and its tags
// are the one source of truth.
//
// [Generator.For] returns the [Schema] of the params a parameter of a Go type
// takes, as package [github.com/toolrpc/toolrpc/service] binds them (the binder's strict decoding) and
// validates them (validator, with WithRequiredStructEnabled). The property
// that makes it worth having is tested (TestAgreement, FuzzAgreement), for
// test types and for every method of the calculator and of a service of
// every method shape, against the schema the service publishes
// (service.MethodInfo.Params, its positional form included): whatever the
// server accepts, the schema accepts; and whatever the schema accepts, the
// server accepts, except where a rule the schema names in x-validate
// (below) is at stake.
//
// # Types
//
// The members of a struct are those the binder decodes, computed once for
// both (internal/fields): JSON names, "-", embedded structs and the
// dominance rules of encoding/json, ",string". Then:
//
//   - bool: boolean; string: string; float32, float64: number;
//   - integers: integer, with the range of the Go type (unsigned: minimum 0);
//   - []byte: a base64 string (its exact syntax as a pattern, and
//     contentEncoding) or an array of bytes, as encoding/json takes it;
//   - slices: items; arrays: items and exactly their length (minItems and
//     maxItems); maps: additionalProperties, and propertyNames for integer
//     keys (a pattern: what strconv.ParseInt accepts, range included);
//   - pointers: their element; null as below;
//   - structs: objects, closed (additionalProperties: false) unless
//     [Options.AllowUnknownFields]; each struct once, inlined where it is used
//     once, in $defs where used more often or recursively ("#": the root);
//   - any, json.RawMessage: anything; json.Number: a number, or a string
//     holding one; time.Time: a string, format date-time;
//     encoding.TextUnmarshaler: a string; the JSON form of a type with its
//     own UnmarshalJSON is unknown: anything, unless it is a [Provider];
//   - a field with ",string": a string holding its JSON (a pattern).
//
// # Absent members and null
//
// An absent member leaves its field at the zero value. JSON null binds
// only where Go has a null: it decodes to nil for pointers, slices and
// interfaces (json.RawMessage keeps "null"; UnmarshalJSON decides for its
// types). For a string, a number, a boolean, a struct, an array or a map
// null is a wrong type, refused like any other ("expected a string, got
// null"), and the schema does not admit it (as the official MCP Go SDK's
// schemas: a slice is ["array","null"], a map "object"). Validator then
// checks the value bound like any other. So a member is required when its
// zero value fails its rules, and null is allowed where the binder takes
// it and the value null decodes to passes them. The generator finds out by running the
// validator on those values, which gives validator's exact meaning:
// `validate:"gt=0"` on an int makes the member required and refuses null,
// `gte=0` does neither; any rule on a pointer (except after omitempty)
// refuses nil, so `min=3` on a *int requires the member. Where the answer
// could depend on more than the value (cross-field rules, custom rules,
// the time), the member is taken as optional: the schema says less, never
// something false.
//
// # Rules
//
// A validate tag is read as validator runs it: rules in order, the
// alternatives of a|b as anyOf, omitempty (and omitzero, omitnil) as
// "the value validator finds empty, or the rules after it", dive (with
// keys...endkeys) into items, additionalProperties and propertyNames.
// The rules it maps:
//
//   - required: a non-zero value: minLength 1 on a string, const true on a
//     bool, not 0 on a number, not the zero object on a struct; on a
//     slice, map or pointer, only that it is not null ([] is a value);
//   - len, min, max, gt, gte, lt, lte: lengths in characters (as validator
//     counts runes) on strings, items on slices, members on maps, bounds on
//     numbers (parameters read as validator reads them: 0x10, 1s on a
//     time.Duration); on an array, its fixed length decides at once;
//   - eq, ne: const and not const (on a string its text, on a slice or map
//     its length); oneof: enum (of integers, those validator can match);
//   - unique: uniqueItems (an element of a scalar type takes no null, so
//     equal elements come from equal JSON values only);
//   - alpha, alphanum, alphaunicode, alphanumunicode, numeric, number,
//     hexadecimal, ascii, printascii, startswith, endswith, contains,
//     excludes, startsnotwith, endsnotwith, containsany, excludesall:
//     pattern; uuid, uuid4, hostname: pattern (validator's syntax) and
//     format;
//   - email, url, uri, ipv4, ipv6, datetime (RFC 3339 or a date): format,
//     an annotation in JSON Schema 2020-12 that validators need not check,
//     and named in x-validate, as validator's checks are its own;
//   - lowercase, uppercase: pattern for ASCII letters, named in x-validate.
//
// # x-validate
//
// A rule the schema cannot say exactly is kept, never dropped: the schema
// names it in x-validate, where it applies ("eqfield=Other"), with what
// the schema can say beside it. So are the decoders of types that decode
// themselves ("time.Time.UnmarshalJSON"), and, on an object, the fields
// validator checks that JSON never sets ("Hidden: max=1").
//
// # Descriptions
//
// A field's description is its jsonschema tag, the whole of it:
// `jsonschema:"the divisor"`, as the MCP Go SDK reads it, so that structs
// written for it keep their descriptions. As there, a tag that starts with
// WORD= is refused: in other libraries it carries keywords (required,
// minimum) that would compete with the validate tag, the one source of the
// rules.
//
// # x-mcp-header
//
// A field tagged `mcp:"header=Region"` has the x-mcp-header annotation
// Region: an MCP tool's argument that a client mirrors in the HTTP header
// Mcp-Param-Region (MCP 2026-07-28, SEP-2243). The tag knows no other key.
// Package mcp judges whether the annotation may stand where it is, and
// checks the header.
//
// # What the schema cannot say
//
//   - Number spelling and rounding: the binder refuses an integer written
//     with a fraction or an exponent (1.0, 1e2) and a float beyond its Go
//     type's range, and numbers are compared after rounding to their Go
//     type (a float32 near a bound; -0.0, which is not the zero value);
//     JSON Schema compares exact values.
//   - Duplicates: a member given twice, or a map key spelled twice ("1" and
//     "01" for an int key); JSON Schema reads the last.
//   - Validations registered with RegisterStructValidation or
//     RegisterCustomTypeFunc, and types that implement validator.Valuer:
//     they are not in the tags.
//   - The schema a [Provider] supplies: it is the type's promise, which
//     its UnmarshalJSON, or the method that takes it, keeps or not; the
//     server never validates against a schema.
//   - The params as a whole: a "_meta" member (the protocol's, never a
//     param) and the positional form of a struct's params belong to the
//     service.
package schema
