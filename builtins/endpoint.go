package builtins

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Endpoint is the model server an agent CLI will talk to, as far as its
// environment and configuration files tell.
type Endpoint struct {
	// URL is the base URL ("" when unknown: the CLI's own login, say).
	URL string
	// From says where URL came from: an environment variable, a file, or
	// "default".
	From string
}

// envEndpoint reads the first set variable of names, else def.
func envEndpoint(def string, names ...string) func(func(string) string) Endpoint {
	return func(getenv func(string) string) Endpoint {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return Endpoint{URL: v, From: "$" + n}
			}
		}
		if def == "" {
			return Endpoint{}
		}
		return Endpoint{URL: def, From: "default"}
	}
}

// ollamaEndpoint reads OLLAMA_HOST (host:port or a URL).
func ollamaEndpoint(getenv func(string) string) Endpoint {
	h := strings.TrimSpace(getenv("OLLAMA_HOST"))
	if h == "" {
		return Endpoint{URL: "http://127.0.0.1:11434", From: "default"}
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return Endpoint{URL: h, From: "$OLLAMA_HOST"}
}

// codexEndpoint reads $CODEX_HOME/config.toml (default ~/.codex): the
// base_url of the selected model_provider, else openai_base_url. codex
// 0.169 ignores OPENAI_BASE_URL.
func codexEndpoint(getenv func(string) string) Endpoint {
	home := getenv("CODEX_HOME")
	if home == "" {
		if h := getenv("HOME"); h != "" {
			home = filepath.Join(h, ".codex")
		}
	}
	def := Endpoint{URL: "https://api.openai.com/v1", From: "default"}
	if home == "" {
		return def
	}
	path := filepath.Join(home, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	top, sections := scanTOML(b)
	if p := top["model_provider"]; p != "" {
		if u := sections["model_providers."+p]["base_url"]; u != "" {
			return Endpoint{URL: u, From: path + " (model_providers." + p + ".base_url)"}
		}
	}
	if u := top["openai_base_url"]; u != "" {
		return Endpoint{URL: u, From: path + " (openai_base_url)"}
	}
	return def
}

// scanTOML reads the string keys of a simple TOML file: top-level keys and
// keys per [section]. Only `key = "value"` lines are read; that is all
// codexEndpoint needs.
func scanTOML(b []byte) (map[string]string, map[string]map[string]string) {
	top := map[string]string{}
	sections := map[string]map[string]string{}
	cur := top
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			name := strings.Trim(line, "[] ")
			name = strings.ReplaceAll(name, `"`, "")
			if sections[name] == nil {
				sections[name] = map[string]string{}
			}
			cur = sections[name]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			cur[strings.TrimSpace(k)] = v[1 : len(v)-1]
		}
	}
	return top, sections
}

// opencodeEndpoint reads the config file named by OPENCODE_CONFIG: the
// baseURL of the default model's provider.
func opencodeEndpoint(getenv func(string) string) Endpoint {
	path := getenv("OPENCODE_CONFIG")
	if path == "" {
		return Endpoint{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Endpoint{}
	}
	var cfg struct {
		Model    string `json:"model"`
		Provider map[string]struct {
			Options struct {
				BaseURL string `json:"baseURL"`
			} `json:"options"`
		} `json:"provider"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return Endpoint{}
	}
	provider, _, _ := strings.Cut(cfg.Model, "/")
	if u := cfg.Provider[provider].Options.BaseURL; u != "" {
		return Endpoint{URL: u, From: path + " (provider." + provider + ".options.baseURL)"}
	}
	return Endpoint{}
}
