package review

import "time"

// Report is the story of a range: its commits in order, the threads whose
// steps they carry, and what a reviewer could not follow. The json and yaml
// output of git uwf review is this structure.
type Report struct {
	Range    string    `json:"range"`
	Summary  Summary   `json:"summary"`
	Commits  []Commit  `json:"commits"`
	Threads  []Thread  `json:"threads"`
	Problems []Problem `json:"problems"`
	// Remote is the remote --check verified the threads on ("" when none).
	Remote string `json:"remote,omitempty"`
}

// Summary counts what the report holds.
type Summary struct {
	Commits     int `json:"commits"`
	WithStep    int `json:"withStep"`
	WithoutStep int `json:"withoutStep"`
	Steps       int `json:"steps"`
	Threads     int `json:"threads"`
	Problems    int `json:"problems"`
}

// Commit is one code commit of the range, oldest first.
type Commit struct {
	Commit  string    `json:"commit"`
	Short   string    `json:"short"`
	Subject string    `json:"subject"`
	Author  string    `json:"author"`
	Time    time.Time `json:"time"`
	// Steps are the commit's Uwf-Step trailers, resolved (several after a
	// squash). Empty when the commit carries none.
	Steps []StepLink `json:"steps"`
	// NoStep is set when no trailer of the commit resolves to a step.
	NoStep bool `json:"noStep"`
}

// StepLink is one Uwf-Step trailer of a commit and the step it resolves to.
type StepLink struct {
	Trailer string `json:"trailer"`
	// Thread is the thread line holding the step: the trailer's thread, or
	// the fork a sync kept the step on.
	Thread string `json:"thread,omitempty"`
	Step   int    `json:"step,omitempty"`
	Alias  string `json:"alias,omitempty"`
	Role   string `json:"role,omitempty"`
	// Named is the thread the trailer names when a sync kept the step on
	// another line (a fork of it).
	Named string `json:"named,omitempty"`
	// Note explains a resolution that was not direct (a fork, an ambiguity).
	Note string `json:"note,omitempty"`
	// Error says why the trailer resolves to no step.
	Error string `json:"error,omitempty"`
}

// Resolved reports whether the trailer names a step of a thread here.
func (l StepLink) Resolved() bool { return l.Error == "" && l.Alias != "" }

// Thread is a thread line that holds at least one step of the range.
type Thread struct {
	Thread   string `json:"thread"`
	Workflow string `json:"workflow"`
	Status   string `json:"status"`
	Task     string `json:"task"`
	Head     string `json:"head"`
	// NamedAs are the threads the range's trailers name for steps of this
	// line, when that is not the line itself (it is a fork made by a sync).
	NamedAs []string `json:"namedAs,omitempty"`
	// Path is the whole chain after the start, the steps that committed
	// code in the range marked.
	Path           []Step    `json:"path"`
	FailedAttempts []Attempt `json:"failedAttempts"`
	// Forks are the other threads that share this thread's start.
	Forks []Fork `json:"forks"`
}

// Step is one entry of a thread's path.
type Step struct {
	Index       int            `json:"index"` // 1 for the first step after the start
	Alias       string         `json:"alias"`
	Short       string         `json:"short"`
	Commit      string         `json:"commit"`
	Kind        string         `json:"kind"` // step or cancel
	Role        string         `json:"role,omitempty"`
	Agent       string         `json:"agent,omitempty"`
	Instruction string         `json:"instruction,omitempty"`
	Status      string         `json:"status"`
	Summary     string         `json:"summary,omitempty"`
	Output      map[string]any `json:"output,omitempty"`
	DurationMs  int64          `json:"durationMs,omitempty"`
	// Committed is set when code commits of the range name this step.
	Committed   bool     `json:"committed"`
	CodeCommits []string `json:"codeCommits,omitempty"`
	// Deliverable is the agent's markdown, for steps that committed.
	Deliverable string `json:"deliverable,omitempty"`
}

// Attempt is a failed attempt recorded for a thread.
type Attempt struct {
	Commit string    `json:"commit"`
	After  int       `json:"after"` // the path index it was attempted after (0: the start)
	Role   string    `json:"role"`
	Agent  string    `json:"agent"`
	Phase  string    `json:"phase,omitempty"`
	Error  string    `json:"error"`
	Time   time.Time `json:"time"`
}

// Fork is another thread sharing a thread's start.
type Fork struct {
	Thread string `json:"thread"`
	Head   string `json:"head"`
	Steps  int    `json:"steps"`
	Shared int    `json:"shared"` // entries after the start both lines hold
}

// Problem is one thing a reviewer could not follow.
type Problem struct {
	Commit  string `json:"commit,omitempty"`
	Thread  string `json:"thread,omitempty"`
	Message string `json:"message"`
}

// String is the problem as one line: "<short commit>: <message>".
func (p Problem) String() string {
	if p.Commit == "" {
		return p.Message
	}
	return shortID(p.Commit) + ": " + p.Message
}

func shortID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
