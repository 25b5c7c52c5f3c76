package thread

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
)

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
	}
}
