package chain

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	gogit "github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

// parseCommit reads what go-git reads, or refuses.
func TestParseCommitMatchesGoGit(t *testing.T) {
	const tree = "3283740917267e66be20848350cb2ad9543a5809"
	const p1, p2 = "281e92c1c8171afff1f2702aa987f31e0712b790", "beca86cd4b73314ae3666ccc5cef5ba7cce9b6cd"
	const who = "A U Thor <a@example.invalid> 1795244417 +0130"
	tests := []struct {
		name string
		data string
		ok   bool
	}{
		{"root commit", "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\n\nmsg\n", true},
		{"start commit", "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\n\nstart: x\n\nUwf-Thread: 01X\nUwf-Branch: feat/y\nUwf-Code: abc\n", true},
		{"start commit, signed", "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\ngpgsig -----BEGIN-----\n \n x\n -----END-----\n\nstart\n\nUwf-Branch: main\n", true},
		{"step with a branch trailer", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nstep\n\nUwf-Branch: main\n", true},
		{"one parent", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nmsg\n", true},
		{"step with a start trailer", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nstep\n\nUwf-Thread: 01X\nUwf-Start: " + p2 + " feat/y\n", true},
		{"step with a start trailer, no branch", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nstep\n\nUwf-Start: " + p2 + "\n", true},
		{"step with an unreadable start trailer", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nstep\n\nUwf-Start: " + p2[:39] + " x\n", true},
		{"start trailer in the body only", "tree " + tree + "\nparent " + p1 + "\nauthor " + who + "\ncommitter " + who + "\n\nstep\n\nUwf-Start: " + p2 + "\n\nNot a trailer.\n", true},
		{"two parents", "tree " + tree + "\nparent " + p1 + "\nparent " + p2 + "\nauthor " + who + "\ncommitter B <b@x> 1 -0700\ngpgsig x\n\nmsg", true},
		{"negative zone", "tree " + tree + "\nauthor " + who + "\ncommitter C <c@x> 1700000000 -0230\n\n", true},
		{"no time", "tree " + tree + "\nauthor " + who + "\ncommitter C <c@x>\n\n", true},
		{"upper-case hex", "tree " + string(bytes.ToUpper([]byte(tree))) + "\nauthor " + who + "\ncommitter " + who + "\n\n", false},
		{"short tree", "tree 3283\nauthor " + who + "\ncommitter " + who + "\n\n", false},
		{"no committer", "tree " + tree + "\nauthor " + who + "\n\nmsg\n", false},
		{"committer first", "tree " + tree + "\ncommitter " + who + "\nauthor " + who + "\n\n", false},
		{"no tree", "author " + who + "\ncommitter " + who + "\n\n", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			got, ok := parseCommit(gitrepo.Object{Type: "commit", Data: data})
			// What it keeps must not share the object's bytes, which the
			// reader reuses.
			for i := range data {
				data[i] = 'x'
			}
			if ok != tc.ok {
				t.Fatalf("parseCommit ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			mo := &gogit.MemoryObject{}
			mo.SetType(gogit.CommitObject)
			if _, err := mo.Write([]byte(tc.data)); err != nil {
				t.Fatal(err)
			}
			var c object.Commit
			if err := c.Decode(mo); err != nil {
				t.Fatal(err)
			}
			var parent gitobj.Hash
			if len(c.ParentHashes) > 0 {
				parent = gitobj.Hash(c.ParentHashes[0])
			}
			if got.tree != gitobj.Hash(c.TreeHash) || got.parent != parent || !got.when.Equal(c.Committer.When) || got.parents != len(c.ParentHashes) {
				t.Fatalf("parseCommit = %v %v %v %d, go-git %v %v %v %d", got.tree, got.parent, got.when, got.parents,
					c.TreeHash, parent, c.Committer.When, len(c.ParentHashes))
			}
			// The branch of a start commit is what StartCode reads.
			var branch string
			if len(c.ParentHashes) == 0 {
				branch = trailers(c.Message)[BranchTrailer]
			}
			if got.branch != branch {
				t.Fatalf("parseCommit branch %q, want %q", got.branch, branch)
			}
			// The claimed start of a commit with parents is what
			// walkToStart takes from the decoded message.
			var start startInfo
			var claimed bool
			if len(c.ParentHashes) > 0 {
				start, claimed = claimedStart(c.Message)
			}
			if got.claimed != claimed || got.start != start {
				t.Fatalf("parseCommit start %v %v, want %v %v", got.start, got.claimed, start, claimed)
			}
		})
	}
	if _, ok := parseCommit(gitrepo.Object{Type: "tree", Data: []byte("tree " + tree + "\n")}); ok {
		t.Error("parseCommit accepted a tree")
	}
}

func TestParseRootTree(t *testing.T) {
	h := func(b byte) gitobj.Hash { return gitobj.Hash{b, b, b} }
	entry := func(mode, name string, oid gitobj.Hash) string { return mode + " " + name + "\x00" + string(oid[:]) }
	tests := []struct {
		name string
		data string
		want rootEntries
		ok   bool
	}{
		{"thread commit", entry("40000", "nodes", h(4)) + entry("100644", "node", h(1)) + entry("100644", "start", h(2)) + entry("40000", "workflow", h(3)),
			rootEntries{node: h(1), start: h(2), workflow: h(3), nodes: h(4)}, true},
		{"wrong kinds", entry("40000", "node", h(1)) + entry("100644", "workflow", h(3)) + entry("100644", "nodes", h(4)) + entry("100755", "start", h(2)),
			rootEntries{start: h(2)}, true},
		{"first of a name counts", entry("100644", "node", h(1)) + entry("100644", "node", h(9)), rootEntries{node: h(1)}, true},
		{"first of a name counts, even of the wrong kind", entry("40000", "node", h(1)) + entry("100644", "node", h(9)), rootEntries{}, true},
		{"empty", "", rootEntries{}, true},
		{"bad mode", entry("10x644", "node", h(1)), rootEntries{}, false},
		{"truncated oid", entry("100644", "node", h(1))[:20], rootEntries{}, false},
		{"no name end", "100644 node", rootEntries{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseRootTree(gitrepo.Object{Type: "tree", Data: []byte(tc.data)})
			if ok != tc.ok || (ok && got != tc.want) {
				t.Fatalf("parseRootTree = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
			if !ok {
				return
			}
			// treeHash over go-git's decoding agrees.
			mo := &gogit.MemoryObject{}
			mo.SetType(gogit.TreeObject)
			if _, err := mo.Write([]byte(tc.data)); err != nil {
				t.Fatal(err)
			}
			var tr object.Tree
			if err := tr.Decode(mo); err != nil {
				t.Fatal(err)
			}
			want := rootEntries{node: treeHash(&tr, "node", false), start: treeHash(&tr, "start", false),
				workflow: treeHash(&tr, "workflow", true), nodes: treeHash(&tr, "nodes", true)}
			if got != want {
				t.Fatalf("parseRootTree = %+v, treeHash over go-git %+v", got, want)
			}
		})
	}
}

// treeHash is how the batch path used to read a root tree decoded by
// go-git: the first entry of a name, a directory when dir, else zero.
func treeHash(t *object.Tree, name string, dir bool) gitobj.Hash {
	for _, e := range t.Entries {
		if e.Name != name {
			continue
		}
		if (e.Mode == filemode.Dir) != dir {
			return gitobj.ZeroHash
		}
		return gitobj.Hash(e.Hash)
	}
	return gitobj.ZeroHash
}

// FuzzStartTrailerValue checks that an Uwf-Start value parses only to a
// start that formats back to the same value, and that a formatted start
// parses back to itself.
func FuzzStartTrailerValue(f *testing.F) {
	for _, s := range []string{"", "main", strings.Repeat("ab", 20), strings.Repeat("ab", 20) + " feat/x", strings.Repeat("0", 40), strings.Repeat("ab", 20) + " ", strings.Repeat("AB", 20) + " x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		st, ok := parseStartTrailerValue(v)
		if !ok {
			return
		}
		if st.commit.IsZero() {
			t.Fatalf("%q parsed to the zero commit", v)
		}
		back, fits := startTrailerValue(st)
		if fits && back != v {
			t.Fatalf("%q parsed to %v, which formats as %q", v, st, back)
		}
		if fits {
			again, ok := parseStartTrailerValue(back)
			if !ok || again != st {
				t.Fatalf("%q formatted from %v parses to %v %v", back, st, again, ok)
			}
		}
	})
}

// FuzzNextTrailerValue checks that an Uwf-Next value parses only to a
// claim of an ASCII role without spaces that formats back to the same
// value, and that reads back the same from a commit message as message
// writes it.
func FuzzNextTrailerValue(f *testing.F) {
	for _, s := range []string{"", "finish", "cancel", "role reviewer", "pause planner", "role ", "role a b", "pause", "finish now", "role $END", "role \x00", "role a\u00a0b", "pause x\u2028y", "role caf\u00e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c, ok := parseNextTrailerValue(v)
		if !ok {
			return
		}
		for _, r := range c.role {
			if r >= utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsControl(r) {
				t.Fatalf("%q parsed to the role %q", v, c.role)
			}
		}
		back, fits := nextTrailerValue(c.state())
		if !fits || back != v {
			t.Fatalf("%q parsed to %+v, which formats as %q (%v)", v, c, back, fits)
		}
		// Written into a message and read back, as a commit carries it.
		msg := message("s", "", Trailer{"Uwf-Thread", "T"}, Trailer{NextTrailer, back})
		if got := trailerValue(msg, NextTrailer); got != v {
			t.Fatalf("%q reads back from a message as %q", v, got)
		}
	})
}
