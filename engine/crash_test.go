package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/engine"
)

// testEngine runs one step of thread id in the current directory, as the
// `git uwf thread step` process would.
func testEngine(id string) int {
	ctx := context.Background()
	wd, _ := os.Getwd()
	repo, err := chain.Open(ctx, wd, chain.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	self, _ := os.Executable()
	eng := &engine.Engine{Repo: repo, Self: self}
	spec := agent("slowish", loopScript)
	if script := os.Getenv("UWF_TEST_AGENT_SH"); script != "" {
		spec = &config.AgentSpec{Name: "sh", Argv: []string{"sh", "-c", script, "sh"}}
	}
	if os.Getenv("UWF_TEST_SUPERVISE") == "1" {
		eng.Supervisor = self
	}
	tid, _ := chain.ParseThreadID(id)
	if _, err := eng.Step(ctx, tid, engine.StepOptions{Agent: spec}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestKillStorm kills `thread step` with SIGKILL at random moments (agent
// running, objects being written, ref being moved) and checks after every
// kill that the repository is sound, the thread is at its old or its new
// head, and the next step works.
func TestKillStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("kill storm skipped in -short mode")
	}
	ctx := context.Background()
	fx := newFixture(t)
	self, _ := os.Executable()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rng.Int63()
	rng = rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	kills, completed := 0, 0
	for i := 0; i < 12; i++ {
		before, err := fx.repo.Thread(ctx, fx.id)
		if err != nil {
			t.Fatalf("round %d: thread unreadable: %v", i, err)
		}
		if st, _ := fx.repo.State(ctx, before); st.Status == chain.StatusCompleted {
			break
		}
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Dir = fx.dir
		cmd.Env = append(os.Environ(), "UWF_TEST_ENGINE="+string(fx.id))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Intn(2500)) * time.Millisecond
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			completed++
		case <-time.After(delay):
			// Half the time only the step process dies (its agent lives on,
			// orphaned); half the time the whole process group does.
			if rng.Intn(2) == 0 {
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			} else {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			<-done
			kills++
		}
		// Let an orphaned agent finish writing; it can never move the ref.
		time.Sleep(150 * time.Millisecond)
		chaintest.Git(t, fx.dir, "fsck", "--strict", "--no-progress", "--no-dangling")
		after, err := fx.repo.Thread(ctx, fx.id)
		if err != nil {
			t.Fatalf("round %d: after the kill the thread is unreadable: %v", i, err)
		}
		if after.Head.Commit != before.Head.Commit && after.Head.Parent != before.Head.Commit {
			t.Fatalf("round %d: head %s is neither the old head %s nor a step on top of it", i, after.Head.Commit, before.Head.Commit)
		}
		if _, err := fx.repo.Chain(ctx, after.Head.Commit); err != nil {
			t.Fatalf("round %d: chain broken: %v", i, err)
		}
	}
	t.Logf("%d kills, %d steps completed untouched", kills, completed)
	// No stale lock of any kind is left: the remaining steps run.
	for i := 0; i < 6; i++ {
		th, _ := fx.repo.Thread(ctx, fx.id)
		if st, _ := fx.repo.State(ctx, th); st.Status == chain.StatusCompleted {
			break
		}
		if _, err := fx.eng.Step(ctx, fx.id, engine.StepOptions{Agent: agent("script", loopScript)}); err != nil {
			t.Fatalf("step after the storm: %v", err)
		}
	}
	th, _ := fx.repo.Thread(ctx, fx.id)
	if st, _ := fx.repo.State(ctx, th); st.Status != chain.StatusCompleted {
		t.Fatalf("thread did not complete after the storm: %s", st.Status)
	}
	matches, _ := filepath.Glob(filepath.Join(fx.dir, ".git", "refs", "uwf", "*", "*.lock"))
	if len(matches) > 0 {
		t.Fatalf("ref locks left behind: %s", strings.Join(matches, ", "))
	}
	chaintest.Fsck(t, fx.dir)
}

// TestParallelThreads: steps on different threads run side by side.
func TestParallelThreads(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	info := func() *chain.WorkflowInfo {
		th, _ := fx.repo.Thread(ctx, fx.id)
		return th.Workflow
	}()
	ids := []chain.ThreadID{fx.id}
	for i := 0; i < 3; i++ {
		th, err := fx.repo.StartThread(ctx, info, fmt.Sprintf("task %d", i), fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, th.ID)
	}
	// Each goroutine gets its own repository view, like separate CLI runs;
	// they are opened here because only the test goroutine may fail the test.
	self, _ := os.Executable()
	engines := make([]*engine.Engine, len(ids))
	for i := range ids {
		engines[i] = &engine.Engine{Repo: chaintest.Open(t, fx.dir), Self: self}
	}
	type span struct {
		start, end time.Time
		err        error
	}
	spans := make(chan span, len(ids))
	for i, id := range ids {
		go func(eng *engine.Engine, id chain.ThreadID) {
			start := time.Now()
			_, err := eng.Step(ctx, id, engine.StepOptions{Agent: agent("slow", loopScript)})
			spans <- span{start, time.Now(), err}
		}(engines[i], id)
	}
	var latestStart, earliestEnd time.Time
	for range ids {
		sp := <-spans
		if sp.err != nil {
			t.Errorf("parallel step: %v", sp.err)
		}
		if sp.start.After(latestStart) {
			latestStart = sp.start
		}
		if earliestEnd.IsZero() || sp.end.Before(earliestEnd) {
			earliestEnd = sp.end
		}
	}
	// The steps really ran side by side: none had finished before the last
	// one started (each agent sleeps 500 ms).
	if !latestStart.Before(earliestEnd) {
		t.Errorf("steps ran one after another: the last started at %s, the first finished at %s", latestStart, earliestEnd)
	}
	for _, id := range ids {
		th, _ := fx.repo.Thread(ctx, id)
		if th.Head.Kind != chain.KindStep {
			t.Errorf("thread %s did not advance", id)
		}
	}
	chaintest.Fsck(t, fx.dir)
}
