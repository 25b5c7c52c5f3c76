package fakemodel

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// rolePattern matches the sentence agentkit's role prompt opens with.
var rolePattern = regexp.MustCompile("You are acting as the `([^`]+)` role")

// correctionMarker opens agentkit's correction prompt.
const correctionMarker = "Your previous response could not be accepted"

// RoleOf returns the git-uwf role a request asks for: the role named in
// the last user message, else the last role named anywhere in the body
// (a resumed session's correction carries no role prompt of its own).
// It is "" for requests that are not git-uwf prompts (titles, memory
// extraction, routing…).
func RoleOf(r Request) string {
	if m := rolePattern.FindAllStringSubmatch(r.Prompt, -1); m != nil {
		return m[len(m)-1][1]
	}
	if m := rolePattern.FindAllSubmatch(r.Body, -1); m != nil {
		return string(m[len(m)-1][1])
	}
	return ""
}

// IsCorrection reports whether the last user message is git-uwf's request
// to fix a rejected answer.
func IsCorrection(r Request) bool { return strings.Contains(r.Prompt, correctionMarker) }

// geminiRouterReply is what Gemini CLI's model router expects when it runs
// without -m.
const geminiRouterReply = `{"complexity_reasoning":"fake","complexity_score":10}`

// SideReply is the answer to requests that are not git-uwf prompts.
const SideReply = "ok"

// ByRole answers each git-uwf prompt with the text given for its role.
// Requests that are not git-uwf prompts (RoleOf is "") get SideReply, and
// Gemini's routing call gets the JSON its router wants. A role with no
// entry fails the request with 400, naming the role.
func ByRole(answers map[string]string) Responder {
	return func(r Request) Reply {
		if r.API == GeminiGenerate && strings.Contains(r.System+r.Prompt, "complexity") {
			return Reply{Text: geminiRouterReply}
		}
		role := RoleOf(r)
		if role == "" {
			return Reply{Text: SideReply}
		}
		text, ok := answers[role]
		if !ok {
			return Reply{Status: http.StatusBadRequest, Text: "fakemodel: no scripted answer for role " + role}
		}
		return Reply{Text: text}
	}
}

// Queue answers model requests with replies in order; once they run out,
// the last one repeats. With no replies every request gets SideReply.
func Queue(replies ...Reply) Responder {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return Reply{Text: SideReply}
		}
		r := replies[min(next, len(replies)-1)]
		next++
		return r
	}
}

// Fail answers every model request with status and message.
func Fail(status int, message string) Responder {
	return func(Request) Reply { return Reply{Status: status, Text: message} }
}

// Hang never answers a model request.
func Hang() Responder {
	return func(Request) Reply { return Reply{Hang: true} }
}
