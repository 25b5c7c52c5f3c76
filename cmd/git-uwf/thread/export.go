package thread

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/text"
)

// ExportOptions are the inputs of `thread export`.
type ExportOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	// Threads are the thread arguments: one without Bundle.
	Threads []string
	// Bundle is the file --bundle writes ("" renders markdown).
	Bundle string
}

func newCmdExport(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "Render a whole thread as markdown for a pull-request description, or --bundle threads into a file",
		ArgsUsage: "<thread>…",
		Description: "Without --bundle: the thread, oldest first, as markdown. With --bundle FILE: a git bundle\n" +
			"of the threads, their attempts, their workflows' registry refs and everything those reach,\n" +
			"for git uwf thread import on another machine.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "bundle", Usage: "write a git bundle of the threads to `FILE`"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := &ExportOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Bundle: c.String("bundle")}
			if opts.Bundle != "" {
				if c.NArg() == 0 {
					return cmdutil.FlagErrorf("missing thread id")
				}
				opts.Threads = c.Args().Slice()
			} else {
				arg, err := cmdutil.OneArg(c, "thread id")
				if err != nil {
					return err
				}
				opts.Threads = []string{arg}
			}
			var err error
			if opts.Format, err = cmdutil.FormatOf(c); err != nil {
				return err
			}
			if opts.Bundle != "" {
				return exportBundleRun(c.Context, opts)
			}
			return exportRun(c.Context, opts)
		},
	}
}

func exportRun(ctx context.Context, opts *ExportOptions) error {
	v, err := viewThread(ctx, opts.Repo, opts.Threads[0])
	if err != nil {
		return err
	}
	md, err := exportMarkdown(v)
	if err != nil {
		return err
	}
	return printMarkdownTo(opts.IO, opts.Format, md)
}

// exportMarkdown renders every step in full, oldest first, as a PR body.
func exportMarkdown(v *threadView) (string, error) {
	repo, t, st, entries := v.repo, v.thread, v.state, v.entries
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %s\n\n", t.Workflow.Name, text.FirstLine(t.Start.Prompt, 100))
	fmt.Fprintf(&b, "Thread `%s` · %d steps · %s\n\n", t.ID, len(entries)-1, st.Status)
	fmt.Fprintf(&b, "<details><summary>Task</summary>\n\n%s\n\n</details>\n\n", strings.TrimSpace(t.Start.Prompt))
	for i, e := range entries[1:] {
		if e.Kind == chain.KindCancel {
			fmt.Fprintf(&b, "### %d. cancelled\n\n%s\n\n", i+1, e.Cancel.Reason)
			continue
		}
		out, err := repo.Output(e)
		if err != nil {
			return "", err
		}
		status, _ := out["$status"].(string)
		fmt.Fprintf(&b, "### %d. %s", i+1, e.Step.Role)
		if status != "" {
			fmt.Fprintf(&b, " — %s", status)
		}
		fmt.Fprintf(&b, "\n\n<sub>agent %s · step `%s` · commit %s · %s</sub>\n\n", e.Step.Agent, e.Node.Alias, e.Commit.String()[:12],
			chain.FormatDuration(msDuration(e.Step.CompletedAtMs-e.Step.StartedAtMs)))
		body, _ := repo.Text(e, e.Step.Body)
		if strings.TrimSpace(body) != "" {
			fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(body))
		}
		fields := map[string]any{}
		for k, v := range out {
			if k != "$status" {
				fields[k] = v
			}
		}
		if len(fields) > 0 {
			y, _ := yaml.Marshal(fields)
			fmt.Fprintf(&b, "<details><summary>Output fields</summary>\n\n```yaml\n%s```\n\n</details>\n\n", y)
		}
	}
	return b.String(), nil
}
