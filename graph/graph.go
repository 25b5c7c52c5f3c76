// Package graph turns a workflow's routing graph, and optionally the path
// one thread took through it, into a small graph model and renders it as
// Mermaid, Graphviz DOT or a self-contained SVG. It is pure: no git, files
// or clock; callers pass the workflow and the steps.
package graph

import (
	"slices"

	"github.com/git-uwf/git-uwf/moderator"
)

// Node kinds.
const (
	KindStart   = "start"
	KindRole    = "role"
	KindEnd     = "end"
	KindSuspend = "suspend"
)

// Graph is a workflow's routing graph. For a thread, Visits, Taken, Next,
// Path and Forks say where the thread went; they are empty for a plain
// workflow graph (and left out of its JSON).
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Path is the node ids the thread went through, in order, from $START.
	Path []string `json:"path,omitempty"`
	// Forks are the other threads that share this thread's history.
	Forks []Fork `json:"forks,omitempty"`
}

// Node is a node of the routing graph. Kind is "start", "role", "end" or
// "suspend"; the ID of a role is its name, the others are $START, $END and
// $SUSPEND.
type Node struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Visits int    `json:"visits,omitempty"`
	// Next marks the role the thread's next step will run.
	Next bool `json:"next,omitempty"`
}

// Edge is one transition, in the order routing tries them. Status is the
// guard of a status-map edge ("_" is the default), Condition the guard of
// a transitions edge ("" always matches); Prompt and Location are the
// unrendered templates. Taken counts how often the thread went along it.
type Edge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Status    string `json:"status"`
	Condition string `json:"condition"`
	Prompt    string `json:"prompt"`
	Location  string `json:"location"`
	Taken     int    `json:"taken,omitempty"`
}

// Fork is another thread sharing history with the one drawn: At is the
// node (role or $START) of the last commit they share, Step its index in
// the chain (0 = the start commit), Relation "parent" when this thread
// was forked from it and "fork" when it was forked from this thread.
type Fork struct {
	Thread   string `json:"thread"`
	At       string `json:"at"`
	Step     int    `json:"step"`
	Relation string `json:"relation"`
}

// Label is the guard of an edge as people read it: the status (not the
// default "_") or the condition name.
func (e Edge) Label() string {
	if e.Status != "" && e.Status != moderator.DefaultStatus {
		return e.Status
	}
	return e.Condition
}

// Build lists the nodes ($START, the roles in order, then $END and $SUSPEND
// when an edge reaches them) and the edges of w.
func Build(w *moderator.Workflow) Graph {
	g := Graph{Nodes: []Node{{ID: moderator.Start, Kind: KindStart}}, Edges: []Edge{}}
	for _, r := range w.RoleOrder {
		g.Nodes = append(g.Nodes, Node{ID: r, Kind: KindRole})
	}
	targets := map[string]bool{}
	for _, e := range Edges(w) {
		targets[e.To] = true
		g.Edges = append(g.Edges, Edge{From: e.From, To: e.To, Status: e.Status,
			Condition: e.Condition, Prompt: e.Prompt, Location: e.Location})
	}
	if targets[moderator.End] {
		g.Nodes = append(g.Nodes, Node{ID: moderator.End, Kind: KindEnd})
	}
	if targets[moderator.Suspend] {
		g.Nodes = append(g.Nodes, Node{ID: moderator.Suspend, Kind: KindSuspend})
	}
	return g
}

// Edges returns w's edges grouped by source node: the nodes in document
// order first, then any others by name.
func Edges(w *moderator.Workflow) []moderator.Edge {
	var out []moderator.Edge
	seen := map[string]bool{}
	add := func(node string) {
		if seen[node] {
			return
		}
		seen[node] = true
		out = append(out, w.Graph[node]...)
	}
	for _, n := range w.NodeOrder {
		add(n)
	}
	keys := make([]string, 0, len(w.Graph))
	for k := range w.Graph {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, n := range keys {
		add(n)
	}
	return out
}

// Step is what Trace needs of one thread step: the role that ran, the
// $status of its output ("" when it has none) and whether it resumed a
// suspended thread.
type Step struct {
	Role    string
	Status  string
	Resumed bool
}

// Ending says how the thread stands after its last step: the node it went
// on to ($END, $SUSPEND), the role it will run next, or nothing (cancelled,
// failed to route).
type Ending struct {
	// To is $END or $SUSPEND when the thread completed or suspended.
	To string
	// Next is the role the next step will run when the thread is idle,
	// running or failed on a role.
	Next string
}

// Trace marks on g the path a thread took: every node's visit count, every
// edge's traversal count, the next role, and g.Path. An edge is matched by
// its source, target and the previous output's status (the default edge
// when no status edge matches); a move the workflow has no edge for (a
// step recorded under another workflow version) gets an edge of its own.
func (g *Graph) Trace(steps []Step, end Ending) {
	prev := moderator.Start
	prevStatus := ""
	g.visit(prev)
	g.Path = append(g.Path[:0], prev)
	move := func(to string) {
		g.take(prev, to, prevStatus)
		g.visit(to)
		g.Path = append(g.Path, to)
		prev = to
	}
	for _, s := range steps {
		if s.Resumed && prev != moderator.Suspend {
			move(moderator.Suspend)
		}
		move(s.Role)
		prevStatus = s.Status
	}
	switch {
	case end.To != "":
		move(end.To)
	case end.Next != "":
		for i := range g.Nodes {
			if g.Nodes[i].ID == end.Next {
				g.Nodes[i].Next = true
			}
		}
	}
}

func (g *Graph) visit(id string) {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			g.Nodes[i].Visits++
			return
		}
	}
	kind := KindRole
	switch id {
	case moderator.End:
		kind = KindEnd
	case moderator.Suspend:
		kind = KindSuspend
	}
	g.Nodes = append(g.Nodes, Node{ID: id, Kind: kind, Visits: 1})
}

// take counts one traversal of the edge from→to guarded by status.
func (g *Graph) take(from, to, status string) {
	exact, fallback, first := -1, -1, -1
	for i, e := range g.Edges {
		if e.From != from || e.To != to {
			continue
		}
		switch {
		case status != "" && e.Status == status && exact < 0:
			exact = i
		case e.Status == moderator.DefaultStatus && fallback < 0:
			fallback = i
		case first < 0:
			first = i
		}
	}
	best := exact
	if best < 0 {
		best = fallback
	}
	if best < 0 {
		best = first
	}
	if best < 0 {
		g.Edges = append(g.Edges, Edge{From: from, To: to})
		best = len(g.Edges) - 1
	}
	g.Edges[best].Taken++
}

// Traced reports whether g carries a thread's path.
func (g *Graph) Traced() bool { return len(g.Path) > 0 }
