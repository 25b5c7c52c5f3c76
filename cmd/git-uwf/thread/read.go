package thread

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/engine"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
)

// stepsOutput is the machine-readable result of `thread steps`.
type stepsOutput struct {
	Thread   chain.ThreadID   `json:"thread"`
	Workflow string           `json:"workflow"`
	Steps    []chain.StepInfo `json:"steps"`
}

func newCmdSteps(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "steps",
		Usage:     "List a thread's steps from the start to the head",
		ArgsUsage: "<thread>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			tc, err := parseThreadCommand(c, f)
			if err != nil {
				return err
			}
			repo, t, format := tc.repo, tc.thread, tc.format
			if format == cmdutil.FormatText || format == "" {
				// The table shows the status of each output, not the rest of it.
				tb, err := stepsTable(c.Context, repo, t)
				if err != nil {
					return err
				}
				return cmdutil.Print(f.IO, format, nil, func(w io.Writer) error {
					_, err := tb.WriteTo(w)
					return err
				})
			}
			steps, err := repo.Steps(c.Context, t)
			if err != nil {
				return err
			}
			out := stepsOutput{Thread: t.ID, Workflow: t.Workflow.Name, Steps: steps}
			return cmdutil.Print(f.IO, format, out, nil)
		},
	}
}

// stepsTable lays out `thread steps` for people.
func stepsTable(ctx context.Context, repo *chain.Repo, t *chain.Thread) (*cmdutil.Table, error) {
	entries, err := repo.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, err
	}
	tb := cmdutil.NewTable("#", "STEP", "COMMIT", "ROLE", "STATUS", "AGENT", "DURATION")
	tb.Grow(len(entries))
	for i, e := range entries {
		role, status, agent, dur := "(start)", "-", "-", "-"
		switch e.Kind {
		case chain.KindStep:
			if status, err = repo.OutputStatus(e); err != nil {
				return nil, err
			}
			role, agent, dur = e.Step.Role, e.Step.Agent, chain.FormatDuration(msDuration(e.Step.CompletedAtMs-e.Step.StartedAtMs))
		case chain.KindCancel:
			role, status = "(cancel)", "cancelled"
		}
		tb.Row(strconv.Itoa(i), string(e.Node.Alias), hex.EncodeToString(e.Commit[:6]), role, status, agent, dur)
	}
	return tb, nil
}

func newCmdRead(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "Render a thread as markdown, for people and agents",
		ArgsUsage: "<thread>",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "quota", Value: chain.DefaultQuota, Usage: "character budget; the newest steps that fit are shown"},
			&cli.StringFlag{Name: "before", Usage: "only steps before this `STEP` (alias or commit)"},
			&cli.BoolFlag{Name: "start", Usage: "show the task section even with --before"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.Int("quota") <= 0 {
				return cmdutil.FlagErrorf("--quota must be positive")
			}
			tc, err := parseThreadCommand(c, f)
			if err != nil {
				return err
			}
			repo, t, format := tc.repo, tc.thread, tc.format
			md, err := repo.Read(c.Context, t, chain.ReadOptions{Quota: c.Int("quota"), Before: c.String("before"), Start: c.Bool("start")})
			if err != nil {
				return err
			}
			return printMarkdown(f, format, md)
		},
	}
}

// printMarkdown writes markdown as text, or as {"markdown": …}.
func printMarkdown(f *cmdutil.Factory, format cmdutil.Format, md string) error {
	return cmdutil.Print(f.IO, format, map[string]string{"markdown": md}, func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
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
			if c.String("bundle") != "" {
				return exportBundle(c, f)
			}
			tc, err := parseThreadCommand(c, f)
			if err != nil {
				return err
			}
			md, err := exportMarkdown(c.Context, tc.repo, tc.thread)
			if err != nil {
				return err
			}
			return printMarkdown(f, tc.format, md)
		},
	}
}

// exportMarkdown renders every step in full, oldest first, as a PR body.
func exportMarkdown(ctx context.Context, repo *chain.Repo, t *chain.Thread) (string, error) {
	entries, err := repo.Chain(ctx, t.Head.Commit)
	if err != nil {
		return "", err
	}
	st, err := repo.State(ctx, t)
	if err != nil {
		return "", err
	}
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

func newCmdFork(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     "Start a new thread from any step (history is shared, not copied)",
		ArgsUsage: "<step>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			sc, err := parseStepCommand(c, f)
			if err != nil {
				return err
			}
			repo, e, format := sc.repo, sc.entry, sc.format
			t, err := repo.Fork(c.Context, e.Commit)
			if err != nil {
				return err
			}
			out := map[string]any{"thread": t.ID, "forkedFrom": map[string]string{"step": string(e.Node.Alias), "commit": e.Commit.String()}}
			return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "forked thread %s from step %s (commit %s)\n", t.ID, e.Node.Alias, e.Commit.String()[:12])
				return err
			})
		},
	}
}

func newCmdCancel(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "cancel",
		Usage:     "Cancel a thread (a terminal commit that syncs like any other)",
		ArgsUsage: "<thread>",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Aliases: []string{"m"}, Usage: "why (recorded in the commit)"},
			&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "for a running step, wait up to `DURATION` for it to stop"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			tc, err := parseThreadCommand(c, f)
			if err != nil {
				return err
			}
			repo, t, format := tc.repo, tc.thread, tc.format
			unlock, err := repo.LockThread(t.ID)
			if errors.Is(err, chain.ErrBusy) {
				// A step is running: stop it through its kill flag.
				return cancelRunning(c.Context, f, repo, t.ID, c.String("reason"), c.Duration("wait"), format)
			}
			if err != nil {
				return busyExit(err)
			}
			defer unlock()
			if t, err = repo.Thread(c.Context, t.ID); err != nil {
				return err
			}
			// A child thread playing the current role is cancelled first,
			// and its children with it.
			children, err := cancelChildren(c.Context, repo, t, c.String("reason"))
			if err != nil {
				return busyExit(err)
			}
			e, err := repo.Cancel(c.Context, t, c.String("reason"))
			if err != nil {
				return err
			}
			_ = engine.NewKillFlags(repo).Clear(t.ID)
			out := map[string]any{"thread": t.ID, "cancelled": true, "commit": e.Commit.String()}
			if len(children) > 0 {
				out["children"] = children
			}
			return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
				for _, id := range children {
					fmt.Fprintf(w, "cancelled child thread %s\n", id)
				}
				_, err := fmt.Fprintf(w, "cancelled thread %s\n", t.ID)
				return err
			})
		},
	}
}

// stepShowOutput is the machine-readable result of `step show`.
type stepShowOutput struct {
	Hash   string          `json:"hash"`
	Commit string          `json:"commit"`
	Kind   chain.EntryKind `json:"kind"`
	Node   any             `json:"node"`
	Output map[string]any  `json:"output,omitempty"`
	Body   string          `json:"body,omitempty"`
	Detail any             `json:"detail,omitempty"`
}

func newCmdStep(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "step",
		Usage: "Inspect one step",
		Subcommands: []*cli.Command{
			{
				Name:  "show",
				Usage: "Show a step: thread, number, role, status, agent, duration and output",
				Description: "The text form is a summary for people; --format yaml (or json) prints the raw\n" +
					"node with its output, deliverable and agent detail expanded.",
				ArgsUsage: "<step>",
				Flags:     []cli.Flag{cmdutil.FormatFlag()},
				Action: func(c *cli.Context) error {
					sc, err := parseStepCommand(c, f)
					if err != nil {
						return err
					}
					repo, e, format := sc.repo, sc.entry, sc.format
					out := stepShowOutput{Hash: string(e.Node.Alias), Commit: e.Commit.String(), Kind: e.Kind}
					_ = json.Unmarshal(e.Node.Payload, &out.Node)
					if e.Step != nil {
						if out.Output, err = repo.Output(e); err != nil {
							return err
						}
						out.Body, _ = repo.Text(e, e.Step.Body)
						if e.Step.Detail != "" {
							if out.Detail, err = repo.Store.Expand(e.Step.Detail); err != nil {
								return err
							}
						}
					}
					return cmdutil.Print(f.IO, format, out, func(w io.Writer) error {
						return stepSummary(c.Context, w, repo, e, out)
					})
				},
			},
			{
				Name:      "read",
				Usage:     "Print a step's deliverable (or, with --prompt, the prompt its agent saw)",
				ArgsUsage: "<step>",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "prompt", Usage: "print the assembled prompt instead"},
					cmdutil.FormatFlag(),
				},
				Action: func(c *cli.Context) error {
					sc, err := parseStepCommand(c, f)
					if err != nil {
						return err
					}
					repo, e, format := sc.repo, sc.entry, sc.format
					if e.Step == nil {
						return fmt.Errorf("%s is a %s commit, not a step", c.Args().First(), e.Kind)
					}
					var b strings.Builder
					fmt.Fprintf(&b, "# Step `%s`\n\n**Role:** %s\n**Agent:** %s\n\n", e.Node.Alias, e.Step.Role, e.Step.Agent)
					if c.Bool("prompt") {
						prompt, _ := repo.Text(e, e.Step.AssembledPrompt)
						if prompt == "" {
							prompt = "_The prompt was not recorded for this step._"
						}
						fmt.Fprintf(&b, "## Prompt\n\n%s\n", strings.TrimSpace(prompt))
					} else {
						body, _ := repo.Text(e, e.Step.Body)
						out, err := repo.Output(e)
						if err != nil {
							return err
						}
						y, _ := yaml.Marshal(out)
						fmt.Fprintf(&b, "```yaml\n%s```\n\n%s\n", y, strings.TrimSpace(body))
					}
					return printMarkdown(f, format, b.String())
				},
			},
		},
	}
}

// cancelChildren cancels the unfinished child thread playing t's current
// role, deepest first; it returns the ids it cancelled.
func cancelChildren(ctx context.Context, repo *chain.Repo, t *chain.Thread, reason string) ([]chain.ThreadID, error) {
	child, err := repo.ActiveChild(ctx, t)
	if err != nil || child == nil {
		return nil, err
	}
	unlock, err := repo.LockThread(child.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if child, err = repo.Thread(ctx, child.ID); err != nil {
		return nil, err
	}
	done, err := cancelChildren(ctx, repo, child, reason)
	if err != nil {
		return nil, err
	}
	if st, err := repo.State(ctx, child); err != nil || st.Status == chain.StatusCompleted || st.Status == chain.StatusCancelled {
		return done, err
	}
	if reason == "" {
		reason = "parent thread " + string(t.ID) + " cancelled"
	}
	if _, err := repo.Cancel(ctx, child, reason); err != nil {
		return nil, err
	}
	return append(done, child.ID), nil
}

// stepSummary is the text form of `step show`: where the step sits and
// what it produced, for people; the raw node is under --format yaml.
func stepSummary(ctx context.Context, w io.Writer, repo *chain.Repo, e *chain.Entry, out stepShowOutput) error {
	entries, err := repo.Chain(ctx, e.Commit)
	if err != nil {
		return err
	}
	thread := "-"
	if c, err := gitobj.GetCommit(repo.Store.Storer(), e.Commit); err == nil {
		for _, line := range strings.Split(c.Message, "\n") {
			if v, ok := strings.CutPrefix(line, "Uwf-Thread: "); ok {
				thread = v
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("thread", thread)
	row("step", strconv.Itoa(len(entries)-1))
	switch e.Kind {
	case chain.KindStep:
		status, _ := out.Output["$status"].(string)
		row("role", e.Step.Role)
		row("status", orDash(status))
		row("agent", e.Step.Agent)
		row("duration", chain.FormatDuration(msDuration(e.Step.CompletedAtMs-e.Step.StartedAtMs)))
		row("extraction", orDash(e.Step.Extraction))
	case chain.KindStart:
		row("kind", "start")
	case chain.KindCancel:
		row("kind", "cancel")
		row("reason", e.Cancel.Reason)
	}
	row("time", e.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	row("node", out.Hash)
	row("commit", out.Commit)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(out.Output) > 0 {
		y, err := yaml.Marshal(out.Output)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\noutput:\n%s", indent(string(y), "  "))
	}
	if out.Body != "" {
		fmt.Fprintf(w, "\ndeliverable (first lines; git uwf step read %s for all):\n%s", out.Hash, indent(firstLines(out.Body, 8), "  "))
	}
	fmt.Fprintf(w, "\nraw node: git uwf step show %s --format yaml\n", out.Hash)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "") + "\n"
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
