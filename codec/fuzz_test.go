package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// refClassify is an independent, slow classifier built on encoding/json,
// for differential fuzzing of Decoder. It renders messages as describe does,
// but without the Meta member and without error messages (the reasons of
// InvalidRequest errors stay).
func refClassify(frame []byte, maxDepth int) (out []string, batch bool) {
	if !validJSON(frame) {
		return []string{"invalid err=-32700"}, false
	}
	frame = bytes.TrimSpace(frame)
	if jsonDepth(frame) > maxDepth {
		// A lone object shaped as a response stays a (malformed) response.
		if env := refEnvelope(frame); frame[0] == '{' && strings.HasPrefix(env, "response") {
			resp, _, _ := strings.Cut(env, " result=")
			resp, _, _ = strings.Cut(resp, " error=")
			return []string{resp + " err=-32600"}, false
		}
		return []string{fmt.Sprintf("invalid err=-32600 (nested more than %d levels deep)", maxDepth)}, false
	}
	if frame[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(frame, &elems); err != nil {
			panic(err)
		}
		if len(elems) == 0 {
			return []string{"invalid err=-32600 (a batch must not be empty)"}, false
		}
		for _, e := range elems {
			out = append(out, refEnvelope(e))
		}
		return out, true
	}
	return []string{refEnvelope(frame)}, false
}

// jsonDepth is the nesting depth of a valid JSON text.
func jsonDepth(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

func refEnvelope(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return "invalid err=-32600 (a request must be a JSON object)"
	}
	members := map[string][]byte{}
	twice := map[string]bool{}
	dup, other := false, false
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, _ = dec.Token()
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		switch key {
		case "jsonrpc", "method", "params", "id", "result", "error":
			if _, ok := members[key]; ok {
				dup, twice[key] = true, true
			}
			members[key] = bytes.TrimSpace(v)
		default:
			other = true
		}
	}
	id, hasID := members["id"]
	validID := hasID && (id[0] == '"' || id[0] == '-' || id[0] == 'n' || ('0' <= id[0] && id[0] <= '9'))
	var s strings.Builder
	idPart := func() {
		if validID {
			s.WriteString(" id=" + string(id))
		}
	}
	var version string
	versionOK := json.Unmarshal(members["jsonrpc"], &version) == nil && version == "2.0" && members["jsonrpc"][0] == '"'
	_, hasMethod := members["method"]
	result, hasResult := members["result"]
	errv, hasError := members["error"]
	params, hasParams := members["params"]
	if !hasMethod && (hasResult || hasError) {
		s.WriteString("response")
		idPart()
		if hasResult {
			s.WriteString(" result=" + string(result))
		}
		if hasError {
			s.WriteString(" error=" + string(errv))
		}
		if dup || other || hasParams || !versionOK || (hasResult && hasError) || !validID || (hasError && errv[0] != '{') {
			s.WriteString(" err=-32600")
		}
		return s.String()
	}
	var method string
	if dup || other || hasResult || hasError || !versionOK || !hasMethod ||
		json.Unmarshal(members["method"], &method) != nil || members["method"][0] != '"' ||
		(hasID && !validID) || (hasParams && params[0] != '{' && params[0] != '[') {
		s.WriteString("invalid")
		if !twice["id"] { // an id given twice is answered null
			idPart()
		}
		s.WriteString(" err=-32600 (")
		switch {
		case !versionOK:
			s.WriteString("jsonrpc must be the string 2.0")
		case twice["jsonrpc"], twice["method"], twice["params"], twice["id"]:
			for _, k := range []string{"jsonrpc", "method", "params", "id"} {
				if twice[k] {
					s.WriteString(k + " given more than once")
					break
				}
			}
		case other || hasResult || hasError:
			s.WriteString("a request has no members but jsonrpc, method, params and id")
		case !hasMethod:
			s.WriteString("method is required")
		case members["method"][0] != '"':
			s.WriteString("method must be a string")
		case hasID && !validID:
			s.WriteString("id must be a string, a number or null")
		default:
			s.WriteString("params must be an object or an array")
		}
		s.WriteString(")")
		return s.String()
	}
	if hasID {
		s.WriteString("request id=" + string(id))
	} else {
		s.WriteString("notification")
	}
	s.WriteString(" method=" + method)
	if hasParams {
		s.WriteString(" params=" + string(params))
	}
	return s.String()
}

// describeForRef renders m as refClassify does.
func describeForRef(m Message) string {
	m.Meta = nil
	if m.Err != nil {
		m.Err = &Error{Code: m.Err.Code, Message: m.Err.Code.String(), Data: m.Err.Data}
	}
	return describe(m)
}

var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
	`{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":{"progressToken":"t"}},"id":"x"}`,
	`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`,
	`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"foo":"boo"},1]`,
	`{"jsonrpc":"2.0","result":19,"id":1}`,
	`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`,
	`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
	`[]`, `[1]`, `{}`, `1`, `{"jsonrpc":"2.0","method":"m","id":1,"id":2}`,
	"{\"jsonrpc\":\"2\\u002e0\",\"method\":\"\\u00e9\",\"id\":1.0e5}\r\n[\n\n",
}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s+"\n"+s), 4)
	}
	f.Fuzz(func(t *testing.T, in []byte, depth int) {
		depth = 1 + (depth&0xff)%20
		r := NewReader(bytes.NewReader(in), 1<<10)
		d := Decoder{MaxDepth: depth}
		for {
			frame, err := r.ReadFrame()
			var tooLarge *FrameTooLargeError
			if errors.As(err, &tooLarge) {
				continue
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(frame, '\n') >= 0 || isBlank(frame) || len(frame) > 1<<10 {
				t.Fatalf("bad frame %q", frame)
			}
			msgs, batch := d.Decode(frame)
			var got []string
			for _, m := range msgs {
				got = append(got, describeForRef(m))
			}
			want, wantBatch := refClassify(frame, depth)
			if batch != wantBatch || strings.Join(got, "\n") != strings.Join(want, "\n") {
				// A frame both too deep and broken may be reported either
				// way: the scan stops at the first problem it meets.
				if len(got) == 1 && strings.HasPrefix(got[0], "invalid err=-32600 (nested") && want[0] == "invalid err=-32700" {
					continue
				}
				t.Fatalf("frame %q (depth %d)\n got batch=%v %q\nwant batch=%v %q", frame, depth, batch, got, wantBatch, want)
			}
		}
	})
}
