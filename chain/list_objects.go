package chain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// Where the list batch (list_batch.go) reads its objects: in this process
// (objects.ObjectReader) when the object database is one git-uwf can read
// whole, through `git cat-file` processes otherwise. Both answer the same
// names (an oid, or a path in a tree or commit) with the same
// gitrepo.Objects, in order, on a goroutine of their own, so the batch's stages overlap with
// the reading either way.

// objectAsker reads objects for the list batch.
type objectAsker interface {
	// AskEach queues names and calls each on every answer, in order, on
	// another goroutine; the Pending's Wait returns once all are handled.
	// An answer's Data is each's only while it runs (each parses it or
	// copies what it keeps), and its Name and OID may be left empty (the
	// names say which objects were asked for).
	AskEach(names nameList, each func(i int, o gitrepo.Object)) pendingObjects
	Close() error
}

// pendingObjects is one AskEach on its way. Wait returns no objects: each
// has seen them.
type pendingObjects interface {
	Wait() ([]gitrepo.Object, error)
}

// catFile is an objectAsker that is a `git cat-file` process.
type catFile struct{ b *gitrepo.Batch }

func (c catFile) AskEach(names nameList, each func(int, gitrepo.Object)) pendingObjects {
	return c.b.AskEach(names.strings(), each)
}

func (c catFile) Close() error { return c.b.Close() }

// newObjectAskers returns n askers (or none, when neither way can read):
// in-process readers, each with its own objects.ObjectReader sharing the
// pack indexes, when the object database has no alternates (which that reader does not follow), git
// cat-file processes otherwise.
func (r *Repo) newObjectAskers(ctx context.Context, n int) []objectAsker {
	dir := filepath.Join(r.Info.CommonDir, "objects")
	if inProcessReadable(dir, r.Git.Env) {
		or := objects.NewObjectReader(dir)
		out := make([]objectAsker, n)
		for i := range out {
			if i > 0 {
				or = or.Another()
			}
			out[i] = newInProcess(ctx, or)
		}
		return out
	}
	batches, err := r.Git.NewBatches(ctx, n)
	if err != nil {
		return nil
	}
	out := make([]objectAsker, len(batches))
	for i, b := range batches {
		out[i] = catFile{b}
	}
	return out
}

// inProcessReadable reports whether objects.ObjectReader can read every
// object of the database in dir: it has no alternates, and git is not told
// to look elsewhere (by the environment, or env, which git's runs add).
func inProcessReadable(dir string, env []string) bool {
	for _, v := range []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"} {
		if os.Getenv(v) != "" || slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, v+"=") }) {
			return false
		}
	}
	_, err := os.Lstat(filepath.Join(dir, "info", "alternates"))
	return os.IsNotExist(err)
}

// inProcess is an objectAsker that reads through an objects.ObjectReader
// of its own (which is not safe for concurrent use) on a goroutine of its
// own, one AskEach after another.
type inProcess struct {
	ctx   context.Context
	or    *objects.ObjectReader
	asks  chan *inProcessAsk
	ended chan struct{}
}

type inProcessAsk struct {
	names nameList
	each  func(int, gitrepo.Object)
	err   error
	ready chan struct{}
}

func (a *inProcessAsk) Wait() ([]gitrepo.Object, error) {
	<-a.ready
	return nil, a.err
}

func newInProcess(ctx context.Context, or *objects.ObjectReader) *inProcess {
	p := &inProcess{ctx: ctx, or: or, asks: make(chan *inProcessAsk, 64), ended: make(chan struct{})}
	go p.run()
	return p
}

func (p *inProcess) AskEach(names nameList, each func(int, gitrepo.Object)) pendingObjects {
	a := &inProcessAsk{names: names, each: each, ready: make(chan struct{})}
	p.asks <- a
	return a
}

// Close ends the reading goroutine once it has answered what was asked.
func (p *inProcess) Close() error {
	close(p.asks)
	<-p.ended
	return nil
}

func (p *inProcess) run() {
	defer close(p.ended)
	for a := range p.asks {
		for i, h := range a.names.oids {
			if a.err = p.ctx.Err(); a.err != nil {
				break
			}
			a.each(i, p.read(h, a.names.path(i)))
		}
		close(a.ready)
	}
}

// read answers one name, object h or the object at path in tree (or
// commit) h, as git cat-file would: the object, or Missing when it cannot
// be read here (the thread then takes the usual path, which words the
// error). Its Data is in the reader's scratch buffer, good until the next
// read, and its Name and OID are left empty: every object the batch reads
// is parsed by each, which copies what it keeps, so none needs an
// allocation per object.
func (p *inProcess) read(h gitobj.Hash, path string) gitrepo.Object {
	missing := gitrepo.Object{Missing: true}
	typ, data, err := p.or.ReadScratch(h)
	if err != nil {
		return missing
	}
	if path != "" {
		if typ == gitobj.CommitObject {
			// <commit>:<path> is a path in the commit's tree.
			line, _, _ := bytes.Cut(data, []byte{'\n'})
			if !hashField(line, "tree ", &h) {
				return missing
			}
			if typ, data, err = p.or.ReadScratch(h); err != nil {
				return missing
			}
		}
		for part := range strings.SplitSeq(path, "/") {
			if typ != gitobj.TreeObject {
				return missing
			}
			var ok bool
			if h, ok = rawTreeEntry(data, part); !ok {
				return missing
			}
			if typ, data, err = p.or.ReadScratch(h); err != nil {
				return missing
			}
		}
	}
	return gitrepo.Object{Type: typ.String(), Data: data}
}

// rawTreeEntry finds the entry called name in a tree object ("<octal mode>
// <name>\0<20-byte oid>" entries); false when there is none or the tree
// is malformed.
func rawTreeEntry(tree []byte, name string) (gitobj.Hash, bool) {
	var h gitobj.Hash
	for len(tree) > 0 {
		sp := bytes.IndexByte(tree, ' ')
		if sp <= 0 {
			return h, false
		}
		nul := bytes.IndexByte(tree[sp+1:], 0)
		if nul < 0 || len(tree) < sp+1+nul+1+len(h) {
			return h, false
		}
		entry := tree[sp+1 : sp+1+nul]
		oid := tree[sp+1+nul+1 : sp+1+nul+1+len(h)]
		tree = tree[sp+1+nul+1+len(h):]
		if string(entry) == name {
			copy(h[:], oid)
			return h, true
		}
	}
	return h, false
}
