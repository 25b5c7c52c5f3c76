package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// ReadOptions shape the markdown rendering of a thread.
type ReadOptions struct {
	// Quota is the character budget for the steps (default 4000). The
	// newest steps that fit are shown; at least one step always is, cut
	// (with a marker naming `git uwf step read`) when it alone is over the
	// budget. A task longer than half the quota is cut the same way.
	Quota int
	// Before shows only steps strictly before this step (alias or commit).
	Before string
	// Start forces the task section even when Before is set.
	Start bool
}

// DefaultQuota is the default character budget of Read.
const DefaultQuota = 4000

// Read renders a thread as markdown for people and for agents' prompts.
func (r *Repo) Read(ctx context.Context, t *Thread, opts ReadOptions) (string, error) {
	if opts.Quota <= 0 {
		opts.Quota = DefaultQuota
	}
	// Only the steps shown are decoded (and, from a warm cache, only
	// they get an entry); the others are only counted. The steps are
	// rendered while the entry cache is written.
	chain, cached, err := r.readChainOf(ctx, t.Head.Commit)
	defer cached()
	if err != nil {
		return "", err
	}
	nsteps := chain.len() - 1
	// step returns step i (from 0) of the chain.
	step := func(i int) (*Entry, error) { return chain.entry(i + 1) }
	if opts.Before != "" {
		cut := -1
		for i := 0; i < nsteps; i++ {
			alias, commit := chain.alias(i+1), chain.commit(i+1)
			if strings.EqualFold(string(alias), opts.Before) || strings.HasPrefix(string(alias), strings.ToUpper(opts.Before)) ||
				strings.HasPrefix(commit.String(), strings.ToLower(opts.Before)) {
				cut = i
				break
			}
		}
		if cut < 0 {
			return "", fmt.Errorf("step %s not found in thread %s: %w", opts.Before, t.ID, ErrUnknownStep)
		}
		nsteps = cut
	}
	var parts []string
	if opts.Before == "" || opts.Start {
		parent := ""
		if link, err := r.parentFrom(ctx, t, chain.commit(0)); err == nil && link != nil {
			parent = fmt.Sprintf("\n**Parent:** thread `%s` (plays its role %s)\n", link.Thread, link.Role)
		}
		task := strings.TrimSpace(t.Start.Prompt)
		if limit := max(opts.Quota/2, minShown); len(task) > limit {
			task = cutAt(task, limit) + fmt.Sprintf("\n\n*(task cut here: %d of %d characters shown; all of it: git uwf thread show %s)*",
				len(cutAt(task, limit)), len(task), t.ID)
		}
		parts = append(parts, fmt.Sprintf("# Thread `%s`\n\n**Workflow:** %s (`%s`)\n%s\n## Task\n\n%s",
			t.ID, t.Workflow.Name, t.Workflow.Alias, parent, task))
	}
	budget := opts.Quota
	for _, p := range parts {
		budget -= len(p)
	}
	// Steps are chosen newest first, while the budget lasts, and rendered
	// without their role; a role's goal is shown once, on the oldest shown
	// step that plays it, so the reader meets it where the role first acts.
	var blocks []string
	counted := map[string]bool{}
	first := nsteps
	cut := -1
	for i := nsteps - 1; i >= 0; i-- {
		e, err := step(i)
		if err != nil {
			return "", err
		}
		block, err := r.renderStep(e, i+1, false, t)
		if err != nil {
			return "", err
		}
		cost := len(block) + 7
		goal := roleGoal(e, t)
		if goal != "" && !counted[e.Step.Role] {
			cost += len(goal) + len("\n<role>\n\n</role>\n")
		}
		if len(blocks) > 0 && cost > budget {
			break
		}
		if goal != "" && !counted[e.Step.Role] {
			counted[e.Step.Role] = true
		}
		if limit := max(budget, minShown); cost-7 > limit {
			// The newest step alone is over the quota: show its start.
			if block, err = r.renderStep(e, i+1, true, t); err != nil {
				return "", err
			}
			kept := cutAt(block, limit)
			block = kept + fmt.Sprintf("\n\n*(step %d cut here: %d of %d characters shown; all of it: git uwf step read %s)*",
				i+1, len(kept), len(block), e.Node.Alias)
			cost = len(block) + 7
			cut = i
		}
		budget -= cost
		blocks = append(blocks, block)
		first = i
	}
	placed := map[string]bool{}
	for i := first; i < nsteps; i++ {
		e, err := step(i)
		if err != nil {
			return "", err
		}
		if i == cut || roleGoal(e, t) == "" || placed[e.Step.Role] {
			continue
		}
		placed[e.Step.Role] = true
		block, err := r.renderStep(e, i+1, true, t)
		if err != nil {
			return "", err
		}
		blocks[nsteps-1-i] = block
	}
	if first > 0 {
		parts = append(parts, fmt.Sprintf("*(%d earlier steps not shown: git uwf thread read %s --before %s)*",
			first, t.ID, chain.alias(first+1)))
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		parts = append(parts, blocks[i])
	}
	if nsteps == 0 && opts.Before == "" {
		parts = append(parts, "*(no steps yet)*")
	}
	return strings.Join(parts, "\n\n---\n\n") + "\n", nil
}

// parentFrom returns the parent link of t from commit start on its chain:
// the Uwf-Parent trailer of the root commit, reached through first
// parents. Parent starts at the head; Read starts at the chain's start
// entry, which it already has, instead of paying one commit read per
// step (three quarters of a warm read of 1,000 steps).
func (r *Repo) parentFrom(ctx context.Context, t *Thread, start gitobj.Hash) (*ParentLink, error) {
	_, root, err := r.rootCommit(ctx, start)
	if err != nil {
		return nil, fmt.Errorf("thread %s: %w", t.ID, err)
	}
	return parseParentTrailer(root.Message), nil
}

// minShown is how much of a section that is over the quota Read shows at
// least, whatever is left of the budget.
const minShown = 1000

// cutAt shortens s to at most n bytes, at the last line break in its second
// half when there is one, never inside a UTF-8 sequence.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > n/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " \t\r\n")
}

// roleGoal is the goal of the role step e plays, "" for a cancel commit or
// a role without one. e's payload must be decoded (renderStep does it).
func roleGoal(e *Entry, t *Thread) string {
	if e.Kind != KindStep || e.Step == nil {
		return ""
	}
	if role := t.Workflow.Workflow.Roles[e.Step.Role]; role != nil {
		return strings.TrimSpace(role.Goal)
	}
	return ""
}

// renderStep renders step number n; withRole adds its role's goal.
func (r *Repo) renderStep(e *Entry, n int, withRole bool, t *Thread) (string, error) {
	if err := decodePayload(e); err != nil {
		return "", err
	}
	var b strings.Builder
	if e.Kind == KindCancel {
		fmt.Fprintf(&b, "## Step %d: cancelled `%s`\n**Time:** %s\n\n%s", n, e.Node.Alias, formatTime(e.Time), e.Cancel.Reason)
		return b.String(), nil
	}
	s := e.Step
	out, err := r.Output(e)
	if err != nil {
		return "", err
	}
	status, _ := out["$status"].(string)
	fmt.Fprintf(&b, "## Step %d: %s `%s`\n", n, s.Role, e.Node.Alias)
	fmt.Fprintf(&b, "**Agent:** %s | **Status:** %s | **Time:** %s | **Duration:** %s\n",
		s.Agent, orDash(status), formatTime(time.UnixMilli(s.CompletedAtMs)), FormatDuration(time.Duration(s.CompletedAtMs-s.StartedAtMs)*time.Millisecond))
	if s.Child != "" {
		fmt.Fprintf(&b, "**Played by child thread:** `%s` (git uwf thread read %s)\n", s.Child, s.Child)
	}
	if goal := roleGoal(e, t); withRole && goal != "" {
		fmt.Fprintf(&b, "\n<role>\n%s\n</role>\n", goal)
	}
	if strings.TrimSpace(s.EdgePrompt) != "" {
		fmt.Fprintf(&b, "\n<instruction>\n%s\n</instruction>\n", strings.TrimSpace(s.EdgePrompt))
	}
	if len(out) > 0 {
		y, err := yaml.Marshal(out)
		if err == nil {
			fmt.Fprintf(&b, "\n<frontmatter>\n%s</frontmatter>\n", y)
		}
	}
	body, err := r.Text(e, s.Body)
	if err == nil && strings.TrimSpace(body) != "" {
		fmt.Fprintf(&b, "\n<output>\n%s\n</output>\n", strings.TrimSpace(body))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// FormatAgo renders how long before now t was, for listings: "just now",
// "5m ago", "3h ago", "4d ago".
func FormatAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h ago"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + "d ago"
	}
}

// FormatDuration renders a step duration: "850ms", "12.3s", "4m05s".
func FormatDuration(d time.Duration) string {
	var b [24]byte
	switch {
	case d < time.Second:
		return string(append(strconv.AppendInt(b[:0], d.Milliseconds(), 10), "ms"...))
	case d < time.Minute:
		return string(append(strconv.AppendFloat(b[:0], d.Seconds(), 'f', 1, 64), 's'))
	default:
		out := append(strconv.AppendInt(b[:0], int64(int(d.Minutes())), 10), 'm')
		if sec := int(d.Seconds()) % 60; sec < 10 {
			out = append(append(out, '0'), byte('0'+sec))
		} else {
			out = strconv.AppendInt(out, int64(sec), 10)
		}
		return string(append(out, 's'))
	}
}

// OutputStatus returns the "$status" of a step's output, as
// Output(e)["$status"] would give it ("" when it has none, "_" for an
// entry that is not a step), without decoding the rest of the output.
func (r *Repo) OutputStatus(e *Entry) (string, error) {
	if e.Step != nil && e.output != nil {
		if s, ok := statusField(e.output); ok {
			return s, nil
		}
	}
	out, err := r.Output(e)
	if err != nil {
		return "", err
	}
	s, _ := out["$status"].(string)
	return s, nil
}

// statusField reads the "$status" member of an output payload; it reports
// false when the payload is not plainly a JSON object.
func statusField(payload []byte) (string, bool) {
	if !json.Valid(payload) {
		return "", false
	}
	var status string
	ok := jsonMembers(payload, func(key, val []byte) bool {
		if string(key) != "$status" {
			return true
		}
		status = "" // a repeated key wins, as in a decoded map
		if len(val) > 0 && val[0] == '"' {
			return setString(val, &status)
		}
		return true
	})
	return status, ok
}
