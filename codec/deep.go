package codec

import (
	"fmt"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// deepResponse classifies a frame nested deeper than maxDepth whose
// envelope, an object, is shaped as a response: valid JSON
// throughout, with a result or an error member and no method. Such a frame
// is the peer's answer to a call of ours, too deep to read, and is a
// malformed Response (never answered, as no response is): the call it
// answers fails at once instead of waiting for an answer that has come.
// Any other frame gets ok false, and is answered as too deep, to null.
//
// The frame is scanned again by jsonx.Members, its values without a depth
// limit (the scan is iterative: its stack of open containers grows on the
// heap, about 2 to 5 bytes a container), so this costs time and memory
// linear in the frame.
func deepResponse(frame []byte, maxDepth int) (m Message, ok bool) {
	var v [4][]byte // method, id, result, error: the last of each, as for any response
	if !jsonx.Members(frame, responseMembers, v[:]) || v[0] != nil || v[2] == nil && v[3] == nil {
		return Message{}, false
	}
	m = Message{Kind: Response, Err: &Error{Code: InvalidRequest, Message: fmt.Sprintf("response nested more than %d levels deep", maxDepth)}}
	if v[1] != nil && jsonx.IsID(v[1]) {
		m.ID = v[1]
	}
	return m, true
}

// responseMembers are the members deepResponse looks at.
var responseMembers = []string{"method", "id", "result", "error"}
