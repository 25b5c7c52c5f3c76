package gitobj_test

import (
	"fmt"
	"testing"

	gogit "github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// nodesTree is a tree object like a thread's nodes/ directory: n blobs
// named by alias-length names.
func nodesTree(b *testing.B, n int) *gitobj.MemoryObject {
	entries := make([]gitobj.TreeEntry, n)
	for i := range entries {
		entries[i] = gitobj.TreeEntry{Name: fmt.Sprintf("%013X", i*7919), Mode: gitobj.ModeRegular, Hash: gitobj.Hash{byte(i), byte(i >> 8)}}
	}
	gitobj.SortEntries(entries)
	o := &gitobj.MemoryObject{}
	if err := (&gitobj.Tree{Entries: entries}).Encode(o); err != nil {
		b.Fatal(err)
	}
	return o
}

// goGit copies o into go-git's in-memory object, for go-git's decoders.
func goGit(o *gitobj.MemoryObject) *gogit.MemoryObject {
	g := &gogit.MemoryObject{}
	g.SetType(gogit.ObjectType(o.Type()))
	g.Write(o.Bytes())
	return g
}

// The go-git rows are the decoder git-uwf used before gitobj.
func BenchmarkTreeDecodeLookup(b *testing.B) {
	for _, n := range []int{16, 10000} {
		o := nodesTree(b, n)
		name := fmt.Sprintf("%013X", (n/2)*7919)
		b.Run(fmt.Sprintf("gitobj/%d", n), func(b *testing.B) {
			for b.Loop() {
				t, err := gitobj.DecodeTree(o)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := t.Entry(name); !ok {
					b.Fatal("not found")
				}
			}
		})
		gg := goGit(o)
		b.Run(fmt.Sprintf("go-git/%d", n), func(b *testing.B) {
			for b.Loop() {
				var t object.Tree
				if err := t.Decode(gg); err != nil {
					b.Fatal(err)
				}
				if _, err := t.FindEntry(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCommitDecode(b *testing.B) {
	sig := gitobj.Signature{Name: "A U Thor", Email: "author@example.com"}
	c := &gitobj.Commit{ParentHashes: []gitobj.Hash{{1}}, Author: sig, Committer: sig,
		Message: "step 3: reviewer (approved)\n\nUwf-Thread: 01HZX\nUwf-Step: 3\n"}
	o := &gitobj.MemoryObject{}
	if err := c.Encode(o); err != nil {
		b.Fatal(err)
	}
	b.Run("gitobj", func(b *testing.B) {
		for b.Loop() {
			if _, err := gitobj.DecodeCommit(o); err != nil {
				b.Fatal(err)
			}
		}
	})
	gg := goGit(o)
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			var c object.Commit
			if err := c.Decode(gg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
