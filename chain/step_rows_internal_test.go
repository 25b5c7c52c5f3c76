package chain

import (
	"testing"

	"github.com/git-uwf/git-uwf/objects"
)

// TestSummarizeStep checks that summarizeStep takes a payload only when
// the field-by-field decoder does (and refuses the ones it cannot check), and then reads the members the step
// table shows as decodeStepNode decodes them.
func TestSummarizeStep(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		ok      bool
	}{
		{"plain", `{"agent":"mock","attempts":1,"body":"B","completedAtMs":1500,"cwd":"/w","edgePrompt":"Go.","extraction":"frontmatter","output":"O","prev":"P","role":"worker","start":"S","startedAtMs":1000}`, true},
		{"null prev and resumed", `{"role":"r","agent":"a","prev":null,"resumed":true,"startedAtMs":5,"completedAtMs":9,"output":"O","start":"S"}`, true},
		{"child", `{"role":"r","child":"01ABC","output":"O","start":"S"}`, true},
		{"escaped role", `{"role":"a\"b","agent":"x","output":"O","start":"S"}`, true},
		{"non-ascii agent", `{"role":"r","agent":"é","output":"O","start":"S"}`, true},
		{"escaped cwd", `{"role":"r","cwd":"a\\b","output":"O","start":"S"}`, false},
		{"redactions", `{"role":"r","redactions":{"k":1},"output":"O","start":"S"}`, false},
		{"null redactions", `{"role":"r","redactions":null,"output":"O","start":"S"}`, true},
		{"unknown member", `{"role":"r","Role":"x","output":"O","start":"S"}`, false},
		{"repeated member", `{"role":"r","role":"x","output":"O","start":"S"}`, false},
		{"float time", `{"role":"r","startedAtMs":1.5,"output":"O","start":"S"}`, false},
		{"number as string member", `{"role":"r","cwd":7,"output":"O","start":"S"}`, false},
		{"string attempts", `{"role":"r","attempts":"1","output":"O","start":"S"}`, false},
		{"not an object", `["role"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := summarizeStep([]byte(tt.payload))
			if ok != tt.ok {
				t.Fatalf("summarizeStep ok = %v, want %v", ok, tt.ok)
			}
			var byFields StepNode
			// Where summarizeStep cannot tell (escapes, redactions) it
			// gives up and the caller decodes in full; it must never take
			// what decodeFields refuses.
			if fields := decodeFields([]byte(tt.payload), &byFields, stepNodeFields); ok && !fields {
				t.Fatal("summarizeStep took a payload decodeFields refuses")
			}
			if !ok {
				return
			}
			var want StepNode
			if err := decodeStepNode(objects.Node{Alias: "X", Payload: []byte(tt.payload)}, &want); err != nil {
				t.Fatal(err)
			}
			if got.Role != want.Role || got.Agent != want.Agent || got.StartedAtMs != want.StartedAtMs || got.CompletedAtMs != want.CompletedAtMs {
				t.Errorf("summarizeStep = %q %q %d %d, want %q %q %d %d", got.Role, got.Agent, got.StartedAtMs, got.CompletedAtMs,
					want.Role, want.Agent, want.StartedAtMs, want.CompletedAtMs)
			}
		})
	}
}
