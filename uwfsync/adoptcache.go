package uwfsync

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/atomicfile"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// The adopted record of a remote remembers which remote-tracking values
// have been reconciled already, so that AdoptFetched only looks at the refs
// a fetch moved since. It is a derived file under
// $GIT_COMMON_DIR/uwf/cache/, one per remote:
//
//	uwf-adopted 1 <digest>
//	remote <name>
//	<oid> <refs/uwf/... name>      (sorted by name)
//	...
//
// where digest is the xxhash64 (16 hex digits) of the ref lines. Every line
// is keyed by a ref value, so the record can never make a run skip a value
// it has not reconciled: a remote-tracking ref that moved simply differs
// from its line. A missing, unreadable or damaged file (its digest does not
// match its lines) counts as empty, which means a full adopt; concurrent
// writers each write a complete file through a rename, and the last wins.
const adoptedHead = "uwf-adopted 1 "

// adoptedPath is the record of remote.
func adoptedPath(repo *chain.Repo, remote string) string {
	sum := sha256.Sum256([]byte(remote))
	return filepath.Join(repo.Info.CommonDir, "uwf", "cache", "adopted-"+hex.EncodeToString(sum[:8]))
}

// refLines renders the values of names as the record's ref lines.
func refLines(names []string, values map[string]string) []byte {
	var b bytes.Buffer
	for _, name := range names {
		if oid, ok := values[name]; ok {
			b.WriteString(oid)
			b.WriteByte(' ')
			b.WriteString(name)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// digestOf is the digest the record's header holds for lines.
func digestOf(lines []byte) string {
	return fmt.Sprintf("%016x", xxhash.Sum64(lines))
}

// trackedDigest is digestOf(refLines(...)) of the remote-tracking refs of
// remote, computed from the ref files as they stream past
// (gitrepo.RefFiles.Each): the check every command makes when nothing was
// fetched copies no ref and builds neither the lines nor a map of them.
// ok is false when the files cannot answer that way, and the caller then
// lists the refs.
func trackedDigest(files *gitrepo.RefFiles, remote string) (digest string, ok bool) {
	prefix := trackingPrefix(remote)
	d := xxhash.New()
	ok, err := files.Each(prefix, func(name, oid string) {
		_, _ = d.WriteString(oid)
		_, _ = d.WriteString(" " + chain.RefPrefix)
		_, _ = d.WriteString(strings.TrimPrefix(name, prefix))
		_, _ = d.WriteString("\n")
	})
	if !ok || err != nil {
		return "", false
	}
	return fmt.Sprintf("%016x", d.Sum64()), true
}

// readAdoptedDigest returns the digest in the header of remote's record
// at path, "" when there is none. It reads the first two lines only.
func readAdoptedDigest(path, remote string) string {
	if r, digest, ok := readAdoptedHead(path); ok && r == remote {
		return digest
	}
	return ""
}

// readAdopted returns the values recorded for remote; an empty map when the
// record is missing or damaged.
func readAdopted(path, remote string) map[string]string {
	values := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return values
	}
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return values
	}
	digest, ok := strings.CutPrefix(string(head), adoptedHead)
	if !ok {
		return values
	}
	name, lines, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || string(name) != "remote "+strconv.Quote(remote) || digestOf(lines) != digest {
		return values
	}
	for _, line := range strings.Split(string(lines), "\n") {
		if oid, ref, ok := strings.Cut(line, " "); ok && len(oid) >= 40 && strings.HasPrefix(ref, chain.RefPrefix) {
			values[ref] = oid
		}
	}
	return values
}

// saveAdopted records the remote-tracking values of st as reconciled,
// except those of refs rep reports an error for (the next run retries
// them). The record is derived data: failing to write it only costs the
// next run a full adopt, so the error is returned for tests alone.
func saveAdopted(repo *chain.Repo, remote string, st *refState, rep *Report) error {
	values := st.tracking
	if rep != nil {
		var failed []string
		for _, res := range rep.Results {
			if res.Kind == KindError {
				failed = append(failed, res.Ref)
			}
		}
		if len(failed) > 0 {
			values = make(map[string]string, len(st.tracking))
			for k, v := range st.tracking {
				values[k] = v
			}
			for _, ref := range failed {
				delete(values, ref)
			}
		}
	}
	lines := refLines(st.trackingOrder, values)
	path := adoptedPath(repo, remote)
	if readAdoptedDigest(path, remote) == digestOf(lines) {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(adoptedHead + digestOf(lines) + "\n")
	b.WriteString("remote " + strconv.Quote(remote) + "\n")
	b.Write(lines)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("adopted record: %w", err)
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("adopted record: %w", err)
	}
	return nil
}

// AdoptFetched is Adopt for the refs that moved: a remote-tracking ref
// whose value was already reconciled (by an earlier Adopt, AdoptFetched,
// Fetch, Reconcile or Sync, as remembered in a derived record under
// $GIT_COMMON_DIR/uwf/cache/) is not looked at again. When no
// remote-tracking ref moved since and every remote with git-uwf refs has a
// record, it starts no git process: it reads the records' first lines and
// digests the remote-tracking refs as they stream past the ref files (see
// reconciled for when it still asks git). Its reports list only the refs
// it reconciled. A local ref
// deleted after its remote-tracking value was adopted is therefore not
// brought back until the remote moves it; Adopt and git uwf fetch look at
// every ref.
func AdoptFetched(ctx context.Context, repo *chain.Repo) ([]*Report, error) {
	if reconciled(repo) {
		return nil, nil // without asking git which remotes are set up
	}
	remotes, err := SetUpRemotes(ctx, repo)
	if err != nil {
		return nil, err
	}
	var reports []*Report
	for _, remote := range remotes {
		rep, err := adoptFetched(ctx, repo, remote)
		if rep != nil {
			reports = append(reports, rep)
		}
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// reconciled reports whether every remote-tracking git-uwf ref of the
// clone holds what an adopted record lists as reconciled: each remote with
// such refs has a record whose digest its refs still give. Then no remote,
// set up or not, has anything to take over, and the check needs no git
// process to read which remotes are set up; a clone without such refs at
// all (most clones) costs a look at the ref files. False means "look": a
// ref of a remote without a record, a digest that differs, a ref that
// could belong to two remotes (one named like another's
// refs/remotes/<r>/uwf/…), or ref files that cannot answer.
func reconciled(repo *chain.Repo) bool {
	records := recordedRemotes(repo)
	files := repo.RefFiles()
	prefixes := make([]string, 0, len(records))
	for remote, recorded := range records {
		digest, ok := trackedDigest(files, remote)
		if !ok {
			return false
		}
		// A remote whose refs are all gone has nothing to take over,
		// whatever its record says.
		if digest != recorded && digest != emptyDigest {
			return false
		}
		prefixes = append(prefixes, trackingPrefix(remote))
	}
	return !fetchedRefsOutside(repo.Info.CommonDir, files, prefixes)
}

// fetchedRefsOutside reports whether the clone whose common dir is
// commonDir may hold a remote-tracking git-uwf ref (refs/remotes/<remote>/
// uwf/…) that lies under none of prefixes, or under one but could be
// another remote's too (its rest holds "/uwf/"): a loose one lies in a
// directory named uwf below refs/remotes/, a packed one has "/uwf/" in its
// name (files reads packed-refs). Ref storage it cannot read (reftable, a
// damaged packed-refs, an unreadable directory) answers true.
func fetchedRefsOutside(commonDir string, files *gitrepo.RefFiles, prefixes []string) bool {
	covered := func(name string) bool {
		for _, prefix := range prefixes {
			if rest, ok := strings.CutPrefix(name, prefix); ok && !strings.Contains(rest, "/uwf/") {
				return true
			}
		}
		return false
	}
	remotesDir := filepath.Join(commonDir, "refs", "remotes")
	outside := false
	_ = filepath.WalkDir(remotesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != remotesDir {
				outside = true // unreadable: look
			}
			return filepath.SkipAll
		}
		if !d.IsDir() || d.Name() != "uwf" || path == remotesDir {
			return nil
		}
		rel, err := filepath.Rel(commonDir, path)
		if err != nil || !covered(filepath.ToSlash(rel)+"/") {
			outside = true
			return filepath.SkipAll
		}
		return nil // and on into it, for a uwf directory of another remote
	})
	if outside {
		return true
	}
	found, ok, err := files.AnyPacked("refs/remotes/", func(name string) bool {
		return strings.Contains(strings.TrimPrefix(name, "refs/remotes/"), "/uwf/") && !covered(name)
	})
	return found || !ok || err != nil
}

// emptyDigest is the digest of no refs.
var emptyDigest = digestOf(nil)

// recordedRemotes returns, for each adopted record under
// $GIT_COMMON_DIR/uwf/cache/, its remote and the digest in its header; a
// record that cannot be read is left out (its remote then counts as never
// reconciled).
func recordedRemotes(repo *chain.Repo) map[string]string {
	dir := filepath.Join(repo.Info.CommonDir, "uwf", "cache")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	records := map[string]string{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "adopted-") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		remote, digest, ok := readAdoptedHead(path)
		if ok && adoptedPath(repo, remote) == path {
			records[remote] = digest
		}
	}
	return records
}

// readAdoptedHead reads the first two lines of a record: its digest and
// its remote.
func readAdoptedHead(path string) (remote, digest string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 512)
	head, err := r.ReadString('\n')
	if err != nil {
		return "", "", false
	}
	digest, ok = strings.CutPrefix(strings.TrimSuffix(head, "\n"), adoptedHead)
	if !ok || len(digest) != 16 {
		return "", "", false
	}
	line, err := r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", "", false
	}
	quoted, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "remote ")
	if !ok {
		return "", "", false
	}
	remote, err = strconv.Unquote(quoted)
	if err != nil || remote == "" {
		return "", "", false
	}
	return remote, digest, true
}

func adoptFetched(ctx context.Context, repo *chain.Repo, remote string) (*Report, error) {
	path := adoptedPath(repo, remote)
	recorded := readAdoptedDigest(path, remote)
	digest, streamed := trackedDigest(repo.RefFiles(), remote)
	if streamed && digest == recorded {
		return nil, nil
	}
	tracking, err := repo.ListRefs(ctx, trackingPrefix(remote))
	if err != nil {
		return nil, fmt.Errorf("list remote-tracking refs of %s: %w", remote, err)
	}
	st := &refState{}
	st.setTracking(remote, tracking)
	if !streamed && recorded == digestOf(refLines(st.trackingOrder, st.tracking)) {
		return nil, nil
	}
	done := readAdopted(path, remote)
	all := st.trackingOrder
	var changed []string
	for _, name := range all {
		if done[name] != st.tracking[name] {
			changed = append(changed, name)
		}
	}
	var rep *Report
	if len(changed) > 0 {
		local, err := repo.ListRefs(ctx, chain.RefPrefix)
		if err != nil {
			return nil, fmt.Errorf("list local git-uwf refs: %w", err)
		}
		st.local = make(map[string]string, len(local))
		for _, r := range local {
			st.local[r.Name] = r.OID
		}
		st.trackingOrder = changed
		if rep, err = reconcileState(ctx, repo, remote, modeAdopt, st); err != nil {
			return rep, err
		}
		st.trackingOrder = all
	}
	_ = saveAdopted(repo, remote, st, rep)
	return rep, nil
}
