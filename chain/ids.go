package chain

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// ThreadID names a thread: a ULID (26 Crockford base32 characters), so it
// sorts by creation time and is safe as a ref name component.
type ThreadID string

// Ref prefixes under which git-uwf keeps its data.
const (
	RefPrefix       = "refs/uwf/"
	ThreadsPrefix   = "refs/uwf/threads/"
	WorkflowsPrefix = "refs/uwf/workflows/"
	AttemptsPrefix  = "refs/uwf/attempts/"
)

// NewThreadID returns a fresh ULID for the given time.
func NewThreadID(now time.Time) ThreadID {
	return ThreadID(ulid.MustNew(ulid.Timestamp(now), rand.Reader).String())
}

// ParseThreadID validates a full thread id. Anything that is not a ULID is
// refused, so a thread id can never escape refs/uwf/threads/.
func ParseThreadID(s string) (ThreadID, error) {
	id, err := ulid.ParseStrict(strings.ToUpper(s))
	if err != nil {
		return "", fmt.Errorf("invalid thread id %q: want a 26-character ULID", s)
	}
	return ThreadID(id.String()), nil
}

// Ref is the thread's ref name.
func (id ThreadID) Ref() string { return ThreadsPrefix + string(id) }

// Time is the creation time encoded in the id.
func (id ThreadID) Time() time.Time {
	u, err := ulid.ParseStrict(string(id))
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time())
}

// validWorkflowName reports whether name is usable as a ref component.
func validWorkflowName(name string) error {
	if name == "" || len(name) > 100 {
		return fmt.Errorf("invalid workflow name %q: must be 1-100 characters", name)
	}
	for i, r := range name {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok || (r == '.' && (i == 0 || strings.Contains(name, ".."))) {
			return fmt.Errorf("invalid workflow name %q: use letters, digits, '-', '_' and '.'", name)
		}
	}
	if strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".") {
		return fmt.Errorf("invalid workflow name %q", name)
	}
	return nil
}
