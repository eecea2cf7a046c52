package codec

import (
	"fmt"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// Kind is what a message is.
type Kind uint8

// The kinds of message a frame holds.
const (
	// Invalid is the kind of a message that is not a valid request. Err is
	// the error to answer with, ID the id to answer to (nil: null). An
	// InvalidRequest Err carries an InvalidRequestData saying which rule
	// the message broke.
	Invalid Kind = iota
	// Request is the kind of a request object with an id; it must be
	// answered.
	Request
	// Notification is the kind of a request object without an id; it is
	// never answered.
	Notification
	// Response is the kind of a response to a request of ours. When Err is
	// not nil the response is malformed: it is never answered, and Err says
	// why.
	Response
)

var kindNames = [...]string{Invalid: "invalid", Request: "request", Notification: "notification", Response: "response"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Message is one JSON-RPC message of a frame, classified. Its byte slices
// alias the frame passed to [Decoder.Decode]; they are nil when the member is
// absent. ID, Params, Meta, Result and Error are raw JSON tokens exactly as
// they came; Method is the method name, unquoted and unescaped.
type Message struct {
	Kind   Kind
	ID     []byte // the id token; nil when absent (and, for Invalid, when not valid)
	Method []byte // the method name (decoded)
	Params []byte // the params object or array
	Meta   []byte // the "_meta" member of an object Params, when present
	Result []byte // a response's result
	Error  []byte // a response's error object
	Err    *Error // for Invalid, the error to answer; for Response, why it is malformed
}

// Default limits of a Decoder.
const (
	DefaultMaxDepth = 128
	DefaultMaxBatch = 1000
)

// Decoder classifies frames. Its zero value uses the default limits and is
// ready to use; a Decoder must not be used by two goroutines at once.
type Decoder struct {
	// MaxDepth bounds the nesting of arrays and objects in a frame, the
	// envelope included (a request with object params is 2 deep). A deeper
	// frame is answered InvalidRequest. Zero means DefaultMaxDepth.
	MaxDepth int
	// MaxBatch bounds the number of entries in a batch. A longer batch is
	// answered with one InvalidRequest. Zero means DefaultMaxBatch.
	MaxBatch int

	msgs []Message
}

// Decode classifies one frame: a single message, or the entries of a batch.
// Every problem is reported as a message of kind Invalid (with the error to
// answer), never as a Go error: a frame that is not valid JSON gives one
// Invalid message with ParseError, an empty batch one with InvalidRequest.
// batch is true only for a non-empty, valid batch, whose answers go back as
// one array.
//
// The messages alias frame and the Decoder's storage: they are valid until
// the next call of Decode.
func (d *Decoder) Decode(frame []byte) (msgs []Message, batch bool) {
	maxDepth := d.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	d.msgs = d.msgs[:0]
	i := scan.SkipSpace(frame, 0)
	if i < len(frame) && frame[i] == '[' {
		return d.decodeBatch(frame, i, maxDepth)
	}
	var m Message
	end, st := scanEnvelope(frame, i, 0, maxDepth, &m)
	if st == scan.OK && scan.SkipSpace(frame, end) != len(frame) {
		st = scan.Syntax
	}
	if st != scan.OK {
		m = frameError(st, maxDepth)
		if st == scan.TooDeep {
			if r, ok := deepResponse(frame, maxDepth); ok {
				m = r
			}
		}
	}
	d.msgs = append(d.msgs, m)
	return d.msgs, false
}

func (d *Decoder) decodeBatch(frame []byte, i, maxDepth int) ([]Message, bool) {
	maxBatch := d.MaxBatch
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	single := func(m Message) ([]Message, bool) {
		d.msgs = append(d.msgs[:0], m)
		return d.msgs, false
	}
	if maxDepth < 1 {
		return single(frameError(scan.TooDeep, maxDepth))
	}
	i = scan.SkipSpace(frame, i+1)
	if i < len(frame) && frame[i] == ']' {
		if scan.SkipSpace(frame, i+1) != len(frame) {
			return single(frameError(scan.Syntax, maxDepth))
		}
		return single(Message{Kind: Invalid, Err: invalidRequest(reasonEmptyBatch)})
	}
	n := 0
	for {
		var m Message
		var st scan.Status
		i, st = scanEnvelope(frame, i, 1, maxDepth, &m)
		if st != scan.OK {
			return single(frameError(st, maxDepth))
		}
		if n++; n <= maxBatch {
			d.msgs = append(d.msgs, m)
		}
		i = scan.SkipSpace(frame, i)
		if i >= len(frame) {
			return single(frameError(scan.Syntax, maxDepth))
		}
		if frame[i] == ',' {
			i++
			continue
		}
		if frame[i] != ']' || scan.SkipSpace(frame, i+1) != len(frame) {
			return single(frameError(scan.Syntax, maxDepth))
		}
		break
	}
	if n > maxBatch {
		return single(Message{Kind: Invalid, Err: invalidRequest(
			fmt.Sprintf("batch longer than the limit of %d entries", maxBatch))})
	}
	return d.msgs, true
}

// frameError is the message for a frame that cannot be read as messages.
func frameError(st scan.Status, maxDepth int) Message {
	if st == scan.TooDeep {
		return Message{Kind: Invalid, Err: invalidRequest(
			fmt.Sprintf("nested more than %d levels deep", maxDepth))}
	}
	return Message{Kind: Invalid, Err: &Error{Code: ParseError, Message: ParseError.String()}}
}

// member flags of an envelope object.
const (
	hasJSONRPC = 1 << iota
	hasMethod
	hasParams
	hasID
	hasResult
	hasError
	hasOther
)

// scanEnvelope scans the value at frame[i] (after white space) as one
// message, depth containers deep, and fills m. It reports a syntax or depth
// problem as a status, any other problem in m.
func scanEnvelope(frame []byte, i, depth, maxDepth int, m *Message) (int, scan.Status) {
	i = scan.SkipSpace(frame, i)
	if i >= len(frame) || frame[i] != '{' {
		end, st := scan.Value(frame, i, depth, maxDepth)
		*m = Message{Kind: Invalid, Err: invalidRequest(reasonNotObject)}
		return end, st
	}
	if depth+1 > maxDepth {
		return i, scan.TooDeep
	}
	var (
		flags, dups                int // the members present; those given twice
		jsonrpc, method, id        []byte
		methodEsc, jsonrpcEsc      bool
		params, meta, result, errv []byte
	)
	mem := scan.ObjectMembers(frame, i)
	for {
		key, at, done, st := mem.Next()
		if st != scan.OK {
			return at, st
		}
		if done {
			break
		}
		var valEsc bool
		switch {
		case at < len(frame) && frame[at] == '"':
			mem.End, valEsc, st = scan.String(frame, at)
		case at < len(frame) && frame[at] == '{' && string(key) == "params":
			mem.End, meta, st = jsonx.ObjectMember(frame, at, depth+1, maxDepth, "_meta")
		default:
			mem.End, st = scan.Value(frame, at, depth+1, maxDepth)
		}
		if st != scan.OK {
			return mem.End, st
		}
		val := frame[at:mem.End]
		var bit int
		switch string(key) {
		case "jsonrpc":
			bit, jsonrpc, jsonrpcEsc = hasJSONRPC, val, valEsc
		case "method":
			bit, method, methodEsc = hasMethod, val, valEsc
		case "params":
			bit, params = hasParams, val
		case "id":
			bit, id = hasID, val
		case "result":
			bit, result = hasResult, val
		case "error":
			bit, errv = hasError, val
		default:
			bit = hasOther
		}
		if flags&bit != 0 && bit != hasOther {
			dups |= bit
		}
		flags |= bit
	}
	i = mem.End

	// The object is valid JSON; now check it against the specification.
	validID := flags&hasID != 0 && jsonx.IsID(id)
	var answerID []byte
	if validID {
		answerID = id
	}
	okVersion := flags&hasJSONRPC != 0 && isString(jsonrpc, jsonrpcEsc, "2.0")
	if flags&hasMethod == 0 && flags&(hasResult|hasError) != 0 {
		// A response to one of our requests.
		*m = Message{Kind: Response, ID: answerID, Result: result, Error: errv}
		switch {
		case dups != 0 || flags&(hasOther|hasParams) != 0:
			m.Err = &Error{Code: InvalidRequest, Message: "response has members it must not have"}
		case !okVersion:
			m.Err = &Error{Code: InvalidRequest, Message: `response without "jsonrpc": "2.0"`}
		case flags&(hasResult|hasError) == hasResult|hasError:
			m.Err = &Error{Code: InvalidRequest, Message: "response has both result and error"}
		case !validID:
			m.Err = &Error{Code: InvalidRequest, Message: "response without a valid id"}
		case flags&hasError != 0 && errv[0] != '{':
			m.Err = &Error{Code: InvalidRequest, Message: "response error is not an object"}
		}
		return i, scan.OK
	}
	if dups != 0 || flags&(hasOther|hasResult|hasError) != 0 || !okVersion ||
		flags&hasMethod == 0 || method[0] != '"' ||
		(flags&hasID != 0 && !validID) ||
		(flags&hasParams != 0 && params[0] != '{' && params[0] != '[') {
		if dups&hasID != 0 {
			// Which id the peer meant cannot be told: JSON-RPC 2.0
			// section 5 answers such a request to null.
			answerID = nil
		}
		*m = Message{Kind: Invalid, ID: answerID,
			Err: invalidRequest(invalidReason(flags, dups, okVersion, validID, method))}
		return i, scan.OK
	}
	*m = Message{Kind: Notification, Method: scan.Unquote(method, methodEsc), Params: params, Meta: meta}
	if flags&hasID != 0 {
		m.Kind, m.ID = Request, id
	}
	return i, scan.OK
}

// The reasons of the InvalidRequest errors a Decoder answers with (see
// InvalidRequestData): fixed phrases, never text the peer sent.
const (
	reasonNotObject  = "a request must be a JSON object"
	reasonEmptyBatch = "a batch must not be empty"
	reasonVersion    = "jsonrpc must be the string 2.0"
	reasonMembers    = "a request has no members but jsonrpc, method, params and id"
	reasonNoMethod   = "method is required"
	reasonMethod     = "method must be a string"
	reasonID         = "id must be a string, a number or null"
	reasonParams     = "params must be an object or an array"
)

// invalidReason says which rule an object that is not a valid request
// broke (the first in the order checked), from what scanEnvelope found:
// the members present (flags), those given twice (dups), whether jsonrpc
// and the id are right, and the raw method.
func invalidReason(flags, dups int, okVersion, validID bool, method []byte) string {
	switch {
	case !okVersion:
		return reasonVersion
	case dups&hasJSONRPC != 0:
		return "jsonrpc given more than once"
	case dups&hasMethod != 0:
		return "method given more than once"
	case dups&hasParams != 0:
		return "params given more than once"
	case dups&hasID != 0:
		return "id given more than once"
	case flags&(hasOther|hasResult|hasError) != 0:
		return reasonMembers
	case flags&hasMethod == 0:
		return reasonNoMethod
	case method[0] != '"':
		return reasonMethod
	case flags&hasID != 0 && !validID:
		return reasonID
	}
	return reasonParams
}

// isString reports whether the raw token is the JSON string s.
func isString(tok []byte, escaped bool, s string) bool {
	return len(tok) > 0 && tok[0] == '"' && string(scan.Unquote(tok, escaped)) == s
}

// isBlank reports whether b holds nothing but JSON white space.
func isBlank(b []byte) bool {
	return scan.SkipSpace(b, 0) == len(b)
}
