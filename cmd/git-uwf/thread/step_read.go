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
)

// StepReadOptions are the inputs of `step read`.
type StepReadOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Step string
	// Prompt prints the assembled prompt instead of the deliverable.
	Prompt bool
}

// newCmdStepRead returns `step read`.
func newCmdStepRead(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "Print a step's deliverable (or, with --prompt, the prompt its agent saw)",
		ArgsUsage: "<step>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "prompt", Usage: "print the assembled prompt instead"},
			cmdutil.FormatFlag(),
		},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "step (alias or commit)")
			if err != nil {
				return err
			}
			return stepReadRun(c.Context, &StepReadOptions{IO: f.IO, Repo: f.Repo, Format: format, Step: arg, Prompt: c.Bool("prompt")})
		},
	}
}

func stepReadRun(ctx context.Context, opts *StepReadOptions) error {
	repo, e, err := loadStep(ctx, opts.IO.ErrOut, opts.Repo, opts.Step)
	if err != nil {
		return err
	}
	if e.Step == nil {
		return fmt.Errorf("%s is a %s commit, not a step", opts.Step, e.Kind)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step `%s`\n\n**Role:** %s\n**Agent:** %s\n\n", e.Node.Alias, e.Step.Role, e.Step.Agent)
	if opts.Prompt {
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
	return printMarkdownTo(opts.IO, opts.Format, b.String())
}
