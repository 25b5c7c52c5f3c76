package agentkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/fakemodel"
	"github.com/git-uwf/git-uwf/objects"
)

// scriptAgent answers its turns with replies in order (the last one
// again when they run out) and counts its corrections.
type scriptAgent struct {
	replies     []string
	detail      map[string]any
	corrections int
}

func (a *scriptAgent) Name() string { return "script" }
func (a *scriptAgent) Run(context.Context, *agentkit.Session) (agentkit.Reply, error) {
	return agentkit.Reply{Text: a.replies[0], Detail: a.detail}, nil
}
func (a *scriptAgent) Correct(context.Context, *agentkit.Session, agentkit.Reply, string) (agentkit.Reply, error) {
	a.corrections++
	return agentkit.Reply{Text: a.replies[min(a.corrections, len(a.replies)-1)], Detail: a.detail}, nil
}

const reviewYAML = `name: review
roles:
  reviewer:
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, rejected]}
        comments: {type: string}
      required: [$status, comments]
graph:
  $START:
    _: {role: reviewer, prompt: "Review."}
  reviewer:
    approved: {role: $END, prompt: "Done."}
    rejected: {role: reviewer, prompt: "Again."}
`

// TestExecuteStages runs Execute on scripted replies and reads back what
// each stage left in the StepNode: the extraction and attempts of the
// answer loop, the rejected replies, the redactions and the stored nodes.
func TestExecuteStages(t *testing.T) {
	const (
		good    = "---\n$status: approved\ncomments: fine\nextra: dropped\n---\nLooks good.\n"
		bad     = "---\n$status: maybe\ncomments: fine\n---\nNot sure.\n"
		noBlock = "Looks good, no frontmatter.\n"
		secret  = "---\n$status: approved\ncomments: token SECRET-1234\n---\nUse SECRET-5678 here.\n"
	)
	huge := "---\n$status: approved\ncomments: " + strings.Repeat("x", agentkit.MaxFrontmatterSize) + "\n---\n"
	tests := []struct {
		name    string
		replies []string
		retries int
		// want* describe a stored step; wantErr a failed Execute.
		wantExtraction  string
		wantAttempts    int
		wantOutput      string
		wantBody        string
		wantRejected    int
		wantRedactions  map[string]int
		wantErr         string
		wantCorrections int
	}{
		{name: "first reply", replies: []string{good},
			wantExtraction: "frontmatter", wantAttempts: 1, wantOutput: `{"$status":"approved","comments":"fine"}`, wantBody: "Looks good.\n"},
		{name: "corrected", replies: []string{bad, noBlock, good},
			wantExtraction: "retry", wantAttempts: 3, wantOutput: `{"$status":"approved","comments":"fine"}`, wantBody: "Looks good.\n",
			wantRejected: 2, wantCorrections: 2},
		{name: "retries exhausted", replies: []string{bad}, retries: 1,
			wantErr: "no valid frontmatter after 2 attempt(s)", wantRejected: 2, wantCorrections: 1},
		{name: "no retries", replies: []string{noBlock, good}, retries: -1,
			wantErr: "no valid frontmatter after 1 attempt(s)", wantRejected: 1},
		{name: "a limit is not retried", replies: []string{huge, good},
			wantErr: "larger than the limit", wantRejected: 1},
		{name: "redacted", replies: []string{secret},
			wantExtraction: "frontmatter", wantAttempts: 1, wantOutput: `{"$status":"approved","comments":"token [REDACTED:custom]"}`,
			wantBody: "Use [REDACTED:custom] here.\n", wantRedactions: map[string]int{"custom": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			dir := chaintest.InitRepo(t)
			r := chaintest.Open(t, dir)
			info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "review", reviewYAML))
			if err != nil {
				t.Fatal(err)
			}
			th, err := r.StartThread(ctx, info, "Review the change.", dir)
			if err != nil {
				t.Fatal(err)
			}
			s, err := agentkit.NewSession(ctx, r, agentkit.Request{Thread: string(th.ID), Role: "reviewer", EdgePrompt: "Review.", Cwd: dir}, agentkit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			red, err := agentkit.NewRedactor([]string{`SECRET-[0-9]+`})
			if err != nil {
				t.Fatal(err)
			}
			agent := &scriptAgent{replies: tt.replies, detail: map[string]any{"model": "m1"}}
			out, err := agentkit.Execute(ctx, s, agent, agentkit.Options{Retries: tt.retries, Redactor: red})
			if agent.corrections != tt.wantCorrections {
				t.Errorf("corrections = %d, want %d", agent.corrections, tt.wantCorrections)
			}
			if tt.wantErr != "" {
				var ee *agentkit.ExtractionError
				se, ok := errors.AsType[*agentkit.StepError](err)
				if !ok || !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want a StepError with an extraction error about %q", err, tt.wantErr)
				}
				if len(se.Nodes) != tt.wantRejected {
					t.Errorf("the error keeps %d nodes, want %d rejected replies", len(se.Nodes), tt.wantRejected)
				}
				for i, a := range se.Nodes {
					if got := text(t, r, a); got != tt.replies[min(i, len(tt.replies)-1)] {
						t.Errorf("rejected reply %d = %.40q…, want the agent's reply %d", i, got, i)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Extraction != tt.wantExtraction || out.Attempts != tt.wantAttempts || out.Role != "reviewer" || out.Status != "approved" {
				t.Errorf("AdapterOutput = %+v", out)
			}
			n, err := r.Store.Get(objects.Alias(out.StepHash))
			if err != nil {
				t.Fatal(err)
			}
			if n.OID.String() != out.StepOID {
				t.Errorf("stepOid %s, stored as %s", out.StepOID, n.OID)
			}
			var sn chain.StepNode
			if err := n.Decode(&sn); err != nil {
				t.Fatal(err)
			}
			if sn.Start != th.StartAlias || sn.Prev != nil || sn.Role != "reviewer" || sn.Agent != "script" ||
				sn.Extraction != tt.wantExtraction || sn.Attempts != tt.wantAttempts || sn.Cwd != "." {
				t.Errorf("StepNode = %+v", sn)
			}
			if len(sn.Redactions) != len(tt.wantRedactions) {
				t.Errorf("redactions = %v, want %v", sn.Redactions, tt.wantRedactions)
			}
			for k, v := range tt.wantRedactions {
				if sn.Redactions[k] != v {
					t.Errorf("redactions = %v, want %v", sn.Redactions, tt.wantRedactions)
				}
			}
			output, err := r.Store.Get(sn.Output)
			if err != nil {
				t.Fatal(err)
			}
			if string(output.Payload) != tt.wantOutput || output.Type != th.Workflow.RoleSchemas["reviewer"] {
				t.Errorf("output %s typed %s, want %s typed by the role's schema", output.Payload, output.Type, tt.wantOutput)
			}
			if got := text(t, r, sn.Body); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if got := text(t, r, sn.AssembledPrompt); got != s.Prompt {
				t.Errorf("stored prompt differs from the session's")
			}
			d, err := r.Store.Get(sn.Detail)
			if err != nil {
				t.Fatal(err)
			}
			var detail struct {
				Agent    string          `json:"agent"`
				Model    string          `json:"model"`
				Rejected []objects.Alias `json:"rejected"`
			}
			if err := d.Decode(&detail); err != nil {
				t.Fatal(err)
			}
			if detail.Agent != "script" || detail.Model != "m1" || len(detail.Rejected) != tt.wantRejected {
				t.Errorf("detail = %s, want agent, model and %d rejected replies", d.Payload, tt.wantRejected)
			}
			for i, a := range detail.Rejected {
				if got := text(t, r, a); got != tt.replies[i] {
					t.Errorf("rejected reply %d = %q, want %q", i, got, tt.replies[i])
				}
			}
		})
	}
}

// text reads a text node.
func text(t *testing.T, r *chain.Repo, a objects.Alias) string {
	t.Helper()
	n, err := r.Store.Get(a)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := n.Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExecuteLLMExtraction runs the LLM fallback through Execute: after the
// retries, the model's object becomes the step's output. A schema that
// declares no properties keeps every field the model returned, and one
// that declares them keeps only those; the output is validated like any
// other.
func TestExecuteLLMExtraction(t *testing.T) {
	const noProps = `name: notes
roles:
  writer:
    frontmatter:
      type: object
      required: [summary]
      additionalProperties: {type: string}
graph:
  $START:
    _: {role: writer, prompt: "Write."}
  writer:
    _: {role: $END, prompt: "Done."}
`
	tests := []struct {
		name, workflow, role, model string
		wantOutput, wantErr         string
	}{
		{name: "no properties keeps every field", workflow: noProps, role: "writer",
			model: `{"summary":"short","detail":"long"}`, wantOutput: `{"detail":"long","summary":"short"}`},
		{name: "declared properties only", workflow: reviewYAML, role: "reviewer",
			model: `{"$status":"approved","comments":"fine","extra":"x"}`, wantOutput: `{"$status":"approved","comments":"fine"}`},
		{name: "model output validated", workflow: noProps, role: "writer",
			model: `{"detail":"no summary"}`, wantErr: "llm extraction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			srv, err := fakemodel.New(func(fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: tt.model} })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			dir := chaintest.InitRepo(t)
			r := chaintest.Open(t, dir)
			info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "w", tt.workflow))
			if err != nil {
				t.Fatal(err)
			}
			th, err := r.StartThread(ctx, info, "Go.", dir)
			if err != nil {
				t.Fatal(err)
			}
			s, err := agentkit.NewSession(ctx, r, agentkit.Request{Thread: string(th.ID), Role: tt.role, EdgePrompt: "Go.", Cwd: dir}, agentkit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			llm := &agentkit.LLMEndpoint{BaseURL: srv.URL + "/v1/", Model: "m", Timeout: 10 * time.Second, Program: agentkit.LLMProgram}
			agent := &scriptAgent{replies: []string{"No frontmatter at all.\n"}}
			out, err := agentkit.Execute(ctx, s, agent, agentkit.Options{Retries: -1, LLM: llm})
			if len(srv.ModelRequests()) != 1 {
				t.Errorf("model asked %d times, want once", len(srv.ModelRequests()))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Execute error = %v, want one about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Extraction != "llm" {
				t.Errorf("extraction = %q, want llm", out.Extraction)
			}
			n, err := r.Store.Get(objects.Alias(out.StepHash))
			if err != nil {
				t.Fatal(err)
			}
			var sn chain.StepNode
			if err := n.Decode(&sn); err != nil {
				t.Fatal(err)
			}
			output, err := r.Store.Get(sn.Output)
			if err != nil {
				t.Fatal(err)
			}
			if string(output.Payload) != tt.wantOutput {
				t.Errorf("output %s, want %s", output.Payload, tt.wantOutput)
			}
		})
	}
}
