package chain

import (
	"context"
	"os/exec"
	"testing"
)

// TestSchemaAliasMatchesStored: the alias computed for a built-in schema
// is the one it gets when it is stored (validated and compiled).
func TestSchemaAliasMatchesStored(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	r, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"uwf.StartNode", "uwf.StepNode", "uwf.CancelNode", "uwf.Workflow", "uwf.FailedAttempt"} {
		a, err := r.schemaAlias(title)
		if err != nil {
			t.Fatalf("%s: %v", title, err)
		}
		ref, err := r.schema(title)
		if err != nil {
			t.Fatalf("%s: %v", title, err)
		}
		if a != ref.Alias {
			t.Errorf("%s: computed alias %s, stored %s", title, a, ref.Alias)
		}
	}
	if _, err := r.schemaAlias("uwf.Nothing"); err == nil {
		t.Error("an unknown title has an alias")
	}
}
