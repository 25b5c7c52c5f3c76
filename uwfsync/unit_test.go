package uwfsync

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/chain/chaintest"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

func TestForkID(t *testing.T) {
	const thread = chain.ThreadID("01J9Z3K4D5E6F7G8H9JAKBMCND")
	tip := strings.Repeat("ab", 20)
	when := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	base := ForkID(thread, tip, when)
	tests := []struct {
		name   string
		id     chain.ThreadID
		tip    string
		when   time.Time
		same   bool
		wantAt time.Time
	}{
		{"same inputs", thread, tip, when, true, when},
		{"tip case does not matter", thread, strings.ToUpper(tip), when, true, when},
		{"other tip", thread, strings.Repeat("cd", 20), when, false, when},
		{"other thread", "01J9Z3K4D5E6F7G8H9JAKBMCNE", tip, when, false, when},
		{"other time", thread, tip, when.Add(time.Second), false, when.Add(time.Second)},
		{"before 1970 clamps", thread, tip, time.Unix(-5, 0), false, time.UnixMilli(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ForkID(tt.id, tt.tip, tt.when)
			if parsed, err := chain.ParseThreadID(string(got)); err != nil || parsed != got {
				t.Fatalf("ForkID = %q is not a canonical thread id: %v", got, err)
			}
			if (got == base) != tt.same {
				t.Errorf("ForkID = %s, base %s: same = %v, want %v", got, base, got == base, tt.same)
			}
			if !got.Time().Equal(tt.wantAt) {
				t.Errorf("ForkID time = %v, want %v", got.Time(), tt.wantAt)
			}
		})
	}
}

func TestWorkflowForkName(t *testing.T) {
	tip := "0123456789abcdef0123456789abcdef01234567"
	tests := []struct{ name, want string }{
		{"review-loop", "review-loop-local-01234567"},
		{strings.Repeat("a", 100), strings.Repeat("a", 85) + "-local-01234567"},
		{strings.Repeat("a", 84) + "..b", strings.Repeat("a", 84) + "-local-01234567"},
	}
	for _, tt := range tests {
		got := workflowForkName(tt.name, tip)
		if got != tt.want {
			t.Errorf("workflowForkName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if err := chain.ValidWorkflowName(got); err != nil {
			t.Errorf("workflowForkName(%q) = %q: %v", tt.name, got, err)
		}
	}
}

func TestParsePorcelain(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []porcelainLine
	}{
		{"empty", "", nil},
		{"mixed", "To ../remote.git\n" +
			" \trefs/uwf/threads/X:refs/uwf/threads/X\t5304dd4..54bbb3c\n" +
			"*\trefs/uwf/threads/Y:refs/uwf/threads/Y\t[new reference]\n" +
			"=\trefs/uwf/workflows/w:refs/uwf/workflows/w\t[up to date]\n" +
			"!\trefs/uwf/threads/Z:refs/uwf/threads/Z\t[rejected] (fetch first)\n" +
			"Done\n", []porcelainLine{
			{' ', "refs/uwf/threads/X", "refs/uwf/threads/X", "5304dd4..54bbb3c"},
			{'*', "refs/uwf/threads/Y", "refs/uwf/threads/Y", "[new reference]"},
			{'=', "refs/uwf/workflows/w", "refs/uwf/workflows/w", "[up to date]"},
			{'!', "refs/uwf/threads/Z", "refs/uwf/threads/Z", "[rejected] (fetch first)"},
		}},
		{"no summary", "*\ta:b\n", []porcelainLine{{'*', "a", "b", ""}}},
		{"noise only", "To x\nerror: something\nDone\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parsePorcelain(tt.out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parsePorcelain = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestTrackedDigest checks that the digest the adopt check streams from
// the ref files is the one the record holds for the same refs
// (digestOf(refLines(...)) of their listing), with packed and loose
// remote-tracking refs, a loose one over a packed one and refs of another
// remote beside them; that a moved ref changes it; and that a loose
// symbolic ref among them is left to the listing.
func TestTrackedDigest(t *testing.T) {
	dir := chaintest.InitRepo(t)
	run := func(args ...string) string { t.Helper(); return chaintest.Git(t, dir, args...) }
	one := run("rev-parse", "HEAD")
	run("commit", "-q", "--allow-empty", "-m", "two")
	two := run("rev-parse", "HEAD")
	for _, r := range []string{"origin/uwf/threads/01A", "origin/uwf/threads/01B", "origin/uwf/workflows/loop", "other/uwf/threads/01A", "origin/main"} {
		run("update-ref", "refs/remotes/"+r, one)
	}
	run("pack-refs", "--all")
	run("update-ref", "refs/remotes/origin/uwf/threads/01B", two) // loose over packed
	run("update-ref", "refs/remotes/origin/uwf/threads/01C", two) // loose only
	common := filepath.Join(dir, ".git")
	want := func() string {
		t.Helper()
		refs, ok, err := gitrepo.ReadRefs(common, trackingPrefix("origin"))
		if err != nil || !ok {
			t.Fatalf("ReadRefs: ok=%v err=%v", ok, err)
		}
		st := &refState{}
		st.setTracking("origin", refs)
		return digestOf(refLines(st.trackingOrder, st.tracking))
	}
	got, ok := trackedDigest(gitrepo.NewRefFiles(common), "origin")
	if !ok || got != want() {
		t.Fatalf("trackedDigest = %s, %v; the record's digest of the listing = %s", got, ok, want())
	}
	run("update-ref", "refs/remotes/origin/uwf/threads/01A", two)
	moved, ok := trackedDigest(gitrepo.NewRefFiles(common), "origin")
	if !ok || moved == got || moved != want() {
		t.Fatalf("after a move, trackedDigest = %s, %v (before %s); the listing's = %s", moved, ok, got, want())
	}
	run("symbolic-ref", "refs/remotes/origin/uwf/threads/01S", "refs/remotes/origin/uwf/threads/01A")
	if d, ok := trackedDigest(gitrepo.NewRefFiles(common), "origin"); ok {
		t.Errorf("with a loose symbolic ref, trackedDigest = %s; want it left to the listing", d)
	}
}

// TestFetchedRefsOutside: the look at the ref files that lets a command
// skip the adopt check finds a remote-tracking git-uwf ref, loose or
// packed, outside the recorded remotes' namespaces (with none recorded,
// any), and answers "maybe" where the files cannot tell.
func TestFetchedRefsOutside(t *testing.T) {
	const oid = "0123456789012345678901234567890123456789"
	const sorted = "# pack-refs with: peeled fully-peeled sorted\n"
	origin := []string{trackingPrefix("origin")}
	tests := []struct {
		name     string
		files    map[string]string
		prefixes []string
		want     bool
	}{
		{"empty repository", nil, nil, false},
		{"branches only", map[string]string{
			"refs/remotes/origin/main": oid + "\n",
			"packed-refs":              sorted + oid + " refs/remotes/origin/dev\n" + oid + " refs/uwf/threads/X\n",
		}, nil, false},
		{"loose tracking ref", map[string]string{"refs/remotes/origin/uwf/threads/X": oid + "\n"}, nil, true},
		{"loose tracking ref, its remote recorded", map[string]string{"refs/remotes/origin/uwf/threads/X": oid + "\n"}, origin, false},
		{"remote name with a slash", map[string]string{"refs/remotes/a/b/uwf/threads/X": oid + "\n"}, origin, true},
		{"a remote named like origin's namespace", map[string]string{"refs/remotes/origin/uwf/n/uwf/threads/X": oid + "\n"}, origin, true},
		{"a branch directory named uwf", map[string]string{"refs/remotes/origin/feature/uwf/x": oid + "\n"}, origin, true},
		{"packed tracking ref", map[string]string{"packed-refs": oid + " refs/remotes/origin/main\n" + oid + " refs/remotes/origin/uwf/threads/X\n"}, nil, true},
		{"packed tracking ref, its remote recorded", map[string]string{"packed-refs": oid + " refs/remotes/origin/main\n" + oid + " refs/remotes/origin/uwf/threads/X\n"}, origin, false},
		{"packed, the tracking ref after other remotes' refs", map[string]string{"packed-refs": sorted +
			oid + " refs/remotes/a/main\n" + oid + " refs/remotes/b/dev\n" + oid + " refs/remotes/b/uwf/threads/X\n" + oid + " refs/uwf/threads/X\n"}, origin, true},
		{"damaged packed-refs", map[string]string{"packed-refs": "not a ref\n"}, nil, true},
		{"reftable", map[string]string{"reftable/tables.list": ""}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
				t.Fatal(err)
			}
			for rel, content := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := fetchedRefsOutside(dir, gitrepo.NewRefFiles(dir), tt.prefixes); got != tt.want {
				t.Fatalf("fetchedRefsOutside(%v) = %v, want %v", tt.prefixes, got, tt.want)
			}
		})
	}
}
