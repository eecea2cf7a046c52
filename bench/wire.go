package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// This file holds the driver's wire work: encoding request lines ahead of
// time, reading response lines into a reusable buffer, and scanning
// responses without allocating.

// lineReader reads lines with bufio.Reader.ReadSlice, gathering a line
// longer than its buffer into acc, which is kept from line to line: in the
// steady state no line costs an allocation, whatever its size.
type lineReader struct {
	r   *bufio.Reader
	acc []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// readLine returns the next line, '\n' included; it is valid until the next
// call.
func (l *lineReader) readLine() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	l.acc = append(l.acc[:0], line...)
	for {
		line, err = l.r.ReadSlice('\n')
		l.acc = append(l.acc, line...)
		if err != bufio.ErrBufferFull {
			return l.acc, err
		}
	}
}

// requestLine appends a request with the id first (so that floor-io finds
// it at once), params given as raw JSON, and no newline.
func requestLine(dst []byte, id, method string, params []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"method":"`...)
	dst = append(dst, method...)
	dst = append(dst, `","params":`...)
	dst = append(dst, params...)
	return append(dst, '}')
}

// idOffset is where the id starts in a line made by requestLine.
var idOffset = len(`{"jsonrpc":"2.0","id":`)

// payload returns n bytes of plain ASCII that every encoder writes as is
// (no escapes, no HTML-escaped characters).
func payload(n int) []byte {
	const pattern = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := 0; i < n; i += len(pattern) {
		copy(b[i:], pattern)
	}
	return b
}

// quoted returns the JSON string for a payload made by payload.
func quoted(p []byte) []byte {
	q := make([]byte, 0, len(p)+2)
	q = append(q, '"')
	q = append(q, p...)
	return append(q, '"')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

var errSyntax = errors.New("malformed JSON in response")

// skipString returns the index after the string that starts at b[i] ('"').
// Quotes are found with bytes.IndexByte, so a MiB-long string is scanned at
// memory speed; a quote is escaped when an odd run of backslashes precedes
// it.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j, nil
		}
	}
}

// skipValue returns the index after the JSON value that starts at b[i]. It
// checks the nesting, not the full grammar: the values it skips are the
// servers' output, checked by comparing the parts that matter.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errSyntax
	}
	start := i
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	if i == start {
		return 0, errSyntax
	}
	return i, nil
}

// scanObject scans the object starting at b[i], calls f with each
// member's key (its raw characters) and raw value, and returns the index
// after it.
func scanObject(b []byte, i int, f func(key, value []byte)) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
		end, err = skipValue(b, i)
		if err != nil {
			return 0, err
		}
		f(key, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// member returns the raw value of the member key of the object b, nil
// when it has none.
func member(b []byte, key string) ([]byte, error) {
	var v []byte
	_, err := scanObject(b, 0, func(k, val []byte) {
		if v == nil && string(k) == key {
			v = val
		}
	})
	return v, err
}

// response is what the driver checks in a response object.
type response struct {
	id, result, err []byte // raw values, nil when absent
	version         bool   // "jsonrpc":"2.0" present
}

// parseResponse scans the response object starting at b[i] and returns the
// index after it.
func parseResponse(b []byte, i int, r *response) (int, error) {
	*r = response{}
	return scanObject(b, i, func(key, v []byte) {
		switch string(key) {
		case "id":
			r.id = v
		case "result":
			r.result = v
		case "error":
			r.err = v
		case "jsonrpc":
			r.version = string(v) == `"2.0"`
		}
	})
}

// checkHead reports whether r is a result (not an error) for id.
func (r *response) checkHead(id []byte) error {
	switch {
	case r.err != nil:
		return fmt.Errorf("error response %s for id %s", clip(r.err), id)
	case !r.version:
		return fmt.Errorf(`response to id %s lacks "jsonrpc":"2.0"`, id)
	case !bytes.Equal(r.id, id):
		return fmt.Errorf("response id %s, want %s", clip(r.id), id)
	case r.result == nil:
		return fmt.Errorf("response to id %s has no result", id)
	}
	return nil
}

// check reports whether r answers id with want.
func (r *response) check(id, want []byte) error {
	if err := r.checkHead(id); err != nil {
		return err
	}
	if !bytes.Equal(r.result, want) {
		return fmt.Errorf("result %s for id %s, want %s", clip(r.result), id, clip(want))
	}
	return nil
}

// checkTool reports whether r answers id with an MCP tool result whose
// first content block is the text want (a raw JSON string), and which is
// not an error (isError absent or false). Other members (structuredContent,
// resultType, _meta) may be there.
func (r *response) checkTool(id, want []byte) error {
	if err := r.checkHead(id); err != nil {
		return err
	}
	var content, isError []byte
	_, err := scanObject(r.result, 0, func(k, v []byte) {
		switch string(k) {
		case "content":
			content = v
		case "isError":
			isError = v
		}
	})
	if err != nil {
		return fmt.Errorf("result %s for id %s: %v", clip(r.result), id, err)
	}
	if isError != nil && string(isError) != "false" {
		return fmt.Errorf("an isError result %s for id %s", clip(r.result), id)
	}
	if len(content) < 2 || content[0] != '[' {
		return fmt.Errorf("result %s for id %s has no content array", clip(r.result), id)
	}
	i := skipSpace(content, 1)
	end, err := skipValue(content, i)
	if err != nil {
		return fmt.Errorf("result %s for id %s: %v", clip(r.result), id, err)
	}
	var typ, text []byte
	if _, err := scanObject(content[i:end], 0, func(k, v []byte) {
		switch string(k) {
		case "type":
			typ = v
		case "text":
			text = v
		}
	}); err != nil || string(typ) != `"text"` || !bytes.Equal(text, want) {
		return fmt.Errorf("result %s for id %s, want the text %s", clip(r.result), id, clip(want))
	}
	return nil
}

// atoi parses a small non-negative decimal id; -1 if it is not one.
func atoi(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 160 {
		return fmt.Sprintf("%q... (%d bytes)", b[:160], len(b))
	}
	return fmt.Sprintf("%q", b)
}
