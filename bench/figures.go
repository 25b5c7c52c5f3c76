package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/agentkit"
	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

// noop is an in-process agent that answers at once.
type noop struct{}

func (noop) Name() string { return "noop" }
func (noop) Run(context.Context, *agentkit.Session) (agentkit.Reply, error) {
	return agentkit.Reply{Text: "---\n$status: again\nsummary: nothing to do\n---\n\nNothing to do: this is a no-op step.\n"}, nil
}
func (n noop) Correct(ctx context.Context, s *agentkit.Session, _ agentkit.Reply, _ string) (agentkit.Reply, error) {
	return n.Run(ctx, s)
}

// stepInProcess is what one step costs inside one process with the
// repository already open: the engine's lock, state and routing, the agent
// kit's session (history rendering) and node writes for a no-op agent, and
// the engine's verification, commit and ref update (one git update-ref).
func stepInProcess(ctx context.Context, repo *chain.Repo, dir string, id chain.ThreadID) error {
	unlock, err := repo.LockThread(id)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := repo.Thread(ctx, id)
	if err != nil {
		return err
	}
	st, err := repo.State(ctx, t)
	if err != nil {
		return err
	}
	if st.Status != chain.StatusIdle {
		return fmt.Errorf("thread %s is %s", id, st.Status)
	}
	req := agentkit.Request{Thread: string(id), Role: st.CurrentRole, EdgePrompt: st.Next.Prompt, Head: t.Head.Commit.String(), Cwd: dir}
	s, err := agentkit.NewSession(ctx, repo, req, agentkit.Options{})
	if err != nil {
		return err
	}
	out, err := agentkit.Execute(ctx, s, noop{}, agentkit.Options{})
	if err != nil {
		return err
	}
	ref, err := out.StepRef()
	if err != nil {
		return err
	}
	_, err = repo.AppendStep(ctx, t, ref, chain.AppendOptions{ExpectedRole: st.CurrentRole})
	return err
}

// stepObjects returns the contents of the blobs a step commit added.
func stepObjects(dir, ref string) ([][]byte, error) {
	out, err := git(dir, nil, "diff-tree", "-r", "--no-commit-id", ref+"^", ref)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var blobs [][]byte
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || seen[f[3]] || f[4] == "D" {
			continue
		}
		seen[f[3]] = true
		data, err := git(dir, nil, "cat-file", "blob", f[3])
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, []byte(data))
	}
	return blobs, nil
}

// plumbingStep writes blobs (made unique by nonce), a nodes/ tree, a root
// tree and a commit, and moves a ref: 5 git processes.
func plumbingStep(dir string, blobs [][]byte, nonce int) (sample, error) {
	var files []string
	for k, b := range blobs {
		p := filepath.Join(dir, fmt.Sprintf("blob%d", k))
		if err := os.WriteFile(p, append(append([]byte(nil), b...), fmt.Sprintf("\n%d", nonce)...), 0o644); err != nil {
			return sample{}, err
		}
		files = append(files, p)
	}
	old, _ := git(dir, nil, "rev-parse", "--verify", "-q", "refs/heads/bench")
	start := time.Now()
	out, err := git(dir, nil, append([]string{"hash-object", "-w"}, files...)...)
	if err != nil {
		return sample{}, err
	}
	oids := strings.Fields(out)
	half := len(oids) / 2
	var nodes, rootIn strings.Builder
	for k, o := range oids[:half] {
		fmt.Fprintf(&nodes, "100644 blob %s\tn%02d\n", o, k)
	}
	nt, err := git(dir, strings.NewReader(nodes.String()), "mktree")
	if err != nil {
		return sample{}, err
	}
	for k, o := range oids[half:] {
		fmt.Fprintf(&rootIn, "100644 blob %s\tf%02d\n", o, k)
	}
	fmt.Fprintf(&rootIn, "040000 tree %s\tnodes\n", nt)
	rt, err := git(dir, strings.NewReader(rootIn.String()), "mktree")
	if err != nil {
		return sample{}, err
	}
	args := []string{"commit-tree", rt, "-m", "worker: again — nothing to do"}
	if old != "" {
		args = append(args, "-p", old)
	}
	c, err := git(dir, nil, args...)
	if err != nil {
		return sample{}, err
	}
	if old == "" {
		old = strings.Repeat("0", 40)
	}
	if _, err := git(dir, nil, "update-ref", "refs/heads/bench", c, old); err != nil {
		return sample{}, err
	}
	return sample{d: time.Since(start)}, nil
}

// fastImportStep imports the same objects as one step (blobs, the trees,
// the commit and the ref update) with one git fast-import process.
func fastImportStep(dir string, blobs [][]byte, nonce int) (sample, error) {
	var in bytes.Buffer
	for k, b := range blobs {
		data := append(append([]byte(nil), b...), fmt.Sprintf("\n%d", nonce)...)
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n%s\n", k+1, len(data), data)
	}
	msg := "worker: again — nothing to do\n"
	fmt.Fprintf(&in, "commit refs/heads/fi\ncommitter Bench <bench@example.invalid> %d +0000\ndata %d\n%s", time.Now().Unix(), len(msg), msg)
	if old, err := git(dir, nil, "rev-parse", "--verify", "-q", "refs/heads/fi"); err == nil && old != "" {
		fmt.Fprintf(&in, "from %s\n", old)
	}
	for k := range blobs {
		path := fmt.Sprintf("f%02d", k)
		if k < len(blobs)/2 {
			path = fmt.Sprintf("nodes/n%02d", k)
		}
		fmt.Fprintf(&in, "M 100644 :%d %s\n", k+1, path)
	}
	in.WriteString("\n")
	start := time.Now()
	if _, err := git(dir, &in, "fast-import", "--quiet"); err != nil {
		return sample{}, err
	}
	return sample{d: time.Since(start)}, nil
}

func (b *bench) scratch(name string) (string, error) {
	dir := filepath.Join(b.root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := git(dir, nil, "init", "-q"); err != nil {
		return "", err
	}
	_, err := git(dir, nil, "config", "gc.auto", "0")
	return dir, err
}

// stepRow measures whole-process `git uwf thread step` with the mock agent
// on fresh threads of f, against the same objects written by git plumbing.
// The built-in mock runs inside the engine's process, as users get it; an
// info row measures the same step with the agent spawned as a process of
// its own (UWF_SPAWN_AGENTS=1), as any external agent command is. The
// three are measured interleaved.
func (b *bench) stepRow(ctx context.Context, f *fixture, label string) error {
	n := b.cfg.runs + 1
	ids, err := f.startThreads(ctx, 2*n)
	if err != nil {
		return err
	}
	plumb, err := b.scratch("plumbing-" + label)
	if err != nil {
		return err
	}
	agentFlag := "git-uwf agent mock --script " + f.script
	var blobs [][]byte
	var spawned []float64
	step := func(i int) (sample, error) {
		s, err := proc(f.dir, nil, b.bin, "thread", "step", string(ids[i+1]), "--agent", agentFlag)
		if err == nil && blobs == nil {
			blobs, err = stepObjects(f.dir, ids[i+1].Ref())
		}
		if err != nil {
			return s, err
		}
		sp, err := proc(f.dir, []string{"UWF_SPAWN_AGENTS=1"}, b.bin, "thread", "step", string(ids[n+i+1]), "--agent", agentFlag)
		if i >= 0 {
			spawned = append(spawned, ms(sp.d))
		}
		return s, err
	}
	base := func(i int) (sample, error) { return plumbingStep(plumb, blobs, i+1) }
	v, bv, _, err := b.measure(step, base)
	if err != nil {
		return err
	}
	baseline := fmt.Sprintf("plumbing, %d blobs + 2 trees + commit + ref (5 processes)", len(blobs))
	b.add(row{figure: "`thread step`, whole process, mock agent (" + label + ")",
		baseline: baseline, value: v, base: bv, unit: "ms", goal: "≤ 1.0×"})
	b.add(row{figure: "info: the same step with the agent spawned as its own process, as an external agent is (" + label + ")",
		baseline: baseline, value: median(spawned), base: bv, unit: "ms", goal: "≤ 1.5×"})
	return nil
}

func (b *bench) stepFigures(ctx context.Context) error {
	logf("fixture: small repository")
	f, err := newFixture(ctx, filepath.Join(b.root, "small"))
	if err != nil {
		return err
	}
	return b.stepRow(ctx, f, "1 thread")
}

func (b *bench) inProcessFigure(ctx context.Context) error {
	logf("fixture: in-process steps")
	f, err := newFixture(ctx, filepath.Join(b.root, "inproc"))
	if err != nil {
		return err
	}
	ids, err := f.startThreads(ctx, 1)
	if err != nil {
		return err
	}
	fi, err := b.scratch("fast-import")
	if err != nil {
		return err
	}
	var blobs [][]byte
	step := func(int) (sample, error) {
		start := time.Now()
		if err := stepInProcess(ctx, f.repo, f.dir, ids[0]); err != nil {
			return sample{}, err
		}
		d := time.Since(start)
		if blobs == nil {
			var err error
			if blobs, err = stepObjects(f.dir, ids[0].Ref()); err != nil {
				return sample{}, err
			}
		}
		return sample{d: d}, nil
	}
	base := func(i int) (sample, error) { return fastImportStep(fi, blobs, i+1) }
	v, bv, _, err := b.measure(step, base)
	if err != nil {
		return err
	}
	b.add(row{figure: "step in-process (open repo; session + no-op agent's node writes + verify + commit + `update-ref`)",
		baseline: "one `git fast-import` of the same objects + ref", value: v, base: bv, unit: "ms", goal: "≤ 3×"})
	return nil
}

func (b *bench) readFigures(ctx context.Context) error {
	logf("fixture: a %d-step thread", b.cfg.steps)
	f, err := newFixture(ctx, filepath.Join(b.root, "long"))
	if err != nil {
		return err
	}
	im, err := f.importer()
	if err != nil {
		return err
	}
	id := im.thread(0, b.cfg.steps, "again")
	if err := im.close(); err != nil {
		return err
	}
	// One run of each process in turn, cfg.runs times after a warm-up:
	// the floor, the start-up alone, the warm commands, then the cold
	// ones (all of .git/uwf/cache deleted first).
	cacheDir := filepath.Join(f.dir, ".git", "uwf", "cache")
	uwf := func(args ...string) func() (sample, error) {
		return func() (sample, error) { return proc(f.dir, nil, b.bin, args...) }
	}
	cold := func(args ...string) func() (sample, error) {
		return func() (sample, error) {
			if err := os.RemoveAll(cacheDir); err != nil {
				return sample{}, err
			}
			return proc(f.dir, nil, b.bin, args...)
		}
	}
	procs := []struct {
		name string
		run  func() (sample, error)
	}{
		{"git log", func() (sample, error) { return proc(f.dir, nil, "git", "log", "--format=%H", id.Ref()) }},
		{"version", uwf("version")},
		{"read", uwf("thread", "read", string(id))},
		{"steps", uwf("thread", "steps", string(id))},
		{"cold read", cold("thread", "read", string(id))},
		{"cold steps", cold("thread", "steps", string(id))},
	}
	wall := make([][]float64, len(procs))
	cpu := make([][]float64, len(procs))
	for i := -1; i < b.cfg.runs; i++ {
		for k, p := range procs {
			s, err := p.run()
			if err != nil {
				return err
			}
			if i >= 0 {
				wall[k], cpu[k] = append(wall[k], ms(s.d)), append(cpu[k], ms(s.cpu))
			}
		}
	}
	floor, floorCPU := median(wall[0]), median(cpu[0])
	const logBase = "`git log --format=%H` of the ref"
	b.add(row{figure: "process start, `git-uwf version` (read fixture, same run)", baseline: logBase,
		value: median(wall[1]), base: floor, unit: "ms", goal: "(info)"})
	b.add(row{figure: "same, CPU (user + sys)", baseline: logBase + ", CPU",
		value: median(cpu[1]), base: floorCPU, unit: "ms", goal: "(info)"})
	for k, p := range procs[2:] {
		k += 2
		goal, what := "≤ 2×", "warm caches"
		if strings.HasPrefix(p.name, "cold") {
			goal, what = "≤ 5×", "cold (all of `.git/uwf/cache` deleted)"
			if p.name == "cold steps" {
				goal = "(info)"
			}
		}
		cmd := strings.TrimPrefix(p.name, "cold ")
		b.add(row{figure: fmt.Sprintf("`thread %s`, %d-step thread, %s", cmd, b.cfg.steps, what), baseline: logBase,
			value: median(wall[k]), base: floor, unit: "ms", goal: goal})
		b.add(row{figure: "same, CPU (user + sys)", baseline: logBase + ", CPU",
			value: median(cpu[k]), base: floorCPU, unit: "ms", goal: "(info)"})
		b.add(row{figure: "same, CPU less `git-uwf version`'s", baseline: logBase + ", CPU",
			value: median(cpu[k]) - median(cpu[1]), base: floorCPU, unit: "ms", goal: "(info)"})
	}
	return nil
}

func (b *bench) aliasFigure(ctx context.Context) error {
	logf("fixture: %d nodes", b.cfg.nodes)
	f, err := newFixture(ctx, filepath.Join(b.root, "alias"))
	if err != nil {
		return err
	}
	im, err := f.importer()
	if err != nil {
		return err
	}
	im.textNodes("refs/uwf/bench/nodes", b.cfg.nodes)
	if err := im.close(); err != nil {
		return err
	}
	s, err := proc(f.dir, nil, b.bin, "cas", "reindex")
	if err != nil {
		return err
	}
	logf("cas reindex of %d nodes: %.0f ms", b.cfg.nodes, ms(s.d))
	aliases := make([]objects.Alias, b.cfg.nodes)
	m := make(map[objects.Alias]gitobj.Hash, b.cfg.nodes)
	for i := range aliases {
		nd := node(f.text.Alias, fmt.Sprintf("node %d", i))
		aliases[i] = nd.alias
		m[nd.alias] = gitobj.ComputeHash(gitobj.BlobObject, nd.data)
	}
	common := filepath.Join(f.dir, ".git")
	rng := rand.New(rand.NewPCG(1, 2))
	// A fresh store per run: what one CLI command pays for its first lookup.
	fresh := func(int) (sample, error) {
		a := aliases[rng.IntN(len(aliases))]
		start := time.Now()
		st, err := objects.OpenDir(common)
		if err != nil {
			return sample{}, err
		}
		ok, err := st.Has(a)
		d := time.Since(start)
		if err != nil || !ok {
			return sample{}, fmt.Errorf("lookup %s: %v %v", a, ok, err)
		}
		return sample{d: d}, nil
	}
	var sink gitobj.Hash
	mapLookup := func(int) (sample, error) {
		const k = 1000
		start := time.Now()
		for j := 0; j < k; j++ {
			sink = m[aliases[rng.IntN(len(aliases))]]
		}
		return sample{d: time.Since(start) / k}, nil
	}
	v, bv, _, err := b.measure(fresh, mapLookup)
	if err != nil {
		return err
	}
	_ = sink
	b.add(row{figure: fmt.Sprintf("first `Store.Has(alias)` in a freshly opened store after `cas reindex` of %d nodes (go-git pack index load + alias lookup + blob read and re-hash)", b.cfg.nodes),
		baseline: "Go map lookup", value: v * 1000, base: bv * 1000, unit: "µs", goal: "O(1), µs"})
	st, err := objects.OpenDir(common)
	if err != nil {
		return err
	}
	warm := func(int) (sample, error) {
		const k = 200
		start := time.Now()
		for j := 0; j < k; j++ {
			if ok, err := st.Has(aliases[rng.IntN(len(aliases))]); err != nil || !ok {
				return sample{}, fmt.Errorf("lookup: %v %v", ok, err)
			}
		}
		return sample{d: time.Since(start) / k}, nil
	}
	v, bv, _, err = b.measure(warm, mapLookup)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("later `Store.Has(alias)` in the same store, %d nodes (alias lookup + blob read and re-hash)", b.cfg.nodes),
		baseline: "Go map lookup", value: v * 1000, base: bv * 1000, unit: "µs", goal: "O(1), µs"})
	a := aliases[len(aliases)/2]
	get := func(int) (sample, error) { return proc(f.dir, nil, b.bin, "cas", "get", string(a)) }
	cat := func(int) (sample, error) { return proc(f.dir, nil, "git", "cat-file", "-p", m[a].String()) }
	v, bv, _, err = b.measure(get, cat)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`cas get <alias>`, whole process, %d nodes", b.cfg.nodes), baseline: "`git cat-file -p <oid>`",
		value: v, base: bv, unit: "ms", goal: "(info)"})
	return nil
}

// packBytes sums the sizes of the pack files in a bare repository.
func packBytes(bare string) int64 {
	var n int64
	matches, _ := filepath.Glob(filepath.Join(bare, "objects", "pack", "*.pack"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func (b *bench) syncFigure(ctx context.Context) (err error) {
	f, err := b.bigFixture(ctx)
	if err != nil {
		return err
	}
	bare := filepath.Join(b.root, "remote.git")
	if _, err := git(b.root, nil, "init", "-q", "--bare", bare); err != nil {
		return err
	}
	// Keep every received pack as sent, so its size is the bytes pushed.
	if _, err := git(bare, nil, "config", "receive.unpackLimit", "1"); err != nil {
		return err
	}
	// A fixture kept by an earlier run (-fixtures) has the old origin.
	if url, _ := git(f.dir, nil, "config", "--get", "remote.origin.url"); url != "" {
		if _, err := git(f.dir, nil, "remote", "remove", "origin"); err != nil {
			return err
		}
	}
	if _, err := git(f.dir, nil, "remote", "add", "origin", bare); err != nil {
		return err
	}
	// The fixture is shared with the figures after this one, and with
	// later runs (-fixtures): leave it without the remote and its 10,000
	// remote-tracking refs, whose presence makes every command check for
	// fetched threads to take over (a git process and a listing more).
	defer func() {
		if _, rerr := git(f.dir, nil, "remote", "remove", "origin"); rerr != nil && err == nil {
			err = rerr
		}
	}()
	if _, err := proc(f.dir, nil, b.bin, "remote", "setup", "origin"); err != nil {
		return err
	}
	logf("sync: initial push of %d threads", b.cfg.threads)
	if _, err := proc(f.dir, nil, b.bin, "sync", "origin"); err != nil {
		return err
	}
	ids, err := f.startThreads(ctx, 1)
	if err != nil {
		return err
	}
	if _, err := proc(f.dir, nil, b.bin, "sync", "origin"); err != nil {
		return err
	}
	id := ids[0]
	var sent, pushed []float64
	sync := func(int) (sample, error) {
		if err := stepInProcess(ctx, f.repo, f.dir, id); err != nil {
			return sample{}, err
		}
		before := packBytes(bare)
		s, err := proc(f.dir, nil, b.bin, "sync", "origin")
		sent = append(sent, float64(packBytes(bare)-before))
		return s, err
	}
	push := func(int) (sample, error) {
		if err := stepInProcess(ctx, f.repo, f.dir, id); err != nil {
			return sample{}, err
		}
		before := packBytes(bare)
		s, err := proc(f.dir, nil, "git", "push", "-q", "origin", id.Ref())
		pushed = append(pushed, float64(packBytes(bare)-before))
		return s, err
	}
	v, bv, _, err := b.measure(sync, push)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`git uwf sync` of one new step, remote holding %d threads", b.cfg.threads),
		baseline: "`git push` of that one ref", value: v, base: bv, unit: "ms", goal: "≤ 2×"})
	b.add(row{figure: "bytes received by the remote for one new step (pack size)", baseline: "`git push` of that one ref",
		value: median(sent[1:]), base: median(pushed[1:]), unit: "B", goal: "∝ the step"})
	// Every command first adopts what fetches brought; with the remote set
	// up and nothing fetched since, that must cost little.
	list := func(int) (sample, error) { return proc(f.dir, nil, b.bin, "thread", "list", "--all") }
	refs := func(int) (sample, error) { return proc(f.dir, nil, "git", "for-each-ref", "refs/uwf/threads") }
	v, bv, _, err = b.measure(list, refs)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("warm `thread list --all` with the remote set up, %d fetched threads, nothing new", b.cfg.threads),
		baseline: "`git for-each-ref refs/uwf/threads`", value: v, base: bv, unit: "ms", goal: "(info)"})
	// A step in a teammate's clone: the same adopt check comes first.
	return b.stepRow(ctx, f, fmt.Sprintf("%d threads, the remote set up, as many fetched", b.cfg.threads))
}
