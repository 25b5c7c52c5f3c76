package engine_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/objects"
)

// allObjects returns every object in the repository, concatenated.
func allObjects(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestSecretsNeverStored plants secrets in an agent's deliverable, its
// frontmatter and its stderr, in a successful and a failed step: none of
// them may reach any object, and the step reports what was redacted.
func TestSecretsNeverStored(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	const gh = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const aws = "AKIAIOSFODNN7EXAMPLE"
	const url = "https://deploy:hunter2secret@git.example.com/repo.git"
	// An Anthropic key pasted in lower case.
	const ant = "sk-ant-api03-" + "q3er4ty5ui6op7as8df9gh0jk1lz2xc3vb4nm5po9iu8yt7"
	script := []scripted{{"developer", "---\n$status: review_needed\nsummary: used key " + aws + " and " + ant + "\n---\nToken " + gh + " and remote " + url + " and " + ant + "\n"}}
	res, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script)})
	if err != nil {
		t.Fatal(err)
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	if len(th.Head.Step.Redactions) == 0 {
		t.Fatalf("the step does not report its redactions: %+v", th.Head.Step)
	}
	if !strings.Contains(res.Output["summary"].(string), "[REDACTED") {
		t.Fatalf("summary not redacted: %v", res.Output["summary"])
	}
	// A failing agent leaks a secret on stderr: the attempt evidence is redacted too.
	leak := agent("exit3", nil)
	leak.Argv = []string{"sh", "-c", "echo 'export GITHUB_TOKEN=" + gh + "' >&2; exit 1"}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: leak}); err == nil {
		t.Fatal("the leaking agent succeeded")
	}
	objs := allObjects(t, fx.dir)
	for _, secret := range []string{gh, aws, "hunter2secret", ant, ant[len("sk-ant-api03-"):]} {
		if strings.Contains(objs, secret) {
			t.Errorf("secret %q reached the object database", secret)
		}
	}
	if !strings.Contains(objs, "[REDACTED") {
		t.Error("no redaction marker stored at all")
	}
}

// TestHostileBytes: NUL bytes and invalid UTF-8 in a deliverable are
// cleaned, not fatal.
func TestHostileBytes(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	script := []scripted{{"developer", "---\n$status: review_needed\nsummary: ok\n---\nbad \xff\xfe bytes and a \x00 NUL\n"}}
	if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", script)}); err != nil {
		t.Fatal(err)
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	body, err := fx.repo.Text(th.Head, th.Head.Step.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(body, 0) || !strings.Contains(body, "\uFFFD") {
		t.Fatalf("body not cleaned: %q", body)
	}
	chaintest.Fsck(t, fx.dir)
}

// TestBesideGitMaintenance: steps keep working while git gc and git
// pack-refs run at the same time, and nothing is lost.
func TestBesideGitMaintenance(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			args := []string{"gc", "--quiet"}
			if i%2 == 1 {
				args = []string{"pack-refs", "--all"}
			}
			cmd := exec.Command("git", args...)
			cmd.Dir = fx.dir
			_ = cmd.Run()
		}
	}()
	for i := 0; i < 4; i++ {
		if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("step %d beside gc: %v", i+1, err)
		}
	}
	close(stop)
	wg.Wait()
	th, _ := fx.repo.Thread(ctx, fx.id)
	if st, _ := fx.repo.State(ctx, th); st.Status != chain.StatusCompleted {
		t.Fatalf("status %s after steps beside gc", st.Status)
	}
	chaintest.Fsck(t, fx.dir)
}

// TestRefUpdateFailureKeepsTheStep: when the agent succeeded but the ref
// cannot be moved (here: a fresh lock held by "another git"), the step is
// not lost: it is recorded as an attempt and stays reachable.
func TestRefUpdateFailureKeepsTheStep(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	lock := filepath.Join(fx.dir, ".git", "refs", "uwf", "threads", string(fx.id)+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A lock a live git holds is fresh; date it ahead so a slow machine
	// cannot age it into one a crash left behind.
	ahead := time.Now().Add(time.Hour)
	if err := os.Chtimes(lock, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	_, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)})
	var fe *engine.StepFailedError
	if !errors.As(err, &fe) || fe.Phase != "append" || fe.Attempt.IsZero() {
		t.Fatalf("want a recorded append failure, got %v", err)
	}
	os.Remove(lock)
	// The attempt's tree holds the StepNode the agent wrote.
	tree := chaintest.Git(t, fx.dir, "ls-tree", "-r", "--name-only", fe.Attempt.String())
	th, _ := fx.repo.Thread(ctx, fx.id)
	if th.Head.Kind != chain.KindStart {
		t.Fatal("the head moved")
	}
	stepSchema, _ := fx.repo.Schema("uwf.StepNode")
	found := false
	for _, name := range strings.Split(tree, "\n") {
		if a := filepath.Base(name); objects.IsAlias(a) {
			if n, err := fx.repo.Store.Get(objects.Alias(a)); err == nil && n.Type == stepSchema {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the agent's StepNode is not kept in the attempt:\n%s", tree)
	}
	chaintest.Fsck(t, fx.dir)
}
