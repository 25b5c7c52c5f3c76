package serve_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdtest"
	"github.com/git-uwf/git-uwf/web"
)

// findBrowser returns Debian's chromium (or another Chrome) or skips the
// test: the only reason a browser test may not run.
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: install it (apt-get install chromium) to run the browser tests")
	return ""
}

// newBrowser starts a headless chromium with a fresh profile.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	profile := browserProfile(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(findBrowser(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	// chromedp starts chromium with a parent-death signal, which Linux
	// sends when the thread that started it ends, not the process. The
	// commands these tests run in process end threads (an agent is run
	// from a goroutine that ends locked to its thread), and one of them
	// could be the thread chromium was started from. So chromium is
	// started from a goroutine locked to its thread until the browser is
	// closed; the thread then goes back to the runtime.
	started, closed := make(chan error, 1), make(chan struct{})
	go func() {
		goruntime.LockOSThread()
		started <- chromedp.Run(ctx)
		<-closed
		goruntime.UnlockOSThread()
	}()
	t.Cleanup(func() { close(closed) }) // after the browser is gone: cleanups run last-in first-out
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := <-started; err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// browserProfile makes a directory for chromium's profile and removes it
// once the test is over. chromium's helper processes can still write into
// it for a moment after the browser is closed, which made t.TempDir's
// removal fail ("directory not empty"), so the removal is retried for a
// few seconds.
func browserProfile(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "uwf-browser-profile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // registered first, so it runs after the browser is closed
		var err error
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if err = os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Errorf("remove the browser profile: %v", err)
		}
	})
	return dir
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// TestBrowser opens the viewer in a real headless chromium as a new user
// would: the list, a thread, a step, a live step, and checks that agent
// markup is inert and writes are refused.
func TestBrowser(t *testing.T) {
	f := newFixture(t)
	// The server first: cleanups run last-in first-out, so the browser
	// closes its event stream before the server waits for it.
	ts := newServer(t, f.dir, web.Options{Poll: 100 * time.Millisecond})
	ctx := newBrowser(t)
	write(t, filepath.Join(f.dir, "slow.sh"), "cat > /dev/null\necho 'live line one' >&2\nsleep 1.5\necho 'live line two' >&2\nsleep 1.5\n"+
		"printf -- '---\\n$status: review_needed\\nsummary: slow work\\n---\\nSlow deliverable.\\n'\n")

	// The list: every thread reachable, filters present.
	var rows int
	var listText string
	must(t, chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible("#threads", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#threads tbody tr").length`, &rows),
		chromedp.Text("#threads", &listText, chromedp.ByQuery),
	))
	if rows != 4 {
		t.Errorf("list shows %d threads, want 4", rows)
	}
	for _, id := range []string{f.looped, f.fork, f.suspended, f.idle} {
		if !strings.Contains(listText, id) {
			t.Errorf("list lacks thread %s", id)
		}
	}

	shot(t, ctx, "list.png")

	// Each row names the branch its thread was started on; the branch
	// filter keeps the one thread started on feature/idle.
	var branches, forkCells []string
	var filtered int
	var filteredText string
	must(t, chromedp.Run(ctx,
		chromedp.Evaluate(`[...document.querySelectorAll("#threads tbody tr")].map(tr => tr.dataset.thread + " " + tr.querySelector("td.branch").textContent)`, &branches),
		chromedp.Evaluate(`[...document.querySelectorAll("#threads tbody tr")].map(tr => tr.dataset.thread + " " + tr.querySelector("td.fork").textContent)`, &forkCells),
		chromedp.SendKeys("#branch-filter", "feature/idle", chromedp.ByQuery),
		chromedp.Submit("#branch-filter", chromedp.ByQuery),
		// Only the page the form loads has the value as an attribute.
		chromedp.WaitVisible(`#branch-filter[value="feature/idle"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#threads tbody tr").length`, &filtered),
		chromedp.Text("#threads", &filteredText, chromedp.ByQuery),
	))
	wantBranches := []string{f.idle + " feature/idle", f.suspended + " main", f.fork + " main", f.looped + " main"}
	if strings.Join(branches, ", ") != strings.Join(wantBranches, ", ") {
		t.Errorf("branch column: %q, want %q", branches, wantBranches)
	}
	// The fork names the thread it was forked from; that thread says it
	// has forks.
	wantForks := []string{f.idle + " –", f.suspended + " –", f.fork + " of " + f.looped, f.looped + " forked"}
	if strings.Join(forkCells, ", ") != strings.Join(wantForks, ", ") {
		t.Errorf("fork column: %q, want %q", forkCells, wantForks)
	}
	if filtered != 1 || !strings.Contains(filteredText, f.idle) {
		t.Errorf("branch filter feature/idle shows %d threads: %q", filtered, filteredText)
	}

	// The suspended thread says so, and where it stopped, and its path
	// ends at $SUSPEND.
	var suspStatus, suspGraph string
	must(t, chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/?status=suspended"),
		chromedp.Click(`a[href="/t/`+f.suspended+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#steps", chromedp.ByQuery),
		chromedp.Text("#thread-status", &suspStatus, chromedp.ByQuery),
		chromedp.Text("#graph", &suspGraph, chromedp.ByQuery),
	))
	if suspStatus != "suspended" || !strings.Contains(suspGraph, "$SUSPEND") {
		t.Errorf("suspended thread: status %q, graph %q", suspStatus, suspGraph)
	}

	// Click into the looping thread.
	var status, steps, graph, forks string
	must(t, chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible("#threads", chromedp.ByQuery),
		chromedp.Click(`a[href="/t/`+f.looped+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#steps", chromedp.ByQuery),
		chromedp.Text("#thread-status", &status, chromedp.ByQuery),
		chromedp.Text("#steps", &steps, chromedp.ByQuery),
		chromedp.Text("#graph", &graph, chromedp.ByQuery),
		chromedp.Text("#forks", &forks, chromedp.ByQuery),
	))
	if !strings.Contains(forks, f.fork) {
		t.Errorf("fork tree lacks the fork %s: %q", f.fork, forks)
	}
	if status != "completed" {
		t.Errorf("thread status %q, want completed", status)
	}
	for _, want := range []string{"#1 developer", "#2 reviewer", "#4 reviewer", "Deliverable heading", "Looks good."} {
		if !strings.Contains(steps, want) {
			t.Errorf("steps lack %q", want)
		}
	}
	if !strings.Contains(graph, "developer ×2") {
		t.Errorf("graph does not count the loop: %q", graph)
	}

	// Agent markup is inert: nothing ran, no active element survived.
	var inert struct {
		Pwned   bool `json:"pwned"`
		Scripts int  `json:"scripts"`
		Images  int  `json:"images"`
		JSLinks int  `json:"jsLinks"`
		Handler int  `json:"handlers"`
	}
	must(t, chromedp.Run(ctx, chromedp.Evaluate(`({
		pwned: window.pwned !== undefined,
		scripts: document.querySelectorAll("main script").length,
		images: document.querySelectorAll(".deliverable img").length,
		jsLinks: [...document.querySelectorAll("a")].filter(a => a.href.toLowerCase().startsWith("javascript")).length,
		handlers: [...document.querySelectorAll("main *")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
	})`, &inert)))
	if inert.Pwned || inert.Scripts != 0 || inert.Images != 0 || inert.JSLinks != 0 || inert.Handler != 0 {
		t.Errorf("agent markup is active: %+v", inert)
	}
	shot(t, ctx, "thread.png")

	// Click into a step.
	var heading, deliverable, output string
	must(t, chromedp.Run(ctx,
		chromedp.Click(`#step-1 a.step-link`, chromedp.ByQuery),
		chromedp.WaitVisible("#deliverable", chromedp.ByQuery),
		chromedp.Text("h1", &heading, chromedp.ByQuery),
		chromedp.Text("#deliverable h1", &deliverable, chromedp.ByQuery),
		chromedp.Text("#output", &output, chromedp.ByQuery),
	))
	if !strings.HasPrefix(heading, "Step 1: developer") || deliverable != "Deliverable heading" ||
		!strings.Contains(output, "<script>window.pwned='summary'</script>") {
		t.Errorf("step page: heading %q, deliverable %q, output %q", heading, deliverable, output)
	}
	var pwned bool
	must(t, chromedp.Run(ctx, chromedp.Evaluate(`window.pwned !== undefined`, &pwned)))
	if pwned {
		t.Error("agent markup ran on the step page")
	}

	// Writes are refused, from the page too.
	var postStatus int
	must(t, chromedp.Run(ctx, chromedp.Evaluate(`fetch("/", {method: "POST", body: "x"}).then(r => r.status)`, &postStatus, awaitPromise)))
	if postStatus != 405 {
		t.Errorf("POST from the page: status %d, want 405", postStatus)
	}

	// A step runs while the idle thread's page is open: its output arrives
	// live, then the page shows the new step without a reload.
	var before string
	must(t, chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/t/"+f.idle),
		chromedp.WaitVisible("#steps", chromedp.ByQuery),
		chromedp.Text("#step-count", &before, chromedp.ByQuery),
		chromedp.WaitVisible("#live-status", chromedp.ByQuery), // the event stream is open
	))
	if before != "0" {
		t.Fatalf("idle thread shows %s steps", before)
	}
	var marker bool
	must(t, chromedp.Run(ctx, chromedp.Evaluate(`window.notReloaded = true`, &marker)))
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- cmdtest.Run(t, f.dir, time.Time{}, "thread", "step", f.idle, "--agent", "git-uwf agent pipe -- sh "+filepath.Join(f.dir, "slow.sh"))
	}()
	var live, runningStatus string
	must(t, chromedp.Run(ctx,
		chromedp.WaitVisible("#live-log", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("live-log").textContent.includes("live line one")`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Poll(`document.getElementById("thread-status").textContent === "running"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text("#thread-status", &runningStatus, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("live-log").textContent.includes("live line two")`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text("#live-log", &live, chromedp.ByQuery),
	))
	shot(t, ctx, "live.png")
	if !strings.Contains(live, "== developer") {
		t.Errorf("live log lacks the step header: %q", live)
	}
	res := <-done
	if res.Code != 0 {
		t.Fatalf("step failed: %d\n%s", res.Code, res.Err)
	}
	var after string
	must(t, chromedp.Run(ctx,
		chromedp.Poll(`document.getElementById("step-count").textContent === "1"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text("#steps", &after, chromedp.ByQuery),
		chromedp.Evaluate(`window.notReloaded === true`, &marker),
	))
	if !strings.Contains(after, "Slow deliverable.") {
		t.Errorf("new step not shown: %q", after)
	}
	if !marker {
		t.Error("the page reloaded instead of updating in place")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// shot saves a full-page PNG screenshot into the test's artifact directory.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	must(t, chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)))
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
