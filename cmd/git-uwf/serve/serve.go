// Package serve implements `git uwf serve`: the read-only web viewer of
// the repository's threads (package web) on a local address. It is linked
// into the program git-uwf-serve only; git-uwf's serve command
// (package serveexec) runs that program.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/serveexec"
	"github.com/git-uwf/git-uwf/web"
)

// DefaultAddr is where the viewer listens unless --addr says otherwise:
// loopback only.
const DefaultAddr = serveexec.DefaultAddr

// Options are the inputs of `serve`.
type Options struct {
	Addr string
	Open bool
	// Ready, when set, is called with the viewer's URL once it listens.
	Ready func(url string)
}

// NewCmdServe returns the `serve` command that serves, as git-uwf-serve
// runs it: the definition git-uwf shows (serveexec.Command) with an action.
func NewCmdServe(f *cmdutil.Factory) *cli.Command {
	cmd := serveexec.Command()
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return cmdutil.FlagErrorf("serve takes no arguments")
		}
		return Run(c.Context, f, Options{Addr: c.String("addr"), Open: c.Bool("open")})
	}
	return cmd
}

// Run serves the viewer until ctx ends.
func Run(ctx context.Context, f *cmdutil.Factory, opts Options) error {
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return cmdutil.FlagErrorf("--addr %q: %v (want HOST:PORT, e.g. %s)", opts.Addr, err, DefaultAddr)
	}
	wopts, loopback := hostOptions(host)
	wopts.Now = f.Now
	repo, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	srv, err := web.New(repo, wopts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(f.IO.ErrOut, "git uwf serve: viewing %s at %s (read-only; Ctrl-C stops)\n", repo.Info.CommonDir, url)
	switch {
	case wopts.AnyHost:
		fmt.Fprintf(f.IO.ErrOut, "warning: %s listens on every interface: anyone who can reach it can read every thread, "+
			"and any Host header is accepted (no DNS-rebinding protection); bind a specific address to keep it\n", ln.Addr())
	case !loopback:
		fmt.Fprintf(f.IO.ErrOut, "warning: %s is not a loopback address: anyone who can reach it can read every thread "+
			"(requests must name %s as their host)\n", host, host)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	if opts.Ready != nil {
		opts.Ready(url)
	}
	if opts.Open {
		if f.OpenBrowser == nil {
			fmt.Fprintf(f.IO.ErrOut, "no way to open a browser here: open %s yourself\n", url)
		} else if err := f.OpenBrowser(url); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "could not open a browser (%v): open %s yourself\n", err, url)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// hostOptions returns the Host header policy for a viewer listening on
// host, and whether host is loopback. A loopback host needs nothing more
// (web accepts loopback names); a specific other host is accepted by name
// only, so a page elsewhere cannot reach the viewer through DNS
// rebinding; only an unspecified address (empty, 0.0.0.0, ::), which may
// be reached under any of the machine's names, accepts any Host.
func hostOptions(host string) (opts web.Options, loopback bool) {
	ip := net.ParseIP(host)
	switch {
	case strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback():
		return opts, true
	case host == "" || ip != nil && ip.IsUnspecified():
		opts.AnyHost = true
	default:
		opts.AllowedHosts = []string{host}
	}
	return opts, false
}
