package thread

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

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

// StepShowOptions are the inputs of `step show`.
type StepShowOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Step string
}

// newCmdStepShow returns `step show`.
func newCmdStepShow(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "Show a step: thread, number, role, status, agent, duration and output",
		Description: "The text form is a summary for people; --format yaml (or json) prints the raw\n" +
			"node with its output, deliverable and agent detail expanded.",
		ArgsUsage: "<step>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "step (alias or commit)")
			if err != nil {
				return err
			}
			return stepShowRun(c.Context, &StepShowOptions{IO: f.IO, Repo: f.Repo, Format: format, Step: arg})
		},
	}
}

func stepShowRun(ctx context.Context, opts *StepShowOptions) error {
	repo, e, err := loadStep(ctx, opts.IO.ErrOut, opts.Repo, opts.Step)
	if err != nil {
		return err
	}
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
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		return stepSummary(ctx, w, repo, e, out)
	})
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
	fields := cmdutil.NewFields()
	fields.Row("thread", thread)
	fields.Row("step", strconv.Itoa(len(entries)-1))
	switch e.Kind {
	case chain.KindStep:
		status, _ := out.Output["$status"].(string)
		fields.Row("role", e.Step.Role)
		fields.Row("status", orDash(status))
		fields.Row("agent", e.Step.Agent)
		fields.Row("duration", chain.FormatDuration(msDuration(e.Step.CompletedAtMs-e.Step.StartedAtMs)))
		fields.Row("extraction", orDash(e.Step.Extraction))
	case chain.KindStart:
		fields.Row("kind", "start")
	case chain.KindCancel:
		fields.Row("kind", "cancel")
		fields.Row("reason", e.Cancel.Reason)
	}
	fields.Row("time", e.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	fields.Row("node", out.Hash)
	fields.Row("commit", out.Commit)
	if _, err := fields.WriteTo(w); err != nil {
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
