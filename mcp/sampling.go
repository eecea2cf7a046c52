package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// CreateMessageParams are the params of sampling/createMessage: the
// messages a tool asks the client's model to answer.
type CreateMessageParams struct {
	// Messages are the conversation, oldest first.
	Messages []SamplingMessage `json:"messages"`
	// ModelPreferences are the server's preferences among models; the
	// client may ignore them.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// SystemPrompt is the system prompt the server asks for; the client
	// may change or omit it.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// Temperature, when not nil, is the sampling temperature.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is the most tokens to sample (required by the protocol).
	MaxTokens int `json:"maxTokens"`
	// StopSequences end the sampling.
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is passed through to the model's provider, as it is.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// SamplingMessage is one message of a sampling conversation: its role
// ("user" or "assistant") and its content ([TextContent], [ImageContent]).
type SamplingMessage struct {
	Role    string
	Content Content
}

// MarshalJSON encodes the message as the protocol has it.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	if m.Content == nil {
		return nil, errors.New("mcp: a SamplingMessage has no Content")
	}
	b := jsonx.AppendString([]byte(`{"role":`), m.Role)
	b = append(b, `,"content":`...)
	b = m.Content.appendContent(b)
	return append(b, '}'), nil
}

// ModelPreferences are a server's preferences among the client's models:
// hints (names, matched as substrings, first preferred) and priorities
// from 0 to 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model, or a family of them.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// CreateMessageResult is the client's answer to sampling/createMessage.
type CreateMessageResult struct {
	// Role is the role of the message sampled ("assistant").
	Role string `json:"role"`
	// Content is its content: a content block (text, image or audio) as
	// the client sent it; Text returns a text block's text.
	Content json.RawMessage `json:"content"`
	// Model names the model that sampled it.
	Model string `json:"model"`
	// StopReason says why sampling stopped: "endTurn", "stopSequence",
	// "maxTokens", or another reason of the client's.
	StopReason string `json:"stopReason,omitempty"`
}

// shaped reports whether the result has the members the protocol
// requires, as far as they can be told from their Go values: a role
// ("user" or "assistant") and a content block or an array of them (a
// model "" is the protocol's, one absent is not told from it).
func (r *CreateMessageResult) shaped() bool {
	return (r.Role == "user" || r.Role == "assistant") &&
		len(r.Content) > 0 && (r.Content[0] == '{' || r.Content[0] == '[')
}

// Text returns the text of the result's content when it is a text block,
// else "".
func (r *CreateMessageResult) Text() string {
	var block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(r.Content, &block) != nil || block.Type != "text" {
		return ""
	}
	return block.Text
}

// CreateMessage asks the client of the tools/call ctx belongs to to sample
// its model (sampling/createMessage), and returns its answer. The client
// must have declared the sampling capability: otherwise nothing is sent,
// and the error wraps [ErrClientCapability].
//
// In a legacy session the request goes to the client at once (over
// Streamable HTTP, on the event stream of the call's response; the
// client's response comes as a POST of the session) and CreateMessage
// waits for the answer as long as ctx lets it. In 2026-07-28, where a
// server sends the client no request, the error wraps
// [ErrInputRequired] until the client retries the call with the answer:
// return it, as any error, and the call is answered "input_required"
// with the request; the tool, run again for the retry, gets the answer.
// A tool that asks therefore does, before it asks, only what it may do
// again.
//
// An error response of the client is returned as an *rpc.Error; an
// answer without a role ("user" or "assistant") and a content (a block or
// an array of them) is an error; so is an answer nested deeper than the
// connection's rpc.Options.MaxDepth (it wraps rpc.ErrBadResponse), over
// stdio and Streamable HTTP alike.
func CreateMessage(ctx context.Context, params *CreateMessageParams) (*CreateMessageResult, error) {
	if params == nil || len(params.Messages) == 0 {
		return nil, errors.New("mcp: CreateMessage needs params with a message at least")
	}
	var res CreateMessageResult
	if err := ask(ctx, methodCreateMessage, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
