package thread

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/internal/text"
)

// attemptOutput describes a failed attempt in `thread show`.
type attemptOutput struct {
	Commit string    `json:"commit"`
	Role   string    `json:"role"`
	Agent  string    `json:"agent"`
	Phase  string    `json:"phase"`
	Error  string    `json:"error"`
	Time   time.Time `json:"time"`
}

// showOutput is the machine-readable result of `thread show`.
type showOutput struct {
	Thread         chain.ThreadID `json:"thread"`
	Workflow       string         `json:"workflow"`
	WorkflowHash   string         `json:"workflowHash"`
	Head           string         `json:"head"`
	HeadCommit     string         `json:"headCommit"`
	Status         chain.Status   `json:"status"`
	CurrentRole    *string        `json:"currentRole"`
	NextPrompt     *string        `json:"nextPrompt"`
	SuspendedRole  *string        `json:"suspendedRole"`
	SuspendMessage *string        `json:"suspendMessage"`
	// SuspendedChild is the suspended child thread a suspended thread
	// waits for (null otherwise).
	SuspendedChild *chain.ThreadID `json:"suspendedChild"`
	Error          *string         `json:"error"`
	Steps          int             `json:"steps"`
	Prompt         string          `json:"prompt"`
	Cwd            string          `json:"cwd"`
	Branch         string          `json:"branch,omitempty"`
	StartCommit    string          `json:"startCommit,omitempty"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
	Attempts       []attemptOutput `json:"failedAttempts"`
	Hint           *string         `json:"hint"`
	// Done is the protocol's flag: the thread completed.
	Done bool `json:"done"`
	// Parent is the thread whose role this thread plays (null for a
	// thread started by hand); Children the threads that played roles of
	// this one.
	Parent     *chain.ParentLink `json:"parent"`
	Children   []chain.ThreadID  `json:"children"`
	ForkedFrom *forkOutput       `json:"forkedFrom"`
}

// forkOutput says which thread a fork came from and the last step they
// share (its index in the chain, 0 = the start).
type forkOutput struct {
	Thread chain.ThreadID `json:"thread"`
	Step   int            `json:"step"`
	Commit string         `json:"commit"`
}

// ShowOptions are the inputs of `thread show`.
type ShowOptions struct {
	IO     *iostreams.IOStreams
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	Thread string
}

func newCmdShow(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "Show a thread's state: status, next role, failed attempts",
		ArgsUsage: "<thread>",
		Flags:     []cli.Flag{cmdutil.FormatFlag()},
		Action: func(c *cli.Context) error {
			arg, format, err := cmdutil.OneArgAndFormat(c, "thread id")
			if err != nil {
				return err
			}
			return showRun(c.Context, &ShowOptions{IO: f.IO, Repo: f.Repo, Format: format, Thread: arg})
		},
	}
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	v, err := viewThread(ctx, opts.Repo, opts.Thread)
	if err != nil {
		return err
	}
	repo, t, st, chainEntries := v.repo, v.thread, v.state, v.entries
	out := showOutput{Thread: t.ID, Workflow: t.Workflow.Name, WorkflowHash: string(t.Workflow.Alias),
		Head: string(t.Head.Node.Alias), HeadCommit: t.Head.Commit.String(), Status: st.Status,
		CurrentRole: strPtr(st.CurrentRole), SuspendedRole: strPtr(st.SuspendedRole), SuspendMessage: strPtr(st.SuspendMessage),
		Error: strPtr(st.Error), Steps: len(chainEntries) - 1, Prompt: t.Start.Prompt, Cwd: t.Start.Cwd,
		CreatedAt: t.ID.Time().UTC(), UpdatedAt: t.Head.Time.UTC(), Attempts: []attemptOutput{}}
	if st.CurrentRole != "" {
		out.NextPrompt = strPtr(st.Next.Prompt)
	}
	if code, err := repo.StartCode(ctx, t); err == nil {
		out.Branch, out.StartCommit = code.Branch, code.Commit
	}
	attempts, err := repo.Attempts(ctx, t, true)
	if err != nil {
		return err
	}
	for _, a := range attempts {
		out.Attempts = append(out.Attempts, attemptOutput{Commit: a.Commit.String(), Role: a.Node.Role, Agent: a.Node.Agent,
			Phase: a.Node.Phase, Error: a.Node.Error, Time: a.Time.UTC()})
	}
	out.Hint = strPtr(hint(t.ID, st))
	if st.SuspendedChild != "" {
		child := st.SuspendedChild
		out.SuspendedChild = &child
		// The hint names the role the child is suspended at, in the
		// child's own workflow.
		if ct, err := repo.CachedThread(ctx, child); err == nil {
			if cst, err := repo.State(ctx, ct); err == nil && cst.Status == chain.StatusSuspended {
				out.Hint = strPtr(fmt.Sprintf("Waiting for child thread %s, suspended at role %s: answer with git uwf thread resume %s -p \"<answer>\"",
					child, cst.SuspendedRole, t.ID))
			}
		}
	}
	out.Done = st.Status == chain.StatusCompleted
	if out.Parent, err = repo.Parent(ctx, t); err != nil {
		return err
	}
	out.Children = []chain.ThreadID{}
	for _, e := range chainEntries {
		if e.Step != nil && e.Step.Child != "" {
			out.Children = append(out.Children, e.Step.Child)
		}
	}
	prov, err := repo.ForkedFrom(ctx, t, chainEntries)
	if err != nil {
		return err
	}
	if prov != nil {
		out.ForkedFrom = &forkOutput{Thread: prov.Parent, Step: prov.Step, Commit: prov.Commit.String()}
	}
	return cmdutil.Print(opts.IO, opts.Format, out, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintf(tw, "thread\t%s\n", out.Thread)
		fmt.Fprintf(tw, "workflow\t%s (%s)\n", out.Workflow, out.WorkflowHash)
		fmt.Fprintf(tw, "status\t%s\n", cmdutil.StatusColorer(opts.IO)(string(out.Status)))
		if out.Branch != "" || out.StartCommit != "" {
			fmt.Fprintf(tw, "branch\t%s\n", startedOn(out.Branch, out.StartCommit))
		}
		if st.CurrentRole != "" {
			fmt.Fprintf(tw, "next role\t%s\n", st.CurrentRole)
			fmt.Fprintf(tw, "next prompt\t%s\n", text.FirstLine(st.Next.Prompt, 100))
		}
		if st.SuspendedRole != "" {
			fmt.Fprintf(tw, "suspended at\t%s\n", st.SuspendedRole)
			fmt.Fprintf(tw, "message\t%s\n", text.FirstLine(st.SuspendMessage, 100))
		}
		if st.Error != "" {
			fmt.Fprintf(tw, "error\t%s\n", text.FirstLine(st.Error, 200))
		}
		fmt.Fprintf(tw, "steps\t%d\n", out.Steps)
		fmt.Fprintf(tw, "head\t%s (commit %s)\n", out.Head, out.HeadCommit[:12])
		fmt.Fprintf(tw, "task\t%s\n", text.FirstLine(out.Prompt, 100))
		fmt.Fprintf(tw, "cwd\t%s\n", out.Cwd)
		if out.Parent != nil {
			fmt.Fprintf(tw, "parent\t%s (this thread plays its role %s)\n", out.Parent.Thread, out.Parent.Role)
		}
		for _, c := range out.Children {
			fmt.Fprintf(tw, "child\t%s\n", c)
		}
		if fk := out.ForkedFrom; fk != nil {
			fmt.Fprintf(tw, "forked from\t%s at step %d (commit %s)\n", fk.Thread, fk.Step, fk.Commit[:12])
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(out.Attempts) > 0 {
			fmt.Fprintf(w, "\nfailed attempts on this head (newest first):\n")
			for _, a := range out.Attempts {
				fmt.Fprintf(w, "  %s  %s (%s, %s): %s\n", a.Commit[:12], a.Role, a.Agent, a.Phase, text.FirstLine(a.Error, 120))
			}
		}
		if out.Hint != nil {
			fmt.Fprintf(w, "\n%s\n", *out.Hint)
		}
		return nil
	})
}

func hint(id chain.ThreadID, st chain.State) string {
	switch st.Status {
	case chain.StatusSuspended:
		return fmt.Sprintf("Suspended: answer with git uwf thread resume %s -p \"<answer>\"", id)
	case chain.StatusIdle:
		return fmt.Sprintf("Run the next step with git uwf thread step %s", id)
	case chain.StatusFailed:
		if st.CurrentRole != "" {
			return fmt.Sprintf("The last attempt failed; retry with git uwf thread step %s (inspect it with git show <commit>)", id)
		}
	}
	return ""
}
