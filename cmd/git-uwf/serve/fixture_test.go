package serve_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
)

const loopYAML = `name: loop
roles:
  developer:
    frontmatter:
      type: object
      properties:
        $status: {const: review_needed}
        summary: {type: string}
      required: [$status, summary]
  reviewer:
    frontmatter:
      type: object
      properties:
        $status: {enum: [approved, rejected, unsure]}
        comments: {type: string}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement it."}
  developer:
    review_needed: {role: reviewer, prompt: "Review: {{summary}}"}
  reviewer:
    rejected: {role: developer, prompt: "Fix: {{comments}}"}
    approved: {role: $END, prompt: "Done."}
    unsure: {role: $SUSPEND, prompt: "Ask a person: {{comments}}"}
`

// hostileScript is a mock agent whose deliverable tries every way of
// running code in the viewer's page.
const hostileScript = `steps:
  - role: developer
    output: "---\n$status: review_needed\nsummary: \"<script>window.pwned='summary'</script>\"\n---\n# Deliverable heading\n\n<script>window.pwned='script'</script>\n\n<img src=x onerror=\"window.pwned='img'\">\n\n[click me](javascript:window.pwned='link') and [safe link](https://example.com/)\n"
  - role: reviewer
    output: "---\n$status: rejected\ncomments: tests missing\n---\nPlease add tests."
  - role: developer
    output: "---\n$status: review_needed\nsummary: added tests\n---\nNow with tests."
  - role: reviewer
    output: "---\n$status: approved\n---\nLooks good."
`

// suspendScript is a mock agent whose reviewer cannot decide.
const suspendScript = `steps:
  - role: developer
    output: "---\n$status: review_needed\nsummary: a guess\n---\nA guess."
  - role: reviewer
    output: "---\n$status: unsure\ncomments: which flag name?\n---\nNeeds a person."
`

// fixture is a repository with a completed looping thread (hostile
// deliverable in step 1), a fork of its first step and a thread suspended
// by its reviewer, all started on main, and an idle thread started on
// branch feature/idle.
type fixture struct {
	dir       string
	looped    string // completed after developer, reviewer, developer, reviewer
	fork      string // forked from looped at step 1
	suspended string // suspended after developer, reviewer
	idle      string // started on feature/idle, never stepped
	startedAt time.Time
}

var startedRE = regexp.MustCompile(`([0-9A-Z]{26})`)

func newFixture(t testing.TB) fixture {
	t.Helper()
	dir := chaintest.InitRepo(t)
	write(t, filepath.Join(dir, "loop.yaml"), loopYAML)
	write(t, filepath.Join(dir, "hostile.yaml"), hostileScript)
	write(t, filepath.Join(dir, "suspend.yaml"), suspendScript)
	run := func(args ...string) string { return cmdtest.MustRun(t, dir, time.Time{}, args...) }
	run("workflow", "put", "loop.yaml")
	f := fixture{dir: dir, startedAt: time.Now()}
	f.looped = startedRE.FindStringSubmatch(run("thread", "start", "loop", "-p", "Add a <b>flag</b>"))[1]
	run("thread", "step", f.looped, "--until-done", "--agent", "git-uwf agent mock --script hostile.yaml")
	var steps struct{ Steps []struct{ Hash string } }
	if err := json.Unmarshal([]byte(run("thread", "steps", f.looped, "--format", "json")), &steps); err != nil {
		t.Fatal(err)
	}
	var forked struct{ Thread string }
	if err := json.Unmarshal([]byte(run("thread", "fork", steps.Steps[1].Hash, "--format", "json")), &forked); err != nil {
		t.Fatal(err)
	}
	f.fork = forked.Thread
	f.suspended = startedRE.FindStringSubmatch(run("thread", "start", "loop", "-p", "A task to ask about"))[1]
	run("thread", "step", f.suspended, "--until-done", "--agent", "git-uwf agent mock --script suspend.yaml")
	chaintest.Git(t, dir, "checkout", "-q", "-b", "feature/idle")
	f.idle = startedRE.FindStringSubmatch(run("thread", "start", "loop", "-p", "An idle task"))[1]
	return f
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
