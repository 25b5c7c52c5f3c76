package worker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
)

// gitIn runs git in dir and returns its trimmed stdout.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@uwf.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@uwf.invalid", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %v: %v\n%s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// pushRig is a clone with remotes "origin" (a bare repository holding
// refs/uwf/threads/<testThread> at next, a child of base), "missing" (a path that does not
// exist) and "closed" (a git:// port nothing listens on).
type pushRig struct {
	w                  *Worker
	dir, bare, missing string
	base, next, other  string
	third              string // a child of next
}

func newPushRig(t *testing.T) *pushRig {
	t.Helper()
	root := t.TempDir()
	r := &pushRig{dir: filepath.Join(root, "clone"), bare: filepath.Join(root, "remote.git"), missing: filepath.Join(root, "gone", "remote.git")}
	gitIn(t, root, "init", "-q", "--bare", r.bare)
	gitIn(t, root, "init", "-q", r.dir)
	tree := gitIn(t, r.dir, "hash-object", "-t", "tree", "-w", "/dev/null")
	r.base = gitIn(t, r.dir, "commit-tree", tree, "-m", "base")
	r.next = gitIn(t, r.dir, "commit-tree", tree, "-p", r.base, "-m", "next")
	r.other = gitIn(t, r.dir, "commit-tree", tree, "-p", r.base, "-m", "other")
	r.third = gitIn(t, r.dir, "commit-tree", tree, "-p", r.next, "-m", "third")
	gitIn(t, r.dir, "remote", "add", "origin", r.bare)
	gitIn(t, r.dir, "remote", "add", "missing", r.missing)
	gitIn(t, r.dir, "remote", "add", "closed", "git://127.0.0.1:1/remote.git")
	gitIn(t, r.dir, "push", "-q", "origin", r.next+":"+chain.ThreadID(testThread).Ref())
	repo, err := chain.Open(context.Background(), r.dir, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.w = &Worker{Repo: repo, Remote: "origin", Name: "test"}
	return r
}

// TestClassifyPush runs real pushes: the remote refusing one is a
// rejection (another worker won), a remote that cannot be reached is a
// failure (retry), and neither is mistaken for the other.
func TestClassifyPush(t *testing.T) {
	r := newPushRig(t)
	ref := chain.ThreadID(testThread).Ref()
	lease := LeaseRef(testThread)
	tests := []struct {
		name, remote string
		flags        []string
		refspecs     []string
		want         pushOutcome
	}{
		{"non-fast-forward", "origin", nil, []string{r.other + ":" + ref}, pushRejected},
		{"stale lease", "origin", []string{"--force-with-lease=" + lease + ":" + r.base}, []string{r.next + ":" + lease}, pushRejected},
		{"atomic: one ref refused", "origin", nil, []string{r.next + ":" + lease, r.other + ":" + ref}, pushRejected},
		{"remote path missing", "missing", nil, []string{r.next + ":" + ref}, pushFailed},
		{"connection refused", "closed", nil, []string{r.next + ":" + ref}, pushFailed},
		{"taken", "origin", []string{"--force-with-lease=" + lease + ":"}, []string{r.third + ":" + ref, r.next + ":" + lease}, pushTaken},
	}
	names := map[pushOutcome]string{pushTaken: "taken", pushRejected: "rejected", pushFailed: "failed"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.w.Remote = tt.remote
			got, err := r.w.push(context.Background(), tt.flags, tt.refspecs...)
			if got != tt.want {
				t.Fatalf("push = %s (%v), want %s", names[got], err, names[tt.want])
			}
			if (err != nil) != (got == pushFailed) {
				t.Errorf("push = %s with error %v: only a failure carries an error", names[got], err)
			}
		})
	}
	if got := gitIn(t, r.bare, "rev-parse", ref); got != r.third {
		t.Errorf("remote thread at %s, want %s", got, r.third)
	}
}

// TestPushUntil: a push that cannot reach the remote is retried until the
// deadline, then given up as a failure; one that reaches it once the
// remote is back is taken; a rejection is not retried.
func TestPushUntil(t *testing.T) {
	r := newPushRig(t)
	ref := chain.ThreadID(testThread).Ref()
	ctx := context.Background()

	r.w.Remote = "missing"
	attempts := 0
	start := time.Now()
	got, err := r.w.pushUntil(ctx, start.Add(1500*time.Millisecond), "test", func(actx context.Context) (pushOutcome, error) {
		attempts++
		return r.w.push(actx, nil, r.next+":"+ref)
	})
	if got != pushFailed || err == nil || attempts < 2 || time.Since(start) < 1500*time.Millisecond {
		t.Errorf("unreachable remote: %v (%v) after %d attempt(s) in %s, want a failure after retries until the deadline", got, err, attempts, time.Since(start))
	}

	// The remote comes back after the first attempt.
	attempts = 0
	got, err = r.w.pushUntil(ctx, time.Now().Add(time.Minute), "test", func(actx context.Context) (pushOutcome, error) {
		attempts++
		o, err := r.w.push(actx, nil, r.third+":"+ref)
		if attempts == 1 {
			if err := os.MkdirAll(filepath.Dir(r.missing), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(r.bare, r.missing); err != nil {
				t.Fatal(err)
			}
		}
		return o, err
	})
	if got != pushTaken || attempts != 2 {
		t.Errorf("remote back after one failure: %v (%v) after %d attempt(s), want taken on the second", got, err, attempts)
	}

	// A rejection ends at once.
	attempts = 0
	got, _ = r.w.pushUntil(ctx, time.Now().Add(time.Minute), "test", func(actx context.Context) (pushOutcome, error) {
		attempts++
		return r.w.push(actx, nil, r.other+":"+ref)
	})
	if got != pushRejected || attempts != 1 {
		t.Errorf("rejected push: %v after %d attempt(s), want rejected after 1", got, attempts)
	}
}

// TestPushWithChildren: a child ref the remote refuses (it holds the child
// further on) does not cost the step pushed with it: the step goes alone.
// A step the remote refuses is refused with or without children.
func TestPushWithChildren(t *testing.T) {
	ctx := context.Background()
	child := chain.ThreadID("01M87S9ME8QMZHNV9YES317Y90").Ref()
	tests := []struct {
		name                  string
		step                  func(r *pushRig) string // the commit pushed to the thread
		child                 func(r *pushRig) string // the commit pushed to the child
		want                  pushOutcome
		wantThread, wantChild func(r *pushRig) string
	}{
		{"step and child taken together", func(r *pushRig) string { return r.third }, func(r *pushRig) string { return r.third },
			pushTaken, func(r *pushRig) string { return r.third }, func(r *pushRig) string { return r.third }},
		{"child refused, step taken alone", func(r *pushRig) string { return r.third }, func(r *pushRig) string { return r.other },
			pushTaken, func(r *pushRig) string { return r.third }, func(r *pushRig) string { return r.next }},
		{"step refused", func(r *pushRig) string { return r.other }, func(r *pushRig) string { return r.third },
			pushRejected, func(r *pushRig) string { return r.next }, func(r *pushRig) string { return r.next }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newPushRig(t)
			gitIn(t, r.dir, "push", "-q", "origin", r.next+":"+child) // the remote's child, at next
			ref := chain.ThreadID(testThread).Ref()
			got, err := r.w.pushWithChildren(ctx, nil, []string{tt.step(r) + ":" + ref}, []string{tt.child(r) + ":" + child})
			if got != tt.want {
				t.Fatalf("push = %v (%v), want %v", got, err, tt.want)
			}
			if at := gitIn(t, r.bare, "rev-parse", ref); at != tt.wantThread(r) {
				t.Errorf("remote thread at %s, want %s", at, tt.wantThread(r))
			}
			if at := gitIn(t, r.bare, "rev-parse", child); at != tt.wantChild(r) {
				t.Errorf("remote child at %s, want %s", at, tt.wantChild(r))
			}
		})
	}
}
