package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// The two floors: what serving costs with nothing but the standard library
// done the simplest way (floor-json), and with no JSON work at all
// (floor-io). Both read lines with a bufio.Scanner (no allocation per line)
// and handle one line at a time.

// maxLine is the floors' longest line, as for toolrpc: the 64 MiB line
// fits.
const maxLine = 128 << 20

func newLineScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return sc
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// floorJSON is the simplest possible stdlib server: read a line,
// json.Unmarshal it into a struct with json.RawMessage id and params,
// switch on the method, json.Marshal the response, write the line. A line
// that is an array is a batch, answered by an array.
func floorJSON(r io.Reader, w io.Writer) {
	sc := newLineScanner(r)
	for sc.Scan() {
		out, ok := floorServe(sc.Bytes())
		if !ok {
			continue
		}
		out = append(out, '\n')
		if _, err := w.Write(out); err != nil {
			return
		}
	}
}

// floorServe is floor-json's work on one message or batch (a line, or an
// HTTP body for floor-http): json.Unmarshal, the switch, json.Marshal. ok
// is false when there is nothing to answer (notifications alone).
func floorServe(msg []byte) (out []byte, ok bool) {
	if bytes.HasPrefix(bytes.TrimSpace(msg), []byte("[")) {
		var reqs []floorRequest
		if err := json.Unmarshal(msg, &reqs); err != nil {
			out, _ = json.Marshal(floorParseError())
			return out, true
		}
		resps := make([]floorResponse, 0, len(reqs))
		for i := range reqs {
			if reqs[i].ID != nil {
				resps = append(resps, floorAnswer(&reqs[i]))
			}
		}
		if len(resps) == 0 {
			return nil, false
		}
		out, _ = json.Marshal(resps)
		return out, true
	}
	var req floorRequest
	if err := json.Unmarshal(msg, &req); err != nil {
		out, _ = json.Marshal(floorParseError())
		return out, true
	}
	if req.ID == nil {
		return nil, false // a notification
	}
	resp := floorAnswer(&req)
	out, _ = json.Marshal(&resp)
	return out, true
}

func floorParseError() floorResponse {
	return floorResponse{JSONRPC: "2.0", Error: &floorError{-32700, "Parse error"}, ID: json.RawMessage("null")}
}

func floorAnswer(req *floorRequest) floorResponse {
	resp := floorResponse{JSONRPC: "2.0", ID: req.ID}
	named := bytes.HasPrefix(bytes.TrimSpace(req.Params), []byte("{"))
	var err error
	switch req.Method {
	case "sum":
		if named {
			var p struct {
				A int `json:"a"`
				B int `json:"b"`
			}
			err = json.Unmarshal(req.Params, &p)
			resp.Result = p.A + p.B
		} else {
			var p [2]int
			err = json.Unmarshal(req.Params, &p)
			resp.Result = p[0] + p[1]
		}
	case "echo":
		if named {
			var p struct {
				Text string `json:"text"`
			}
			err = json.Unmarshal(req.Params, &p)
			resp.Result = p.Text
		} else {
			var p [1]string
			err = json.Unmarshal(req.Params, &p)
			resp.Result = p[0]
		}
	default:
		resp.Error = &floorError{-32601, "Method not found"}
	}
	if err != nil {
		resp.Result, resp.Error = nil, &floorError{-32602, "Invalid params"}
	}
	return resp
}

// floorIO answers each line with a fixed response (result is the
// workload's result, the same for every call) with the id bytes spliced
// in: no JSON work, only a search for "id": (the driver writes the id
// first). A line starting with '[' is a batch: each "id": in it gets an
// entry. The output buffer is reused: nothing is allocated per line.
func floorIO(r io.Reader, w io.Writer, result []byte) {
	sc := newLineScanner(r)
	var out []byte
	for sc.Scan() {
		out = append(appendFixed(out[:0], sc.Bytes(), result), '\n')
		if _, err := w.Write(out); err != nil {
			return
		}
	}
}

// appendFixed appends floor-io's answer to msg (a line, or an HTTP body for
// floor-http-io): the fixed result with each id's bytes spliced in.
func appendFixed(out, msg, result []byte) []byte {
	idKey := []byte(`"id":`)
	batch := len(msg) > 0 && msg[0] == '['
	if batch {
		out = append(out, '[')
	}
	rest := msg
	for n := 0; ; n++ {
		i := bytes.Index(rest, idKey)
		if i < 0 {
			break
		}
		rest = rest[i+len(idKey):]
		end := bytes.IndexAny(rest, ",}")
		if end < 0 {
			break
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"jsonrpc":"2.0","result":`...)
		out = append(out, result...)
		out = append(out, `,"id":`...)
		out = append(out, rest[:end]...)
		out = append(out, '}')
		if !batch {
			break
		}
	}
	if batch {
		out = append(out, ']')
	}
	return out
}
