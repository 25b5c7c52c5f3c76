package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/workdir"
	"github.com/git-uwf/git-uwf/moderator"
	"github.com/git-uwf/git-uwf/objects"
)

// loopWorkflow has one role that either loops ("again") or ends ("done").
const loopWorkflow = `name: loop
description: One role that loops until it says done.
roles:
  worker:
    description: Does nothing.
    goal: You do nothing, quickly.
    frontmatter:
      type: object
      properties:
        $status: {enum: [again, done]}
        summary: {type: string}
      required: [$status, summary]
graph:
  $START:
    _: {role: worker, prompt: "Do nothing."}
  worker:
    again: {role: worker, prompt: "Again: {{summary}}"}
    done: {role: $END, prompt: "Done."}
`

// mockScript scripts the built-in mock agent for the first step of a thread.
const mockScript = `steps:
  - role: worker
    output: {$status: again, summary: "nothing to do"}
    body: "Nothing to do: this is a no-op step."
`

// fixture is a repository with the loop workflow registered.
type fixture struct {
	dir    string
	repo   *chain.Repo
	wf     *chain.WorkflowInfo
	script string

	// node types and their blobs, for generated commits
	meta, text, start, step, role objects.Ref
}

// git runs git in dir and returns its trimmed stdout.
func git(dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// newFixture creates a repository in dir with the loop workflow registered.
func newFixture(ctx context.Context, dir string) (*fixture, error) {
	if err := os.MkdirAll(filepath.Join(dir, ".uwf", "workflows"), 0o755); err != nil {
		return nil, err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Bench"},
		{"config", "user.email", "bench@example.invalid"},
		{"config", "gc.auto", "0"},
		{"commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if _, err := git(dir, nil, args...); err != nil {
			return nil, err
		}
	}
	wfPath := filepath.Join(dir, ".uwf", "workflows", "loop.yaml")
	script := filepath.Join(dir, ".uwf", "loop.mock.yaml")
	if err := os.WriteFile(wfPath, []byte(loopWorkflow), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(script, []byte(mockScript), 0o644); err != nil {
		return nil, err
	}
	repo, err := chain.Open(ctx, dir, chain.Options{})
	if err != nil {
		return nil, err
	}
	w, err := moderator.LoadFile(wfPath)
	if err != nil {
		return nil, err
	}
	wf, _, err := repo.RegisterWorkflow(ctx, w)
	if err != nil {
		return nil, err
	}
	f := &fixture{dir: dir, repo: repo, wf: wf, script: script}
	s := repo.Store
	if f.meta, err = s.MetaSchema(); err != nil {
		return nil, err
	}
	if f.text, err = s.TextSchema(); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		title string
		ref   *objects.Ref
	}{{"uwf.StartNode", &f.start}, {"uwf.StepNode", &f.step}} {
		a, err := repo.Schema(p.title)
		if err != nil {
			return nil, err
		}
		n, err := s.Get(a)
		if err != nil {
			return nil, err
		}
		*p.ref = objects.Ref{Alias: a, OID: n.OID}
	}
	rn, err := s.Get(wf.RoleSchemas["worker"])
	if err != nil {
		return nil, err
	}
	f.role = objects.Ref{Alias: rn.Alias, OID: rn.OID}
	return f, nil
}

// importer writes threads through one `git fast-import` process.
type importer struct {
	f    *fixture
	cmd  *exec.Cmd
	w    *bufio.Writer
	in   io.WriteCloser
	mark int
	when int64
	// answers reads what fast-import answers to get-mark (its
	// --cat-blob-fd); err is the first failure to ask or read.
	answers *bufio.Reader
	answerR *os.File // the read end of the pipe answers reads
	err     error
}

func (f *fixture) importer() (*importer, error) {
	cmd := exec.Command("git", "fast-import", "--quiet", "--force", "--cat-blob-fd=3")
	cmd.Dir = f.dir
	// fast-import sets up zlib for every object it stores; with glibc's
	// default trim threshold, the ~256 KiB zlib allocates goes back to the
	// kernel each time, and brk, TLB flushes and page faults took ~93 % of
	// its CPU (perf; a 10,000-thread import took 53 s of CPU, 3.6 s with
	// this). Other C libraries ignore the variable.
	cmd.Env = append(os.Environ(), "MALLOC_TRIM_THRESHOLD_=268435456")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	ar, aw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{aw} // fd 3
	if err := cmd.Start(); err != nil {
		ar.Close()
		aw.Close()
		return nil, err
	}
	aw.Close()
	return &importer{f: f, cmd: cmd, in: in, w: bufio.NewWriterSize(in, 1<<20), when: time.Now().Unix() - 86400,
		answers: bufio.NewReader(ar), answerR: ar}, nil
}

func (im *importer) close() error {
	defer im.answerR.Close()
	if err := im.w.Flush(); err != nil {
		return err
	}
	im.in.Close()
	if err := im.cmd.Wait(); err != nil {
		return err
	}
	return im.err
}

// oidOf returns the oid fast-import gave the object of mark ("" after a
// failure, which close reports).
func (im *importer) oidOf(mark int) string {
	if im.err != nil {
		return ""
	}
	fmt.Fprintf(im.w, "get-mark :%d\n", mark)
	if im.err = im.w.Flush(); im.err != nil {
		return ""
	}
	line, err := im.answers.ReadString('\n')
	if err != nil || len(line) != 41 {
		im.err = fmt.Errorf("get-mark :%d: answer %q: %v", mark, line, err)
		return ""
	}
	return line[:40]
}

// blob emits a blob and returns its mark.
func (im *importer) blob(data []byte) string {
	im.mark++
	fmt.Fprintf(im.w, "blob\nmark :%d\ndata %d\n", im.mark, len(data))
	im.w.Write(data)
	im.w.WriteByte('\n')
	return fmt.Sprintf(":%d", im.mark)
}

type genNode struct {
	alias objects.Alias
	data  []byte
}

func node(typ objects.Alias, payload any) genNode {
	b, err := objects.EncodeNode(typ, payload)
	if err != nil {
		panic(err)
	}
	return genNode{objects.AliasOf(b), b}
}

// mix emits n threads in the mix the listing fixtures use: a third just
// started, a third with one step that routes again, a third with one step
// that is done.
func (im *importer) mix(n int) {
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			im.thread(i, 0, "")
		case 1:
			im.thread(i, 1, "again")
		default:
			im.thread(i, 1, "done")
		}
	}
}

// thread emits a thread with n steps; the last step says last ("again" or
// "done"). It returns the thread id and the commit mark of its head.
func (im *importer) thread(i, n int, last string) chain.ThreadID {
	f := im.f
	im.when++
	id := chain.NewThreadID(time.Unix(im.when, int64(i)))
	start := node(f.start.Alias, chain.StartNode{Workflow: f.wf.Alias, Prompt: fmt.Sprintf("Task %d: do nothing.", i), Cwd: f.dir})
	startMark := im.blob(start.data)
	taskMark := im.blob([]byte(fmt.Sprintf("Task %d: do nothing.\n", i)))
	ident := fmt.Sprintf("Bench <bench@example.invalid> %d +0000", im.when)
	ref := id.Ref()
	commit := func(msg string, files map[string]string) {
		im.mark++
		fmt.Fprintf(im.w, "commit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n", ref, im.mark, ident, ident, len(msg), msg)
		fmt.Fprintf(im.w, "deleteall\n")
		for path, ref := range files {
			fmt.Fprintf(im.w, "M 100644 %s %s\n", ref, path)
		}
		fmt.Fprintf(im.w, "M 040000 %s workflow\n\n", f.wf.Tree)
	}
	commit(fmt.Sprintf("start: loop — task %d\n\nUwf-Thread: %s\nUwf-Node: %s\n", i, id, start.alias), map[string]string{
		"node": startMark, "start": startMark, "task.md": taskMark,
		"nodes/" + string(start.alias):   startMark,
		"nodes/" + string(f.start.Alias): f.start.OID.String(),
		"nodes/" + string(f.meta.Alias):  f.meta.OID.String(),
	})
	// Step commits name their start commit and their routing, as
	// AppendStep writes them (chain.StartTrailer, chain.NextTrailer); the
	// start has no branch.
	var startCommit string
	if n > 0 {
		startCommit = im.oidOf(im.mark)
	}
	var prev *objects.Alias
	for k := 0; k < n; k++ {
		status := "again"
		if k == n-1 {
			status = last
		}
		summary := fmt.Sprintf("step %d of thread %d", k, i)
		body := fmt.Sprintf("Nothing to do for step %d of thread %d.\n\nThis line pads the deliverable a little.", k, i)
		out := node(f.role.Alias, map[string]any{"$status": status, "summary": summary})
		bodyNode := node(f.text.Alias, body)
		ms := int64(im.when)*1000 + int64(k)
		sn := chain.StepNode{Start: start.alias, Prev: prev, Role: "worker", Output: out.alias, Body: bodyNode.alias,
			Agent: "mock", EdgePrompt: "Do nothing.", StartedAtMs: ms, CompletedAtMs: ms + 5, Cwd: f.dir, Extraction: "frontmatter", Attempts: 1}
		step := node(f.step.Alias, sn)
		stepMark, outMark, bodyMark := im.blob(step.data), im.blob(out.data), im.blob(bodyNode.data)
		mdMark := im.blob([]byte(body))
		yamlMark := im.blob([]byte(fmt.Sprintf("$status: %s\nsummary: %s\n", status, summary)))
		// loopWorkflow routes "again" back to the worker and "done" to
		// the end, which the step's chain.NextTrailer says.
		next := "role worker"
		if status == "done" {
			next = "finish"
		}
		commit(fmt.Sprintf("worker: %s — %s\n\n%s\n\nUwf-Thread: %s\nUwf-Role: worker\nUwf-Status: %s\nUwf-Agent: mock\nUwf-Node: %s\n%s: %s\n%s: %s\n",
			status, summary, body, id, status, step.alias, chain.NextTrailer, next, chain.StartTrailer, startCommit), map[string]string{
			"node": stepMark, "start": startMark, "output.md": mdMark, "output.yaml": yamlMark,
			"nodes/" + string(step.alias):     stepMark,
			"nodes/" + string(out.alias):      outMark,
			"nodes/" + string(bodyNode.alias): bodyMark,
			"nodes/" + string(f.step.Alias):   f.step.OID.String(),
			"nodes/" + string(f.role.Alias):   f.role.OID.String(),
			"nodes/" + string(f.text.Alias):   f.text.OID.String(),
			"nodes/" + string(f.meta.Alias):   f.meta.OID.String(),
		})
		a := step.alias
		prev = &a
	}
	return id
}

// textNodes emits one commit on ref holding n distinct text nodes under
// nodes/, in trees of at most 1,000 entries.
func (im *importer) textNodes(ref string, n int) {
	f := im.f
	var lines []string
	for i := 0; i < n; i++ {
		nd := node(f.text.Alias, fmt.Sprintf("node %d", i))
		mark := im.blob(nd.data)
		lines = append(lines, fmt.Sprintf("M 100644 %s nodes/%03d/%s\n", mark, i/1000, nd.alias))
	}
	im.mark++
	ident := fmt.Sprintf("Bench <bench@example.invalid> %d +0000", im.when)
	msg := fmt.Sprintf("%d text nodes\n", n)
	fmt.Fprintf(im.w, "commit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n", ref, im.mark, ident, ident, len(msg), msg)
	fmt.Fprintf(im.w, "M 100644 %s nodes/%s\n", f.text.OID, f.text.Alias)
	fmt.Fprintf(im.w, "M 100644 %s nodes/%s\n", f.meta.OID, f.meta.Alias)
	for _, l := range lines {
		im.w.WriteString(l)
	}
	im.w.WriteString("\n")
}

// startThreads starts n threads through the library (for measured steps).
func (f *fixture) startThreads(ctx context.Context, n int) ([]chain.ThreadID, error) {
	var ids []chain.ThreadID
	for i := 0; i < n; i++ {
		// The top of the work tree, recorded as `git uwf thread start`
		// records it there, so that a clone (the worker figures) runs the
		// thread in its own work tree.
		t, err := f.repo.StartThread(ctx, f.wf, fmt.Sprintf("Measured task %d: do nothing.", i), workdir.Top)
		if err != nil {
			return nil, err
		}
		ids = append(ids, t.ID)
	}
	return ids, nil
}
