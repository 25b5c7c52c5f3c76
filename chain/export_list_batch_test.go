package chain

import (
	"context"
	"fmt"
)

// SummariesBothWays derives the summaries of every thread twice, through
// the cat-file batch path (in chunks of chunk threads) and one go-git read
// at a time, for comparison. fellBack names the threads the batch path
// left to the go-git path.
func (r *Repo) SummariesBothWays(ctx context.Context, chunk int) (batch, usual map[ThreadID]Summary, fellBack map[ThreadID]bool, err error) {
	ids, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	keys := make([]cacheKey, len(ids))
	for i, id := range ids {
		tip, err := r.resolveRef(id.AttemptsRef())
		if err != nil {
			return nil, nil, nil, err
		}
		keys[i] = cacheKey{head: heads[id], attempts: tip}
	}
	batch, usual, fellBack = map[ThreadID]Summary{}, map[ThreadID]Summary{}, map[ThreadID]bool{}
	fallBack := func(i int) cachedSummary {
		fellBack[ids[i]] = true
		return r.summarizeHead(ctx, ids[i], keys[i], newStartCommits(0))
	}
	r.summarizeChunks(ctx, ids, keys, newStartCommits(0), 1, chunk, fallBack, func(i int, c cachedSummary) {
		id := ids[i]
		if _, dup := batch[id]; dup {
			err = fmt.Errorf("thread %s summarized twice", id)
		}
		batch[id] = c.sum
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for i, id := range ids {
		usual[id] = r.summarizeHead(ctx, id, keys[i], newStartCommits(0)).sum
	}
	return batch, usual, fellBack, nil
}

// SummarizeBatch derives the summaries of every thread through the
// cat-file batch path only.
func (r *Repo) SummarizeBatch(ctx context.Context) (int, error) {
	ids, heads, err := r.ThreadIDs(ctx)
	if err != nil {
		return 0, err
	}
	keys := make([]cacheKey, len(ids))
	for i, id := range ids {
		keys[i] = cacheKey{head: heads[id]}
	}
	n := 0
	r.summarizeMany(ctx, ids, keys, newStartCommits(0), 1, func(int, cachedSummary) { n++ })
	return n, nil
}
