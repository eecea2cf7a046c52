package service

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// LowerCamel maps a Go method name to lowerCamelCase, the default:
// GetData -> getData, ID -> id, HTTPStatus -> httpStatus.
func LowerCamel(name string) string {
	words := splitWords(name)
	if len(words) == 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(words[0]))
	for _, w := range words[1:] {
		b.WriteString(w)
	}
	return b.String()
}

// SnakeCase maps a Go method name to snake_case: GetData -> get_data,
// NotifyHello -> notify_hello, HTTPStatus -> http_status.
func SnakeCase(name string) string {
	words := splitWords(name)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, "_")
}

// splitWords splits a Go identifier into words at case changes, keeping
// acronyms together: "GetHTTPStatus2" -> Get, HTTP, Status2.
func splitWords(name string) []string {
	var words []string
	var runes []rune
	for len(name) > 0 {
		r, size := utf8.DecodeRuneInString(name)
		runes = append(runes, r)
		name = name[size:]
	}
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		next := rune(0)
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case unicode.IsUpper(cur) && !unicode.IsUpper(prev):
			// getData: a new word at the capital.
		case unicode.IsUpper(cur) && unicode.IsUpper(prev) && unicode.IsLower(next):
			// HTTPStatus: the last capital of an acronym starts the next word.
		case cur == '_':
			words = appendWord(words, runes[start:i])
			start = i + 1
			continue
		default:
			continue
		}
		words = appendWord(words, runes[start:i])
		start = i
	}
	return appendWord(words, runes[start:])
}

func appendWord(words []string, w []rune) []string {
	if len(w) == 0 {
		return words
	}
	return append(words, string(w))
}
