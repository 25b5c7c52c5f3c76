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
// empty bare remote against `git push --atomic` of refs/uwf/*, once to its
// path and once to a remote whose remote-tracking refs git writes as git
// uwf push does. Every run uses a fresh clone or remote, made outside the
// timing.
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
	// a remote of its own (so its remote-tracking refs start empty too).
	emptyRemote := func(name string) (string, error) {
		dir := filepath.Join(b.root, name+".git")
		if _, err := git(b.root, nil, "init", "-q", "--bare", dir); err != nil {
			return "", err
		}
		_, err := git(src, nil, "remote", "add", name, dir)
		return dir, err
	}
	pushes := 0 // each push, in both pairings below, has a remote of its own
	push := func(int) (sample, error) {
		pushes++
		name := fmt.Sprintf("push-uwf-%d", pushes)
		if _, err := emptyRemote(name); err != nil {
			return sample{}, err
		}
		return proc(src, nil, b.bin, "push", name)
	}
	plainPush := func(i int) (sample, error) {
		dir, err := emptyRemote(fmt.Sprintf("push-git-%d", i+1))
		if err != nil {
			return sample{}, err
		}
		return proc(src, nil, "git", "push", "-q", "--atomic", dir, "refs/uwf/*:refs/uwf/*")
	}
	// pushRow measures push against base and adds the row.
	pushRow := func(base func(int) (sample, error), figure, baseline, goal string) error {
		v, bv, _, err := b.measure(push, base)
		if err != nil {
			return err
		}
		b.add(row{figure: figure, baseline: baseline, value: v, base: bv, unit: "ms", goal: goal})
		return nil
	}
	if err := pushRow(plainPush, fmt.Sprintf("`git uwf push` of %d new threads (%d refs) to an empty bare remote", n, count),
		"`git push --atomic` of the same refs", "≤ 2×"); err != nil {
		return err
	}

	// git uwf push also records what the remote now holds in
	// remote-tracking refs, without reflogs, and packs them; git push
	// writes the same refs, loose, for a remote whose fetch refspec maps
	// the refs pushed (here without reflogs too). The remote and its refs
	// are removed after each git push, untimed, so that the next git uwf
	// push does not pack them.
	trackingPush := func(i int) (sample, error) {
		name := fmt.Sprintf("push-git-tracking-%d", i+1)
		if _, err := emptyRemote(name); err != nil {
			return sample{}, err
		}
		if _, err := git(src, nil, "config", "remote."+name+".fetch", "+refs/uwf/*:refs/remotes/"+name+"/uwf/*"); err != nil {
			return sample{}, err
		}
		s, err := proc(src, nil, "git", "-c", "core.logAllRefUpdates=false", "push", "-q", "--atomic", name, "refs/uwf/*:refs/uwf/*")
		if err != nil {
			return s, err
		}
		_, err = git(src, nil, "remote", "remove", name)
		return s, err
	}
	return pushRow(trackingPush, fmt.Sprintf("info: `git uwf push` of %d new threads (%d refs) to an empty bare remote, remote-tracking refs included", n, count),
		"`git push --atomic` to a remote whose fetch refspec maps them (git writes the remote-tracking refs, without reflogs)", "(info)")
}
