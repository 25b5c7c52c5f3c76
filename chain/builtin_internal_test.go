package chain

import (
	"context"
	"os/exec"
	"testing"
)

func initTestRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// The read path knows the built-in schema aliases without storing the
// schemas; they must be the aliases the writers store.
func TestBuiltinAliasesMatchStoredSchemas(t *testing.T) {
	r, err := Open(context.Background(), initTestRepo(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	aliases, err := builtinAliases()
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"uwf.StartNode", "uwf.StepNode", "uwf.CancelNode", "uwf.Workflow"} {
		ref, err := r.schema(title)
		if err != nil {
			t.Fatal(err)
		}
		if aliases[title] != ref.Alias {
			t.Errorf("%s: built-in alias %s, stored %s", title, aliases[title], ref.Alias)
		}
		want := title
		if title == "uwf.Workflow" {
			want = "" // not a thread node
		}
		if got, err := builtinTitle(ref.Alias); err != nil || got != want {
			t.Errorf("builtinTitle(%s) = %q, %v; want %q", ref.Alias, got, err, want)
		}
	}
}
