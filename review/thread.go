package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
)

// threadOf renders a line: its task, its whole path with the steps that
// committed marked, its failed attempts and its forks.
func (b *builder) threadOf(ctx context.Context, ln *line, held map[gitobj.Hash][]string, namedAs []string) (Thread, error) {
	t := ln.thread
	out := Thread{Thread: string(ln.id), Task: t.Start.Prompt, Head: t.Head.Commit.String(),
		Path: make([]Step, 0, len(ln.entries)), FailedAttempts: []Attempt{}, Forks: []Fork{}, NamedAs: namedAs}
	if t.Workflow != nil {
		out.Workflow = t.Workflow.Name
	}
	if st, err := b.repo.State(ctx, t); err == nil {
		out.Status = string(st.Status)
	} else {
		out.Status = "unknown"
	}
	for i, e := range ln.entries[1:] {
		st := Step{Index: i + 1, Alias: string(e.Node.Alias), Short: shortAlias(string(e.Node.Alias)),
			Commit: e.Commit.String(), Kind: string(e.Kind), CodeCommits: held[e.Commit]}
		st.Committed = len(st.CodeCommits) > 0
		switch e.Kind {
		case chain.KindCancel:
			st.Status, st.Summary = "cancelled", e.Cancel.Reason
		case chain.KindStep:
			st.Role, st.Agent, st.Instruction = e.Step.Role, e.Step.Agent, e.Step.EdgePrompt
			st.DurationMs = e.Step.CompletedAtMs - e.Step.StartedAtMs
			output, err := b.repo.Output(e)
			if err != nil {
				return Thread{}, fmt.Errorf("thread %s step %d: %w", ln.id, st.Index, err)
			}
			st.Output = output
			st.Status, _ = output["$status"].(string)
			st.Summary = chain.Summarize("", output, summaryWidth)
			if st.Committed {
				body, err := b.repo.Text(e, e.Step.Body)
				if err != nil {
					return Thread{}, fmt.Errorf("thread %s step %d: deliverable: %w", ln.id, st.Index, err)
				}
				st.Deliverable = body
				if st.Summary == "" {
					st.Summary = chain.Summarize(body, nil, summaryWidth)
				}
			}
		}
		out.Path = append(out.Path, st)
	}
	atts, err := b.repo.Attempts(ctx, t, false)
	if err != nil {
		return Thread{}, fmt.Errorf("thread %s: failed attempts: %w", ln.id, err)
	}
	for _, a := range atts {
		after, ok := ln.index[a.Head]
		if !ok {
			continue // made on a line this thread no longer holds
		}
		out.FailedAttempts = append(out.FailedAttempts, Attempt{Commit: a.Commit.String(), After: after, Role: a.Node.Role,
			Agent: a.Node.Agent, Phase: a.Node.Phase, Error: text.Clip(text.OneLine(a.Node.Error), 300), Time: a.Time.UTC()})
	}
	slices.Reverse(out.FailedAttempts) // oldest first, like the path
	for _, fl := range ln.family.lines {
		if fl == ln {
			continue
		}
		shared := 0
		for shared+1 < len(fl.entries) && shared+1 < len(ln.entries) && fl.entries[shared+1].Commit == ln.entries[shared+1].Commit {
			shared++
		}
		out.Forks = append(out.Forks, Fork{Thread: string(fl.id), Head: fl.thread.Head.Commit.String(), Steps: len(fl.entries) - 1, Shared: shared})
	}
	return out, nil
}

// shortAlias is the link-friendly short form of a step alias.
func shortAlias(a string) string {
	if len(a) > 8 {
		return a[:8]
	}
	return a
}

// orderProblems reports code commits whose steps run against the thread:
// a commit that names an earlier step of a line than a commit before it.
func orderProblems(r *Report) []Problem {
	var probs []Problem
	type seen struct {
		step   int
		commit string
	}
	last := map[string]seen{}
	for _, c := range r.Commits {
		for _, l := range c.Steps {
			if !l.Resolved() {
				continue
			}
			prev, ok := last[l.Thread]
			if ok && l.Step < prev.step {
				probs = append(probs, Problem{Commit: c.Commit, Thread: l.Thread, Message: fmt.Sprintf(
					"names step %d of thread %s, but the earlier commit %s names its step %d: the code history runs against the thread",
					l.Step, l.Thread, shortID(prev.commit), prev.step)})
				continue
			}
			last[l.Thread] = seen{l.Step, c.Commit}
		}
	}
	return probs
}

// summaryWidth bounds, in runes, the one-line summary of a step.
const summaryWidth = 100
