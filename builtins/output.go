package builtins

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// parsed is what a preset's stdout says.
type parsed struct {
	text    string
	session string
	// failed is set when the CLI reported an error in its output;
	// message then says what went wrong.
	failed  bool
	message string
	// denials are claude's and qwen's permission_denials.
	denials []any
	// errors are non-fatal error events (codex).
	errors []string
}

// parseOutput reads stdout in the given mode. An error means stdout is not
// in the mode's format at all.
func parseOutput(mode string, stdout []byte) (parsed, error) {
	switch mode {
	case ModeText, "":
		return parsed{text: string(stdout)}, nil
	case ModeClaudeJSON:
		var obj map[string]any
		if err := decodeJSON(stdout, &obj); err != nil {
			return parsed{}, err
		}
		return resultObject(obj), nil
	case ModeQwenJSON:
		var arr []map[string]any
		if err := decodeJSON(stdout, &arr); err != nil {
			var obj map[string]any
			if decodeJSON(stdout, &obj) == nil {
				return resultObject(obj), nil
			}
			return parsed{}, err
		}
		for i := len(arr) - 1; i >= 0; i-- {
			if arr[i]["type"] == "result" {
				return resultObject(arr[i]), nil
			}
		}
		return parsed{}, errors.New("no element of type \"result\" in the JSON array")
	case ModeGeminiJSON:
		var obj map[string]any
		if err := decodeJSON(stdout, &obj); err != nil {
			return parsed{}, err
		}
		p := parsed{text: str(obj["response"]), session: str(obj["session_id"])}
		if e, ok := obj["error"]; ok && e != nil {
			p.failed, p.message = true, errorMessage(e)
		}
		return p, nil
	case ModeCodexJSONL:
		return parseCodex(stdout)
	case ModeOpencodeJSONL:
		return parseOpencode(stdout)
	case ModeStreamJSON:
		return parseStreamJSON(stdout)
	}
	return parsed{}, fmt.Errorf("unknown output mode %q", mode)
}

// resultObject reads claude's JSON result (also qwen's and amp's result
// element).
func resultObject(obj map[string]any) parsed {
	p := parsed{text: str(obj["result"]), session: str(obj["session_id"])}
	if d, ok := obj["permission_denials"].([]any); ok && len(d) > 0 {
		p.denials = d
	}
	if b, _ := obj["is_error"].(bool); b {
		p.failed, p.message = true, strings.TrimSpace(p.text)
		if p.message == "" && obj["error"] != nil {
			// qwen: {"is_error":true,"error":{"message":…}} and no result.
			p.message = errorMessage(obj["error"])
		}
		if p.message == "" {
			p.message = str(obj["subtype"])
		}
	}
	return p
}

// decodeJSON decodes the whole of b, or else its last non-empty line (some
// CLIs print a warning line before the JSON).
func decodeJSON(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errors.New("stdout is empty")
	}
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		if json.Unmarshal(b[i+1:], v) == nil {
			return nil
		}
	}
	return fmt.Errorf("stdout is not JSON: %w", err)
}

// jsonLines decodes each line of b that is a JSON object; other lines are
// skipped. It fails only when no line is JSON.
func jsonLines(b []byte) ([]map[string]any, error) {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var obj map[string]any
		if json.Unmarshal(line, &obj) == nil {
			out = append(out, obj)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stdout: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("stdout has no JSON events")
	}
	return out, nil
}

// parseCodex reads `codex exec --json`: the answer is the last agent
// message, the session is thread.started's thread_id, turn.failed fails.
func parseCodex(b []byte) (parsed, error) {
	events, err := jsonLines(b)
	if err != nil {
		return parsed{}, err
	}
	var p parsed
	for _, ev := range events {
		switch str(ev["type"]) {
		case "thread.started":
			p.session = str(ev["thread_id"])
		case "item.completed":
			item, _ := ev["item"].(map[string]any)
			switch str(item["type"]) {
			case "agent_message":
				p.text = str(item["text"])
			case "error":
				p.errors = append(p.errors, str(item["message"]))
			}
		case "turn.failed":
			p.failed = true
			p.message = errorMessage(ev["error"])
		case "error":
			p.errors = append(p.errors, str(ev["message"]))
		}
	}
	if p.failed && p.message == "" && len(p.errors) > 0 {
		p.message = p.errors[len(p.errors)-1]
	}
	return p, nil
}

// parseOpencode reads `opencode run --format json`: the text parts make the
// answer. When their concatenation does not open with frontmatter but the
// last step's text does, only the last step is kept (earlier steps are
// the model thinking aloud between tool calls).
func parseOpencode(b []byte) (parsed, error) {
	events, err := jsonLines(b)
	if err != nil {
		return parsed{}, err
	}
	var p parsed
	var all, step strings.Builder
	for _, ev := range events {
		if id := str(ev["sessionID"]); id != "" {
			p.session = id
		}
		switch str(ev["type"]) {
		case "step_start":
			step.Reset()
		case "text":
			part, _ := ev["part"].(map[string]any)
			t := str(part["text"])
			all.WriteString(t)
			step.WriteString(t)
		case "error":
			p.failed, p.message = true, errorMessage(ev["error"])
		}
	}
	p.text = all.String()
	if !opensFrontmatter(p.text) && opensFrontmatter(step.String()) {
		p.text = step.String()
	}
	return p, nil
}

// parseStreamJSON reads Claude-compatible stream JSON (amp --stream-json):
// the final result event, else the last assistant text.
func parseStreamJSON(b []byte) (parsed, error) {
	events, err := jsonLines(b)
	if err != nil {
		return parsed{}, err
	}
	var p parsed
	for _, ev := range events {
		if id := str(ev["session_id"]); id != "" {
			p.session = id
		}
		switch str(ev["type"]) {
		case "result":
			r := resultObject(ev)
			if r.session == "" {
				r.session = p.session
			}
			return r, nil
		case "assistant":
			msg, _ := ev["message"].(map[string]any)
			content, _ := msg["content"].([]any)
			var sb strings.Builder
			for _, c := range content {
				if cm, ok := c.(map[string]any); ok && cm["type"] == "text" {
					sb.WriteString(str(cm["text"]))
				}
			}
			if sb.Len() > 0 {
				p.text = sb.String()
			}
		}
	}
	return p, nil
}

func opensFrontmatter(s string) bool {
	return strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "---")
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// errorMessage finds a readable message in an error value.
func errorMessage(v any) string {
	switch e := v.(type) {
	case string:
		// gemini wraps the server's JSON error body in its message.
		var inner map[string]any
		if strings.HasPrefix(e, "{") && json.Unmarshal([]byte(e), &inner) == nil && inner["error"] != nil {
			if m := errorMessage(inner["error"]); m != "" {
				return m
			}
		}
		return e
	case map[string]any:
		for _, k := range []string{"message", "error"} {
			if m := errorMessage(e[k]); m != "" {
				return m
			}
		}
		if d, ok := e["data"]; ok {
			if m := errorMessage(d); m != "" {
				return m
			}
		}
		if n := str(e["name"]); n != "" {
			return n
		}
	}
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
