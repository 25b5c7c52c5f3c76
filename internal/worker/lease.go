// Package worker steps threads on any machine, coordinated only through
// the git remote: a worker claims a thread by creating
// refs/uwf/leases/<thread> on the remote with an atomic, non-forced push
// (only one claimant can win), runs one step, and pushes the new head and
// deletes its lease in one atomic push. A lease names its worker, the head
// it claimed and an expiry; an expired lease (its worker died) is taken
// over with a lease commit that continues it (again a non-forced push
// that only one worker can win). A worker that loses its lease discards
// its step: the remote refuses its push and nothing is forced.
package worker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
)

// LeasesPrefix is the namespace of leases on the remote.
const LeasesPrefix = chain.RefPrefix + "leases/"

// Lease trailers of a lease commit's message.
const (
	trailerThread  = "Uwf-Lease-Thread"
	trailerWorker  = "Uwf-Lease-Worker"
	trailerHead    = "Uwf-Lease-Head"
	trailerExpires = "Uwf-Lease-Expires"
)

// Lease is a worker's claim on a thread.
type Lease struct {
	Thread  chain.ThreadID
	Worker  string
	Head    string
	Expires time.Time
	// Commit is the lease commit (the value of the lease ref).
	Commit string
}

// LeaseRef is the remote ref of a thread's lease.
func LeaseRef(id chain.ThreadID) string { return LeasesPrefix + string(id) }

// Expired reports whether the lease has run out at now.
func (l *Lease) Expired(now time.Time) bool { return !now.Before(l.Expires) }

// message renders the lease commit's message.
func (l *Lease) message() string {
	return fmt.Sprintf("uwf lease %s\n\n%s: %s\n%s: %s\n%s: %s\n%s: %d\n", l.Thread,
		trailerThread, l.Thread, trailerWorker, l.Worker, trailerHead, l.Head, trailerExpires, l.Expires.UnixMilli())
}

// ParseLease reads a lease commit's message. Everything is checked: the
// message comes from the remote.
func ParseLease(msg string) (*Lease, error) {
	fields := map[string]string{}
	for _, line := range strings.Split(msg, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(k, "Uwf-Lease-") {
			continue
		}
		if _, dup := fields[k]; dup {
			return nil, fmt.Errorf("lease: %s given twice", k)
		}
		fields[k] = strings.TrimSpace(v)
	}
	l := &Lease{Worker: fields[trailerWorker], Head: fields[trailerHead]}
	id, err := chain.ParseThreadID(fields[trailerThread])
	if err != nil {
		return nil, fmt.Errorf("lease: %s: %w", trailerThread, err)
	}
	l.Thread = id
	if l.Worker == "" || len(l.Worker) > 200 {
		return nil, errors.New("lease: no worker named (or a name longer than 200 bytes)")
	}
	if !isHex(l.Head) || (len(l.Head) != 40 && len(l.Head) != 64) {
		return nil, fmt.Errorf("lease: %s %q is not a commit id", trailerHead, l.Head)
	}
	ms, err := strconv.ParseInt(fields[trailerExpires], 10, 64)
	if err != nil || ms <= 0 {
		return nil, fmt.Errorf("lease: %s %q is not a time in milliseconds", trailerExpires, fields[trailerExpires])
	}
	l.Expires = time.UnixMilli(ms)
	return l, nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
