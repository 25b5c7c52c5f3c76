package uwfsync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// ErrNoRemote means no remote was named and uwf.remote is not configured.
var ErrNoRemote = errors.New("no remote given")

// Config keys and values that SetupRemote writes.
const (
	// DefaultRemoteKey names the remote git uwf push/fetch/sync use when
	// none is given.
	DefaultRemoteKey = "uwf.remote"
	// pushRefspec makes plain git push send refs/uwf/*, never forced.
	pushRefspec = "refs/uwf/*:refs/uwf/*"
	// headRefspec keeps plain git push pushing the current branch once
	// remote.<r>.push is set (git then pushes only the configured refspecs).
	headRefspec = "HEAD"
	// headMarker records that SetupRemote added headRefspec, so --remove
	// takes away only what setup added.
	headMarker = "uwfpushhead"
)

// fetchRefspec maps the remote's refs/uwf/* into its remote-tracking
// namespace. The "+" is safe there: that namespace mirrors the remote and
// holds no local work; local refs only move through Reconcile.
func fetchRefspec(remote string) string {
	return "+" + chain.RefPrefix + "*:" + trackingPrefix(remote) + "*"
}

// trackingPrefix is where a remote's refs/uwf/* are mirrored.
func trackingPrefix(remote string) string { return "refs/remotes/" + remote + "/uwf/" }

// CheckRemote verifies that remote names a configured git remote (not a URL
// or path): git uwf only talks to remotes the user set up.
func CheckRemote(ctx context.Context, repo *chain.Repo, remote string) error {
	if remote == "" || strings.HasPrefix(remote, "-") {
		return fmt.Errorf("invalid remote name %q", remote)
	}
	// Only a name the in-process check rejects costs a git process.
	if name := trackingPrefix(remote) + "x"; !gitrepo.ValidRefName(name) {
		if _, err := repo.Git.Output(ctx, "check-ref-format", name); err != nil {
			return fmt.Errorf("invalid remote name %q: git uwf only talks to a configured remote (git remote add <name> <url>)", remote)
		}
	}
	url, err := configGet(ctx, repo.Git, "remote."+remote+".url")
	if err != nil {
		return err
	}
	if url == "" {
		return fmt.Errorf("remote %q is not configured in %s: add it with git remote add %s <url>", remote, repo.Info.CommonDir, remote)
	}
	return nil
}

// DefaultRemote returns the configured default remote (uwf.remote), or an
// error wrapping ErrNoRemote.
func DefaultRemote(ctx context.Context, repo *chain.Repo) (string, error) {
	r, err := configGet(ctx, repo.Git, DefaultRemoteKey)
	if err != nil {
		return "", err
	}
	if r == "" {
		return "", fmt.Errorf("%w: %s is not set", ErrNoRemote, DefaultRemoteKey)
	}
	return r, nil
}

// SetupResult lists the configuration SetupRemote or RemoveRemote changed.
type SetupResult struct {
	Remote string `json:"remote"`
	// Added and Removed are "key value" lines of git config.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Default is uwf.remote afterwards ("" when unset).
	Default string `json:"default"`
}

// SetupRemote configures remote so that plain git fetch and git push carry
// git-uwf data, and makes it the default remote of git uwf push/fetch/sync
// when no default is set yet. It is idempotent:
//
//   - remote.<r>.fetch += +refs/uwf/*:refs/remotes/<r>/uwf/* — plain git
//     fetch mirrors the remote's threads into the remote-tracking namespace;
//     [Adopt] (or git uwf sync) brings them into refs/uwf/*.
//   - remote.<r>.push += refs/uwf/*:refs/uwf/* (never forced) — and, when the
//     remote had no push refspec yet, remote.<r>.push += HEAD first: once a
//     remote has push refspecs, a plain git push sends only those, so HEAD
//     keeps it pushing the current branch (to the branch of the same name).
//   - uwf.remote = <r> when unset.
func SetupRemote(ctx context.Context, repo *chain.Repo, remote string) (*SetupResult, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	g := repo.Git
	res := &SetupResult{Remote: remote}
	add := func(key, value string) error {
		if _, err := g.Run(ctx, nil, "config", "--add", key, value); err != nil {
			return fmt.Errorf("set up remote %s: %w", remote, err)
		}
		res.Added = append(res.Added, key+" "+value)
		return nil
	}
	fetchKey, pushKey := "remote."+remote+".fetch", "remote."+remote+".push"
	fetches, err := configGetAll(ctx, g, fetchKey)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(fetches, fetchRefspec(remote)) {
		if err := add(fetchKey, fetchRefspec(remote)); err != nil {
			return nil, err
		}
	}
	pushes, err := configGetAll(ctx, g, pushKey)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(pushes, pushRefspec) {
		if len(pushes) == 0 {
			if err := add(pushKey, headRefspec); err != nil {
				return nil, err
			}
			if _, err := g.Run(ctx, nil, "config", "remote."+remote+"."+headMarker, "true"); err != nil {
				return nil, fmt.Errorf("set up remote %s: %w", remote, err)
			}
		}
		if err := add(pushKey, pushRefspec); err != nil {
			return nil, err
		}
	}
	def, err := configGet(ctx, g, DefaultRemoteKey)
	if err != nil {
		return nil, err
	}
	if def == "" {
		if _, err := g.Run(ctx, nil, "config", DefaultRemoteKey, remote); err != nil {
			return nil, fmt.Errorf("set default remote: %w", err)
		}
		res.Added = append(res.Added, DefaultRemoteKey+" "+remote)
		def = remote
	}
	res.Default = def
	return res, nil
}

// RemoveRemote undoes SetupRemote: it removes exactly the values setup adds
// (HEAD only if setup added it) and unsets uwf.remote if it names remote.
// The remote-tracking refs refs/remotes/<r>/uwf/* are left as they are.
func RemoveRemote(ctx context.Context, repo *chain.Repo, remote string) (*SetupResult, error) {
	if err := CheckRemote(ctx, repo, remote); err != nil {
		return nil, err
	}
	g := repo.Git
	res := &SetupResult{Remote: remote}
	unset := func(key, value string) error {
		values, err := configGetAll(ctx, g, key)
		if err != nil {
			return err
		}
		if !slices.Contains(values, value) {
			return nil
		}
		if _, err := g.Run(ctx, nil, "config", "--fixed-value", "--unset-all", key, value); err != nil {
			return fmt.Errorf("remove setup of remote %s: %w", remote, err)
		}
		res.Removed = append(res.Removed, key+" "+value)
		return nil
	}
	fetchKey, pushKey := "remote."+remote+".fetch", "remote."+remote+".push"
	if err := unset(fetchKey, fetchRefspec(remote)); err != nil {
		return nil, err
	}
	if err := unset(pushKey, pushRefspec); err != nil {
		return nil, err
	}
	markerKey := "remote." + remote + "." + headMarker
	marker, err := configGet(ctx, g, markerKey)
	if err != nil {
		return nil, err
	}
	if marker == "true" {
		if err := unset(pushKey, headRefspec); err != nil {
			return nil, err
		}
		if _, err := g.Run(ctx, nil, "config", "--unset-all", markerKey); err != nil {
			return nil, fmt.Errorf("remove setup of remote %s: %w", remote, err)
		}
	}
	def, err := configGet(ctx, g, DefaultRemoteKey)
	if err != nil {
		return nil, err
	}
	if def == remote {
		if _, err := g.Run(ctx, nil, "config", "--unset-all", DefaultRemoteKey); err != nil {
			return nil, fmt.Errorf("unset default remote: %w", err)
		}
		res.Removed = append(res.Removed, DefaultRemoteKey+" "+remote)
		def = ""
	}
	res.Default = def
	return res, nil
}

// SetUpRemotes lists the remotes whose fetch refspecs include the one
// SetupRemote adds, sorted by name.
func SetUpRemotes(ctx context.Context, repo *chain.Repo) ([]string, error) {
	out, err := repo.Git.Run(ctx, nil, "config", "--get-regexp", `^remote\..*\.fetch$`)
	if err != nil {
		if exitCode(err) == 1 {
			return nil, nil
		}
		return nil, fmt.Errorf("read remote configuration: %w", err)
	}
	var remotes []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		key, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".fetch")
		if value == fetchRefspec(name) && !slices.Contains(remotes, name) {
			remotes = append(remotes, name)
		}
	}
	slices.Sort(remotes)
	return remotes, nil
}

// configGet reads one config value; "" when unset.
func configGet(ctx context.Context, g *gitrepo.Runner, key string) (string, error) {
	out, err := g.Output(ctx, "config", "--get", key)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", fmt.Errorf("read config %s: %w", key, err)
	}
	return out, nil
}

// configGetAll reads every value of a multi-valued key.
func configGetAll(ctx context.Context, g *gitrepo.Runner, key string) ([]string, error) {
	out, err := g.Output(ctx, "config", "--get-all", key)
	if err != nil {
		if exitCode(err) == 1 {
			return nil, nil
		}
		return nil, fmt.Errorf("read config %s: %w", key, err)
	}
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

func exitCode(err error) int {
	var ge *gitrepo.GitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}
