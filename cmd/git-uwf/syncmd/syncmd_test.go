package syncmd_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/syncmd"
	"github.com/git-uwf/git-uwf/uwfsync/synctest"
)

const wfYAML = `name: solo
roles:
  worker:
    frontmatter:
      type: object
      properties:
        summary: {type: string}
      required: [summary]
graph:
  $START:
    _: {role: worker, prompt: "Do it."}
  worker:
    _: {role: worker, prompt: "Again."}
`

// run runs one git uwf command line in dir with the sync commands and
// returns stdout and the error the command returned. Flags go before
// arguments: moving them is root.Run's job, which is not used here.
func run(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	f.Repo = cmdutil.OpenRepoOnce(f)
	cmds := []*cli.Command{syncmd.NewCmdFetch(f), syncmd.NewCmdPush(f), syncmd.NewCmdSync(f), syncmd.NewCmdRemote(f)}
	hideHelp(cmds)
	app := &cli.App{
		Name: "git uwf", Writer: out, ErrWriter: io.Discard, ExitErrHandler: func(*cli.Context, error) {},
		HideHelp: true, HideHelpCommand: true, HideVersion: true,
		Flags:    []cli.Flag{cmdutil.FormatFlag()},
		Commands: cmds,
	}
	err := app.RunContext(context.Background(), append([]string{"git-uwf"}, args...))
	return out.String(), err
}

// hideHelp keeps urfave/cli from using its package-level help flag, which
// it writes to on every parse (a data race between parallel tests).
func hideHelp(cmds []*cli.Command) {
	for _, c := range cmds {
		c.HideHelp, c.HideHelpCommand = true, true
		hideHelp(c.Subcommands)
	}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := run(t, dir, args...)
	if err != nil {
		t.Fatalf("git uwf %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// thread starts a thread with one step in dir and returns its id.
func thread(t *testing.T, r *chain.Repo) chain.ThreadID {
	t.Helper()
	info, _, err := r.RegisterWorkflow(context.Background(), chaintest.Workflow(t, "solo", wfYAML))
	if err != nil {
		t.Fatal(err)
	}
	th, err := r.StartThread(context.Background(), info, "a task", "/")
	if err != nil {
		t.Fatal(err)
	}
	work(t, r, th.ID, "first")
	return th.ID
}

func work(t *testing.T, r *chain.Repo, id chain.ThreadID, summary string) *chain.Entry {
	t.Helper()
	return chaintest.Step(t, r, id, "worker", map[string]any{"summary": summary}, summary)
}

func TestArguments(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	tests := []struct {
		args    []string
		wantErr string
		usage   bool
	}{
		{[]string{"push"}, "no remote given: pass one (e.g. git uwf push origin) or run git uwf remote setup <remote>", true},
		{[]string{"sync"}, "no remote given: pass one (e.g. git uwf sync origin)", true},
		{[]string{"fetch", "origin", "extra"}, "fetch takes at most one remote", true},
		{[]string{"remote", "setup"}, "remote setup takes one remote", true},
		{[]string{"push", "nowhere"}, `remote "nowhere" is not configured`, false},
		{[]string{"fetch", repos.Remote}, "only talks to a configured remote", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := run(t, repos.A, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			var fe *cmdutil.FlagError
			if errors.As(err, &fe) != tt.usage {
				t.Errorf("usage error = %v, want %v", !tt.usage, tt.usage)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a, b := chaintest.Open(t, repos.A), chaintest.Open(t, repos.B)
	id := thread(t, a)

	out := mustRun(t, repos.A, "sync", "origin")
	if want := "pushed thread " + string(id) + "\npushed workflow solo\n"; out != want {
		t.Errorf("A sync:\n%s\nwant:\n%s", out, want)
	}

	out = mustRun(t, repos.B, "remote", "setup", "origin")
	for _, want := range []string{"added git config remote.origin.fetch +refs/uwf/*:refs/remotes/origin/uwf/*",
		"added git config remote.origin.push HEAD", "added git config remote.origin.push refs/uwf/*:refs/uwf/*",
		"added git config uwf.remote origin", "default remote: origin"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("remote setup output misses %q:\n%s", want, out)
		}
	}
	if out = mustRun(t, repos.B, "remote", "setup", "origin"); !strings.Contains(out, "already set up") {
		t.Errorf("second remote setup:\n%s", out)
	}

	out = mustRun(t, repos.B, "fetch") // the default remote
	if want := "new thread " + string(id) + " (1 step)\nnew workflow solo (1 version)\n"; out != want {
		t.Errorf("B fetch:\n%s\nwant:\n%s", out, want)
	}

	// Both step: A syncs first, B's push is rejected, B's sync forks.
	work(t, a, id, "A")
	bStep := work(t, b, id, "B")
	mustRun(t, repos.A, "sync", "origin")
	out, err := run(t, repos.B, "push")
	if !errors.Is(err, cmdutil.ErrSilent) || !strings.Contains(out, "rejected refs/uwf/threads/"+string(id)+": [rejected] (fetch first): origin has steps you do not have; run git uwf sync origin") {
		t.Errorf("B push of a diverged thread: %v\n%s", err, out)
	}
	out = mustRun(t, repos.B, "sync")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "diverged "+string(id)+": your steps saved as fork ") ||
		!strings.HasPrefix(lines[1], "pushed thread ") {
		t.Fatalf("B sync:\n%s", out)
	}
	fork := strings.TrimPrefix(lines[0], "diverged "+string(id)+": your steps saved as fork ")
	if got := chaintest.Git(t, repos.Remote, "rev-parse", chain.ThreadsPrefix+fork); got != bStep.Commit.String() {
		t.Errorf("remote fork %s = %s, want B's %s", fork, got, bStep.Commit)
	}
	if out = mustRun(t, repos.A, "sync", "origin"); out != "new thread "+fork+" (2 steps)\n" {
		t.Errorf("A sync after B's fork:\n%s", out)
	}
	for _, dir := range []string{repos.A, repos.B} {
		if out = mustRun(t, dir, "sync", "origin"); out != "up to date with origin\n" {
			t.Errorf("second sync in %s:\n%s", dir, out)
		}
	}

	out = mustRun(t, repos.B, "remote", "setup", "--remove", "origin")
	if !strings.Contains(out, "removed git config uwf.remote origin\n") {
		t.Errorf("remote setup --remove:\n%s", out)
	}
	if _, err := run(t, repos.B, "sync"); err == nil || !strings.Contains(err.Error(), "no remote given") {
		t.Errorf("sync after --remove: %v", err)
	}
	for _, dir := range []string{repos.A, repos.B, repos.Remote} {
		chaintest.Fsck(t, dir)
	}
}

// TestJSON pins the machine-readable shape: {"remote","results":[{"ref",
// "kind","old","new","fork","reason"[,"steps"]}]}.
func TestJSON(t *testing.T) {
	t.Parallel()
	repos := synctest.ReposAndRemote(t)
	a := chaintest.Open(t, repos.A)
	id := thread(t, a)
	mustRun(t, repos.A, "push", "origin")
	out := mustRun(t, repos.B, "fetch", "--format", "json", "origin")
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("fetch --format json: %v\n%s", err, out)
	}
	if keys := slices.Sorted(maps.Keys(doc)); !slices.Equal(keys, []string{"remote", "results"}) {
		t.Errorf("top-level keys = %v", keys)
	}
	var results []map[string]any
	if err := json.Unmarshal(doc["results"], &results); err != nil || len(results) != 2 {
		t.Fatalf("results = %s, %v", doc["results"], err)
	}
	head := chaintest.Git(t, repos.A, "rev-parse", chain.ThreadsPrefix+string(id))
	want := map[string]any{"ref": chain.ThreadsPrefix + string(id), "kind": "new", "old": "", "new": head,
		"fork": "", "reason": "", "steps": float64(1)}
	for k, v := range want {
		if results[0][k] != v {
			t.Errorf("results[0][%q] = %v, want %v", k, results[0][k], v)
		}
	}
	if len(results[0]) != len(want) {
		t.Errorf("results[0] keys = %v, want %v", slices.Sorted(maps.Keys(results[0])), slices.Sorted(maps.Keys(want)))
	}
	out = mustRun(t, repos.B, "sync", "--format", "json", "origin")
	if !strings.Contains(out, `"kind": "up-to-date"`) || strings.Contains(out, `"kind": "new"`) {
		t.Errorf("second sync json:\n%s", out)
	}
}
