package main_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/git-uwf/git-uwf/chain/chaintest"
)

// bin is the directory git-uwf and git-uwf-serve are built into, once for
// the package, side by side as make install puts them.
var bin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "git-uwf-serve-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../git-uwf", ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-uwf and git-uwf-serve:", err)
		return 1
	}
	bin = dir
	return m.Run()
}

const loopYAML = `name: loop
roles:
  developer:
    frontmatter:
      type: object
      properties:
        $status: {const: done}
      required: [$status]
graph:
  $START:
    _: {role: developer, prompt: "Implement it."}
  developer:
    done: {role: $END, prompt: "Done."}
`

var (
	threadRE = regexp.MustCompile(`[0-9A-Z]{26}`)
	urlRE    = regexp.MustCompile(`at (http://\S+/) \(read-only`)
)

// TestServeThroughGitUwf: `git uwf serve` runs git-uwf-serve, which serves
// the thread list of the repository git uwf runs in (-C included), and a
// SIGINT or SIGTERM to git-uwf stops the viewer with it, cleanly.
func TestServeThroughGitUwf(t *testing.T) {
	repo := chaintest.InitRepo(t)
	if err := os.WriteFile(filepath.Join(repo, "loop.yaml"), []byte(loopYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	gitUwf(t, repo, "workflow", "put", "loop.yaml")
	id := threadRE.FindString(gitUwf(t, repo, "thread", "start", "loop", "-p", "A task for the viewer"))
	if id == "" {
		t.Fatal("thread start printed no thread id")
	}
	elsewhere := t.TempDir()
	tests := []struct {
		name string
		dir  string
		args []string
		sig  syscall.Signal
		// group sends the signal to git-uwf's process group, as a Ctrl-C
		// at a terminal does, rather than to git-uwf alone.
		group bool
	}{
		{"in the repository, SIGTERM", repo, []string{"serve", "--addr", "127.0.0.1:0"}, syscall.SIGTERM, false},
		{"-C, SIGINT", elsewhere, []string{"-C", repo, "serve", "--addr=127.0.0.1:0"}, syscall.SIGINT, false},
		{"Ctrl-C at a terminal", repo, []string{"serve", "--addr", "127.0.0.1:0"}, syscall.SIGINT, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, "git-uwf"), tt.args...)
			cmd.Dir = tt.dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: tt.group}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			url, rest := awaitURL(t, stderr)
			res, err := http.Get(url)
			if err != nil {
				t.Fatalf("GET %s: %v", url, err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(body), id) {
				t.Errorf("GET %s: %d, thread %s listed: %v", url, res.StatusCode, id, strings.Contains(string(body), id))
			}
			pid := cmd.Process.Pid
			if tt.group {
				pid = -pid
			}
			if err := syscall.Kill(pid, tt.sig); err != nil {
				t.Fatal(err)
			}
			more, _ := io.ReadAll(rest)
			if err := cmd.Wait(); err != nil {
				t.Errorf("git uwf serve after %v: %v, want exit 0\nstderr: %s", tt.sig, err, more)
			}
			// git-uwf waits for the viewer: once it has exited, nothing
			// listens any more.
			if res, err := http.Get(url); err == nil {
				res.Body.Close()
				t.Errorf("%s still answers after git-uwf exited: the viewer was left running", url)
			}
		})
	}
}

// awaitURL reads the viewer's start-up line from its stderr and returns the
// URL it serves at and the rest of the stream.
func awaitURL(t *testing.T, stderr io.Reader) (string, io.Reader) {
	t.Helper()
	r := bufio.NewReader(stderr)
	var seen bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		seen.WriteString(line)
		if m := urlRE.FindStringSubmatch(line); m != nil {
			return m[1], r
		}
		if err != nil {
			t.Fatalf("the viewer did not start: %v\nstderr: %s", err, seen.String())
		}
	}
}

// TestHelpAndErrorsThroughGitUwf: git-uwf passes the arguments as given,
// so help and usage errors are git-uwf-serve's, exit codes included.
func TestHelpAndErrorsThroughGitUwf(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string // in the combined output
	}{
		{[]string{"serve", "--help"}, 0, "--addr HOST:PORT"},
		{[]string{"-h", "serve"}, 0, "--open"},
		{[]string{"serve", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"serve", "extra"}, 2, "serve takes no arguments"},
		{[]string{"serve", "--addr", "nonsense"}, 2, `--addr "nonsense"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, code := runBin(t, dir, os.Environ(), filepath.Join(bin, "git-uwf"), tt.args...)
			if code != tt.code || !strings.Contains(got, tt.want) {
				t.Errorf("exit %d, want %d with %q in:\n%s", code, tt.code, tt.want, got)
			}
			// The same as running the viewer itself.
			direct, dcode := runBin(t, dir, os.Environ(), filepath.Join(bin, "git-uwf-serve"), withoutServe(tt.args)...)
			if direct != got || dcode != code {
				t.Errorf("git-uwf-serve: exit %d with\n%s\nbut through git-uwf: exit %d with\n%s", dcode, direct, code, got)
			}
		})
	}
}

// withoutServe returns args without the command name serve.
func withoutServe(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "serve" {
			out = append(out, a)
		}
	}
	return out
}

// TestMissingViewer: without git-uwf-serve next to git-uwf or on PATH,
// git uwf serve fails and says how to install it; a git-uwf reached
// through a symbolic link finds the viewer next to the link's target.
func TestMissingViewer(t *testing.T) {
	lonely := t.TempDir()
	copyFile(t, filepath.Join(bin, "git-uwf"), filepath.Join(lonely, "git-uwf"))
	linked := filepath.Join(t.TempDir(), "git-uwf")
	if err := os.Symlink(filepath.Join(bin, "git-uwf"), linked); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+t.TempDir())

	got, code := runBin(t, t.TempDir(), env, filepath.Join(lonely, "git-uwf"), "serve", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(got, "git-uwf-serve") || !strings.Contains(got, "make install") {
		t.Errorf("git uwf serve without the viewer: exit %d, output:\n%s\nwant a failure that says how to install git-uwf-serve", code, got)
	}
	got, code = runBin(t, t.TempDir(), env, linked, "serve", "--help")
	if code != 0 || !strings.Contains(got, "--addr HOST:PORT") {
		t.Errorf("git uwf serve --help through a link: exit %d, output:\n%s", code, got)
	}
}

func gitUwf(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code := runBin(t, dir, os.Environ(), filepath.Join(bin, "git-uwf"), args...)
	if code != 0 {
		t.Fatalf("git uwf %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// runBin runs a program and returns its combined output and exit code.
func runBin(t *testing.T, dir string, env []string, prog string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := errors.AsType[*exec.ExitError](err); !ok {
			t.Fatalf("%s: %v", prog, err)
		}
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
