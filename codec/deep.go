package codec

import "github.com/toolrpc/toolrpc/internal/scan"

// deepResponse classifies a frame nested deeper than maxDepth whose
// envelope, at frame[i], an object, is shaped as a response: valid JSON
// throughout, with a result or an error member and no method. Such a frame
// is the peer's answer to a call of ours, too deep to read, and is a
// malformed Response (never answered, as no response is): the call it
// answers fails at once instead of waiting for an answer that has come.
// Any other frame gets ok false, and is answered as too deep, to null.
//
// The frame is scanned again, its values without a depth limit (the scan
// is iterative: its stack of open containers grows on the heap, about 2 to
// 5 bytes a container), so this costs time and memory linear in the frame.
func deepResponse(frame []byte, i, maxDepth int) (m Message, ok bool) {
	if i >= len(frame) || frame[i] != '{' {
		return Message{}, false
	}
	var flags int
	var id []byte // the last one, as for any response
	mem := scan.ObjectMembers(frame, i)
	for {
		key, at, done, st := mem.Next()
		if st != scan.OK {
			return Message{}, false
		}
		if done {
			break
		}
		if mem.End, st = scan.Value(frame, at, 1, scan.Unlimited); st != scan.OK {
			return Message{}, false
		}
		var bit int
		switch string(key) {
		case "method":
			bit = hasMethod
		case "id":
			bit, id = hasID, frame[at:mem.End]
		case "result":
			bit = hasResult
		case "error":
			bit = hasError
		}
		flags |= bit
	}
	if scan.SkipSpace(frame, mem.End) != len(frame) || flags&hasMethod != 0 || flags&(hasResult|hasError) == 0 {
		return Message{}, false
	}
	m = Message{Kind: Response, Err: Errorf(InvalidRequest, "response nested more than %d levels deep", maxDepth)}
	if id != nil && IsID(id) {
		m.ID = id
	}
	return m, true
}
