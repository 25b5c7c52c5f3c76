package agentkit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/moderator"
)

func plannerRole() *moderator.Role {
	return &moderator.Role{
		Name:         "planner",
		Description:  "Turns a feature request into a short implementation plan.",
		Goal:         "A plan a developer can follow without asking questions.",
		Capabilities: []string{"read the repository", "  ", "run read-only git commands"},
		Procedure:    "1. Read the task.\n2. Inspect the code.\n3. Write the plan.",
		Output:       "A numbered list of steps with the files each one touches.",
		Frontmatter: map[string]any{
			"type":     "object",
			"required": []any{"$status", "plan"},
			"properties": map[string]any{
				"$status": map[string]any{"enum": []any{"ready", "blocked"}},
				"plan":    map[string]any{"type": "string"},
			},
		},
	}
}

func TestRolePrompt(t *testing.T) {
	tests := []struct {
		name   string
		role   *moderator.Role
		want   string
		golden string
	}{
		{name: "nil", role: nil, want: ""},
		{name: "empty", role: &moderator.Role{}, want: ""},
		{name: "name only", role: &moderator.Role{Name: "dev"}, want: "## Role\n\nYou are acting as the `dev` role of this workflow."},
		{name: "goal and capabilities", role: &moderator.Role{Goal: " Ship it. ", Capabilities: []string{"a", "b\nc"}},
			want: "## Goal\n\nShip it.\n\n## Capabilities\n\n- a\n- b c"},
		{name: "full", role: plannerRole(), golden: "role-full.golden.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RolePrompt(tt.role)
			if tt.golden != "" {
				checkGolden(t, filepath.Join("testdata", "prompt", tt.golden), got)
				return
			}
			if got != tt.want {
				t.Errorf("RolePrompt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAssemblePrompt(t *testing.T) {
	full := PromptParts{
		Role:       plannerRole(),
		Task:       "Add a --dry-run flag to `thread step`.",
		History:    "### Step 1: planner\n\nA first plan.\n\n### Step 2: reviewer\n\nToo vague.",
		EdgePrompt: "The reviewer asked for more detail: Too vague.",
		Location:   "/src/project",
	}
	tests := []struct {
		name   string
		parts  PromptParts
		golden string
	}{
		{"full", full, "assemble-full.golden.md"},
		{"first visit", PromptParts{Role: plannerRole(), Task: "Add a --dry-run flag.", EdgePrompt: "Plan the work."}, "assemble-first.golden.md"},
		{"no role", PromptParts{Task: "Say hello.", EdgePrompt: "Go."}, "assemble-norole.golden.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AssemblePrompt(tt.parts)
			checkGolden(t, filepath.Join("testdata", "prompt", tt.golden), got)
		})
	}

	// Order of the parts, independent of the golden files.
	got := AssemblePrompt(full)
	order := []string{"## Role", "## Goal", "## Task", "## Thread History", "## Instruction for This Step", "/src/project", "## Deliverable Format"}
	last := -1
	for _, h := range order {
		i := strings.Index(got, h)
		if i < 0 {
			t.Fatalf("missing %q", h)
		}
		if i < last {
			t.Errorf("%q appears too early", h)
		}
		last = i
	}
	if !strings.HasSuffix(got, "responsible for it.\n") {
		t.Errorf("prompt does not end with the format instruction:\n%s", got)
	}
	if strings.Contains(AssemblePrompt(PromptParts{Task: "x"}), "## Thread History") {
		t.Error("empty history rendered a heading")
	}
}

func TestCorrectionPrompt(t *testing.T) {
	schema := plannerRole().Frontmatter
	problems := []string{
		"at '/$status': value must be one of 'ready', 'blocked'",
		"missing property 'plan'",
		"odd ``` backticks survive",
	}
	got := CorrectionPrompt(problems, schema)
	checkGolden(t, filepath.Join("testdata", "prompt", "correction.golden.md"), got)
	for _, p := range problems {
		if !strings.Contains(got, "\n"+p+"\n") {
			t.Errorf("problem %q not quoted verbatim on its own line", p)
		}
	}
	if !strings.Contains(got, "````text\n") {
		t.Error("problems with backticks need a longer fence")
	}
	if !strings.HasSuffix(got, OutputFormatInstruction(schema)) {
		t.Error("correction prompt does not end with the format instruction")
	}
	none := CorrectionPrompt(nil, schema)
	if !strings.Contains(none, "No further details") || strings.Contains(none, "```text") {
		t.Errorf("empty problem list rendered badly:\n%s", none)
	}
}
