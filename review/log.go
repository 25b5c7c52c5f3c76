package review

import (
	"bytes"
	"context"
	"fmt"
	"github.com/git-uwf/git-uwf/internal/text"
	"strconv"
	"strings"
	"time"
)

// codeCommit is one commit of the range as git log reported it.
type codeCommit struct {
	Commit  string
	Author  string
	Time    time.Time // author time: kept through rebase, cherry-pick and squash
	Subject string
	Values  []string // Uwf-Step trailer values
}

// logFormat is one record per commit (records end with NUL under -z):
// full id, author name, author time, then the raw message.
const logFormat = "%H%n%an%n%at%n%B"

// readLog lists the range's commits, oldest first, with their trailers,
// in one git log.
func (b *builder) readLog(ctx context.Context, s span) ([]codeCommit, error) {
	args := append([]string{"log", "-z", "--no-merges", "--topo-order", "--reverse", "--format=" + logFormat}, s.Revs...)
	out, err := b.repo.Git.Run(ctx, nil, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("%w: range %s: git log failed%s", ErrBadRange, s.Display, gitReason(err))
	}
	return parseLog(out)
}

// parseLog parses the output of git log -z --format=logFormat.
func parseLog(out []byte) ([]codeCommit, error) {
	var commits []codeCommit
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		rec = bytes.TrimLeft(rec, "\n")
		if len(rec) == 0 {
			continue
		}
		fields := strings.SplitN(string(rec), "\n", 4)
		if len(fields) < 3 || len(fields[0]) != 40 {
			return nil, fmt.Errorf("git log printed an unexpected record %q", text.Clip(string(rec), 80))
		}
		secs, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git log printed an unexpected author time %q for %s", fields[2], fields[0])
		}
		msg := ""
		if len(fields) == 4 {
			msg = fields[3]
		}
		subject, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
		commits = append(commits, codeCommit{
			Commit: fields[0], Author: fields[1], Time: time.Unix(secs, 0).UTC(),
			Subject: strings.TrimSpace(subject), Values: StepTrailers(msg),
		})
	}
	return commits, nil
}
