package chain

import (
	"context"
	"os/exec"
	"testing"

	"github.com/git-uwf/git-uwf/objects"
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
// schemas; they must be the aliases of the schemas the writers store.
func TestBuiltinAliasesMatchStoredSchemas(t *testing.T) {
	r, err := Open(context.Background(), initTestRepo(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		title, thread string
		doc           map[string]any
		alias         objects.Alias
	}{
		{"uwf.StartNode", "uwf.StartNode", startNodeSchema(), startNodeAlias},
		{"uwf.StepNode", "uwf.StepNode", stepNodeSchema(), stepNodeAlias},
		{"uwf.CancelNode", "uwf.CancelNode", cancelNodeSchema(), cancelNodeAlias},
		{"uwf.Workflow", "", workflowNodeSchema(), workflowAlias},
	} {
		ref, err := r.schema(tc.title)
		if err != nil {
			t.Fatal(err)
		}
		blob, err := objects.EncodeNode(objects.MetaSchemaAlias(), tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Alias != tc.alias || objects.AliasOf(blob) != tc.alias {
			t.Errorf("%s: the alias in builtin.go is %s, the stored schema's %s", tc.title, tc.alias, ref.Alias)
		}
		if got := builtinTitle(ref.Alias); got != tc.thread {
			t.Errorf("builtinTitle(%s) = %q, want %q", ref.Alias, got, tc.thread)
		}
	}
}
