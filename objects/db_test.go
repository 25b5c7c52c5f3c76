package objects

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// putBlob writes data as a blob through db.
func putBlob(t *testing.T, db *DB, data string) gitobj.Hash {
	t.Helper()
	obj := db.NewEncodedObject()
	obj.SetType(gitobj.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	h, err := db.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDBLooseWrite checks that a loose object is written as git writes
// one: git reads it back, fsck finds nothing wrong, the file is read-only
// and no temporary file is left behind.
func TestDBLooseWrite(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	db := mustStorer(t, gitDir)
	// Random bytes do not compress; a stream of them spans several
	// deflate blocks, as does anything over 32 KiB.
	random := make([]byte, 100_000)
	rand.NewChaCha8([32]byte{1}).Read(random)
	// With its 11-byte header, 32756 bytes of content make a stream of
	// exactly one stateless deflate block, 32757 one byte more.
	contents := []string{"", "one\n", "nul\x00inside\xff", strings.Repeat("a", 32756), strings.Repeat("a", 32757),
		strings.Repeat("large and compressible ", 50000), string(random)}
	for _, c := range contents {
		h := putBlob(t, db, c)
		if want := gitobj.ComputeHash(gitobj.BlobObject, []byte(c)); h != want {
			t.Fatalf("SetEncodedObject = %s, want %s", h, want)
		}
		if got := git(t, dir, "cat-file", "-t", h.String()); got != "blob" {
			t.Fatalf("git cat-file -t %s = %q", h, got)
		}
		if got := git(t, dir, "cat-file", "-s", h.String()); got != strconv.Itoa(len(c)) {
			t.Fatalf("git cat-file -s %s = %s, want %d", h, got, len(c))
		}
		fi, err := os.Stat(db.loosePath(h))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o222 != 0 {
			t.Fatalf("loose object mode %v: want read-only", fi.Mode())
		}
		// Read back by another DB, which has no cached copy.
		obj, err := mustStorer(t, gitDir).EncodedObject(gitobj.BlobObject, h)
		if err != nil {
			t.Fatal(err)
		}
		if got := objectBytes(t, obj); string(got) != c {
			t.Fatalf("read back %d bytes, want %d", len(got), len(c))
		}
	}
	// Written again: already there, not rewritten.
	putBlob(t, db, "one\n")
	git(t, dir, "fsck", "--strict")
	tmp, _ := filepath.Glob(filepath.Join(gitDir, "objects", "*", "tmp_obj_*"))
	if len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// TestDBWritesBesideGC writes objects from several goroutines while git
// gc packs and prunes them (and removes the emptied fan-out directories):
// every write succeeds and every object stays readable.
func TestDBWritesBesideGC(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	db := mustStorer(t, gitDir)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			gitQuiet(dir, "repack", "-a", "-d", "-q")
			gitQuiet(dir, "prune-packed")
		}
	}()
	var mu sync.Mutex
	var oids []gitobj.Hash
	var writers sync.WaitGroup
	for w := range 3 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := range 60 {
				h := putBlob(t, db, strings.Repeat(strconv.Itoa(w), i+1))
				mu.Lock()
				oids = append(oids, h)
				mu.Unlock()
			}
		}()
	}
	writers.Wait()
	close(stop)
	wg.Wait()
	fresh := mustStorer(t, gitDir)
	for _, h := range oids {
		if _, err := fresh.EncodedObject(gitobj.BlobObject, h); err != nil {
			t.Fatalf("read %s after gc: %v", h, err)
		}
	}
	git(t, dir, "fsck", "--strict")
}

// gitQuiet runs git, ignoring its failures (a gc racing another gc).
func gitQuiet(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	_ = cmd.Run()
}

// TestDBReadsThroughGit checks the reads the in-process readers leave to
// git cat-file: a pack with a version 1 index, and an object that only an
// alternate object directory holds.
func TestDBReadsThroughGit(t *testing.T) {
	t.Run("version 1 index", func(t *testing.T) {
		gitDir, oids := packedRepo(t, 20, 1)
		db := mustStorer(t, gitDir)
		for i, h := range oids {
			if err := db.HasEncodedObject(h); err != nil {
				t.Fatalf("HasEncodedObject(%s): %v", h, err)
			}
			obj, err := db.EncodedObject(gitobj.BlobObject, h)
			if err != nil {
				t.Fatalf("EncodedObject(%s): %v", h, err)
			}
			if got, want := objectBytes(t, obj), "blob "+strconv.Itoa(i)+"\n"; string(got) != want {
				t.Fatalf("EncodedObject(%s) = %q, want %q", h, got, want)
			}
		}
		missing := gitobj.ComputeHash(gitobj.BlobObject, []byte("not stored"))
		if err := db.HasEncodedObject(missing); !errors.Is(err, gitobj.ErrObjectNotFound) {
			t.Fatalf("HasEncodedObject(missing) = %v", err)
		}
	})
	t.Run("alternate", func(t *testing.T) {
		_, srcGit := newGitRepo(t)
		h := putBlob(t, mustStorer(t, srcGit), "lent\n")
		_, gitDir := newGitRepo(t)
		alt := filepath.Join(gitDir, "objects", "info", "alternates")
		if err := os.WriteFile(alt, []byte(filepath.Join(srcGit, "objects")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		obj, err := mustStorer(t, gitDir).EncodedObject(gitobj.AnyObject, h)
		if err != nil {
			t.Fatalf("EncodedObject through the alternate: %v", err)
		}
		if got := objectBytes(t, obj); string(got) != "lent\n" {
			t.Fatalf("read %q", got)
		}
	})
}

// TestDBDamagedLoose checks that a damaged loose object is an error, not
// a missing or wrong object.
func TestDBDamagedLoose(t *testing.T) {
	_, gitDir := newGitRepo(t)
	db := mustStorer(t, gitDir)
	const content = "to be damaged\n"
	h := putBlob(t, db, content)
	path := db.loosePath(h)
	tests := damagedLooseFiles(t, content)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.file, 0o644); err != nil {
				t.Fatal(err)
			}
			obj, err := mustStorer(t, gitDir).EncodedObject(gitobj.AnyObject, h)
			if err == nil {
				t.Fatalf("damaged object read as %q", objectBytes(t, obj))
			}
			if errors.Is(err, gitobj.ErrObjectNotFound) {
				t.Fatalf("damaged object reported missing: %v", err)
			}
		})
	}
}

// TestDBPacksBeforeLoose: an object that is both packed and loose is read
// from its pack, as git reads it, so a damaged loose copy beside a good
// packed one (a crash while a loose write was being replaced, a disk
// error) does not make it unreadable; whether it is stored is answered
// from the pack too.
func TestDBPacksBeforeLoose(t *testing.T) {
	dir, gitDir := newGitRepo(t)
	db := mustStorer(t, gitDir)
	h := putBlob(t, db, "packed and loose\n")
	path := db.loosePath(h)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Pack it, keeping no loose copy, then put back a damaged one.
	packObjects(t, dir, h)
	git(t, dir, "prune-packed")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("repack left the loose object: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	wantStored(t, gitDir, h, "packed and loose\n")
}

// wantStored checks that a DB opened on gitDir reads h as content, and
// that another (whose cache has not seen h) says it is stored.
func wantStored(t *testing.T, gitDir string, h gitobj.Hash, content string) {
	t.Helper()
	obj, err := mustStorer(t, gitDir).EncodedObject(gitobj.AnyObject, h)
	if err != nil {
		t.Fatalf("read %s: %v", h, err)
	}
	if got := string(objectBytes(t, obj)); got != content {
		t.Fatalf("read %s as %q, want %q", h, got, content)
	}
	if err := mustStorer(t, gitDir).HasEncodedObject(h); err != nil {
		t.Fatalf("HasEncodedObject(%s): %v", h, err)
	}
}

// packObjects writes a pack of the objects hs into dir's repository.
func packObjects(t *testing.T, dir string, hs ...gitobj.Hash) {
	t.Helper()
	var in strings.Builder
	for _, h := range hs {
		in.WriteString(h.String() + "\n")
	}
	cmd := exec.Command("git", "pack-objects", "-q", filepath.Join(".git", "objects", "pack", "pack"))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git pack-objects: %v\n%s", err, out)
	}
}

// TestDBLooseBesideAnUnreadableIndex: a pack index this reader does not
// handle (here a damaged one) does not send reads and existence checks of
// loose objects to git; they are answered from the loose files, as they
// were before the packs were looked at first. git is taken off PATH, so
// a read that starts it fails.
func TestDBLooseBesideAnUnreadableIndex(t *testing.T) {
	_, gitDir := newGitRepo(t)
	h := putBlob(t, mustStorer(t, gitDir), "loose beside a damaged index\n")
	idx := filepath.Join(gitDir, "objects", "pack", "pack-"+strings.Repeat("0", 40)+".idx")
	if err := os.WriteFile(idx, []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "")
	db := mustStorer(t, gitDir)
	if found, err := db.packs.has(h); found || !errors.Is(err, errIdxFormat) {
		t.Fatalf("packs.has = %v, %v; want the index unreadable", found, err)
	}
	wantStored(t, gitDir, h, "loose beside a damaged index\n")
}

// FuzzDecodeLoose feeds decodeLoose loose files, raw or compressed: it
// either fails or returns an object whose loose encoding, written by
// deflateLoose, decodes to the same object, and whose header, for a
// compressed input, is what the input said.
func FuzzDecodeLoose(f *testing.F) {
	for _, s := range []string{"blob 3\x00abc", "tree 0\x00", "commit 5\x00tree ", "blob 3\x00abcd", "blob 03\x00abc", "blob -1\x00", "tag 1", ""} {
		f.Add([]byte(s), true)
	}
	f.Add([]byte{0x78, 0x9c, 0x03, 0x00}, false)
	f.Fuzz(func(t *testing.T, b []byte, compress bool) {
		file := b
		if compress {
			file = zlibBytes(t, b)
		}
		obj, err := decodeLoose(file)
		if err != nil {
			return
		}
		if !isBaseType(obj.Type()) {
			t.Fatalf("decodeLoose(%q) = %s", b, obj.Type())
		}
		if compress {
			head, content, _ := bytes.Cut(b, []byte{0})
			if want := fmt.Sprintf("%s %d", obj.Type(), obj.Size()); string(head) != want {
				t.Fatalf("decodeLoose(%q) read header %q as %q", b, head, want)
			}
			if !bytes.Equal(content, obj.Bytes()) {
				t.Fatalf("decodeLoose(%q) content %q", b, obj.Bytes())
			}
		}
		again, err := decodeLoose(deflateLoose(obj))
		if err != nil {
			t.Fatalf("decodeLoose(deflateLoose(%s %q)): %v", obj.Type(), obj.Bytes(), err)
		}
		if again.Type() != obj.Type() || !bytes.Equal(again.Bytes(), obj.Bytes()) {
			t.Fatalf("round trip of %s %q gave %s %q", obj.Type(), obj.Bytes(), again.Type(), again.Bytes())
		}
	})
}
