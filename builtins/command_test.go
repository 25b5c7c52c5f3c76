package builtins_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/builtins"
)

func TestParseCommand(t *testing.T) {
	proto := []string{"T1", "dev"}
	tests := []struct {
		args []string
		want *builtins.Command // nil: not taken on (spawned)
	}{
		{[]string{"agent", "mock", "--script", "s.yaml"}, &builtins.Command{Name: "mock", Mock: builtins.MockFlags{Script: "s.yaml"}}},
		{[]string{"agent", "mock", "-script=s.yaml"}, &builtins.Command{Name: "mock", Mock: builtins.MockFlags{Script: "s.yaml"}}},
		{[]string{"agent", "mock"}, &builtins.Command{Name: "mock"}},
		{[]string{"agent", "llm", "--model", "fast", "--timeout=30s"},
			&builtins.Command{Name: "llm", LLM: builtins.LLMFlags{Model: "fast", Timeout: 30 * time.Second}}},
		{[]string{"agent", "llm", "--api-key-env", "K", "--base-url", "http://x", "--model", "m"},
			&builtins.Command{Name: "llm", LLM: builtins.LLMFlags{BaseURL: "http://x", Model: "m", APIKeyEnv: "K", Timeout: builtins.DefaultLLMTimeout}}},
		{[]string{"agent", "pipe", "--timeout", "1m", "--", "sh", "-c", "cat"},
			&builtins.Command{Name: "pipe", Pipe: builtins.PipeArgs{Timeout: time.Minute, Command: []string{"sh", "-c", "cat"}, Protocol: proto}}},
		{[]string{"agent", "pipe", "--preset", "claude", "--no-resume"},
			&builtins.Command{Name: "pipe", Pipe: builtins.PipeArgs{Preset: "claude", NoResume: true, Command: []string{}, Protocol: proto}}},
		{[]string{"agent", "human"}, nil},
		{[]string{"agent", "list"}, nil},
		{[]string{"-C", "x", "agent", "mock"}, nil},
		{[]string{"agent", "mock", "--script"}, nil},
		{[]string{"agent", "mock", "--help"}, nil},
		{[]string{"agent", "mock", "--", "x"}, nil},
		{[]string{"agent", "mock", "stray"}, nil},
		{[]string{"agent", "llm", "--timeout", "soon"}, nil},
		{[]string{"agent", "llm", "--base-url", "http://x"}, nil},
		{[]string{"agent", "pipe", "-h"}, nil},
		{[]string{"agent", "pipe", "--colour", "sh"}, nil},
		{[]string{"agent", "pipe", "--timeout", "-1s", "sh"}, nil},
	}
	for _, tt := range tests {
		got, ok := builtins.ParseCommand(append(append([]string(nil), tt.args...), proto...))
		if tt.want == nil {
			if ok {
				t.Errorf("ParseCommand(%q) = %+v, want it spawned", tt.args, got)
			}
			continue
		}
		tt.want.Thread, tt.want.Role = proto[0], proto[1]
		if !ok || !reflect.DeepEqual(got, *tt.want) {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v", tt.args, got, ok, *tt.want)
		}
	}
}
