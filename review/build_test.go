package review_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/review"
)

const devWorkflow = `name: dev
roles:
  developer:
    frontmatter:
      type: object
      properties: {$status: {const: review_needed}, summary: {type: string}}
      required: [$status]
  reviewer:
    frontmatter:
      type: object
      properties: {$status: {enum: [approved, rejected]}}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement it."}
  developer:
    review_needed: {role: reviewer, prompt: "Review it."}
  reviewer:
    rejected: {role: developer, prompt: "Fix it."}
    approved: {role: $END, prompt: "Done."}
`

// fixture is a repository with one thread of two steps (developer,
// reviewer rejected) and a branch "feature" off main.
type fixture struct {
	dir           string
	repo          *chain.Repo
	id            chain.ThreadID
	start, s1, s2 *chain.Entry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := chaintest.InitRepo(t)
	r := chaintest.Open(t, dir)
	info, _, err := r.RegisterWorkflow(ctx, chaintest.Workflow(t, "dev", devWorkflow))
	if err != nil {
		t.Fatal(err)
	}
	th, err := r.StartThread(ctx, info, "Add a flag", dir)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, repo: r, id: th.ID, start: th.Head}
	f.s1 = chaintest.Step(t, r, th.ID, "developer", map[string]any{"$status": "review_needed", "summary": "did it"}, "Did it.")
	f.s2 = chaintest.Step(t, r, th.ID, "reviewer", map[string]any{"$status": "rejected"}, "No.")
	chaintest.Git(t, dir, "checkout", "-q", "-b", "feature")
	return f
}

// commit makes an empty commit on the current branch with message lines.
func (f *fixture) commit(t *testing.T, lines ...string) string {
	t.Helper()
	args := []string{"commit", "-q", "--allow-empty"}
	for _, l := range lines {
		args = append(args, "-m", l)
	}
	chaintest.Git(t, f.dir, args...)
	return chaintest.Git(t, f.dir, "rev-parse", "HEAD")
}

func trailer(id chain.ThreadID, e *chain.Entry) string {
	return "Uwf-Step: " + chain.StepTrailerValue(id, e.Commit)
}

func TestBuildResolves(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cases := []struct {
		name      string
		message   []string
		wantSteps []int // resolved step numbers, in trailer order
		wantErr   string
	}{
		{"engine trailer", []string{"code", trailer(f.id, f.start)}, []int{1}, ""},
		{"alias trailer", []string{"code", "Uwf-Step: " + string(f.s2.Node.Alias)}, []int{2}, ""},
		{"alias prefix, lower case key", []string{"code", "uwf-step: " + strings.ToLower(string(f.s1.Node.Alias[:8]))}, []int{1}, ""},
		{"squash keeps both", []string{"code one", trailer(f.id, f.start), "code two", trailer(f.id, f.s1)}, []int{1, 2}, ""},
		{"thread prefix", []string{"code", "Uwf-Step: " + string(f.id[:10]) + "@" + f.s1.Commit.String()[:7]}, []int{2}, ""},
		{"garbage", []string{"code", "Uwf-Step: hello world"}, nil, "not a step alias"},
		{"bad commit part", []string{"code", "Uwf-Step: " + string(f.id) + "@xyz"}, nil, "not a commit id"},
		{"nothing on top of the head", []string{"code", trailer(f.id, f.s2)}, nil, "has no step on top of"},
		{"no such commit", []string{"code", "Uwf-Step: " + string(f.id) + "@deadbeef0123"}, nil, "has no commit deadbeef0123"},
		{"no such thread", []string{"code", "Uwf-Step: 01ARZ3NDEKTSV4RRFFQ69G5FAV@deadbeef0123"}, nil, "is not in this repository"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := f.commit(t, tc.message...)
			rep, err := review.Build(ctx, f.repo, review.Options{Range: "HEAD~1..HEAD"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Commits) != 1 || rep.Commits[0].Commit != c {
				t.Fatalf("commits = %+v, want just %s", rep.Commits, c)
			}
			var got []int
			for _, l := range rep.Commits[0].Steps {
				if l.Resolved() {
					got = append(got, l.Step)
					if l.Thread != string(f.id) {
						t.Errorf("step %d on thread %s, want %s", l.Step, l.Thread, f.id)
					}
				}
			}
			if !equalInts(got, tc.wantSteps) {
				t.Errorf("resolved steps = %v, want %v (links %+v)", got, tc.wantSteps, rep.Commits[0].Steps)
			}
			if rep.Commits[0].NoStep != (len(tc.wantSteps) == 0) {
				t.Errorf("noStep = %v with steps %v", rep.Commits[0].NoStep, got)
			}
			if tc.wantErr == "" {
				if len(rep.Problems) != 0 {
					t.Errorf("problems = %v, want none", rep.Problems)
				}
				return
			}
			if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, tc.wantErr) || !strings.HasPrefix(rep.Problems[0].String(), c[:12]+": ") {
				t.Errorf("problems = %v, want one for %s containing %q", rep.Problems, c[:12], tc.wantErr)
			}
		})
	}
}

func TestBuildFailedAttempt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	th, err := f.repo.Thread(ctx, f.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.RecordAttempt(ctx, th, chain.Attempt{Role: "developer", Agent: "test", Error: "agent crashed", Phase: "agent"}); err != nil {
		t.Fatal(err)
	}
	f.commit(t, "code", trailer(f.id, f.s2))
	rep, err := review.Build(ctx, f.repo, review.Options{Range: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "the step failed") || !strings.Contains(rep.Problems[0].Message, "agent crashed") {
		t.Errorf("problems = %v, want the failed attempt", rep.Problems)
	}
}

func TestBuildThreadAndOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	later := f.commit(t, "second step's code", trailer(f.id, f.s1))
	earlier := f.commit(t, "first step's code", trailer(f.id, f.start))
	hand := f.commit(t, "by hand")
	rep, err := review.Build(ctx, f.repo, review.Options{Range: "main..feature"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary != (review.Summary{Commits: 3, WithStep: 2, WithoutStep: 1, Steps: 2, Threads: 1, Problems: 1}) {
		t.Errorf("summary = %+v", rep.Summary)
	}
	if !rep.Commits[2].NoStep || rep.Commits[2].Commit != hand {
		t.Errorf("last commit = %+v, want %s without a step", rep.Commits[2], hand)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Commit != earlier || !strings.Contains(rep.Problems[0].Message, "runs against the thread") ||
		!strings.Contains(rep.Problems[0].Message, later[:12]) {
		t.Errorf("problems = %v, want the out-of-order commit %s", rep.Problems, earlier[:12])
	}
	th := rep.Threads[0]
	if th.Thread != string(f.id) || th.Task != "Add a flag" || th.Workflow != "dev" || len(th.Path) != 2 {
		t.Fatalf("thread = %+v", th)
	}
	for i, want := range []struct {
		role, status, instruction, deliverable string
	}{{"developer", "review_needed", "do it", "Did it."}, {"reviewer", "rejected", "do it", "No."}} {
		st := th.Path[i]
		if st.Role != want.role || st.Status != want.status || st.Instruction != want.instruction || !st.Committed || st.Deliverable != want.deliverable {
			t.Errorf("path[%d] = %+v, want %+v", i, st, want)
		}
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 commits, 2 with a step, 1 without", "| by hand | **no step** |", "<details><summary>Step 2 · <b>reviewer</b> · rejected", "> Add a flag"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func TestBuildMissingThreadNamesTheRemote(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.commit(t, "code", trailer(f.id, f.start))
	// The thread is only under a remote's namespace (fetched by plain git,
	// not taken over).
	chaintest.Git(t, f.dir, "update-ref", "refs/remotes/upstream/uwf/threads/"+string(f.id), string(f.id.Ref()))
	chaintest.Git(t, f.dir, "update-ref", "-d", f.id.Ref())
	rep, err := review.Build(ctx, f.repo, review.Options{Range: "main..HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "remote upstream has it: run git uwf fetch upstream") {
		t.Errorf("problems = %v, want a hint to fetch upstream", rep.Problems)
	}
}

func TestBuildBadRange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cases := []struct {
		name, rng, want string
		detach          bool
	}{
		{"unknown revision", "nope..HEAD", `range "nope..HEAD" does not name commits`, false},
		{"option", "--all", "looks like an option", false},
		{"past the root", "HEAD~9..HEAD", `range "HEAD~9..HEAD" does not name commits`, false},
		{"single revision past the root", "HEAD~9", `range "HEAD~9" does not name commits`, false},
		{"no upstream", "", "branch feature has no upstream: pass the range to review (e.g. git uwf review main..feature)", false},
		{"detached", "", "HEAD is detached", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.detach {
				chaintest.Git(t, f.dir, "checkout", "-q", "--detach")
				defer chaintest.Git(t, f.dir, "checkout", "-q", "feature")
			}
			_, err := review.Build(ctx, f.repo, review.Options{Range: tc.rng})
			if !errors.Is(err, review.ErrBadRange) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrBadRange containing %q", err, tc.want)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBuildBoundsTrailersPerCommit(t *testing.T) {
	f := newFixture(t)
	msg := []string{"a message written to slow review down"}
	for i := range 70 {
		msg = append(msg, fmt.Sprintf("Uwf-Step: 01ARZ3NDEKTSV4RRFFQ69G5F%02d@deadbeef", i))
	}
	f.commit(t, msg...)
	rep, err := review.Build(context.Background(), f.repo, review.Options{Range: "main..HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rep.Commits[0].Steps); got != 64 {
		t.Errorf("followed %d trailers, want 64", got)
	}
	if len(rep.Problems) != 65 || !strings.Contains(rep.Problems[0].Message, "carries 70 Uwf-Step trailers; only the first 64 are followed") {
		t.Errorf("%d problems, first %v", len(rep.Problems), rep.Problems[0])
	}
}

// TestBuildForkedByTime: two lines both continue the start (a thread and
// its fork, as a sync between clones leaves them); the code commit's author
// time picks the step whose run it falls in.
func TestBuildForkedByTime(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t) // the thread's first step ran at 1700000000.000–001.500
	fork, err := f.repo.Fork(ctx, f.start.Commit)
	if err != nil {
		t.Fatal(err)
	}
	th, err := f.repo.Thread(ctx, fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.repo.Store.Put(th.Workflow.RoleSchemas["developer"], map[string]any{"$status": "review_needed", "summary": "other"})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := f.repo.Schema("uwf.StepNode")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := f.repo.Store.Put(schema, chain.StepNode{Start: th.StartAlias, Role: "developer", Output: out.Alias,
		Agent: "test", EdgePrompt: "do it", StartedAtMs: 1800000000000, CompletedAtMs: 1800000030000, Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	forkStep, err := f.repo.AppendStep(ctx, th, ref, chain.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, date string
		want       *chain.Entry
		line       chain.ThreadID
		note       string
	}{
		{"in the thread's step", "@1700000001 +0000", f.s1, f.id, ""},
		{"in the fork's step", "@1800000010 +0000", forkStep, fork.ID, "the trailer names thread " + string(f.id)},
		{"in neither", "@1900000000 +0000", f.s1, f.id, "ambiguous: 2 steps continue"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "code", "-m", trailer(f.id, f.start))
			cmd.Dir, cmd.Env = f.dir, append(chaintest.GitEnv(), "GIT_AUTHOR_DATE="+tc.date)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git commit: %v\n%s", err, out)
			}
			rep, err := review.Build(ctx, f.repo, review.Options{Range: "HEAD~1..HEAD"})
			if err != nil {
				t.Fatal(err)
			}
			l := rep.Commits[0].Steps[0]
			if l.Alias != string(tc.want.Node.Alias) || l.Thread != string(tc.line) || !strings.Contains(l.Note, tc.note) || (tc.note == "") != (l.Note == "") {
				t.Errorf("link = %+v, want step %s on %s with a note containing %q", l, tc.want.Node.Alias, tc.line, tc.note)
			}
			if tc.line == fork.ID && (len(rep.Threads) != 1 || len(rep.Threads[0].NamedAs) != 1 || rep.Threads[0].NamedAs[0] != string(f.id)) {
				t.Errorf("threads = %+v, want the fork named as %s", rep.Threads, f.id)
			}
		})
	}
}
