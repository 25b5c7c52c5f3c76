package chain

import (
	"context"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// readChain is the chain Read renders, from the start (0) to the head.
// When the entry cache holds every commit of it, it is kept as the places
// of their records and an entry is made only for the steps that are
// shown: a long thread's read shows a few of a thousand steps.
type readChain struct {
	r       *Repo
	entries []*Entry // the chain, when it was walked

	shard *entryShard
	list  []entryRecord // the shard's records as they were when the chain was found
	at    []int32       // the places in list of the chain's records
	made  []*Entry      // the entries made from them so far
	zones zones
}

// readChainOf returns the chain to head for Read, and the function that
// waits for the entry cache to be written (always non-nil).
func (r *Repo) readChainOf(ctx context.Context, head gitobj.Hash) (*readChain, func(), error) {
	if c := r.cachedReadChain(head); c != nil {
		return c, func() {}, nil
	}
	entries, wait, err := r.chainCaching(ctx, head, false)
	return &readChain{r: r, entries: entries}, wait, err
}

// cachedReadChain finds the chain to head in the entry cache, or returns
// nil when a commit of it is missing or anything about it is unusual (the
// walk then reads and reports it as Chain does).
func (r *Repo) cachedReadChain(head gitobj.Hash) *readChain {
	if head.IsZero() {
		return nil
	}
	start, err := r.startOf(head)
	if err != nil {
		return nil
	}
	s := r.shard(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	var rev []int32
	for c := head; ; {
		i, ok := s.records.index[c]
		if !ok {
			return nil
		}
		rev = append(rev, i)
		rec := &s.records.list[i]
		switch builtinTitle(rec.node.Type) {
		case "uwf.StartNode":
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			return &readChain{r: r, shard: s, list: s.records.list, at: rev, made: make([]*Entry, len(rev))}
		case "uwf.StepNode", "uwf.CancelNode":
			if rec.parent.IsZero() || len(rev) > len(s.records.list) {
				return nil
			}
			c = rec.parent
		default:
			return nil
		}
	}
}

// len is the number of entries.
func (c *readChain) len() int {
	if c.shard == nil {
		return len(c.entries)
	}
	return len(c.at)
}

// record returns a copy of the record of entry i.
func (c *readChain) record(i int) entryRecord {
	c.shard.mu.Lock()
	defer c.shard.mu.Unlock()
	return c.list[c.at[i]]
}

// alias and commit return the node alias and the commit of entry i.
func (c *readChain) alias(i int) objects.Alias {
	if c.shard == nil {
		return c.entries[i].Node.Alias
	}
	return c.record(i).node.Alias
}

func (c *readChain) commit(i int) gitobj.Hash {
	if c.shard == nil {
		return c.entries[i].Commit
	}
	return c.record(i).commit
}

// entry returns entry i, its kind set and its node not yet decoded
// (decodePayload does that) when it comes from the cache.
func (c *readChain) entry(i int) (*Entry, error) {
	if c.shard == nil {
		return c.entries[i], nil
	}
	if c.made[i] == nil {
		e, err := c.r.entryFromRecord(c.record(i), &c.zones, false)
		if err != nil {
			return nil, err
		}
		c.made[i] = e
	}
	return c.made[i], nil
}
