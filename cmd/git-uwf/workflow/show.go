package workflow

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/graph"
	"github.com/git-uwf/git-uwf/internal/text"
	"github.com/git-uwf/git-uwf/moderator"
)

// ShowOptions are the inputs of `workflow show` and `workflow graph`.
type ShowOptions struct {
	IO      *iostreams.IOStreams
	Repo    func(context.Context) (*chain.Repo, error)
	Resolve func(context.Context, *chain.Repo, string) (*chain.WorkflowInfo, error)
	Format  cmdutil.Format

	Workflow string
}

// ShowResult is the machine output of `workflow show`: the stored workflow
// document (role schemas inline) with its hash, its graph form ("status" or
// "conditions") and the alias of each role's schema node.
type ShowResult struct {
	Name        string `json:"name"`
	Hash        string `json:"hash"`
	Description string `json:"description"`
	Form        string `json:"form"`
	// Version is the dialect: 1 for version 1 files, absent for the older one.
	Version     int               `json:"version,omitempty"`
	Roles       any               `json:"roles"`
	Graph       any               `json:"graph"`
	Conditions  any               `json:"conditions,omitempty"`
	RoleSchemas map[string]string `json:"roleSchemas"`
}

func newCmdShow(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "Show a workflow: its roles and its routing graph",
		ArgsUsage: "<name|alias|file>",
		Description: "<workflow> is an alias (or unambiguous prefix), a file path, a name found as\n" +
			".uwf/workflows/<name>.yaml from the current directory up to the repository top,\n" +
			"or a registered name.",
		Action: argAction("workflow name, alias or file", cmdutil.FormatOf, func(ctx context.Context, arg string, format cmdutil.Format) error {
			return showRun(ctx, &ShowOptions{IO: f.IO, Repo: f.Repo, Resolve: resolver(f), Format: format, Workflow: arg})
		}),
	}
}

// resolver binds cmdutil.ResolveWorkflow to f.
func resolver(f *cmdutil.Factory) func(context.Context, *chain.Repo, string) (*chain.WorkflowInfo, error) {
	return func(ctx context.Context, repo *chain.Repo, arg string) (*chain.WorkflowInfo, error) {
		return cmdutil.ResolveWorkflow(ctx, f.Getwd, repo, arg)
	}
}

// resolve opens the repository and resolves the workflow argument.
func (opts *ShowOptions) resolve(ctx context.Context) (*chain.Repo, *chain.WorkflowInfo, error) {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return nil, nil, err
	}
	info, err := opts.Resolve(ctx, repo, opts.Workflow)
	return repo, info, err
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	repo, info, err := opts.resolve(ctx)
	if err != nil {
		return err
	}
	w := info.Workflow
	doc := w.Document()
	// Show each role's schema as stored (with its default title), whether
	// the workflow came from the registry or from a file.
	if roles, ok := doc["roles"].(map[string]any); ok {
		for name, a := range info.RoleSchemas {
			rd, ok := roles[name].(map[string]any)
			if !ok {
				continue
			}
			schema, err := repo.Store.Schema(a)
			if err != nil {
				return fmt.Errorf("workflow %s role %q: %w", info.Alias, name, err)
			}
			rd["frontmatter"] = schema
		}
	}
	res := ShowResult{
		Name: w.Name, Hash: string(info.Alias), Description: w.Description, Form: string(w.Form), Version: w.Version,
		Roles: doc["roles"], Graph: doc["graph"], Conditions: doc["conditions"],
		RoleSchemas: map[string]string{},
	}
	for role, a := range info.RoleSchemas {
		res.RoleSchemas[role] = string(a)
	}
	return cmdutil.Print(opts.IO, opts.Format, res, func(out io.Writer) error {
		return writeSummary(out, info)
	})
}

// writeSummary writes the human form of `workflow show`.
func writeSummary(out io.Writer, info *chain.WorkflowInfo) error {
	w := info.Workflow
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s  %s\n", w.Name, info.Alias)
	if w.Description != "" {
		fmt.Fprintf(&sb, "%s\n", strings.TrimSpace(w.Description))
	}
	fmt.Fprintf(&sb, "\nroles:\n")
	for _, name := range w.RoleOrder {
		r := w.Roles[name]
		fmt.Fprintf(&sb, "  %s", name)
		if r.Description != "" {
			fmt.Fprintf(&sb, " — %s", text.FirstLine(r.Description, 72))
		}
		sb.WriteString("\n")
		if g := text.FirstLine(r.Goal, 72); g != "" {
			fmt.Fprintf(&sb, "    goal:     %s\n", g)
		}
		if w.Form == moderator.StatusMap {
			statuses := w.Statuses(name)
			if slices.Equal(statuses, []string{moderator.DefaultStatus}) {
				statuses = []string{"_ (no $status: one exit)"}
			}
			fmt.Fprintf(&sb, "    statuses: %s\n", strings.Join(statuses, ", "))
		}
	}
	if len(w.Conditions) > 0 {
		fmt.Fprintf(&sb, "\nconditions:\n")
		for _, name := range slices.Sorted(maps.Keys(w.Conditions)) {
			fmt.Fprintf(&sb, "  %s: %s\n", name, w.Conditions[name].Expression)
		}
	}
	fmt.Fprintf(&sb, "\ngraph:\n")
	for _, e := range graph.Edges(w) {
		arrow := "-->"
		if l := edgeLabel(w, e); l != "" {
			arrow = "--" + l + "-->"
		}
		fmt.Fprintf(&sb, "  %s %s %s", e.From, arrow, e.To)
		if p := text.FirstLine(e.Prompt, 60); p != "" {
			fmt.Fprintf(&sb, ": %q", p)
		}
		sb.WriteString("\n")
	}
	_, err := io.WriteString(out, sb.String())
	return err
}

// edgeLabel is the guard of an edge as people read it: the status (not the
// default "_") or the condition name.
func edgeLabel(w *moderator.Workflow, e moderator.Edge) string {
	if w.Form == moderator.Transitions {
		return e.Condition
	}
	if e.Status == moderator.DefaultStatus {
		return ""
	}
	return e.Status
}
