package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loop3 is a workflow whose one role loops until it has run three times:
// the edge prompt carries the count.
const loop3 = `name: loop3
roles:
  worker:
    frontmatter:
      type: object
      properties:
        $status: {enum: [again, done]}
        n: {type: integer}
      required: [$status, n]
graph:
  $START:
    _: {role: worker, prompt: "n=0"}
  worker:
    again: {role: worker, prompt: "n={{n}}"}
    done: {role: $END, prompt: "Done."}
`

// countingAgent reads the count from its prompt, records its own start and
// end times in $TIMES, sleeps $SLEEP seconds and answers with the next
// count.
const countingAgent = `p=$(cat)
n=$(printf '%s' "$p" | sed -n 's/.*n=\([0-9][0-9]*\).*/\1/p' | tail -1)
n=$((n+1))
echo "start $UWF_THREAD $(date +%s.%N)" >> "$TIMES"
sleep ${SLEEP:-0.2}
echo "end $UWF_THREAD $(date +%s.%N)" >> "$TIMES"
st=again; [ $n -ge 3 ] && st=done
printf -- '---\n$status: %s\nn: %d\n---\nstep %d\n' $st $n $n
`

// fleet is a repository with the loop3 workflow and the counting agent.
type fleet struct {
	t     *testing.T
	dir   string
	env   []string
	agent string
	times string
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = uwf test\n\temail = test@uwf.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fl := &fleet{t: t, dir: filepath.Join(root, "repo"), times: filepath.Join(root, "times")}
	fl.env = append(os.Environ(), "PATH="+filepath.Dir(gitUwfBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_GLOBAL="+gitconfig,
		"GIT_CONFIG_NOSYSTEM=1", "TIMES="+fl.times, "NO_COLOR=1")
	script := filepath.Join(root, "agent.sh")
	if err := os.WriteFile(script, []byte(countingAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	fl.agent = "git-uwf agent pipe -- sh " + script
	if err := os.MkdirAll(fl.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loop3.yaml"), []byte(loop3), 0o644); err != nil {
		t.Fatal(err)
	}
	fl.git("init", "-q")
	fl.uwf("workflow", "put", filepath.Join(root, "loop3.yaml"))
	return fl
}

// run runs a command in the repository and returns its output and exit code.
func (fl *fleet) run(extraEnv []string, name string, args ...string) (string, string, int) {
	fl.t.Helper()
	if name == "git-uwf" {
		name = gitUwfBin
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = fl.dir
	cmd.Env = append(append([]string(nil), fl.env...), extraEnv...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fl.t.Fatalf("%s %v: %v", name, args, err)
	}
	return out.String(), errb.String(), code
}

func (fl *fleet) git(args ...string) string {
	fl.t.Helper()
	out, errs, code := fl.run(nil, "git", args...)
	if code != 0 {
		fl.t.Fatalf("git %v: exit %d\n%s", args, code, errs)
	}
	return out
}

func (fl *fleet) uwf(args ...string) string {
	fl.t.Helper()
	out, errs, code := fl.run(nil, "git-uwf", args...)
	if code != 0 {
		fl.t.Fatalf("git uwf %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

var startedRE = regexp.MustCompile(`(?m)^([0-9A-Z]{26})$`) // thread start prints only the id when stdout is not a terminal

func (fl *fleet) start(prompt string) string {
	fl.t.Helper()
	m := startedRE.FindStringSubmatch(fl.uwf("thread", "start", "loop3", "-p", prompt))
	if m == nil {
		fl.t.Fatal("no thread id in the output of thread start")
	}
	return m[1]
}

type threadJSON struct {
	Status string `json:"status"`
	Steps  int    `json:"steps"`
	Branch string `json:"branch"`
}

func (fl *fleet) show(id string) threadJSON {
	fl.t.Helper()
	var th threadJSON
	if err := json.Unmarshal([]byte(fl.uwf("thread", "show", id, "--format", "json")), &th); err != nil {
		fl.t.Fatal(err)
	}
	return th
}

// overlap reads the agents' own start and end times and returns the most
// steps that ran at the same moment.
func overlap(t *testing.T, path string) (most, runs int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type ev struct {
		at    float64
		delta int
	}
	var evs []ev
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			t.Fatalf("bad time line %q", sc.Text())
		}
		at, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		d := 1
		if fs[0] == "end" {
			d = -1
		} else {
			runs++
		}
		evs = append(evs, ev{at, d})
	}
	// At equal times an end comes before a start: they did not overlap.
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].delta < evs[j].delta
	})
	n := 0
	for _, e := range evs {
		n += e.delta
		most = max(most, n)
	}
	return most, runs
}

func TestStepAllUnderWorkflowLimit(t *testing.T) {
	fl := newFleet(t)
	var ids []string
	for i := 0; i < 8; i++ {
		ids = append(ids, fl.start("task "+strconv.Itoa(i)))
	}
	fl.uwf("config", "set", "workflows.loop3.concurrency", "2")
	out := fl.uwf("thread", "step", "--all", "-j", "4", "--until-done", "--agent", fl.agent)
	if !strings.Contains(out, "THREAD") || strings.Count(out, "completed") != 8 {
		t.Errorf("summary table:\n%s", out)
	}
	for _, id := range ids {
		if th := fl.show(id); th.Status != "completed" || th.Steps != 3 {
			t.Errorf("thread %s: %s after %d steps, want completed after 3", id, th.Status, th.Steps)
		}
	}
	most, runs := overlap(t, fl.times)
	if runs != 24 {
		t.Errorf("%d agent runs, want 24", runs)
	}
	if most > 2 || most < 2 {
		t.Errorf("at most %d agents ran at once, want exactly 2 (the limit, reached)", most)
	}
	// Nothing is left to step.
	if out := fl.uwf("thread", "step", "--all"); !strings.Contains(out, "no runnable threads") {
		t.Errorf("second --all: %s", out)
	}
}

func TestWorkflowLimitDrop(t *testing.T) {
	fl := newFleet(t)
	a, b := fl.start("a"), fl.start("b")
	fl.uwf("config", "set", "workflows.loop3.concurrency", "1")
	fl.uwf("config", "set", "workflows.loop3.overflow", "drop")
	done := make(chan int)
	go func() {
		_, _, code := fl.run([]string{"SLEEP=3"}, "git-uwf", "thread", "step", a, "--agent", fl.agent)
		done <- code
	}()
	// Wait until the first step's agent runs.
	waitFor(t, 10*time.Second, func() bool { b, _ := os.ReadFile(fl.times); return len(b) > 0 })
	_, errs, code := fl.run(nil, "git-uwf", "thread", "step", b, "--agent", fl.agent)
	if code != 75 || !strings.Contains(errs, "workflows.loop3.concurrency") {
		t.Errorf("second step: exit %d, %s; want 75 naming the limit", code, errs)
	}
	if code := <-done; code != 0 {
		t.Errorf("first step: exit %d", code)
	}
	if _, errs, code := fl.run(nil, "git-uwf", "config", "set", "workflows.loop3.concurrency", "0"); code == 0 || !strings.Contains(errs, "workflows.loop3.concurrency") {
		t.Errorf("concurrency 0: exit %d, %s", code, errs)
	}
}

func waitFor(t *testing.T, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBackgroundJoinCancel(t *testing.T) {
	fl := newFleet(t)
	id := fl.start("background")
	out := fl.uwf("thread", "step", id, "--background", "--agent", fl.agent)
	if !strings.Contains(out, "log: ") || !strings.Contains(out, id) {
		t.Errorf("--background printed %q", out)
	}
	fl.uwf("thread", "join", id)
	if th := fl.show(id); th.Steps != 1 || th.Status != "idle" {
		t.Errorf("after join: %+v, want idle after 1 step", th)
	}

	// An 8-second agent, cancelled while it runs.
	began := time.Now()
	_, errs, code := fl.run([]string{"SLEEP=8"}, "git-uwf", "thread", "step", id, "--background", "--agent", fl.agent)
	if code != 0 {
		t.Fatalf("--background: exit %d %s", code, errs)
	}
	waitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(fl.times)
		return strings.Count(string(b), "start") == 2
	})
	fl.uwf("thread", "cancel", id)
	if took := time.Since(began); took > 7*time.Second {
		t.Errorf("cancel returned after %s: the agent was not stopped", took)
	}
	if th := fl.show(id); th.Status != "cancelled" || th.Steps != 2 {
		t.Errorf("after cancel: %+v, want cancelled after 1 step and the cancel commit", th)
	}
	_, errs, code = fl.run(nil, "git-uwf", "thread", "join", id)
	if code == 0 || !strings.Contains(errs, "cancelled") {
		t.Errorf("join of the cancelled step: exit %d %s", code, errs)
	}
	if b, _ := os.ReadFile(fl.times); strings.Count(string(b), "end") != 1 {
		t.Errorf("the cancelled agent ran to its end:\n%s", b)
	}
	// join on a thread that never ran in the background says so.
	other := fl.start("other")
	if _, errs, code := fl.run(nil, "git-uwf", "thread", "join", other); code == 0 || !strings.Contains(errs, "not running a background step") {
		t.Errorf("join without a background step: exit %d %s", code, errs)
	}
}

func TestThreadsKnowTheirBranch(t *testing.T) {
	fl := newFleet(t)
	fl.git("commit", "-q", "--allow-empty", "-m", "base")
	onMain := fl.start("on main")
	fl.git("checkout", "-q", "-b", "feature")
	fl.git("commit", "-q", "--allow-empty", "-m", "feature work")
	featureHead := strings.TrimSpace(fl.git("rev-parse", "HEAD"))
	onFeature := fl.start("on feature")

	tests := []struct {
		branch, want, notWant string
	}{
		{"feature", onFeature, onMain},
		{"main", onMain, onFeature},
	}
	for _, tt := range tests {
		fl.git("checkout", "-q", tt.branch)
		out := fl.uwf("thread", "list", "--here")
		if !strings.Contains(out, tt.want) || strings.Contains(out, tt.notWant) {
			t.Errorf("on %s, list --here:\n%s\nwant %s and not %s", tt.branch, out, tt.want, tt.notWant)
		}
	}
	if th := fl.show(onFeature); th.Branch != "feature" {
		t.Errorf("thread show: branch %q, want feature", th.Branch)
	}
	if out := fl.uwf("thread", "show", onFeature); !strings.Contains(out, "branch") || !strings.Contains(out, "feature (at "+featureHead[:12]+")") {
		t.Errorf("thread show does not print the branch:\n%s", out)
	}
	// A step records the code commit it ran on.
	fl.uwf("thread", "step", onMain, "--agent", fl.agent)
	msg := fl.git("log", "-1", "--format=%B", "refs/uwf/threads/"+onMain)
	mainHead := strings.TrimSpace(fl.git("rev-parse", "main"))
	if !strings.Contains(msg, "Uwf-Code: "+mainHead) || strings.Contains(msg, "Uwf-Code-After") {
		t.Errorf("step commit message lacks the code commit %s:\n%s", mainHead, msg)
	}
}

func TestStepAllInterrupt(t *testing.T) {
	fl := newFleet(t)
	a, b := fl.start("a"), fl.start("b")
	cmd := exec.Command(gitUwfBin, "thread", "step", "--all", "-j", "2", "--agent", fl.agent)
	cmd.Dir = fl.dir
	cmd.Env = append(append([]string(nil), fl.env...), "SLEEP=30")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Both agents run, then Ctrl-C.
	waitFor(t, 20*time.Second, func() bool {
		b, _ := os.ReadFile(fl.times)
		return strings.Count(string(b), "start") == 2
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("--all after Ctrl-C: %v, want exit 130\n%s%s", err, out.String(), errb.String())
	}
	if strings.Count(out.String(), "interrupted") != 2 {
		t.Errorf("summary after Ctrl-C:\n%s", out.String())
	}
	if b, _ := os.ReadFile(fl.times); strings.Contains(string(b), "end") {
		t.Errorf("an agent ran to its end after Ctrl-C:\n%s", b)
	}
	// Each interruption is recorded as a failed attempt; no head moved.
	for _, id := range []string{a, b} {
		if th := fl.show(id); th.Steps != 0 || th.Status != "failed" {
			t.Errorf("thread %s after Ctrl-C: %+v, want 0 steps and the interrupted attempt (failed)", id, th)
		}
	}
}

// TestBackgroundStartsAtOnce: of two --background starts of one thread at
// the same moment, one starts the step and the other is refused as busy.
func TestBackgroundStartsAtOnce(t *testing.T) {
	fl := newFleet(t)
	id := fl.start("twice")
	type result struct {
		errs string
		code int
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			_, errs, code := fl.run([]string{"SLEEP=2"}, "git-uwf", "thread", "step", id, "--background", "--agent", fl.agent)
			results <- result{errs, code}
		}()
	}
	var started, busy int
	for range 2 {
		r := <-results
		switch r.code {
		case 0:
			started++
		case 75:
			busy++
			if !strings.Contains(r.errs, "busy") {
				t.Errorf("refused start says %q", r.errs)
			}
		default:
			t.Errorf("--background: exit %d %s", r.code, r.errs)
		}
	}
	fl.uwf("thread", "join", id)
	if started != 1 || busy != 1 {
		t.Errorf("%d started and %d refused as busy, want 1 and 1", started, busy)
	}
	if th := fl.show(id); th.Steps != 1 {
		t.Errorf("after join: %+v, want 1 step", th)
	}

	// The logs hold the agent's unredacted stderr: only the owner reads
	// them. thread remove deletes them and the background records.
	uwf := filepath.Join(fl.dir, ".git", "uwf")
	logs, _ := filepath.Glob(filepath.Join(uwf, "background", id+"-*.log"))
	logs = append(logs, filepath.Join(uwf, "logs", id+".log"))
	for _, p := range logs {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("log %s: %v, want mode 0600 (err %v)", p, fi, err)
		}
	}
	fl.uwf("thread", "remove", id)
	left, _ := filepath.Glob(filepath.Join(uwf, "background", id+"*"))
	if _, err := os.Stat(filepath.Join(uwf, "logs", id+".log")); err == nil {
		left = append(left, "logs/"+id+".log")
	}
	if len(left) > 0 {
		t.Errorf("thread remove left %q", left)
	}
}
