package objects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

func tables(t *testing.T, gitDir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(gitDir, "uwf", "index", "aliases-*.tab"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustFind(t *testing.T, gitDir string, refs []Ref) {
	t.Helper()
	fresh := openDir(t, gitDir)
	for _, r := range refs {
		if n, err := fresh.Get(r.Alias); err != nil || n.OID != r.OID {
			t.Fatalf("Get(%s) = %+v, %v", r.Alias, n, err)
		}
	}
	if a, err := fresh.ResolvePrefix(string(refs[0].Alias[:8])); err != nil || a != refs[0].Alias {
		t.Fatalf("ResolvePrefix(%s) = %s, %v", refs[0].Alias[:8], a, err)
	}
}

func TestIndexTable(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	s := openDir(t, gitDir)
	var refs []Ref
	for i := range 50 {
		r, err := s.PutText(fmt.Sprintf("node %d", i))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	textSchema, err := s.TextSchema()
	if err != nil {
		t.Fatal(err)
	}
	c := commitNodes(t, s, gitobj.ZeroHash, append([]Ref{textSchema}, refs...)...)
	git(t, dir, "update-ref", "refs/uwf/nodes", c.String())

	// Reindex writes a table and an empty log that names it.
	n, err := s.Reindex(context.Background())
	if err != nil || n < 50 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if got := tables(t, gitDir); len(got) != 1 {
		t.Fatalf("tables after Reindex: %v", got)
	}
	logPath := filepath.Join(gitDir, "uwf", "index", indexLogName)
	data, _ := os.ReadFile(logPath)
	if lines := strings.Count(string(data), "\n"); lines != 1 || !strings.HasPrefix(string(data), indexHeader()) {
		t.Fatalf("log after Reindex: %q", data)
	}
	mustFind(t, gitDir, refs)
	if schemas, err := openDir(t, gitDir).Schemas(); err != nil || len(schemas) < 2 {
		t.Fatalf("Schemas = %v, %v", schemas, err)
	}
	// Nothing moved: a fresh store needs no rescan (the commit is known).
	fresh := openDir(t, gitDir)
	if err := fresh.idx.ensure(); err != nil {
		t.Fatal(err)
	}
	if !fresh.idx.knownCommit(c) || fresh.idx.tab == nil {
		t.Fatal("the table does not record the indexed commit")
	}

	// The log is merged into a new table once it is long.
	s2 := openDir(t, gitDir)
	s2.idx.compactAt = 10
	for i := range 25 {
		r, err := s2.PutText(fmt.Sprintf("later %d", i))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	if got := tables(t, gitDir); len(got) != 1 {
		t.Fatalf("tables after compaction: %v", got)
	}
	data, _ = os.ReadFile(logPath)
	if lines := strings.Count(string(data), "\n"); lines > 12 {
		t.Fatalf("log not compacted: %d lines", lines)
	}
	mustFind(t, gitDir, refs)
	// The store that compacted still sees everything, and so does an old one.
	for _, st := range []*Store{s2, s} {
		for _, r := range refs {
			if ok, err := st.Has(r.Alias); err != nil || !ok {
				t.Fatalf("Has(%s) = %v, %v", r.Alias, ok, err)
			}
		}
	}

	// A lost table: the log that names it is discarded and the index is
	// rebuilt from the refs (nodes no ref reaches are gone, as with v1).
	for _, m := range tables(t, gitDir) {
		os.Remove(m)
	}
	mustFind(t, gitDir, refs[:50])

	// Deleting the whole folder loses nothing reachable.
	os.RemoveAll(filepath.Join(gitDir, "uwf"))
	mustFind(t, gitDir, refs[:50])
}

func TestIndexCompactionConcurrent(t *testing.T) {
	_, gitDir := newGitRepo(t)
	stores := []*Store{openDir(t, gitDir), openDir(t, gitDir), openDir(t, gitDir)}
	for _, s := range stores {
		s.idx.compactAt = 16
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var refs []Ref
	errs := make(chan error, 64)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			for i := range 40 {
				r, err := s.PutText(fmt.Sprintf("w%d-%d", w, i))
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.Get(r.Alias); err != nil {
					errs <- fmt.Errorf("Get right after Put: %w", err)
					return
				}
				mu.Lock()
				refs = append(refs, r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustFind(t, gitDir, refs)
	if got := tables(t, gitDir); len(got) != 1 {
		t.Fatalf("tables left: %v", got)
	}
}

func BenchmarkIndexLookup100k(b *testing.B) {
	dir := b.TempDir()
	entries := make([]entry, 100000)
	for i := range entries {
		blob := fmt.Appendf(nil, `{"payload":"node %d"}`, i)
		entries[i] = entry{AliasOf(blob), gitobj.ComputeHash(gitobj.BlobObject, blob)}
	}
	tag, err := writeTable(dir, entries, nil, "0000000000000000")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, indexLogName), []byte(headerLine(tag)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("open+lookup", func(b *testing.B) {
		i := 0
		for b.Loop() {
			x := newIndex(dir)
			if err := x.ensure(); err != nil {
				b.Fatal(err)
			}
			if len(x.lookup(entries[i%len(entries)].alias)) != 1 {
				b.Fatal("miss")
			}
			x.reset()
			i += 7919
		}
	})
	b.Run("lookup", func(b *testing.B) {
		x := newIndex(dir)
		if err := x.ensure(); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			if len(x.lookup(entries[i%len(entries)].alias)) != 1 {
				b.Fatal("miss")
			}
			i += 7919
		}
	})
	b.Run("map", func(b *testing.B) {
		m := make(map[Alias]gitobj.Hash, len(entries))
		for _, e := range entries {
			m[e.alias] = e.oid
		}
		i := 0
		for b.Loop() {
			if m[entries[i%len(entries)].alias].IsZero() {
				b.Fatal("miss")
			}
			i += 7919
		}
	})
}

// The tips read from the ref files are the ones git for-each-ref lists.
func TestListTipsFromFiles(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	s := openDir(t, gitDir)
	r, err := s.PutText("x")
	if err != nil {
		t.Fatal(err)
	}
	c1 := commitNodes(t, s, gitobj.ZeroHash, r)
	c2 := commitNodes(t, s, c1, r)
	git(t, dir, "update-ref", "refs/uwf/threads/A", c1.String())
	git(t, dir, "update-ref", "refs/uwf/threads/B", c1.String())
	git(t, dir, "update-ref", "refs/remotes/o/uwf/threads/A", c1.String())
	git(t, dir, "update-ref", "refs/remotes/a/b/uwf/threads/C", c1.String())
	git(t, dir, "update-ref", "refs/remotes/o/main", c1.String())
	git(t, dir, "update-ref", "refs/heads/uwf/not", c1.String())
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "update-ref", "refs/uwf/threads/B", c2.String()) // loose over packed
	git(t, dir, "update-ref", "refs/uwf/threads/D", c2.String())
	git(t, dir, "symbolic-ref", "refs/uwf/sym", "refs/uwf/threads/D")

	files, ok := s.uwfRefsFromFiles()
	if !ok {
		t.Fatal("ref files not read")
	}
	want := map[string]gitobj.Hash{
		"refs/uwf/threads/A": c1, "refs/uwf/threads/B": c2, "refs/uwf/threads/D": c2,
		"refs/remotes/o/uwf/threads/A": c1, // a/b/uwf/…: IsUWFRef takes one-segment remote names
	}
	if len(files) != len(want) {
		t.Fatalf("tips %v, want %v", files, want)
	}
	for name, h := range want {
		if files[name] != h {
			t.Fatalf("tip %s = %s, want %s (all: %v)", name, files[name], h, files)
		}
	}
	_, fromFiles, err := s.listTips()
	if err != nil {
		t.Fatal(err)
	}
	_, fromGit, err := Open(s.Storer(), "").listTips()
	if err != nil {
		t.Fatal(err)
	}
	if fromFiles != fromGit {
		t.Fatalf("digest from files %s, from git for-each-ref %s", fromFiles, fromGit)
	}
}

// TestIndexBatchLearn checks that aliases learned inside a batch are known
// to the store at once, reach the log only at the batch's end or at a
// Refresh (together, after a torn tail if there is one), and are then found
// by a fresh store through the log alone.
func TestIndexBatchLearn(t *testing.T) {
	tests := []struct {
		name string
		torn bool // a torn record at the log's end before the batch writes
		// write ends the batch its own way: by ending it or through a
		// Refresh inside it (which must write the learned records too).
		write func(t *testing.T, s *Store, end func())
	}{
		{name: "end", write: func(t *testing.T, s *Store, end func()) { end() }},
		{name: "end after torn tail", torn: true, write: func(t *testing.T, s *Store, end func()) { end() }},
		{name: "refresh", write: func(t *testing.T, s *Store, end func()) {
			if err := s.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "nested", write: func(t *testing.T, s *Store, end func()) {
			inner := s.BatchLearn()
			inner()
			inner() // a second call does nothing
			end()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, gitDir := newGitRepo(t)
			logPath := filepath.Join(gitDir, "uwf", "index", indexLogName)
			readLog := func() string {
				t.Helper()
				data, err := os.ReadFile(logPath)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				return string(data)
			}
			// The text schema and a commit on a ref, so that the index
			// file exists and Refresh has something to record.
			setup := openDir(t, gitDir)
			schema, err := setup.TextSchema()
			if err != nil {
				t.Fatal(err)
			}
			c := commitNodes(t, setup, gitobj.ZeroHash, schema)
			git(t, dir, "update-ref", "refs/uwf/a", c.String())
			if err := setup.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
			// Nodes no ref reaches, written by git: only the records a
			// store learns make them findable.
			var want []Ref
			for i := range 20 {
				blob := encodeCanonicalNode(schema.Alias, []byte(fmt.Sprintf("%q", fmt.Sprint("batched ", i))))
				path := filepath.Join(t.TempDir(), "blob")
				if err := os.WriteFile(path, blob, 0o644); err != nil {
					t.Fatal(err)
				}
				oid := git(t, dir, "hash-object", "-w", path)
				want = append(want, Ref{Alias: AliasOf(blob), OID: gitobj.NewHash(oid)})
			}
			if tc.torn {
				f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(f, "a %s %s", want[0].Alias, want[0].OID.String()[:7])
				f.Close()
			}
			before := readLog()

			s := openDir(t, gitDir)
			if tc.name == "refresh" {
				// Refresh writes only when a tip moved.
				git(t, dir, "update-ref", "refs/uwf/b", c.String())
			}
			end := s.BatchLearn()
			for _, r := range want {
				n, err := s.GetOID(r.OID)
				if err != nil || n.Alias != r.Alias {
					t.Fatalf("GetOID(%s) = %s, %v, want %s", r.OID, n.Alias, err, r.Alias)
				}
				if got, err := s.Get(r.Alias); err != nil || got.OID != r.OID {
					t.Fatalf("Get(%s) inside the batch = %v, %v", r.Alias, got.OID, err)
				}
			}
			if got := readLog(); got != before {
				t.Fatalf("the log changed inside the batch:\nbefore %q\nafter  %q", before, got)
			}
			tc.write(t, s, end)
			after := readLog()
			if !strings.HasPrefix(after, before) {
				t.Fatalf("the log was rewritten, not appended to:\nbefore %q\nafter  %q", before, after)
			}
			added := after[len(before):]
			for _, r := range want {
				if !strings.Contains(added, aliasRecord(r.Alias, r.OID)) {
					t.Fatalf("record of %s missing from the appended part %q", r.Alias, added)
				}
			}
			end() // ending again (or after a Refresh) writes nothing more
			if got := readLog(); got != after {
				t.Fatalf("the log changed after the batch had written:\n%q", got[len(after):])
			}
			fresh := openDir(t, gitDir)
			for _, r := range want {
				if n, err := fresh.Get(r.Alias); err != nil || n.OID != r.OID {
					t.Fatalf("fresh store: Get(%s) = %v, %v", r.Alias, n.OID, err)
				}
			}
		})
	}
}

// BenchmarkIndexOpenLog opens an index whose log holds as many records as
// it may before compaction (mostly alias records, some commit records):
// what every process pays on first use of a store at worst.
func BenchmarkIndexOpenLog(b *testing.B) {
	dir := b.TempDir()
	log := []byte(headerLine(noTable))
	var first Alias
	for i := range compactRecords {
		blob := fmt.Appendf(nil, `{"payload":"node %d"}`, i)
		oid := gitobj.ComputeHash(gitobj.BlobObject, blob)
		if i%8 == 7 {
			log = append(log, commitRecord(oid)...)
			continue
		}
		a := AliasOf(blob)
		if first == "" {
			first = a
		}
		log = append(log, aliasRecord(a, oid)...)
	}
	if err := os.WriteFile(filepath.Join(dir, indexLogName), log, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		x := newIndex(dir)
		if err := x.ensure(); err != nil {
			b.Fatal(err)
		}
		if x.records != compactRecords || len(x.lookup(first)) != 1 {
			b.Fatalf("records = %d, lookup = %v", x.records, x.lookup(first))
		}
	}
}

// TestIndexApplyAllocs checks that parsing the log costs a fixed number of
// allocations, not some per record: every process parses the whole log
// (up to compactRecords records) on first use.
func TestIndexApplyAllocs(t *testing.T) {
	const n = 2000
	var log string
	var aliases []Alias
	for i := range n {
		blob := fmt.Appendf(nil, `{"payload":"alloc %d"}`, i)
		a, oid := AliasOf(blob), gitobj.ComputeHash(gitobj.BlobObject, blob)
		aliases = append(aliases, a)
		log += aliasRecord(a, oid)
		if i%10 == 0 {
			log += commitRecord(oid)
		}
	}
	var x *index
	allocs := testing.AllocsPerRun(5, func() {
		x = newIndex("")
		x.apply(log)
	})
	if x.records != n+n/10 {
		t.Fatalf("applied %d records, want %d", x.records, n+n/10)
	}
	for _, a := range aliases {
		if len(x.lookup(a)) != 1 {
			t.Fatalf("lookup(%s) = %v", a, x.lookup(a))
		}
	}
	if allocs > n/20 {
		t.Errorf("applying %d records took %.0f allocations; want a fixed few", n, allocs)
	}
}

func TestCheckRecord(t *testing.T) {
	good := strings.TrimSuffix(commitRecord(gitobj.ComputeHash(gitobj.BlobObject, []byte("x"))), "\n")
	sp := strings.LastIndexByte(good, ' ')
	rec, crc := good[:sp], good[sp+1:]
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{good, true},
		{rec + " " + strings.ToUpper(crc), strings.ToUpper(crc) == crc},
		{rec + " " + crc[1:], false},
		{rec + " 0" + crc, false},
		{rec + " " + crc + " ", false},
		{rec + "x " + crc, false},
		{rec + crc, false},
		{rec + " " + crc[:7] + "g", false},
		{"", false},
	} {
		got, ok := checkRecord(tc.line)
		if ok != tc.ok || (ok && got != rec) {
			t.Errorf("checkRecord(%q) = %q, %v; want ok %v", tc.line, got, ok, tc.ok)
		}
	}
}
