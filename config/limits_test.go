package config

import (
	"strings"
	"testing"
)

func TestWorkflowLimits(t *testing.T) {
	tests := []struct {
		name, user string
		want       WorkflowLimit
		errs       []string
	}{
		{"unset", "", WorkflowLimit{Overflow: OverflowQueue}, nil},
		{"concurrency only", "workflows: {w: {concurrency: 2}}\n", WorkflowLimit{Concurrency: 2, Overflow: OverflowQueue}, nil},
		{"all keys", "workflows:\n  w:\n    concurrency: 3\n    overflow: drop\n    maxQueue: 5\n", WorkflowLimit{Concurrency: 3, Overflow: OverflowDrop, MaxQueue: 5}, nil},
		{"zero concurrency", "workflows:\n  w:\n    concurrency: 0\n", WorkflowLimit{}, []string{"config.yaml:3", "workflows.w.concurrency", "at least 1"}},
		{"negative queue", "workflows:\n  w:\n    maxQueue: -1\n", WorkflowLimit{}, []string{"config.yaml:3", "workflows.w.maxQueue", "non-negative"}},
		{"unknown overflow", "workflows:\n  w:\n    overflow: spill\n", WorkflowLimit{}, []string{"config.yaml:3", "workflows.w.overflow", "queue or drop"}},
		{"unknown key", "workflows:\n  w:\n    parallel: 2\n", WorkflowLimit{}, []string{"config.yaml:3", `unknown key "workflows.w.parallel"`, "concurrency, overflow, maxQueue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(layout(t, tt.user, "", "", ""), env())
			if len(tt.errs) > 0 {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tt.errs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Limit("w"); got != tt.want {
				t.Errorf("Limit(w) = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSetWorkflowLimit(t *testing.T) {
	tests := []struct {
		key, value string
		err        string
	}{
		{"workflows.w.concurrency", "2", ""},
		{"workflows.w.concurrency", "0", "at least 1"},
		{"workflows.w.overflow", "drop", ""},
		{"workflows.w.overflow", "spill", "queue or drop"},
		{"workflows.w.maxQueue", "-3", "non-negative"},
		{"workflows.w.maxQueue", "4", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			p := layout(t, "", "", "", "")
			err := p.Set(ScopeRepo, tt.key, tt.value)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.key) {
					t.Fatalf("Set(%s, %s) = %v, want an error naming the key and %q", tt.key, tt.value, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(p, env())
			if err != nil {
				t.Fatal(err)
			}
			e, ok, err := c.Get(tt.key)
			if err != nil || !ok || e.Text != tt.value {
				t.Errorf("Get(%s) = %+v, %v, %v", tt.key, e, ok, err)
			}
		})
	}
}
