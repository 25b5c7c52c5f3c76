package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// transferFigures measures git uwf fetch and push of many threads the other
// side does not have yet (cfg.transfer of them), each against plain git
// moving the same refs in the same run: fetch into an empty clone against
// `git fetch` of refs/uwf/* into the remote-tracking namespace, push to an
// empty bare remote against `git push --atomic` of refs/uwf/* to its path,
// and again with both remotes set up so that git push writes their
// remote-tracking refs. Every run uses a fresh clone or remote, made
// outside the timing.
func (b *bench) transferFigures(ctx context.Context) error {
	n := b.cfg.transfer
	src := filepath.Join(b.root, "transfer-src")
	logf("transfer: fixture of %d threads", n)
	f, err := newFixture(ctx, src)
	if err != nil {
		return err
	}
	im, err := f.importer()
	if err != nil {
		return err
	}
	im.mix(n)
	if err := im.close(); err != nil {
		return fmt.Errorf("fast-import: %w", err)
	}
	bare := filepath.Join(b.root, "transfer-remote.git")
	if _, err := git(b.root, nil, "init", "-q", "--bare", bare); err != nil {
		return err
	}
	if _, err := git(src, nil, "push", "-q", bare, "refs/uwf/*:refs/uwf/*"); err != nil {
		return err
	}
	refs, err := git(bare, nil, "for-each-ref", "--count=1000000", "--format=x", "refs/uwf/")
	if err != nil {
		return err
	}
	count := strings.Count(refs, "\n") + 1
	// emptyClone makes an empty repository with the remote as origin.
	emptyClone := func(name string) (string, error) {
		dir := filepath.Join(b.root, name)
		if _, err := git(b.root, nil, "init", "-q", "-b", "main", dir); err != nil {
			return "", err
		}
		_, err := git(dir, nil, "remote", "add", "origin", bare)
		return dir, err
	}
	fetch := func(i int) (sample, error) {
		dir, err := emptyClone(fmt.Sprintf("transfer-fetch-uwf-%d", i+1))
		if err != nil {
			return sample{}, err
		}
		return proc(dir, nil, b.bin, "fetch", "origin")
	}
	plain := func(i int) (sample, error) {
		dir, err := emptyClone(fmt.Sprintf("transfer-fetch-git-%d", i+1))
		if err != nil {
			return sample{}, err
		}
		return proc(dir, nil, "git", "fetch", "-q", "--no-tags", "origin", "+refs/uwf/*:refs/remotes/origin/uwf/*")
	}
	v, bv, _, err := b.measure(fetch, plain)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`git uwf fetch` of %d new threads (%d refs) into an empty clone", n, count),
		baseline: "`git fetch` of the same refs", value: v, base: bv, unit: "ms", goal: "≤ 2×"})

	// emptyRemote makes an empty bare repository, known to the source as
	// a remote of its own (so its remote-tracking refs start empty too);
	// with tracking, its fetch refspec maps refs/uwf/* (only that one: the
	// one `git uwf remote setup` adds), so that git push writes the
	// remote-tracking refs.
	emptyRemote := func(name string, tracking bool) (string, error) {
		dir := filepath.Join(b.root, name+".git")
		if _, err := git(b.root, nil, "init", "-q", "--bare", dir); err != nil {
			return "", err
		}
		if _, err := git(src, nil, "remote", "add", name, dir); err != nil {
			return "", err
		}
		if !tracking {
			return dir, nil
		}
		_, err := git(src, nil, "config", "remote."+name+".fetch", "+refs/uwf/*:refs/remotes/"+name+"/uwf/*")
		return dir, err
	}
	// timedPush runs a push to remote name (made by emptyRemote) and then,
	// outside the timing, removes the remote and its remote-tracking refs,
	// so that every push starts from the same refs in the source.
	timedPush := func(name string, tracking bool, bin string, args ...string) (sample, error) {
		if _, err := emptyRemote(name, tracking); err != nil {
			return sample{}, err
		}
		s, err := proc(src, nil, bin, args...)
		if err != nil {
			return s, err
		}
		_, err = git(src, nil, "remote", "remove", name)
		return s, err
	}
	pushes := 0 // each push, in both pairings below, has a remote of its own
	uwfPush := func(tracking bool) func(int) (sample, error) {
		return func(int) (sample, error) {
			pushes++
			name := fmt.Sprintf("push-uwf-%d", pushes)
			return timedPush(name, tracking, b.bin, "push", name)
		}
	}
	plainPush := func(i int) (sample, error) {
		name := fmt.Sprintf("push-git-%d", i+1)
		return timedPush(name, false, "git", "push", "-q", "--atomic", filepath.Join(b.root, name+".git"), "refs/uwf/*:refs/uwf/*")
	}
	v, bv, _, err = b.measure(uwfPush(false), plainPush)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("`git uwf push` of %d new threads (%d refs) to an empty bare remote", n, count),
		baseline: "`git push --atomic` of the same refs", value: v, base: bv, unit: "ms", goal: "≤ 2×"})

	// The same push to remotes with the fetch refspec `git uwf remote
	// setup` adds: git push then writes the remote-tracking refs (for git
	// uwf push without reflogs, and packed after), and the baseline is git
	// push writing the same refs, loose and without reflogs too.
	trackingPush := func(i int) (sample, error) {
		name := fmt.Sprintf("push-git-tracking-%d", i+1)
		return timedPush(name, true, "git", "-c", "core.logAllRefUpdates=false", "push", "-q", "--atomic", name, "refs/uwf/*:refs/uwf/*")
	}
	v, bv, _, err = b.measure(uwfPush(true), trackingPush)
	if err != nil {
		return err
	}
	b.add(row{figure: fmt.Sprintf("info: `git uwf push` of %d new threads (%d refs) to an empty bare remote set up with `git uwf remote setup`'s fetch refspec", n, count),
		baseline: "`git push --atomic` to a remote with the same fetch refspec (git writes the remote-tracking refs, without reflogs)", value: v, base: bv, unit: "ms", goal: "(info)"})
	return nil
}
