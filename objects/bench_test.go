package objects

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

func BenchmarkCanonicalize(b *testing.B) {
	in := []byte(`{"start":"0123456789ABC","prev":null,"role":"reviewer","output":"0123456789ABD",
		"detail":"0123456789ABE","agent":"pipe","edgePrompt":"` + strings.Repeat("review the change ", 20) + `",
		"startedAtMs":1700000000000,"completedAtMs":1700000012345,"cwd":"/home/u/src/project",
		"usage":{"turns":3,"inputTokens":12345,"outputTokens":678,"duration":12.345}}`)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Canonicalize(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s := newMemStore(b)
	typ := mustPutSchema(b, s, `{"type":"object","properties":{"n":{"type":"integer"},"ref":{"type":"string","format":"uwf_ref"}}}`)
	i := 0
	for b.Loop() {
		if _, err := s.Put(typ, map[string]any{"n": i, "ref": "0123456789ABC"}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGet(b *testing.B) {
	s := newMemStore(b)
	var refs []Ref
	for i := range 1000 {
		r, err := s.PutText(fmt.Sprint(i))
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, r)
	}
	i := 0
	for b.Loop() {
		if _, err := s.Get(refs[i%len(refs)].Alias); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkObjectReaderSmall reads, in pack order, every object of a packed
// repository of 2,000 small commits, each with a tree of a few entries and
// JSON blobs of about a hundred bytes: the kind of objects a cold thread
// listing reads six of per thread. Most of the time goes to starting and
// inflating short zlib streams, so it compares inflaters.
func BenchmarkObjectReaderSmall(b *testing.B) {
	dir, gitDir := newGitRepo(b)
	var in strings.Builder
	for c := range 2000 {
		node := fmt.Sprintf(`{"payload":{"prompt":"task %d: do nothing","workflow":"%013d"},"type":"start"}`, c, c)
		out := fmt.Sprintf(`{"payload":{"$status":"done","summary":"step %d of the thread"},"type":"output"}`, c)
		fmt.Fprintf(&in, "commit refs/heads/t%d\ncommitter t <t@example.com> %d +0000\ndata <<EOF\nstep %d\n\nUwf-Thread: %08d\nEOF\n", c, 1700000000+c, c, c)
		fmt.Fprintf(&in, "M 100644 inline node\ndata %d\n%s\nM 100644 inline nodes/output\ndata %d\n%s\n\n", len(node), node, len(out), out)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	git(b, dir, "repack", "-adq")
	var oids []gitobj.Hash
	for _, line := range strings.Split(git(b, dir, "cat-file", "--batch-all-objects", "--unordered", "--batch-check=%(objectname)"), "\n") {
		oids = append(oids, gitobj.NewHash(line))
	}
	r := NewObjectReader(filepath.Join(gitDir, "objects"))
	for b.Loop() {
		for _, h := range oids {
			if _, _, err := r.ReadScratch(h); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(oids)), "ns/object")
}

// BenchmarkIdxLocate looks up names of an index of 100,000 evenly spread
// names (about a 10,000-thread repository's pack) in an order unrelated
// to theirs, as a cold listing does.
func BenchmarkIdxLocate(b *testing.B) {
	names := make([]gitobj.Hash, 100_000)
	for i := range names {
		names[i] = gitobj.Hash(sha1.Sum(fmt.Appendf(nil, "%d", i)))
	}
	order := slices.Clone(names)
	slices.SortFunc(names, func(x, y gitobj.Hash) int { return bytes.Compare(x[:], y[:]) })
	p := &packIndexes{dir: writeIdx(b, names, nil)}
	b.ResetTimer()
	for i := range b.N {
		if _, _, found, err := p.locate(order[i%len(order)]); !found || err != nil {
			b.Fatalf("locate = %v, %v", found, err)
		}
	}
}
