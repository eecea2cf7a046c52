// Package openrpctest validates OpenRPC documents against the OpenRPC
// meta-schema, offline, for tests.
package openrpctest

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	//go:embed testdata/openrpc-meta-schema.json
	metaSchema []byte
	//go:embed testdata/json-schema-tools-meta-schema.json
	schemaSchema []byte
)

// The URLs the meta-schemas are known by.
const (
	metaURL   = "https://meta.open-rpc.org/"
	schemaURL = "https://meta.json-schema.tools/"
)

// load reads a meta-schema as draft-07: its "$schema", a dialect no
// validator knows (see testdata/README.md), is dropped.
func load(t testing.TB, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("openrpctest: %v", err)
	}
	delete(v.(map[string]any), "$schema")
	return v
}

// offline loads the meta-schemas by URL, with or without the final
// slash (the meta-schema writes both), and nothing else.
type offline map[string]any

// Load returns the document at url.
func (o offline) Load(url string) (any, error) {
	if v, ok := o[strings.TrimSuffix(url, "/")+"/"]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("openrpctest: %s is not available offline", url)
}

// Validate fails t unless doc, JSON, is an OpenRPC document that the
// OpenRPC meta-schema accepts, every schema in it included (as draft-07).
func Validate(t testing.TB, doc []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(offline{metaURL: load(t, metaSchema), schemaURL: load(t, schemaSchema)})
	sch, err := c.Compile(metaURL)
	if err != nil {
		t.Fatalf("openrpctest: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("openrpctest: the document is not JSON: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the OpenRPC meta-schema refuses the document: %v\n%s", err, doc)
	}
}
