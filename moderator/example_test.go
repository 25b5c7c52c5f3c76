package moderator_test

import (
	"fmt"
	"testing/fstest"

	"github.com/git-uwf/git-uwf/moderator"
)

// Example walks a thread through a small review workflow: load it from a
// file system, then ask the moderator for the next step after each output.
func Example() {
	fsys := fstest.MapFS{
		".uwf/workflows/review.yaml": {Data: []byte(`name: review
description: A developer and a reviewer iterate until approval.
roles:
  developer:
    goal: You implement changes.
    frontmatter:
      type: object
      properties:
        $status: { const: review_needed }
        branch: { type: string }
  reviewer:
    goal: You review changes.
    frontmatter: !include reviewer.schema.json
graph:
  $START:
    _: { role: developer, prompt: "Implement the task." }
  developer:
    review_needed: { role: reviewer, prompt: "Review branch {{branch}}.", location: "/work/{{branch}}" }
  reviewer:
    rejected: { role: developer, prompt: "Fix this: {{comments}}" }
    approved: { role: $END, prompt: "Approved." }
`)},
		".uwf/workflows/reviewer.schema.json": {Data: []byte(`{
  "type": "object",
  "properties": {
    "$status": {"enum": ["approved", "rejected"]},
    "comments": {"type": "string"}
  }
}`)},
	}
	w, err := moderator.Load(fsys, ".uwf/workflows/review.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("statuses of reviewer:", w.Statuses("reviewer"))

	ctx := moderator.RouteContext{Start: moderator.StartView{Workflow: w.Name, Prompt: "Add a flag."}}
	outputs := []moderator.StepView{
		{Role: "developer", Output: map[string]any{"$status": "review_needed", "branch": "add-flag"}},
		{Role: "reviewer", Output: map[string]any{"$status": "rejected", "comments": "name it <--force>"}},
		{Role: "developer", Output: map[string]any{"$status": "review_needed", "branch": "add-flag"}},
		{Role: "reviewer", Output: map[string]any{"$status": "approved"}},
	}
	for i := 0; ; i++ {
		d, err := w.Route(ctx)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s [%s] -> %s: %q", d.From, d.Status, d.Kind, d.Prompt)
		if d.Location != "" {
			fmt.Printf(" in %s", d.Location)
		}
		fmt.Println()
		if d.Kind != moderator.Next {
			return
		}
		out := outputs[i]
		out.EdgePrompt = d.Prompt
		ctx.Steps = append(ctx.Steps, out)
	}
	// Output:
	// statuses of reviewer: [approved rejected]
	// $START [_] -> next: "Implement the task."
	// developer [review_needed] -> next: "Review branch add-flag." in /work/add-flag
	// reviewer [rejected] -> next: "Fix this: name it <--force>"
	// developer [review_needed] -> next: "Review branch add-flag." in /work/add-flag
	// reviewer [approved] -> finish: "Approved."
}
