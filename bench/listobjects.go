package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The floor under a cold listing: git reading the objects the listing must
// read. `git for-each-ref` looks up one object header per thread; a cold
// `thread list` reads whole objects, six for a thread whose head is a step
// (chain/list_batch.go). Timing `git cat-file --batch` on exactly those
// objects says how much of the gap between the two is the reading itself,
// whoever does it.

// listChunk is how many threads the listing hands to one of its readers
// at a time (chain.batchChunk, unexported there); with more than one CPU
// and more than one chunk, two readers take alternate chunks.
const listChunk = 256

// listObjects returns, for every thread of the repository in dir, the
// objects a cold `thread list --all` reads for it: the head commit, its
// root tree, the node and (when another blob) the start node, and for a
// step head the nodes/ tree and the output node in it.
func listObjects(dir string) ([][]string, error) {
	heads, err := git(dir, nil, "for-each-ref", "--format=%(objectname)", "refs/uwf/threads")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(heads)
	var names []string
	for _, h := range ids {
		names = append(names, h, h+"^{tree}", h+":node", h+":start")
	}
	oids, err := resolve(dir, names)
	if err != nil {
		return nil, err
	}
	threads := make([][]string, len(ids))
	nodes := make([]string, len(ids))
	for i := range ids {
		commit, tree, node, start := oids[4*i], oids[4*i+1], oids[4*i+2], oids[4*i+3]
		threads[i] = append(threads[i], commit, tree, node)
		if start != node {
			threads[i] = append(threads[i], start)
		}
		nodes[i] = node
	}
	outputs, err := outputAliases(dir, nodes)
	if err != nil {
		return nil, err
	}
	var steps []int // the threads whose head is a step
	names = names[:0]
	for i, alias := range outputs {
		if alias != "" {
			steps = append(steps, i)
			names = append(names, ids[i]+":nodes", ids[i]+":nodes/"+alias)
		}
	}
	if oids, err = resolve(dir, names); err != nil {
		return nil, err
	}
	for k, i := range steps {
		threads[i] = append(threads[i], oids[2*k], oids[2*k+1])
	}
	return threads, nil
}

// resolve returns the object id of each name, in order, through one
// `git cat-file --batch-check`; a name git cannot resolve is an error.
func resolve(dir string, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out, err := git(dir, strings.NewReader(strings.Join(names, "\n")+"\n"), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	oids := strings.Split(out, "\n")
	if len(oids) != len(names) {
		return nil, fmt.Errorf("cat-file --batch-check: %d answers for %d names", len(oids), len(names))
	}
	for _, o := range oids {
		if strings.ContainsRune(o, ' ') { // "<name> missing", "<name> ambiguous"
			return nil, fmt.Errorf("cat-file --batch-check: %s", o)
		}
	}
	return oids, nil
}

// outputAliases reads the node blobs oids and returns, for each, the alias
// of the output it records ("" for a node that is not a step).
func outputAliases(dir string, oids []string) ([]string, error) {
	// Not git(): it trims the output, and a blob may end in white space.
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w: %s", err, errb.String())
	}
	aliases := make([]string, 0, len(oids))
	r := bufio.NewReader(bytes.NewReader(out))
	for range oids {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("cat-file --batch: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("cat-file --batch: header %q", header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("cat-file --batch: header %q: %w", header, err)
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("cat-file --batch: %s: %w", f[0], err)
		}
		var node struct {
			Payload struct {
				Output string `json:"output"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(data[:size], &node); err != nil {
			return nil, fmt.Errorf("node %s: %w", f[0], err)
		}
		aliases = append(aliases, node.Payload.Output)
	}
	return aliases, nil
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
func (b *bench) objectFloorRows(f *fixture, n int, cold func(int) (sample, error)) error {
	threads, err := listObjects(f.dir)
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
		{[]string{all.String()}, "one `git cat-file --batch` of them"},
		{[]string{halves[0].String(), halves[1].String()},
			fmt.Sprintf("two `git cat-file --batch` at once, of alternate chunks of %d threads", listChunk)},
	} {
		v, bv, _, err := b.measure(cold, func(int) (sample, error) { return catFiles(f.dir, p.inputs) })
		if err != nil {
			return err
		}
		b.add(row{figure: fmt.Sprintf("info: cold `thread list --all`, %d threads, against git reading the %d objects it reads", n, count),
			baseline: p.baseline, value: v, base: bv, unit: "ms", goal: "(info)"})
	}
	return nil
}
