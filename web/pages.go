package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/graph"
	"github.com/git-uwf/git-uwf/graph/threadgraph"
	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// statusChoices are the list filter's states; "active" is every state but
// completed and cancelled.
var statusChoices = []string{"active", "idle", "running", "suspended", "failed", "completed", "cancelled"}

// listRow is one thread of the list page.
type listRow struct {
	chain.Summary
	Steps int
	Next  string
	// ForkOf is the thread a fork was forked from (as the thread page's
	// "forked from" has it), "" for a thread that is not a fork or is the
	// origin of its forks.
	ForkOf chain.ThreadID
}

type listPage struct {
	Title     string
	Events    string
	Rows      []listRow
	Status    string
	Workflow  string
	Branch    string
	Query     string
	Statuses  []string
	Workflows []string
	Branches  []string
	Total     int
	Shown     int
	Page      int
	Pages     int
	PrevURL   string
	NextURL   string
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := listPage{Title: "threads", Events: "/events", Status: q.Get("status"), Workflow: q.Get("workflow"),
		Branch: strings.TrimSpace(q.Get("branch")), Query: strings.TrimSpace(q.Get("q")), Statuses: statusChoices}
	page, _ := strconv.Atoi(q.Get("page"))
	p.Page = max(page, 1)
	if p.Status != "" && p.Status != "active" {
		if _, err := chain.ParseStatus(p.Status); err != nil {
			s.fail(w, http.StatusBadRequest, fmt.Errorf("status filter: %w", err))
			return
		}
	}
	err := s.locked(r.Context(), func(ctx context.Context, repo *chain.Repo) error {
		// The page reads the chains of the threads it shows: forget them
		// afterwards, so memory stays flat however many pages are seen.
		defer repo.DropEntryCache()
		all, err := repo.List(ctx, chain.ListOptions{All: true})
		if err != nil {
			return err
		}
		workflows := map[string]bool{}
		// The threads of each start commit that has forks, for the fork
		// column of the rows shown.
		families := map[string]map[chain.ThreadID]gitobj.Hash{}
		// Filter in place: the list is this request's own.
		kept := all[:0]
		needle := strings.ToLower(p.Query)
		for _, sum := range all {
			workflows[sum.Workflow] = true
			if sum.Fork {
				if families[sum.StartCommit] == nil {
					families[sum.StartCommit] = map[chain.ThreadID]gitobj.Hash{}
				}
				families[sum.StartCommit][sum.Thread] = gitobj.NewHash(sum.HeadCommit)
			}
			if !statusMatches(p.Status, sum.Status) || (p.Workflow != "" && sum.Workflow != p.Workflow) ||
				(p.Branch != "" && sum.Branch != p.Branch) {
				continue
			}
			if needle != "" && !summaryMatches(sum, needle) {
				continue
			}
			kept = append(kept, sum)
		}
		for name := range workflows {
			p.Workflows = append(p.Workflows, name)
		}
		slices.Sort(p.Workflows)
		// The branch comes with the summary: only the shown page's
		// chains are read (for the step counts and the fork column).
		p.Total = len(kept)
		p.Pages = max(1, (p.Total+s.opts.PageSize-1)/s.opts.PageSize)
		p.Page = min(p.Page, p.Pages)
		from := (p.Page - 1) * s.opts.PageSize
		to := min(from+s.opts.PageSize, p.Total)
		p.Rows = make([]listRow, 0, to-from)
		for _, sum := range kept[from:to] {
			p.Rows = append(p.Rows, rowOf(ctx, repo, sum, families[sum.StartCommit]))
		}
		p.Shown = len(p.Rows)
		p.Branches, err = branchChoices(ctx, repo, p.Branch, p.Rows)
		return err
	})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	if p.Page > 1 {
		p.PrevURL = pageURL(q, p.Page-1)
	}
	if p.Page < p.Pages {
		p.NextURL = pageURL(q, p.Page+1)
	}
	s.render(w, "list", http.StatusOK, p)
}

// rowOf reads what the list shows of a thread beyond its summary, from
// its chain: its step count and, for a fork, the thread it was forked from
// among family (the threads with its start commit). A thread whose chain
// cannot be read shows no steps and no origin.
func rowOf(ctx context.Context, repo *chain.Repo, sum chain.Summary, family map[chain.ThreadID]gitobj.Hash) listRow {
	row := listRow{Summary: sum, Next: nextOf(sum)}
	entries, err := repo.Chain(ctx, gitobj.NewHash(sum.HeadCommit))
	if err != nil || len(entries) == 0 {
		return row
	}
	row.Steps = steps(entries)
	if sum.Fork {
		rels, err := repo.RelativesAmong(ctx, sum.Thread, entries, family)
		if err == nil {
			for _, rel := range rels {
				if rel.Parent {
					row.ForkOf = rel.Thread
				}
			}
		}
	}
	return row
}

// branchChoices are the branch filter's suggestions: the repository's
// local branches, the branches of the shown threads and the one filtered
// by, sorted.
func branchChoices(ctx context.Context, repo *chain.Repo, selected string, rows []listRow) ([]string, error) {
	refs, err := repo.Git.ListRefs(ctx, repo.Info.CommonDir, "refs/heads/")
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	seen := map[string]bool{}
	var names []string
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, ref := range refs {
		add(strings.TrimPrefix(ref.Name, "refs/heads/"))
	}
	for _, row := range rows {
		add(row.Branch)
	}
	add(selected)
	slices.Sort(names)
	return names, nil
}

func statusMatches(filter string, st chain.Status) bool {
	switch filter {
	case "":
		return true
	case "active":
		return st != chain.StatusCompleted && st != chain.StatusCancelled
	}
	return string(st) == filter
}

func summaryMatches(s chain.Summary, needle string) bool {
	for _, field := range []string{string(s.Thread), s.Prompt, s.Workflow, deref(s.CurrentRole), deref(s.SuspendedRole)} {
		if strings.Contains(strings.ToLower(field), needle) {
			return true
		}
	}
	return false
}

func nextOf(s chain.Summary) string {
	if s.Status == chain.StatusSuspended {
		return "(" + deref(s.SuspendedRole) + ")"
	}
	return deref(s.CurrentRole)
}

func pageURL(q url.Values, page int) string {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Set("page", strconv.Itoa(page))
	return "/?" + v.Encode()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// steps counts the step commits of a chain.
func steps(entries []*chain.Entry) int {
	n := 0
	for _, e := range entries {
		if e.Kind == chain.KindStep {
			n++
		}
	}
	return n
}

// stepView is one commit of a thread as the pages show it.
type stepView struct {
	Index      int
	Kind       chain.EntryKind
	Role       string
	Status     string
	Agent      string
	Duration   string
	Time       time.Time
	Commit     string
	Alias      string
	Body       string
	Output     string
	EdgePrompt string
	Reason     string
	Extraction string
	Attempts   int
	Resumed    bool
	Prompt     string
	HasPrompt  bool
}

type relativeView struct {
	Thread string
	Step   int
	At     string
}

type attemptView struct {
	Commit string
	Role   string
	Agent  string
	Phase  string
	Error  string
	Time   time.Time
	OnHead bool
}

type threadPage struct {
	Title     string
	Events    string
	ID        string
	Thread    *chain.Thread
	State     chain.State
	Running   bool
	Steps     []stepView
	Graph     template.HTML
	Parent    *relativeView
	Forks     []relativeView
	Attempts  []attemptView
	Step      *stepView
	Updated   time.Time
	StepCount int
	Branch    string // the branch the thread was started on ("" when unrecorded)
}

// loadThread reads what the thread and step pages show.
func (s *Server) loadThread(ctx context.Context, repo *chain.Repo, arg string, withAttempts bool) (*threadPage, []*chain.Entry, error) {
	id, err := repo.ResolveThread(ctx, arg)
	if err != nil {
		return nil, nil, err
	}
	t, err := repo.CachedThread(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	st, err := repo.State(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	entries, err := repo.Chain(ctx, t.Head.Commit)
	if err != nil {
		return nil, nil, err
	}
	p := &threadPage{Title: "thread " + string(id), Events: "/events?t=" + url.QueryEscape(string(id)), ID: string(id),
		Thread: t, State: st, Running: st.Status == chain.StatusRunning, Updated: t.Head.Time, StepCount: steps(entries)}
	// StartCode reads the trailers of the root commit it reaches from the
	// head it is given: the chain's first commit is that root.
	if len(entries) > 0 {
		code, err := repo.StartCode(ctx, &chain.Thread{ID: id, Head: entries[0]})
		if err != nil {
			return nil, nil, err
		}
		p.Branch = code.Branch
	}
	for i, e := range entries {
		v, err := s.stepView(repo, i, e, false)
		if err != nil {
			return nil, nil, err
		}
		p.Steps = append(p.Steps, v)
	}
	if !withAttempts {
		return p, entries, nil
	}
	rels, err := repo.Relatives(ctx, t, entries)
	if err != nil {
		return nil, nil, err
	}
	for _, rel := range rels {
		rv := relativeView{Thread: string(rel.Thread), Step: rel.Shared - 1, At: "start"}
		if e := entries[rel.Shared-1]; e.Kind == chain.KindStep {
			rv.At = e.Step.Role
		}
		if rel.Parent {
			p.Parent = &rv
		} else {
			p.Forks = append(p.Forks, rv)
		}
	}
	g, err := threadgraph.Build(ctx, repo, t, entries, st, nil)
	if err != nil {
		return nil, nil, err
	}
	p.Graph = template.HTML(graph.SVG(g)) //nolint:gosec // graph escapes every name
	attempts, err := repo.Attempts(ctx, t, false)
	if err != nil {
		return nil, nil, err
	}
	for i, a := range attempts {
		if i == 20 {
			break
		}
		p.Attempts = append(p.Attempts, attemptView{Commit: a.Commit.String(), Role: a.Node.Role, Agent: a.Node.Agent,
			Phase: a.Node.Phase, Error: a.Node.Error, Time: a.Time, OnHead: a.Head == t.Head.Commit})
	}
	return p, entries, nil
}

func (s *Server) stepView(repo *chain.Repo, i int, e *chain.Entry, prompt bool) (stepView, error) {
	v := stepView{Index: i, Kind: e.Kind, Time: e.Time, Commit: e.Commit.String(), Alias: string(e.Node.Alias)}
	switch e.Kind {
	case chain.KindStart:
		v.Role = "start"
		v.Body = e.Start.Prompt
	case chain.KindCancel:
		v.Role, v.Status, v.Reason = "cancel", "cancelled", e.Cancel.Reason
	case chain.KindStep:
		st := e.Step
		v.Role, v.Agent, v.EdgePrompt, v.Extraction, v.Attempts, v.Resumed = st.Role, st.Agent, st.EdgePrompt, st.Extraction, st.Attempts, st.Resumed
		v.Duration = chain.FormatDuration(time.Duration(st.CompletedAtMs-st.StartedAtMs) * time.Millisecond)
		out, err := repo.Output(e)
		if err != nil {
			return v, err
		}
		v.Status, _ = out["$status"].(string)
		y, err := yaml.Marshal(out)
		if err != nil {
			return v, err
		}
		v.Output = string(y)
		if st.Body != "" {
			if v.Body, err = repo.Text(e, st.Body); err != nil {
				return v, err
			}
		}
		v.HasPrompt = st.AssembledPrompt != ""
		if prompt && v.HasPrompt {
			if v.Prompt, err = repo.Text(e, st.AssembledPrompt); err != nil {
				return v, err
			}
		}
	}
	return v, nil
}

func (s *Server) handleThread(w http.ResponseWriter, r *http.Request) {
	var p *threadPage
	err := s.locked(r.Context(), func(ctx context.Context, repo *chain.Repo) error {
		var err error
		p, _, err = s.loadThread(ctx, repo, r.PathValue("id"), true)
		return err
	})
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	s.render(w, "thread", http.StatusOK, p)
}

func (s *Server) handleStep(w http.ResponseWriter, r *http.Request) {
	var p *threadPage
	err := s.locked(r.Context(), func(ctx context.Context, repo *chain.Repo) error {
		var entries []*chain.Entry
		var err error
		p, entries, err = s.loadThread(ctx, repo, r.PathValue("id"), false)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 0 || n >= len(entries) {
			return fmt.Errorf("%w: thread %s has no step %q (it has %d commits, 0 to %d)", chain.ErrUnknownStep, p.ID, r.PathValue("n"), len(entries), len(entries)-1)
		}
		v, err := s.stepView(repo, n, entries[n], r.URL.Query().Get("prompt") != "")
		if err != nil {
			return err
		}
		p.Step = &v
		p.Title = fmt.Sprintf("step %d of %s", n, p.ID)
		return nil
	})
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	s.render(w, "step", http.StatusOK, p)
}

// statusOf maps an error to the HTTP status of its page.
func statusOf(err error) int {
	if errors.Is(err, chain.ErrUnknownThread) || errors.Is(err, chain.ErrUnknownStep) || strings.Contains(err.Error(), "invalid thread id") {
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
