package cmdutil

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/uwfsync"
)

// Factory gives commands their dependencies. Fields are plain values or
// functions, so a test builds one by hand and a command only builds what it
// uses; expensive dependencies (a repository, the configuration) are added as
// func fields that construct them on first call.
//
// Commands must resolve relative paths against Getwd, never os.Getwd: the
// global -C flag replaces Getwd for the whole run.
type Factory struct {
	IO *iostreams.IOStreams

	// Getwd returns the directory commands work in (honours -C).
	Getwd func() (string, error)
	// Getenv and Environ read the environment.
	Getenv  func(string) string
	Environ func() []string
	// Now is the clock.
	Now func() time.Time
	// Executable returns the path of the running git-uwf binary.
	Executable func() (string, error)
	// Supervisor, when set, returns the program that supervises spawned
	// agents (agentkit.Invocation.Supervisor): git-uwf-agent-supervisor
	// beside git-uwf, else the git-uwf binary, which supervises from an
	// init function when started as a supervisor. Only the real main sets
	// it; a test binary must never be started as a supervisor.
	Supervisor func() (string, error)
	// OpenBrowser opens a URL in the user's browser (`serve --open`).
	OpenBrowser func(url string) error
	// Repo opens the repository around Getwd (once per run).
	Repo func(ctx context.Context) (*chain.Repo, error)
	// RunCommand runs a git-uwf command line (args[0] is the program name)
	// inside this process with the dependencies of cf, as the same command
	// line run as a new git-uwf process would, and returns its exit code.
	// It is nil when this program cannot; the root command sets it.
	RunCommand func(ctx context.Context, cf *Factory, args []string) int
}

// NewFactory returns a Factory wired to the real process: ios, the working
// directory, the environment, the clock, the executable path and the
// desktop's browser.
func NewFactory(ios *iostreams.IOStreams) *Factory {
	f := &Factory{
		IO:          ios,
		Getwd:       os.Getwd,
		Getenv:      os.Getenv,
		Environ:     os.Environ,
		Now:         time.Now,
		Executable:  os.Executable,
		OpenBrowser: OpenInBrowser,
	}
	f.Repo = OpenRepoOnce(f)
	return f
}

// OpenRepoOnce returns a Repo function that opens the repository around
// f.Getwd on first use (so -C applies) and returns the same one afterwards.
func OpenRepoOnce(f *Factory) func(ctx context.Context) (*chain.Repo, error) {
	var (
		once sync.Once
		repo *chain.Repo
		err  error
	)
	return func(ctx context.Context) (*chain.Repo, error) {
		once.Do(func() {
			if repo, err = OpenRepoWithoutAdopt(ctx, f); err != nil {
				return
			}
			// After a plain `git fetch` from a remote set up with
			// `git uwf remote setup`, new threads and fast-forwards are
			// taken over so every command sees them. Divergence is left to
			// `git uwf sync`. A failure here only delays that. Only the
			// remote-tracking refs that moved since they were last
			// reconciled are looked at, and a clone with nothing fetched
			// to take over costs a look at its ref files, no git process.
			if _, aerr := uwfsync.AdoptFetched(ctx, repo); aerr != nil && f.IO != nil {
				fmt.Fprintf(f.IO.ErrOut, "warning: taking over fetched threads: %v\n", aerr)
			}
		})
		return repo, err
	}
}

// OpenRepoWithoutAdopt opens the repository around f.Getwd without taking
// over fetched threads. fetch and sync use it: they reconcile themselves and
// must report every ref they change.
func OpenRepoWithoutAdopt(ctx context.Context, f *Factory) (*chain.Repo, error) {
	dir, err := f.Getwd()
	if err != nil {
		return nil, err
	}
	return chain.Open(ctx, dir, chain.Options{Now: f.Now})
}
