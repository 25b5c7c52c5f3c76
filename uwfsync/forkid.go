package uwfsync

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-uwf/git-uwf/chain"
)

// ForkID is the id of the fork thread that keeps a diverged local line of
// thread id whose tip is localTip. It is a ULID whose time is when that tip
// was committed and whose random part is the start of
// SHA-256("git-uwf fork\n" + id + "\n" + localTip), so every clone that
// reconciles the same divergence names the fork alike, and a second sync
// finds it instead of adding a duplicate.
func ForkID(id chain.ThreadID, localTip string, tipTime time.Time) chain.ThreadID {
	sum := sha256.Sum256([]byte("git-uwf fork\n" + string(id) + "\n" + strings.ToLower(localTip)))
	ms := max(tipTime.UnixMilli(), 0)
	u, err := ulid.New(min(uint64(ms), ulid.MaxTime()), bytes.NewReader(sum[:10]))
	if err != nil { // unreachable: the time is clamped and 10 bytes are there
		panic(err)
	}
	return chain.ThreadID(u.String())
}

// workflowForkName is the registry name that keeps a diverged local line of
// workflow name whose tip is localTip: <name>-local-<8 hex of the tip>,
// shortened to stay a valid workflow name.
func workflowForkName(name, localTip string) string {
	suffix := "-local-" + localTip[:8]
	if len(name)+len(suffix) > 100 {
		name = strings.TrimRight(name[:100-len(suffix)], ".")
	}
	return name + suffix
}
