package chain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
)

const childParentYAML = `name: parent
roles:
  fix:
    workflow: plan-work
    frontmatter:
      type: object
      properties:
        $status: {const: done}
      required: [$status]
graph:
  $START:
    _: {role: fix, prompt: "Fix it."}
  fix:
    done: {role: $END, prompt: "Finished."}
`

const childOtherYAML = `name: other
roles:
  worker:
    frontmatter:
      type: object
      properties:
        $status: {const: done}
      required: [$status]
graph:
  $START:
    _: {role: worker, prompt: "Go."}
  worker:
    done: {role: $END, prompt: "Finished."}
`

// TestStartChildRefusesForeignThread: the child's id is predictable, so a
// thread already at it (fetched, or written by anyone) is adopted only when
// its start commit links to this parent's head and role and it runs the
// role's workflow; otherwise StartChild fails and the ref stays as it was.
func TestStartChildRefusesForeignThread(t *testing.T) {
	tests := []struct {
		name     string
		workflow string
		// link is the forged Uwf-Parent value: "" for none; PARENT, HEAD
		// are replaced by the parent's id and head commit.
		link    string
		wantErr bool
	}{
		{"no parent link", "plan-work", "", true},
		{"link to another role", "plan-work", "PARENT HEAD review", true},
		{"link to another head", "plan-work", "PARENT 0123456789abcdef0123456789abcdef01234567 fix", true},
		{"link to another thread", "plan-work", "01M86ZCEFF4MS140TN5H88HQXG HEAD fix", true},
		{"right link, other workflow", "other", "PARENT HEAD fix", true},
		{"right link and workflow", "plan-work", "PARENT HEAD fix", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := chaintest.InitRepo(t)
			repo := chaintest.Open(t, dir)
			var infos = map[string]*chain.WorkflowInfo{}
			for _, w := range []struct{ name, yaml string }{{"plan-work", chaintest.PlanWorkYAML}, {"other", childOtherYAML}, {"parent", childParentYAML}} {
				info, _, err := repo.RegisterWorkflow(ctx, chaintest.Workflow(t, w.name, w.yaml))
				if err != nil {
					t.Fatal(err)
				}
				infos[w.name] = info
			}
			parent, err := repo.StartThread(ctx, infos["parent"], "fix the build", dir)
			if err != nil {
				t.Fatal(err)
			}
			// Forge the child: a thread of tt.workflow, its start commit
			// rewritten with the forged link and put at the child's id.
			id := forgeChild(t, dir, repo, infos[tt.workflow], parent, "fix", tt.link)
			forged := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", "refs/uwf/threads/"+string(id)))

			child, err := repo.StartChild(ctx, parent, "fix", infos["plan-work"], "Fix it.", ".")
			if tt.wantErr {
				if !errors.Is(err, chain.ErrForeignChild) {
					t.Fatalf("StartChild = %v, %v; want ErrForeignChild", child, err)
				}
				t.Log(err)
			} else if err != nil || child.ID != id || child.Head.Commit.String() != forged {
				t.Fatalf("StartChild = %v, %v; want the thread at %s", child, err, id)
			}
			if got := strings.TrimSpace(chaintest.Git(t, dir, "rev-parse", "refs/uwf/threads/"+string(id))); got != forged {
				t.Errorf("the child ref moved to %s, want %s", got, forged)
			}
		})
	}
}

// forgeChild puts a thread of info at parent's child id for role: a new
// thread's start commit with its id rewritten to the child's and, unless
// link is "", an Uwf-Parent trailer (PARENT and HEAD in link stand for the
// parent's id and head commit). It returns the child id.
func forgeChild(t *testing.T, dir string, repo *chain.Repo, info *chain.WorkflowInfo, parent *chain.Thread, role, link string) chain.ThreadID {
	t.Helper()
	plain, err := repo.StartThread(context.Background(), info, "forged task", dir)
	if err != nil {
		t.Fatal(err)
	}
	id := chain.ChildID(parent.ID, parent.Head, role)
	msg := strings.ReplaceAll(chaintest.Git(t, dir, "log", "-1", "--format=%B", plain.Head.Commit.String()), string(plain.ID), string(id))
	if link != "" {
		link = strings.NewReplacer("PARENT", string(parent.ID), "HEAD", parent.Head.Commit.String()).Replace(link)
		msg = strings.TrimRight(msg, "\n") + "\nUwf-Parent: " + link + "\n"
	}
	forged := strings.TrimSpace(chaintest.Git(t, dir, "commit-tree", plain.Head.Commit.String()+"^{tree}", "-m", msg))
	chaintest.Git(t, dir, "update-ref", "refs/uwf/threads/"+string(id), forged)
	return id
}
