package agentkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/objects"
)

// replyAgent answers every turn with the same text.
type replyAgent string

func (a replyAgent) Name() string { return "reply" }
func (a replyAgent) Run(context.Context, *agentkit.Session) (agentkit.Reply, error) {
	return agentkit.Reply{Text: string(a)}, nil
}
func (a replyAgent) Correct(context.Context, *agentkit.Session, agentkit.Reply, string) (agentkit.Reply, error) {
	return agentkit.Reply{Text: string(a)}, nil
}

const suspendV1 = `version: 1
name: ask
roles:
  planner:
    frontmatter:
      type: object
      properties:
        $status: {const: ready}
        plan: {type: string}
      required: [$status, plan]
graph:
  $START:
    new: {role: planner, prompt: "Plan."}
  planner:
    ready: {role: $END, prompt: "Done."}
`

func TestSuspendYield(t *testing.T) {
	legacy := strings.NewReplacer("version: 1\n", "", "new:", "_:").Replace(suspendV1)
	tests := []struct {
		name, yaml, reply string
		// wantErr is a substring of the extraction error; "" means the
		// yield is stored under the suspend schema.
		wantErr       string
		wantPromptTip bool
	}{
		{"version 1 yields", suspendV1, "---\n$status: $SUSPEND\nreason: Which database?\nextra: dropped\n---\nI need to know.\n", "", true},
		{"a yield needs a reason", suspendV1, "---\n$status: $SUSPEND\n---\n", "reason", true},
		{"an empty reason is none", suspendV1, "---\n$status: $SUSPEND\nreason: ''\n---\n", "reason", true},
		{"a yield's reason holds no NUL", suspendV1, "---\n$status: $SUSPEND\nreason: \"Which\\0database?\"\n---\n", "reason: the value holds a NUL", true},
		{"the older dialect has no yield", legacy, "---\n$status: $SUSPEND\nreason: Which database?\n---\n", "$status", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			dir := chaintest.InitRepo(t)
			r := chaintest.Open(t, dir)
			info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "ask", tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			th, err := r.StartThread(ctx, info, "Build the API.", dir)
			if err != nil {
				t.Fatal(err)
			}
			s, err := agentkit.NewSession(ctx, r, agentkit.Request{Thread: string(th.ID), Role: "planner", EdgePrompt: "Plan.", Cwd: dir}, agentkit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(s.Prompt, "$status: $SUSPEND"); got != tt.wantPromptTip {
				t.Errorf("prompt tells how to yield: %v, want %v", got, tt.wantPromptTip)
			}
			out, err := agentkit.Execute(ctx, s, replyAgent(tt.reply), agentkit.Options{Retries: -1})
			if tt.wantErr != "" {
				var ee *agentkit.ExtractionError
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an extraction error about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != "$SUSPEND" {
				t.Errorf("status = %q", out.Status)
			}
			step, err := r.Store.Get(objects.Alias(out.StepHash))
			if err != nil {
				t.Fatal(err)
			}
			var sn struct {
				Output objects.Alias `json:"output"`
			}
			if err := step.Decode(&sn); err != nil {
				t.Fatal(err)
			}
			n, err := r.Store.Get(sn.Output)
			if err != nil {
				t.Fatal(err)
			}
			suspend, _ := r.Schema("uwf.SuspendOutput")
			if n.Type != suspend || string(n.Payload) != `{"$status":"$SUSPEND","reason":"Which database?"}` {
				t.Errorf("output %s typed %s, want %s with only $status and reason", n.Payload, n.Type, suspend)
			}
		})
	}
}
