package thread

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/config"
	"github.com/git-uwf/git-uwf/internal/workdir"
)

// StartOptions are the inputs of `thread start`.
type StartOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Getenv func(string) string
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Workflow string
	Prompt   string
	Cwd      string
	// OutsideWorktree records a --cwd outside the work tree (as an
	// absolute path) instead of refusing it.
	OutsideWorktree bool
}

// startOutput is the machine-readable result of `thread start`.
type startOutput struct {
	Thread       chain.ThreadID `json:"thread"`
	Workflow     string         `json:"workflow"`
	WorkflowHash string         `json:"workflowHash"`
	Head         string         `json:"head"`
	Commit       string         `json:"commit"`
	CurrentRole  *string        `json:"currentRole"`
}

func newCmdStart(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "Start a thread: a new run of a workflow",
		ArgsUsage: "<workflow|alias|file>",
		Description: "The workflow is found as: an alias, a file path, .uwf/workflows/<name>.yaml\n" +
			"from the working directory up to the repository top, then the registry.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the task `TEXT` (use - to read it from stdin)"},
			&cli.StringFlag{Name: "cwd", Usage: "working `DIR` of the thread's agents, inside the work tree; recorded relative to its top (default: the current directory)"},
			&cli.BoolFlag{Name: workdir.OutsideFlag, Usage: "allow a --cwd outside the work tree (recorded as an absolute path; every step there needs --" + workdir.OutsideFlag + " too)"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			wf, err := cmdutil.OneArg(c, "workflow")
			if err != nil {
				return err
			}
			opts := &StartOptions{IO: f.IO, Getwd: f.Getwd, Getenv: f.Getenv, Repo: f.Repo,
				Workflow: wf, Prompt: c.String("prompt"), Cwd: c.String("cwd"), OutsideWorktree: c.Bool(workdir.OutsideFlag)}
			if opts.Prompt == "-" {
				b, err := io.ReadAll(f.IO.In)
				if err != nil {
					return fmt.Errorf("read prompt from stdin: %w", err)
				}
				opts.Prompt = string(b)
			}
			if opts.Prompt == "" {
				return cmdutil.FlagErrorf("missing --prompt: say what the thread should do")
			}
			if opts.Format, err = cmdutil.FormatOf(c); err != nil {
				return err
			}
			return startRun(c.Context, opts)
		},
	}
}

func startRun(ctx context.Context, opts *StartOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	wd, err := opts.Getwd()
	if err != nil {
		return err
	}
	cwd, err := recordCwd(repo, wd, opts)
	if err != nil {
		return err
	}
	info, err := cmdutil.ResolveWorkflow(ctx, opts.Getwd, repo, opts.Workflow)
	if err != nil {
		return err
	}
	prompt, err := redactPrompt(opts, repo)
	if err != nil {
		return err
	}
	t, err := repo.StartThreadOn(ctx, info, prompt, cwd, workTreeCode(ctx, wd))
	if err != nil {
		return err
	}
	st, err := repo.State(ctx, t)
	if err != nil {
		return err
	}
	out := startOutput{Thread: t.ID, Workflow: info.Name, WorkflowHash: string(info.Alias),
		Head: string(t.Head.Node.Alias), Commit: t.Head.Commit.String(), CurrentRole: strPtr(st.CurrentRole)}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		// Piped or captured (id=$(git uwf thread start …)), stdout is the
		// id alone; the sentences go to stderr.
		human := w
		if !opts.IO.IsStdoutTTY() {
			fmt.Fprintln(w, t.ID)
			human = opts.IO.ErrOut
		}
		fmt.Fprintf(human, "started thread %s (%s)\n", t.ID, info.Name)
		if st.CurrentRole != "" {
			fmt.Fprintf(human, "next role: %s — run: git uwf thread step %s\n", st.CurrentRole, t.ID)
		}
		return nil
	})
}

// recordCwd returns the directory the thread records: --cwd (or the
// working directory) relative to the top of the work tree, so that every
// clone runs the thread in its own copy of it. A --cwd outside the work
// tree is refused unless --outside-worktree is given.
func recordCwd(repo *chain.Repo, wd string, opts *StartOptions) (string, error) {
	top := repo.Info.WorkTree
	if opts.Cwd == "" {
		if rel, ok := workdir.Relative(top, wd); ok {
			return rel, nil
		}
		// A bare repository, or a work tree chosen with GIT_WORK_TREE
		// elsewhere: the thread works at the top.
		return workdir.Top, nil
	}
	dir := opts.Cwd
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--cwd %s: not a directory", opts.Cwd)
	}
	rec, err := workdir.Record(top, dir, opts.OutsideWorktree)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", opts.Cwd, err)
	}
	return rec, nil
}

// redactPrompt scrubs secrets from a task before it is stored: threads are
// pushed to teammates, so a token pasted into a prompt must not travel.
func redactPrompt(opts *StartOptions, repo *chain.Repo) (string, error) {
	prompt := opts.Prompt
	cfg, err := config.Load(config.PathsFor(repo.Info, opts.Getenv), opts.Getenv)
	if err != nil {
		return "", err
	}
	if cfg.RedactionDisabled {
		return prompt, nil
	}
	red, err := agentkit.NewRedactor(cfg.RedactPatterns)
	if err != nil {
		return "", fmt.Errorf("redaction.patterns: %w", err)
	}
	out, found := red.Redact(prompt)
	for _, r := range found {
		fmt.Fprintf(opts.IO.ErrOut, "redacted %d %s from the prompt before storing it\n", r.Count, r.Kind)
	}
	return out, nil
}
