// Package demo implements `git uwf demo`: a complete workflow run, offline,
// in a fresh repository, played by the built-in mock agent.
//
// The action parses the command line into Options and calls
// demoRun(ctx, opts), as every command verb does.
package demo

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/internal/workdir"
	"github.com/git-uwf/git-uwf/moderator"

	"github.com/kballard/go-shellquote"
	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

//go:embed assets/feature.yaml
var workflowYAML []byte

//go:embed assets/feature.mock.yaml
var mockScript []byte

// Options are the inputs of `git uwf demo`.
type Options struct {
	IO         *iostreams.IOStreams
	Getenv     func(string) string
	Now        func() time.Time
	Executable func() (string, error)

	// Dir is the repository to create (default: a new temp directory).
	Dir string
}

// NewCmdDemo returns the `demo` command.
func NewCmdDemo(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "Run a whole workflow offline on the mock agent, in a new repository",
		Description: "Creates a git repository (a temp dir, or --dir), writes an example workflow to\n" +
			".uwf/workflows/feature.yaml and a script for the mock agent, registers the\n" +
			"workflow, starts a thread and steps it until it completes. The repository is\n" +
			"kept so you can explore it with git uwf and plain git.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "create the demo repository in `DIR` (must not exist or be empty)"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c); err != nil {
				return err
			}
			dir := c.String("dir")
			if dir != "" {
				var err error
				if dir, err = cmdutil.AbsPath(f.Getwd, dir); err != nil {
					return err
				}
			}
			return demoRun(c.Context, &Options{IO: f.IO, Getenv: f.Getenv, Now: f.Now, Executable: f.Executable, Dir: dir})
		},
	}
}

func demoRun(ctx context.Context, opts *Options) error {
	out := opts.IO.Out
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "git-uwf-demo-"); err != nil {
			return err
		}
	} else if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("demo directory %s is not empty", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, moderator.ProjectDir), 0o755); err != nil {
		return err
	}
	git, err := gitrepo.NewRunner(dir, nil)
	if err != nil {
		return err
	}
	if _, err := git.Run(ctx, nil, "init", "-q", "-b", "main"); err != nil {
		return fmt.Errorf("create demo repository: %w", err)
	}
	wfPath := filepath.Join(dir, moderator.ProjectDir, "feature.yaml")
	scriptPath := filepath.Join(dir, ".uwf", "feature.mock.yaml")
	if err := os.WriteFile(wfPath, workflowYAML, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(scriptPath, mockScript, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo repository: %s\n", dir)

	repo, err := chain.Open(ctx, dir, chain.Options{Now: opts.Now})
	if err != nil {
		return err
	}
	w, err := moderator.LoadFile(wfPath)
	if err != nil {
		return err
	}
	info, _, err := repo.RegisterWorkflow(ctx, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "registered workflow %s (%s) from .uwf/workflows/feature.yaml\n", info.Name, info.Alias)
	// The thread works at the top of the work tree, recorded as any
	// thread's directory is: relative to it (see package workdir).
	t, err := repo.StartThread(ctx, info, "Add a --verbose flag that prints progress lines.", workdir.Top)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "started thread %s\n\n", t.ID)

	self, err := opts.Executable()
	if err != nil {
		return err
	}
	// The built-in mock runs inside this process, as `thread step` runs it.
	eng := &engine.Engine{Repo: repo, Self: self, SpawnBuiltins: opts.Getenv(engine.EnvSpawnAgents) == "1"}
	mock := &config.AgentSpec{Name: "mock", Argv: []string{"git-uwf", "agent", "mock", "--script", scriptPath}}
	for i := 0; i < 20; i++ {
		res, err := eng.Step(ctx, t.ID, engine.StepOptions{Agent: mock})
		if err != nil {
			return err
		}
		status, _ := res.Output["$status"].(string)
		fmt.Fprintf(out, "step %d: %-9s → %-13s %s\n", i+1, res.Role, status, res.Step)
		if res.Status != chain.StatusIdle {
			fmt.Fprintf(out, "\nthread %s is %s\n\n", t.ID, res.Status)
			break
		}
	}
	if t, err = repo.Thread(ctx, t.ID); err != nil {
		return err
	}
	md, err := repo.Read(ctx, t, chain.ReadOptions{Quota: 100000})
	if err != nil {
		return err
	}
	io.WriteString(out, md)
	uwf := invocation(opts.Executable)
	fmt.Fprintf(out, "\nExplore it:\n  cd %s\n  %s thread list --all\n  %s thread show %s\n  %s thread graph %s\n  %s serve --open\n  git log --format='%%h %%s' %s\n",
		dir, uwf, uwf, t.ID, uwf, t.ID, uwf, t.ID.Ref())
	return nil
}

// invocation is how the printed hints call git-uwf: "git uwf" when the
// git-uwf git finds on PATH is this program, else this program's path
// (make demo runs bin/git-uwf, which is usually not on PATH), so that
// every hint runs as printed.
func invocation(executable func() (string, error)) string {
	self, err := executable()
	if err != nil {
		return "git uwf"
	}
	onPath, err := exec.LookPath("git-uwf")
	if err == nil && sameFile(onPath, self) {
		return "git uwf"
	}
	return shellquote.Join(self)
}

func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}
