// Package codec is the wire format of toolrpc: JSON-RPC 2.0 messages, one per
// line (newline-delimited JSON).
//
// A Reader splits its input into frames, one per line. A Decoder classifies
// each frame into messages (requests, notifications, responses, or invalid
// ones with the exact error to answer), keeping ids and params as the raw
// tokens that came, so an id is echoed byte for byte. The Append functions
// encode messages as compact single lines, and a Writer writes lines from many
// goroutines without interleaving them. Error is the JSON-RPC error object,
// and the Code constants name every code toolrpc uses; package rpc offers
// them under the same names, so that a tool never imports codec for its
// errors. Echo bounds what an answer or a log record repeats of a string a
// peer sent (MaxEcho bytes).
//
// The message of an InvalidRequest error is the specification's, "Invalid
// Request"; its data, an InvalidRequestData, says which rule the message
// broke (params must be an object or an array, a batch must not be empty, a
// limit passed...), in fixed words of toolrpc's own, never text the peer
// sent.
//
// The package knows nothing of handlers or connections; package rpc builds
// on it.
package codec
