package schema_test

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/fields"
	"github.com/toolrpc/toolrpc/schema"
)

// The generator of params: values for a Go type, drawn from candidates
// that its validate tag suggests (its parameters, and each side of them),
// that its type suggests (its range, its zero, null) and that it does not
// take (other JSON types, unknown members). Then, so that most cases are
// near the line between accepted and refused rather than far from it:
// cases repaired until the server accepts them, and mutants of those, one
// value changed at a random place.

type gen struct {
	r     *rand.Rand
	typ   reflect.Type   // what the params bind into (nil: any JSON)
	tuple []reflect.Type // or: one value per parameter, by position
}

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	timeType            = reflect.TypeFor[time.Time]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	providerType        = reflect.TypeFor[schema.Provider]()
)

// generate returns about n distinct params for s's method: a quarter drawn
// at random, the rest near accepted params: each place of one changed to
// null, to its zero, to another value, left out, or (an object) given an
// unknown member or just one of its members.
func generate(s *subject, seed uint64, n int) [][]byte {
	g := &gen{r: rand.New(rand.NewPCG(seed, 42)), typ: s.typ, tuple: s.tuple}
	t := s.typ
	seen := map[string]bool{}
	var out [][]byte
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil || len(b) == 0 || (b[0] != '{' && b[0] != '[') || seen[string(b)] {
			return
		}
		seen[string(b)] = true
		out = append(out, b)
	}
	top := topTag(t)
	for range n / 4 {
		add(g.top())
	}
	var near [][]byte
	for tries := 0; len(near) < 3*n && tries < 200; tries++ {
		base, ok := s.repair(g, g.top(), t, top)
		if !ok {
			continue
		}
		add(base)
		var places [][]segment
		collect(base, nil, &places)
		for _, p := range places {
			for _, m := range g.variants(base, t, top, p) {
				if b, err := json.Marshal(m); err == nil && !seen[string(b)] {
					seen[string(b)] = true
					near = append(near, b)
				}
			}
		}
	}
	g.r.Shuffle(len(near), func(i, j int) { near[i], near[j] = near[j], near[i] })
	out = append(out, near[:min(len(near), n-len(out))]...)
	if s.arrSchema != nil {
		g.positional(out, seen)
	}
	return out
}

// top returns random params: a value of g.typ, or an array of one value
// per parameter of g.tuple (sometimes one too few or too many).
func (g *gen) top() any {
	if g.tuple == nil {
		return g.value(g.typ, topTag(g.typ), 0)
	}
	n := len(g.tuple)
	switch g.r.IntN(10) {
	case 0:
		n--
	case 1:
		n++
	}
	out := make([]any, max(n, 0))
	for j := range out {
		if j < len(g.tuple) {
			out[j] = g.value(g.tuple[j], topTag(g.tuple[j]), 0)
		} else {
			out[j] = g.value(nil, "", 1)
		}
	}
	return out
}

// positional rewrites about a quarter of the objects in cases, params of a
// method of one struct parameter, in their positional form: one value per
// member, in order (a member left out: its zero, or null), sometimes one
// too few or too many.
func (g *gen) positional(cases [][]byte, seen map[string]bool) {
	st := g.typ
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	fs := fields.Of(st)
	for i, b := range cases {
		if g.r.IntN(4) != 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var m map[string]any
		if d.Decode(&m) != nil || m == nil {
			continue
		}
		arr := make([]any, len(fs))
		for j, f := range fs {
			if v, ok := m[f.Name]; ok {
				arr[j] = v
			} else {
				arr[j] = zeroJSON(f.Type)
			}
		}
		switch g.r.IntN(8) {
		case 0:
			arr = arr[:len(arr)-1]
		case 1:
			arr = append(arr, g.value(nil, "", 1))
		}
		if nb, err := json.Marshal(arr); err == nil && !seen[string(nb)] {
			seen[string(nb)] = true
			cases[i] = nb
		}
	}
}

// variants returns copies of v changed at path.
func (g *gen) variants(v any, t reflect.Type, tag string, path []segment) []any {
	pt, ptag := g.typeAt(t, tag, path)
	set := func(nv any) any {
		c := deepCopy(v)
		if len(path) == 0 {
			return nv
		}
		parent := at(c, path[:len(path)-1])
		switch p := parent.(type) {
		case map[string]any:
			p[path[len(path)-1].name] = nv
		case []any:
			p[path[len(path)-1].index] = nv
		}
		return c
	}
	another := func() any {
		if len(path) == 0 {
			return g.top()
		}
		nv := g.value(pt, ptag, 1)
		if nv != nil && g.quotedAt(t, tag, path) && g.r.IntN(5) != 0 {
			b, _ := json.Marshal(nv)
			nv = string(b)
		}
		return nv
	}
	out := []any{set(nil), set(another()), set(another()), set(another())}
	if z := zeroJSON(pt); z != nil {
		out = append(out, set(z))
	}
	if len(path) > 0 {
		c := deepCopy(v)
		if p, ok := at(c, path[:len(path)-1]).(map[string]any); ok {
			delete(p, path[len(path)-1].name)
			out = append(out, c)
		}
	}
	for pt != nil && pt.Kind() == reflect.Pointer {
		pt = pt.Elem()
	}
	if pt != nil { // empty, which is not null
		switch pt.Kind() {
		case reflect.Slice, reflect.Array:
			out = append(out, set([]any{}))
		case reflect.Map, reflect.Struct:
			out = append(out, set(map[string]any{}))
		}
	}
	switch cur := at(v, path).(type) {
	case map[string]any:
		c := deepCopy(v)
		at(c, path).(map[string]any)["zz_unknown"] = true
		out = append(out, c)
		if pt != nil && pt.Kind() == reflect.Map { // one more entry
			for range 3 {
				c := deepCopy(v)
				at(c, path).(map[string]any)[g.key(pt.Key(), keyTag(ptag))] = g.value(pt.Elem(), elemTag(ptag), 1)
				out = append(out, c)
			}
		}
		if pt != nil && pt.Kind() == reflect.Struct {
			for _, f := range fields.Of(pt) {
				out = append(out, set(map[string]any{f.Name: nil}))
				if z := zeroJSON(f.Type); z != nil {
					out = append(out, set(map[string]any{f.Name: z}))
				}
				if _, ok := cur[f.Name]; !ok { // a member added
					c := deepCopy(v)
					at(c, path).(map[string]any)[f.Name] = g.value(f.Type, f.Tag.Get("validate"), 1)
					out = append(out, c)
				}
			}
		}
	case []any:
		// One more element: null, a zero, the first again.
		var et reflect.Type
		if pt != nil && (pt.Kind() == reflect.Slice || pt.Kind() == reflect.Array) {
			et = pt.Elem()
		}
		more := []any{nil, zeroJSON(et)}
		if len(cur) > 0 {
			more = append(more, deepCopy(cur[0]))
		}
		for _, e := range more {
			out = append(out, set(append(slices.Clone(cur), e)))
		}
		if len(cur) > 0 { // one fewer
			out = append(out, set(slices.Clone(cur[:len(cur)-1])))
		}
	}
	return out
}

// typeAt is typeAt for params whose type is t with tag, or g.tuple.
func (g *gen) typeAt(t reflect.Type, tag string, path []segment) (reflect.Type, string) {
	if g.tuple == nil {
		return typeAt(t, tag, path)
	}
	if len(path) == 0 || path[0].index < 0 || path[0].index >= len(g.tuple) {
		return nil, ""
	}
	pt := g.tuple[path[0].index]
	return typeAt(pt, topTag(pt), path[1:])
}

// quotedAt is quotedAt for params whose type is t with tag, or g.tuple.
func (g *gen) quotedAt(t reflect.Type, tag string, path []segment) bool {
	if g.tuple == nil {
		return quotedAt(t, tag, path)
	}
	if len(path) < 2 || path[0].index < 0 || path[0].index >= len(g.tuple) {
		return false
	}
	pt := g.tuple[path[0].index]
	return quotedAt(pt, topTag(pt), path[1:])
}

// typeAt returns the type and tag of the value at path in a value of type
// t with tag (nil: not known).
func typeAt(t reflect.Type, tag string, path []segment) (reflect.Type, string) {
	for _, seg := range path {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == nil:
			return nil, ""
		case seg.index >= 0 && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			t, tag = t.Elem(), elemTag(tag)
		case seg.index < 0:
			var ok bool
			if t, tag, ok = member(t, tag, seg.name); !ok {
				return nil, ""
			}
		default:
			return nil, ""
		}
	}
	return t, tag
}

// topTag is how package service validates a parameter of type t: a slice
// of structs, each element.
func topTag(t reflect.Type) string {
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Struct {
		return "dive"
	}
	return ""
}

// repair changes v where the server finds problems, until it accepts v.
func (s *subject) repair(g *gen, v any, t reflect.Type, tag string) (any, bool) {
	for range 40 {
		b, err := json.Marshal(v)
		if err != nil || len(b) == 0 || (b[0] != '{' && b[0] != '[') {
			return nil, false
		}
		ok, problems, err := s.serve(b)
		if err != nil {
			return nil, false
		}
		if ok {
			return v, true
		}
		for _, p := range problems {
			path := splitPath(p.Field)
			drop := p.Rule == "unknown" || g.r.IntN(5) == 0
			c, _ := v.([]any)
			switch {
			case len(path) == 0:
				v = g.top()
			case g.tuple == nil:
				v = g.replaceAt(v, t, tag, path, drop)
			case c == nil || path[0].index < 0 || path[0].index >= min(len(c), len(g.tuple)):
				v = g.top()
			default:
				i := path[0].index
				c[i] = g.replaceAt(c[i], g.tuple[i], topTag(g.tuple[i]), path[1:], drop)
			}
		}
	}
	return nil, false
}

// replaceAt returns v with the value at path replaced by a new one (or,
// when drop and it is a member, left out).
func (g *gen) replaceAt(v any, t reflect.Type, tag string, path []segment, drop bool) any {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(path) == 0 {
		return g.value(t, tag, 1)
	}
	seg := path[0]
	switch c := v.(type) {
	case map[string]any:
		ft, ftag, known := member(t, tag, seg.name)
		if len(path) == 1 && (drop || !known) {
			delete(c, seg.name)
			return c
		}
		c[seg.name] = g.replaceAt(c[seg.name], ft, ftag, path[1:], drop)
		return c
	case []any:
		if seg.index < 0 || seg.index >= len(c) {
			return g.value(t, tag, 1)
		}
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		c[seg.index] = g.replaceAt(c[seg.index], et, elemTag(tag), path[1:], drop)
		return c
	}
	return g.value(t, tag, 1)
}

// member returns the type and tag of the member name of a value of type t
// (a struct, or a map) with tag.
func member(t reflect.Type, tag, name string) (reflect.Type, string, bool) {
	switch {
	case t == nil:
		return nil, "", false
	case t.Kind() == reflect.Map:
		return t.Elem(), elemTag(tag), true
	case t.Kind() == reflect.Struct:
		for _, f := range fields.Of(t) {
			if f.Name == name {
				return f.Type, f.Tag.Get("validate"), true
			}
		}
	}
	return nil, "", false
}

// quotedAt reports whether the value at path is a field with the ",string"
// option.
func quotedAt(t reflect.Type, tag string, path []segment) bool {
	if len(path) == 0 || path[len(path)-1].index >= 0 {
		return false
	}
	pt, _ := typeAt(t, tag, path[:len(path)-1])
	for pt != nil && pt.Kind() == reflect.Pointer {
		pt = pt.Elem()
	}
	if pt == nil || pt.Kind() != reflect.Struct {
		return false
	}
	for _, f := range fields.Of(pt) {
		if f.Name == path[len(path)-1].name {
			return f.Quoted
		}
	}
	return false
}

func collect(v any, path []segment, out *[][]segment) {
	*out = append(*out, slices.Clone(path))
	switch c := v.(type) {
	case map[string]any:
		for k, e := range c {
			collect(e, append(path, segment{name: k, index: -1}), out)
		}
	case []any:
		for i, e := range c {
			collect(e, append(path, segment{index: i}), out)
		}
	}
	slices.SortFunc(*out, func(a, b []segment) int { return strings.Compare(pathString(a), pathString(b)) })
}

func pathString(p []segment) string {
	var b strings.Builder
	for _, s := range p {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			b.WriteString("." + s.name)
		}
	}
	return b.String()
}

func at(v any, path []segment) any {
	for _, s := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[s.name]
		case []any:
			v = c[s.index]
		default:
			return nil
		}
	}
	return v
}

func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		for k, e := range c {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(c))
		for i, e := range c {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// elemTag is the part of tag that dive hands to each element.
func elemTag(tag string) string {
	parts := strings.Split(tag, ",")
	i := slices.Index(parts, "dive")
	if i < 0 {
		return ""
	}
	i++
	if i < len(parts) && parts[i] == "keys" {
		for i < len(parts) && parts[i] != "endkeys" {
			i++
		}
		i++
	}
	if i >= len(parts) {
		return ""
	}
	return strings.Join(parts[i:], ",")
}

// keyTag is the part of tag between keys and endkeys.
func keyTag(tag string) string {
	_, rest, ok := strings.Cut(tag, "keys,")
	if !ok {
		return ""
	}
	keys, _, _ := strings.Cut(rest, ",endkeys")
	return keys
}

// params lists the parameters of the rules in tag (up to a dive).
func params(tag string) []string {
	var out []string
	for _, part := range strings.Split(tag, ",") {
		if part == "dive" {
			break
		}
		for _, alt := range strings.Split(part, "|") {
			_, p, ok := strings.Cut(alt, "=")
			if !ok {
				continue
			}
			p = strings.ReplaceAll(p, "0x2C", ",")
			out = append(out, p)
			if strings.Contains(p, " ") { // oneof
				out = append(out, oneofSplit(p)...)
			}
		}
	}
	return out
}

func oneofSplit(p string) []string {
	var out []string
	for p != "" {
		p = strings.TrimLeft(p, " ")
		if strings.HasPrefix(p, "'") {
			end := strings.Index(p[1:], "'")
			if end < 0 {
				break
			}
			out = append(out, p[1:end+1])
			p = p[end+2:]
			continue
		}
		w, rest, _ := strings.Cut(p, " ")
		out = append(out, w)
		p = rest
	}
	return out
}

func (g *gen) pick(xs ...any) any { return xs[g.r.IntN(len(xs))] }

// either picks from bounds half of the time (if any), else from others.
func (g *gen) either(bounds, others []string) string {
	if len(bounds) > 0 && g.r.IntN(2) == 0 {
		return bounds[g.r.IntN(len(bounds))]
	}
	return others[g.r.IntN(len(others))]
}

func num(s string) json.Number { return json.Number(s) }

// value returns a random JSON value for a value of type t checked by tag
// (nil t: any JSON).
func (g *gen) value(t reflect.Type, tag string, depth int) any {
	if t == nil || t.Kind() == reflect.Interface || t == rawMessageType {
		return g.anyJSON(depth)
	}
	switch g.r.IntN(12) {
	case 0: // another JSON type, or null
		return g.pick(nil, num("1"), "x", true, []any{}, map[string]any{})
	case 1: // what decodes to the zero value: where omitempty and required look
		if z := zeroJSON(t); z != nil {
			return z
		}
		switch t.Kind() {
		case reflect.Struct:
			return map[string]any{}
		case reflect.Slice, reflect.Map, reflect.Pointer:
			return nil
		}
	}
	switch {
	case t.Kind() == reflect.Pointer:
		if g.r.IntN(4) == 0 || depth > 4 {
			return nil
		}
		return g.value(t.Elem(), tag, depth)
	case t.Implements(providerType) || reflect.PointerTo(t).Implements(providerType):
		return g.pick("low", "high", "mid", nil, num("1"))
	case t == timeType:
		return g.pick("2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5+01:00", "0001-01-01T00:00:00Z",
			"2024-13-01T00:00:00Z", "2024-01-02", "nope", nil)
	case t == numberType:
		return g.pick(num("1"), num("2.5"), "3", "-4.5e2", "x", "", nil, true)
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return g.pick("1.2.3.4", "::1", "", "nope", nil)
	}
	ps := params(tag)
	switch t.Kind() {
	case reflect.Bool:
		return g.pick(true, false, true, false, nil, "true")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return g.integer(t, ps)
	case reflect.Float32, reflect.Float64:
		return g.float(ps)
	case reflect.String:
		return g.str(ps)
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && g.r.IntN(2) == 0 {
			return g.pick("", "AAEC", "AA==", "AAE=", "A", "!!", "AA\n==", "AAECAw==", nil)
		}
		if depth > 4 {
			return []any{}
		}
		if t.Kind() == reflect.Slice && g.r.IntN(8) == 0 {
			return nil
		}
		n := g.length(t, ps)
		out := make([]any, n)
		if n >= 2 && g.r.IntN(6) == 0 { // null and a zero: equal once decoded
			out[0], out[1] = nil, zeroJSON(t.Elem())
		}
		for i := range out {
			if i < 2 && out[0] == nil && n >= 2 && out[1] != nil {
				continue
			}
			if i > 0 && g.r.IntN(5) == 0 {
				out[i] = deepCopy(out[i-1]) // a duplicate, for unique
				continue
			}
			out[i] = g.value(t.Elem(), elemTag(tag), depth+1)
		}
		return out
	case reflect.Map:
		if g.r.IntN(8) == 0 {
			return nil
		}
		m := map[string]any{}
		if depth > 4 {
			return m
		}
		for range g.length(t, ps) {
			k := g.key(t.Key(), keyTag(tag))
			m[k] = g.value(t.Elem(), elemTag(tag), depth+1)
		}
		return m
	case reflect.Struct:
		m := map[string]any{}
		if depth > 4 {
			return m
		}
		sparse := g.r.IntN(10) // out of 10, how many members are left out
		for _, f := range fields.Of(t) {
			if g.r.IntN(10) < sparse {
				continue
			}
			v := g.value(f.Type, f.Tag.Get("validate"), depth+1)
			if f.Quoted && v != nil && g.r.IntN(5) != 0 {
				b, _ := json.Marshal(v)
				v = string(b)
			}
			m[f.Name] = v
		}
		if g.r.IntN(10) == 0 {
			m["zz_unknown"] = "x"
		}
		return m
	}
	return nil
}

func (g *gen) length(t reflect.Type, ps []string) int {
	if t.Kind() == reflect.Array && g.r.IntN(4) != 0 {
		return t.Len()
	}
	if len(ps) > 0 && g.r.IntN(2) == 0 {
		if n, err := strconv.Atoi(ps[g.r.IntN(len(ps))]); err == nil && n >= 0 && n < 10 {
			return max(0, n+g.r.IntN(3)-1)
		}
	}
	return g.r.IntN(5)
}

func (g *gen) key(kt reflect.Type, tag string) string {
	switch kt.Kind() {
	case reflect.String:
		ks := []string{"a", "k1", "kk", "key", "x", "", "abcd", "é", "k", "kx"}
		for _, p := range params(tag) {
			ks = append(ks, p, p+"x", strings.Repeat("k", max(0, atoi(p))))
		}
		return ks[g.r.IntN(len(ks))]
	}
	return g.pick("1", "-5", "+7", "007", "x", "300", "-129", "127", "-0", "0", "65535", "").(string)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return min(n, 20)
}

func (g *gen) integer(t reflect.Type, ps []string) any {
	xs := []string{"0", "1", "-1", "2", "3", "5", "42", "100", "101", "-5"}
	bits := t.Bits()
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
		xs = append(xs, new(big.Int).Sub(m, big.NewInt(1)).String(), m.String())
	} else {
		m := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
		xs = append(xs, new(big.Int).Sub(m, big.NewInt(1)).String(), m.String(),
			new(big.Int).Neg(m).String(), new(big.Int).Sub(new(big.Int).Neg(m), big.NewInt(1)).String())
	}
	var bounds []string
	for _, p := range ps {
		if n, ok := new(big.Int).SetString(p, 0); ok {
			for d := int64(-1); d <= 1; d++ {
				bounds = append(bounds, new(big.Int).Add(n, big.NewInt(d)).String())
			}
		}
		if d, err := time.ParseDuration(p); err == nil {
			bounds = append(bounds, strconv.FormatInt(int64(d), 10), strconv.FormatInt(int64(d)-1, 10))
		}
	}
	if g.r.IntN(10) == 0 {
		return g.pick(num("1.5"), "1", true)
	}
	n := g.either(bounds, xs)
	switch g.r.IntN(8) { // an integer in another notation is that integer
	case 0:
		n += ".0"
	case 1:
		n += "e0"
	case 2:
		if n == "0" {
			n = "-0.0"
		}
	}
	return num(n)
}

func (g *gen) float(ps []string) any {
	xs := []string{"0", "1", "-1", "0.5", "1.5", "2.5", "-2.25", "100.125", "3", "0.25"}
	var bounds []string
	for _, p := range ps {
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			for _, d := range []float64{-1, -0.5, -0.25, 0, 0.25, 0.5, 1} {
				bounds = append(bounds, strconv.FormatFloat(f+d, 'f', -1, 64))
			}
		}
	}
	if g.r.IntN(10) == 0 {
		return g.pick("1", true)
	}
	return num(g.either(bounds, xs))
}

func (g *gen) str(ps []string) any {
	xs := []string{"", "a", "ab", "abc", "abcd", "hello", "ABC", "Hello", "abc123", "123", "-1.5", "0x1F",
		"é", "éé", "ééé", "日本語", "a b", "a@b.co", "not an email", "https://example.com/x", "/path",
		"123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-42d3-a456-426614174000", "host.example",
		"-bad-", "1.2.3.4", "::1", "::ffff:1.2.3.4", "2024-02-29", "2024-13-01", "red", "yes", "no",
		"\x00", "a\nb", "<b>", "bad", "!", "x,y", "true", "light blue", "#fff"}
	var bounds []string
	for _, p := range ps {
		bounds = append(bounds, p, p+"x", "x"+p, "x"+p+"x", strings.ToUpper(p))
		if n, err := strconv.Atoi(p); err == nil && n >= 0 && n < 12 {
			for d := -1; d <= 1; d++ {
				if n+d >= 0 {
					bounds = append(bounds, strings.Repeat("a", n+d), strings.Repeat("é", n+d))
				}
			}
		}
	}
	if g.r.IntN(12) == 0 {
		return g.pick(num("1"), true, []any{})
	}
	return g.either(bounds, xs)
}

func (g *gen) anyJSON(depth int) any {
	if depth > 3 {
		return g.pick(nil, num("1"), "s", true)
	}
	return g.pick(nil, num("1"), num("-2.5"), "s", "", true, false, []any{}, map[string]any{},
		[]any{num("1"), "a"}, map[string]any{"k": num("1")})
}

// zeroJSON is the JSON of the zero value of t, if it is a scalar.
func zeroJSON(t reflect.Type) any {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return false
	case reflect.String:
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return num("0")
	}
	return nil
}
