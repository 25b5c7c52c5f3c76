package uwfsync

// Kind says what sync did with one ref.
type Kind string

// Result kinds. Reconcile yields the first eight; Push yields up-to-date,
// pushed and rejected.
const (
	// KindNew: the ref was only on the remote; it was created locally.
	KindNew Kind = "new"
	// KindUpToDate: both sides agree; nothing changed.
	KindUpToDate Kind = "up-to-date"
	// KindFastForward: the local ref moved forward to the remote's tip.
	KindFastForward Kind = "fast-forward"
	// KindLocalAhead: the local ref has steps the remote lacks; push sends them.
	KindLocalAhead Kind = "local-ahead"
	// KindForked: both sides moved. The remote line kept the name; the local
	// line was saved under Fork.
	KindForked Kind = "forked"
	// KindMerged: both attempt logs moved; the local attempts were replayed
	// onto the remote's log.
	KindMerged Kind = "merged"
	// KindDiverged: both sides moved and nothing was done (Adopt leaves
	// divergence to an explicit sync).
	KindDiverged Kind = "diverged"
	// KindInvalid: the remote ref is not well-formed git-uwf data; it was
	// not copied. Reason says why.
	KindInvalid Kind = "invalid"
	// KindError: this ref could not be reconciled or pushed (Reason); the
	// others were.
	KindError Kind = "error"
	// KindPushed: the remote ref was created or fast-forwarded.
	KindPushed Kind = "pushed"
	// KindRejected: the remote refused the update (it has steps this clone
	// lacks); run git uwf sync.
	KindRejected Kind = "rejected"
)

// Result is what happened to one ref.
type Result struct {
	// Ref is the local ref name, refs/uwf/....
	Ref  string `json:"ref"`
	Kind Kind   `json:"kind"`
	// Old and New are the ref's value before and after (for a push: the
	// remote's last known value and what was pushed). Empty when absent.
	Old string `json:"old"`
	New string `json:"new"`
	// Fork is the ref the local line was saved under (KindForked).
	Fork string `json:"fork"`
	// Reason explains invalid, error, rejected and forked results.
	Reason string `json:"reason"`
	// Steps counts what a new or fast-forwarded ref brought: steps for a
	// thread (the start is not a step), versions for a workflow.
	Steps int `json:"steps,omitempty"`
}

// Changed reports whether the result changed a ref here or on the remote,
// or needs the user's attention.
func (r Result) Changed() bool {
	return r.Kind != KindUpToDate && r.Kind != KindLocalAhead
}

// Failed reports whether the result is a problem the user must look at.
func (r Result) Failed() bool {
	return r.Kind == KindInvalid || r.Kind == KindError || r.Kind == KindRejected
}

// Report is the outcome of a fetch, reconcile, push or sync with one remote.
type Report struct {
	Remote  string   `json:"remote"`
	Results []Result `json:"results"`
}

// Failed reports whether any result failed.
func (r *Report) Failed() bool {
	for _, res := range r.Results {
		if res.Failed() {
			return true
		}
	}
	return false
}

// Changed returns the results that changed something or failed.
func (r *Report) Changed() []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Changed() {
			out = append(out, res)
		}
	}
	return out
}

func (r *Report) add(res Result) { r.Results = append(r.Results, res) }
