package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The floor under a cold listing: git reading the objects the listing must
// read. `git for-each-ref` looks up one object header per thread; a cold
// `thread list` reads six whole objects per step thread (chain/list_batch.go).
// Timing `git cat-file --batch` on exactly those objects says how much of
// the gap between the two is the reading itself, whoever does it.

// listObjects returns the input of `git cat-file --batch` that reads, for
// every thread of the repository in dir, the objects a cold `thread list
// --all` reads: the head commit, its root tree, the node and (when another
// blob) the start node, and for a step head the nodes tree and the output
// node in it. It also returns how many objects that is.
func listObjects(dir string) (string, int, error) {
	heads, err := git(dir, nil, "for-each-ref", "--format=%(objectname)", "refs/uwf/threads")
	if err != nil {
		return "", 0, err
	}
	var names strings.Builder
	for _, h := range strings.Fields(heads) {
		for _, suffix := range []string{"", "^{tree}", ":node", ":start", ":nodes"} {
			names.WriteString(h + suffix + "\n")
		}
	}
	oids, err := resolve(dir, names.String())
	if err != nil {
		return "", 0, err
	}
	if len(oids)%5 != 0 {
		return "", 0, fmt.Errorf("list objects: %d names resolved, not five per thread", len(oids))
	}
	var nodes strings.Builder
	for i := 0; i < len(oids); i += 5 {
		nodes.WriteString(oids[i+2] + "\n")
	}
	outputs, err := outputAliases(dir, nodes.String())
	if err != nil {
		return "", 0, err
	}
	var batch, outNames strings.Builder
	n := 0
	for i := 0; i < len(oids); i += 5 {
		commit, tree, node, start, nodesTree := oids[i], oids[i+1], oids[i+2], oids[i+3], oids[i+4]
		batch.WriteString(commit + "\n" + tree + "\n" + node + "\n")
		n += 3
		if start != node {
			batch.WriteString(start + "\n")
			n++
		}
		if alias := outputs[i/5]; alias != "" {
			batch.WriteString(nodesTree + "\n")
			outNames.WriteString(nodesTree + ":" + alias + "\n")
			n++
		}
	}
	outs, err := resolve(dir, outNames.String())
	if err != nil {
		return "", 0, err
	}
	for _, o := range outs {
		batch.WriteString(o + "\n")
	}
	return batch.String(), n + len(outs), nil
}

// resolve returns the object id of each of the names (one per line), in
// order, through one `git cat-file --batch-check`; a name that is missing
// is an error.
func resolve(dir, names string) ([]string, error) {
	if names == "" {
		return nil, nil
	}
	out, err := git(dir, strings.NewReader(names), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	oids := strings.Fields(out)
	for i, o := range oids {
		if o == "missing" || len(o) != 40 {
			return nil, fmt.Errorf("resolve %q: %s", strings.Split(names, "\n")[i], o)
		}
	}
	return oids, nil
}

// outputAliases reads the node blobs named one per line and returns, for
// each, the alias of the output it records ("" for a node that is not a
// step).
func outputAliases(dir, oids string) ([]string, error) {
	out, err := git(dir, strings.NewReader(oids), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	var aliases []string
	r := bufio.NewReader(strings.NewReader(out + "\n"))
	for {
		header, err := r.ReadString('\n')
		if err == io.EOF {
			return aliases, nil
		}
		if err != nil {
			return nil, err
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
		if err := json.NewDecoder(bytes.NewReader(data[:size])).Decode(&node); err != nil {
			return nil, fmt.Errorf("node %s: %w", f[0], err)
		}
		aliases = append(aliases, node.Payload.Output)
	}
}

// objectFloorRow measures the cold listing of f (n threads) against `git
// cat-file --batch` of the objects it reads (see listObjects), cold
// running the listing with its summary cache deleted.
func (b *bench) objectFloorRow(f *fixture, n int, cold func(int) (sample, error)) error {
	input, count, err := listObjects(f.dir)
	if err != nil {
		return fmt.Errorf("objects of the cold listing: %w", err)
	}
	catFile := func(int) (sample, error) {
		return procIn(f.dir, strings.NewReader(input), "git", "cat-file", "--batch")
	}
	v, bv, _, err := b.measure(cold, catFile)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("info: cold `thread list --all`, %d threads, against git reading the objects it reads", n),
		baseline: fmt.Sprintf("`git cat-file --batch` of those %d objects", count),
		value:    v, base: bv, unit: "ms", goal: "(info)"})
	return nil
}
