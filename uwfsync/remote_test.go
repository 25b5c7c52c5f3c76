package uwfsync_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/uwfsync"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

// config returns the values of the keys setup touches, one "key value" per
// line, sorted.
func config(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "config", "--get-regexp", `^(remote\.origin\.(fetch|push|uwfpushhead)|uwf\.remote)$`)
	cmd.Dir = dir
	cmd.Env = chaintest.GitEnv()
	out, _ := cmd.Output() // exit 1 when nothing matches
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func TestSetupRemote(t *testing.T) {
	t.Parallel()
	const (
		branches = "remote.origin.fetch +refs/heads/*:refs/remotes/origin/*"
		uwfFetch = "remote.origin.fetch +refs/uwf/*:refs/remotes/origin/uwf/*"
		head     = "remote.origin.push HEAD"
		uwfPush  = "remote.origin.push refs/uwf/*:refs/uwf/*"
		marker   = "remote.origin.uwfpushhead true"
	)
	tests := []struct {
		name    string
		prepare [][]string // git commands run first
		want    []string   // config after setup
	}{
		{"fresh clone", nil,
			[]string{branches, uwfFetch, head, uwfPush, marker, "uwf.remote origin"}},
		{"user push refspec kept, no HEAD added",
			[][]string{{"config", "--add", "remote.origin.push", "refs/heads/main:refs/heads/main"}},
			[]string{branches, uwfFetch, "remote.origin.push refs/heads/main:refs/heads/main", uwfPush, "uwf.remote origin"}},
		{"default remote kept",
			[][]string{{"remote", "add", "other", "/nonexistent"}, {"config", "uwf.remote", "other"}},
			[]string{branches, uwfFetch, head, uwfPush, marker, "uwf.remote other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repos := synctest.ReposAndRemote(t)
			for _, args := range tt.prepare {
				chaintest.Git(t, repos.B, args...)
			}
			before := config(t, repos.B)
			b := chaintest.Open(t, repos.B)
			for range 2 { // idempotent
				if _, err := uwfsync.SetupRemote(ctx, b, origin); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(tt.want)
			if got, want := config(t, repos.B), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("config after setup:\n%s\nwant:\n%s", got, want)
			}
			res, err := uwfsync.RemoveRemote(ctx, b, origin)
			if err != nil {
				t.Fatal(err)
			}
			if got := config(t, repos.B); got != before {
				t.Errorf("config after remove (removed %q):\n%s\nwant as before:\n%s", res.Removed, got, before)
			}
		})
	}
}

func TestCheckRemote(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	for _, tt := range []struct {
		remote, wantErr string
	}{
		{"origin", ""},
		{"", "invalid remote name"},
		{"--upload-pack=x", "invalid remote name"},
		{"a*b", "invalid remote name"},
		{repos.Remote, "only talks to a configured remote"}, // a path, not a remote the user set up
		{"../remote.git", "only talks to a configured remote"},
		{"upstream", "not configured"},
	} {
		err := uwfsync.CheckRemote(context.Background(), a, tt.remote)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckRemote(%q) = %v, want error containing %q", tt.remote, err, tt.wantErr)
		}
	}
	if _, err := uwfsync.Push(context.Background(), a, "upstream", uwfsync.PushOptions{}); err == nil {
		t.Error("Push to an unconfigured remote succeeded")
	}
	if _, err := uwfsync.DefaultRemote(context.Background(), a); err == nil || !strings.Contains(err.Error(), "no remote given") {
		t.Errorf("DefaultRemote without uwf.remote = %v, want ErrNoRemote", err)
	}
}

// TestPlainGit: after remote setup, plain git push sends the branch and the
// threads, plain git fetch brings them, Adopt makes them threads of the
// clone (fast-forward and new only), and divergence is left to sync.
func TestPlainGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	for _, r := range []*chain.Repo{a, b} {
		if _, err := uwfsync.SetupRemote(ctx, r, origin); err != nil {
			t.Fatal(err)
		}
	}
	th := start(t, a, "plain git")
	step := develop(t, a, th.ID, "first")
	chaintest.Git(t, repos.A, "commit", "-q", "--allow-empty", "-m", "code change")
	chaintest.Git(t, repos.A, "push", "-q")
	for ref, want := range map[string]string{"refs/heads/main": chaintest.Git(t, repos.A, "rev-parse", "main"), th.ID.Ref(): step.Commit.String()} {
		if got := chaintest.Git(t, repos.Remote, "rev-parse", ref); got != want {
			t.Errorf("after plain git push, remote %s = %s, want %s", ref, got, want)
		}
	}

	chaintest.Git(t, repos.B, "fetch", "-q")
	chaintest.Git(t, repos.B, "merge", "-q", "--ff-only", "origin/main")
	if got := chaintest.Git(t, repos.B, "rev-parse", "refs/remotes/origin/uwf/threads/"+string(th.ID)); got != step.Commit.String() {
		t.Fatalf("after plain git fetch, remote-tracking thread = %s, want %s", got, step.Commit)
	}
	if n, err := b.Store.Get(step.Node.Alias); err != nil || n.OID.IsZero() {
		t.Errorf("alias %s right after plain git fetch: %v", step.Node.Alias, err)
	}
	adopt := func(r *chain.Repo) *uwfsync.Report {
		t.Helper()
		reps, err := uwfsync.Adopt(ctx, r)
		if err != nil || len(reps) != 1 {
			t.Fatalf("Adopt = %v, %v; want one report", reps, err)
		}
		return reps[0]
	}
	if res := result(t, adopt(b), th.ID.Ref()); res.Kind != uwfsync.KindNew {
		t.Errorf("Adopt after plain fetch = %+v, want new", res)
	}
	if _, err := b.Thread(ctx, th.ID); err != nil {
		t.Fatalf("B reads %s after Adopt: %v", th.ID, err)
	}

	// B steps ahead: plain git fetch does not complain, plain push sends it.
	bStep := review(t, b, th.ID, "rejected", "more")
	chaintest.Git(t, repos.B, "fetch", "-q")
	if res := result(t, adopt(b), th.ID.Ref()); res.Kind != uwfsync.KindLocalAhead {
		t.Errorf("Adopt with B ahead = %+v, want local-ahead", res)
	}
	chaintest.Git(t, repos.B, "push", "-q")
	chaintest.Git(t, repos.A, "fetch", "-q")
	if res := result(t, adopt(a), th.ID.Ref()); res.Kind != uwfsync.KindFastForward || res.New != bStep.Commit.String() {
		t.Errorf("Adopt in A = %+v, want fast-forward to %s", res, bStep.Commit)
	}

	// Both step: B's plain push is refused, Adopt leaves the divergence
	// alone, sync keeps both lines.
	aStep := develop(t, a, th.ID, "A again")
	bAgain := develop(t, b, th.ID, "B again")
	chaintest.Git(t, repos.A, "push", "-q")
	push := exec.Command("git", "push", "-q")
	push.Dir, push.Env = repos.B, chaintest.GitEnv()
	if out, err := push.CombinedOutput(); err == nil || !strings.Contains(string(out), "[rejected]        "+th.ID.Ref()) {
		t.Fatalf("plain git push of a diverged thread: %v, want %s rejected:\n%s", err, th.ID, out)
	}
	if got := chaintest.Git(t, repos.Remote, "rev-parse", th.ID.Ref()); got != aStep.Commit.String() {
		t.Fatalf("remote %s = %s after a refused push, want A's %s", th.ID, got, aStep.Commit)
	}
	chaintest.Git(t, repos.B, "fetch", "-q")
	if res := result(t, adopt(b), th.ID.Ref()); res.Kind != uwfsync.KindDiverged || res.New != bAgain.Commit.String() {
		t.Errorf("Adopt of a diverged thread = %+v, want diverged and untouched", res)
	}
	rep := mustSync(t, b)
	if res := result(t, rep, th.ID.Ref(), uwfsync.KindForked); res.New != aStep.Commit.String() {
		t.Errorf("sync = %+v", res)
	}
	for _, dir := range []string{repos.A, repos.B, repos.Remote} {
		chaintest.Fsck(t, dir)
	}
}
