package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// The floor under a cold listing: git reading the objects the listing must
// read. `git for-each-ref` looks up one object header per thread; a cold
// `thread list` reads whole objects (chain/list_batch.go): three for a
// thread whose head says its state (chain.NextTrailer), six for a step
// head that does not. Timing `git cat-file --batch` on exactly those
// objects says how much of the gap between the two is the reading itself,
// whoever does it.

// listChunk is how many threads the listing hands to one of its readers
// at a time (chain.batchChunk, unexported there); with more than one CPU
// and more than one chunk, two readers take alternate chunks.
const listChunk = 256

// listObjects returns, for every thread of f, the objects a cold `thread
// list --all` reads for it: the head commit, its root tree and the start
// node, and unless the head commit has an Uwf-Next trailer (the fixtures'
// are all readable) the node when another blob, and for a step head the
// nodes/ tree and the output node in it. It reads them through one
// cat-file process (gitrepo.Batch), keeping only their ids, whether each
// head has the trailer, and each node's output alias.
func listObjects(ctx context.Context, f *fixture) ([][]string, error) {
	heads, err := git(f.dir, nil, "for-each-ref", "--format=%(objectname)", "refs/uwf/threads")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(heads)
	batch, err := f.repo.Git.NewBatch(ctx)
	if err != nil {
		return nil, err
	}
	defer batch.Close()
	var names []string
	for _, h := range ids {
		names = append(names, h, h+"^{tree}", h+":node", h+":start")
	}
	outputs := make([]string, len(ids))
	claimed := make([]bool, len(ids))
	oids, err := objectIDs(batch, names, func(i int, o gitrepo.Object) error {
		if i%4 == 0 {
			claimed[i/4] = bytes.Contains(o.Data, []byte("\n"+chain.NextTrailer+": "))
		}
		if i%4 != 2 {
			return nil
		}
		n, err := objects.DecodeNode(o.Data)
		if err != nil {
			return fmt.Errorf("node %s: %w", o.OID, err)
		}
		var step struct {
			Output string `json:"output"` // StepNode's; other nodes have none
		}
		if err := json.Unmarshal(n.Payload, &step); err != nil {
			return fmt.Errorf("node %s: %w", o.OID, err)
		}
		outputs[i/4] = step.Output
		return nil
	})
	if err != nil {
		return nil, err
	}
	threads := make([][]string, len(ids))
	var steps []int // the threads whose head is a step
	names = names[:0]
	for i := range ids {
		commit, tree, node, start := oids[4*i], oids[4*i+1], oids[4*i+2], oids[4*i+3]
		if claimed[i] {
			threads[i] = append(threads[i], commit, tree, start)
			continue
		}
		threads[i] = append(threads[i], commit, tree, node)
		if start != node {
			threads[i] = append(threads[i], start)
		}
		if outputs[i] != "" {
			steps = append(steps, i)
			names = append(names, ids[i]+":nodes", ids[i]+":nodes/"+outputs[i])
		}
	}
	if oids, err = objectIDs(batch, names, nil); err != nil {
		return nil, err
	}
	for k, i := range steps {
		threads[i] = append(threads[i], oids[2*k], oids[2*k+1])
	}
	return threads, nil
}

// objectIDs reads names through batch and returns their object ids in
// order, calling each (when not nil) with every object as it is read; a
// name git cannot find, or an error of each, is an error.
func objectIDs(batch *gitrepo.Batch, names []string, each func(int, gitrepo.Object) error) ([]string, error) {
	oids := make([]string, len(names))
	var first error
	_, err := batch.AskEach(names, func(i int, o gitrepo.Object) {
		switch {
		case first != nil:
		case o.Missing:
			first = fmt.Errorf("cat-file: %s is missing", o.Name)
		case each != nil:
			first = each(i, o)
		}
		oids[i] = o.OID
	}).Wait()
	if err == nil {
		err = first
	}
	return oids, err
}

// catFiles runs one `git cat-file --batch` per input, all at once, and
// returns the time until the last one ended.
func catFiles(dir string, inputs []string) (sample, error) {
	errs := make(chan error, len(inputs))
	start := time.Now()
	for _, in := range inputs {
		go func() {
			_, err := procIn(dir, strings.NewReader(in), "git", "cat-file", "--batch")
			errs <- err
		}()
	}
	var first error
	for range inputs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return sample{d: time.Since(start)}, first
}

// objectFloorRows measure the cold listing of f (n threads) against `git
// cat-file --batch` of the objects it reads (see listObjects): one process
// reading them all, and two at once taking alternate chunks of threads, as
// the listing's two readers do. cold runs the listing with its summary
// cache deleted.
func (b *bench) objectFloorRows(ctx context.Context, f *fixture, n int, cold func(int) (sample, error)) error {
	threads, err := listObjects(ctx, f)
	if err != nil {
		return fmt.Errorf("objects of the cold listing: %w", err)
	}
	var all strings.Builder
	var halves [2]strings.Builder
	count := 0
	for i, objs := range threads {
		// The listing goes newest first, the reverse of the ref order.
		half := &halves[((len(threads)-1-i)/listChunk)%2]
		for _, o := range objs {
			all.WriteString(o + "\n")
			half.WriteString(o + "\n")
		}
		count += len(objs)
	}
	for _, p := range []struct {
		inputs   []string
		baseline string
	}{
		{[]string{all.String()}, fmt.Sprintf("one `git cat-file --batch` of them (%d objects)", count)},
		{[]string{halves[0].String(), halves[1].String()},
			fmt.Sprintf("two `git cat-file --batch` at once, of alternate chunks of %d threads (%d objects)", listChunk, count)},
	} {
		v, bv, _, err := b.measure(cold, func(int) (sample, error) { return catFiles(f.dir, p.inputs) })
		if err != nil {
			return err
		}
		// The count is the baseline's: the step figures of a busy pass
		// add threads to the fixture, so it is not the idle pass's.
		b.add(row{figure: fmt.Sprintf("info: cold `thread list --all`, %d threads, against git reading the objects it reads", n),
			baseline: p.baseline, value: v, base: bv, unit: "ms", goal: "(info)"})
	}
	return nil
}
