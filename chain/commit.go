package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/text"
)

// Trailer is one "Key: value" line at the end of a commit message.
type Trailer struct{ Key, Value string }

// maxTrailerValue is what message keeps of a trailer value (in runes).
const maxTrailerValue = 500

// message formats a commit message: subject, optional body, trailers.
func message(subject, body string, trailers ...Trailer) string {
	var b strings.Builder
	b.WriteString(text.Clip(text.OneLine(subject), 200))
	b.WriteString("\n")
	// A NUL byte in a commit message breaks git fsck --strict; the texts
	// come from agents, so drop them here whatever wrote the nodes.
	if body = strings.TrimSpace(strings.ReplaceAll(body, "\x00", "")); body != "" {
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
	}
	if len(trailers) > 0 {
		b.WriteString("\n")
		for _, t := range trailers {
			fmt.Fprintf(&b, "%s: %s\n", t.Key, text.Clip(text.OneLine(t.Value), maxTrailerValue))
		}
	}
	return b.String()
}

// excerpt returns the first lines of a markdown text for a commit body.
func excerpt(s string, maxLines int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], "[…]")
	}
	return strings.Join(lines, "\n")
}

// writeCommit stores a commit object with the repository's identity.
func (r *Repo) writeCommit(ctx context.Context, tree gitobj.Hash, parents []gitobj.Hash, msg string) (gitobj.Hash, error) {
	id := r.signature(ctx)
	sig := gitobj.Signature{Name: id.name, Email: id.email, When: r.commitTime(id)}
	c := &gitobj.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	s := r.Store.Storer()
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return gitobj.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	oid, err := s.SetEncodedObject(obj)
	if err != nil {
		return gitobj.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return oid, nil
}

// trailers parses the trailer block of a commit message.
func trailers(msg string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i := len(lines) - 1; i > 0; i-- {
		k, v, ok := strings.Cut(lines[i], ": ")
		if !ok || strings.ContainsAny(k, " \t") {
			break
		}
		if _, dup := out[k]; !dup {
			out[k] = v
		}
	}
	return out
}

// threadTrailer is the trailer every commit of a thread's chain carries.
const threadTrailer = "Uwf-Thread"

// trailerValue is trailers(msg)[key] without building the map: the value
// of the last "key: value" line of the trailer block, "" when none.
func trailerValue(msg, key string) string {
	msg = strings.TrimRight(msg, "\n")
	for {
		i := strings.LastIndexByte(msg, '\n')
		if i < 0 {
			return "" // the first line is the subject, never a trailer
		}
		k, v, ok := strings.Cut(msg[i+1:], ": ")
		if !ok || strings.ContainsAny(k, " \t") {
			return ""
		}
		if k == key {
			return v
		}
		msg = msg[:i]
	}
}

// maxChainWalk bounds a walk of first parents: a chain longer than that is
// not one git-uwf wrote.
const maxChainWalk = 1_000_000

// rootCommit follows first parents from c to the root of its chain, the
// commit without parents, and returns that commit and its id. It reads
// every commit on the way and takes no Uwf-Start claim for an answer:
// StartCode, the parent link and the check of a claim need the root itself.
func (r *Repo) rootCommit(ctx context.Context, c gitobj.Hash) (gitobj.Hash, *gitobj.Commit, error) {
	s := r.Store.Storer()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return gitobj.ZeroHash, nil, err
		}
		commit, err := gitobj.GetCommit(s, c)
		if err != nil {
			return gitobj.ZeroHash, nil, fmt.Errorf("read commit %s: %w", c, err)
		}
		if len(commit.ParentHashes) == 0 {
			return c, commit, nil
		}
		if i > maxChainWalk {
			return gitobj.ZeroHash, nil, errors.New("chain too long")
		}
		c = commit.ParentHashes[0]
	}
}
