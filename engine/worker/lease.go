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
	"unicode"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/chain"
)

// MaxLease is the longest lease a worker takes (git uwf worker --lease).
const MaxLease = 12 * time.Hour

// MaxLeaseAhead bounds how far ahead a lease's expiry may lie: a lease that
// claims to last longer than this from now (a clock far off, or a lease
// pushed to block a thread forever) is treated as expired. It is twice
// MaxLease, and at least a day, so a lease from a worker whose clock runs
// a few hours ahead still counts.
const MaxLeaseAhead = max(24*time.Hour, 2*MaxLease)

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

// Expired reports whether the lease has run out at now. An expiry further
// than MaxLeaseAhead from now counts as expired: leases are remote data,
// and one dated year 9999 must not block a thread forever.
func (l *Lease) Expired(now time.Time) bool {
	return !now.Before(l.Expires) || l.Expires.After(now.Add(MaxLeaseAhead))
}

// PrintableWorker is the lease's worker name safe to print on a terminal:
// the name comes from the remote, so control characters (escape
// sequences included) and invalid UTF-8 are shown escaped, as Go quotes
// them.
func (l *Lease) PrintableWorker() string { return Printable(l.Worker) }

// Printable escapes every rune of s that is not printable (control
// characters, escape sequences, invalid UTF-8) and every backslash, so
// what the remote wrote cannot act on the terminal it is printed to.
func Printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && len(s[i:]) > 0 && !strings.HasPrefix(s[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

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
