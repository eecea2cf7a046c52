package mcp

import (
	"encoding/base64"
	"strconv"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// AudioContent is a sound: its bytes (sent in base64) and its MIME type
// (2025-03-26 and later; a 2024-11-05 session, whose revision has no
// audio, gets an embedded blob resource whose URI is the sound's data:
// URI).
type AudioContent struct {
	Data     []byte
	MIMEType string
}

func (c AudioContent) appendContent(dst []byte) []byte {
	return appendMedia(dst, "audio", c.Data, c.MIMEType)
}

// appendMedia appends a block of type typ ("image", "audio") holding data
// (in base64) of MIME type mime.
func appendMedia(dst []byte, typ string, data []byte, mime string) []byte {
	dst = append(dst, `{"type":"`+typ+`","data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, data)
	dst = append(dst, `","mimeType":`...)
	dst = jsonx.AppendString(dst, mime)
	return append(dst, '}')
}

// EmbeddedResource is a resource's contents sent in the content itself
// (type "resource"): a tool's result, a prompt's message. Its URI is
// required.
type EmbeddedResource struct {
	Resource ResourceContents
}

func (c EmbeddedResource) appendContent(dst []byte) []byte {
	dst = append(dst, `{"type":"resource","resource":`...)
	dst = c.Resource.appendTo(dst, "", "")
	return append(dst, '}')
}

// ResourceLink is a link to a resource the client may read
// (resources/read) or fetch (type "resource_link", 2025-06-18 and later;
// a session of an earlier revision gets a text block holding its URI):
// its URI and name are required, the rest optional.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Size is the resource's size in bytes, if known; 0 leaves it out.
	Size int64
}

func (c ResourceLink) appendContent(dst []byte) []byte {
	dst = append(dst, `{"type":"resource_link",`...)
	dst = appendResource(dst, true, c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Size)
	return append(dst, '}')
}

// ResourceContents is what reading a resource gives, one of the contents
// of a resources/read result or of an [EmbeddedResource]: text, or, when
// Blob is not nil, bytes (sent in base64).
type ResourceContents struct {
	// URI is the URI the contents are of. In a resources/read result, ""
	// means the URI read.
	URI string
	// MIMEType is the contents' media type. In a resources/read result,
	// "" means the [Resource]'s.
	MIMEType string
	// Text is the contents, when Blob is nil.
	Text string
	// Blob is the contents, when they are bytes.
	Blob []byte
}

// appendTo appends c, its URI uri and its MIME type mime if it has none.
func (c *ResourceContents) appendTo(dst []byte, uri, mime string) []byte {
	if c.URI != "" {
		uri = c.URI
	}
	if c.MIMEType != "" {
		mime = c.MIMEType
	}
	dst = append(dst, `{"uri":`...)
	dst = jsonx.AppendString(dst, uri)
	if mime != "" {
		dst = append(dst, `,"mimeType":`...)
		dst = jsonx.AppendString(dst, mime)
	}
	if c.Blob != nil {
		dst = append(dst, `,"blob":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, c.Blob)
		return append(dst, `"}`...)
	}
	dst = append(dst, `,"text":`...)
	dst = jsonx.AppendString(dst, c.Text)
	return append(dst, '}')
}

// appendResource appends the members of a Resource (and of a
// ResourceLink), with their title when titles (revision.titles: 2025-06-18
// and later).
func appendResource(dst []byte, titles bool, uri, name, title, description, mime string, size int64) []byte {
	dst = append(dst, `"uri":`...)
	dst = jsonx.AppendString(dst, uri)
	return appendMetadata(dst, titles, name, title, description, mime, size)
}

// appendMetadata appends the name, title, description, MIME type and size
// of a resource or a template, those that are set.
func appendMetadata(dst []byte, titles bool, name, title, description, mime string, size int64) []byte {
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, name)
	if title != "" && titles {
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, title)
	}
	if description != "" {
		dst = append(dst, `,"description":`...)
		dst = jsonx.AppendString(dst, description)
	}
	if mime != "" {
		dst = append(dst, `,"mimeType":`...)
		dst = jsonx.AppendString(dst, mime)
	}
	if size > 0 {
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, size, 10)
	}
	return dst
}

// appendBlock appends the content block c as a session of revision r may
// be sent it: a revision's schema admits only its own types of blocks, and
// its clients refuse a result holding another. In a revision without
// links (before 2025-06-18), a ResourceLink is a text block holding its
// URI; in one without audio (2024-11-05), an AudioContent is an embedded
// blob resource whose URI is the sound's data: URI.
func appendBlock(dst []byte, c Content, r revision) []byte {
	switch p := c.(type) {
	case *ResourceLink:
		if p != nil {
			c = *p
		}
	case *AudioContent:
		if p != nil {
			c = *p
		}
	}
	switch c := c.(type) {
	case ResourceLink:
		if !r.links {
			return TextContent{c.URI}.appendContent(dst)
		}
	case AudioContent:
		if !r.audio {
			data := base64.StdEncoding.EncodeToString(c.Data)
			dst = append(dst, `{"type":"resource","resource":{"uri":`...)
			dst = jsonx.AppendString(dst, "data:"+c.MIMEType+";base64,"+data)
			dst = append(dst, `,"mimeType":`...)
			dst = jsonx.AppendString(dst, c.MIMEType)
			dst = append(dst, `,"blob":"`+data+`"}}`...)
			return dst
		}
	}
	return c.appendContent(dst)
}
