package chain

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/objects"
)

// Parse helpers of the list batch path (list_batch.go); no state.

// Parsing the few fields a summary needs from raw commit and tree objects,
// for the batch path of summarizeMany. Only git's canonical layout is
// accepted; anything else is refused, and the thread is derived the usual
// way through the object store.

// commitHead is what a summary needs of a commit.
type commitHead struct {
	tree, parent gitobj.Hash
	parents      int
	when         time.Time
	// branch is the Uwf-Branch trailer of a commit without parents (a
	// start commit); "" for other commits.
	branch string
	// thread is true when the message has an Uwf-Thread trailer line, as
	// every commit of a thread's chain does.
	thread bool
	// start is what the Uwf-Start trailer of a commit with parents claims
	// (start_trailer.go), when claimed is true.
	start   startInfo
	claimed bool
	// next is what the Uwf-Next trailer of a commit with parents claims of
	// the thread's state (next_trailer.go), and node the alias its
	// Uwf-Node trailer names, when nextClaimed is true.
	next        nextClaim
	node        objects.Alias
	nextClaimed bool
}

// parseCommit reads the tree, the first parent and the committer time of
// a commit in git's canonical layout: a tree line, parent lines, an author
// line and a committer line. The time is decoded as gitobj decodes it, and
// the message is what follows the first empty line, as gitobj has it.
func parseCommit(o gitrepo.Object) (commitHead, bool) {
	var c commitHead
	if o.Missing || o.Type != "commit" {
		return c, false
	}
	data := o.Data
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || !hashField(line, "tree ", &c.tree) {
		return c, false
	}
	for first := true; ; first = false {
		if line, rest, ok = bytes.Cut(rest, []byte{'\n'}); !ok {
			return c, false
		}
		if !bytes.HasPrefix(line, []byte("parent ")) {
			break
		}
		var p gitobj.Hash
		if !hashField(line, "parent ", &p) {
			return c, false
		}
		if first {
			c.parent = p
		}
		c.parents++
	}
	if !bytes.HasPrefix(line, []byte("author ")) {
		return c, false
	}
	if line, _, ok = bytes.Cut(rest, []byte{'\n'}); !ok || !bytes.HasPrefix(line, []byte("committer ")) {
		return c, false
	}
	c.when = gitobj.SignatureTime(line[len("committer "):])
	if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
		msg := data[i+1:]
		c.thread = bytes.Contains(msg, []byte("\n"+threadTrailer+": "))
		// Trailers are read in place and copied out: a copy of the
		// message would be garbage at once, or kept whole by the branch.
		inPlace := unsafe.String(unsafe.SliceData(msg[1:]), len(msg)-1)
		switch {
		case c.parents == 0:
			c.branch = strings.Clone(trailerValue(inPlace, BranchTrailer))
		case bytes.Contains(msg, []byte("\n"+StartTrailer+": ")):
			c.start, c.claimed = claimedStart(inPlace)
			c.start.branch = strings.Clone(c.start.branch)
		}
		if c.parents > 0 && bytes.Contains(msg, []byte("\n"+NextTrailer+": ")) {
			c.next, c.node, c.nextClaimed = claimedNext(inPlace)
			c.next.role, c.node = strings.Clone(c.next.role), objects.Alias(strings.Clone(string(c.node)))
		}
	}
	return c, true
}

// hashField parses "<prefix><40 hex digits>" into h.
func hashField(line []byte, prefix string, h *gitobj.Hash) bool {
	if len(line) != len(prefix)+2*len(h) || string(line[:len(prefix)]) != prefix {
		return false
	}
	for _, b := range line[len(prefix):] {
		if b >= 'A' && b <= 'F' {
			return false // git writes lower case; the object store would accept it, so leave it to that path
		}
	}
	_, err := hex.Decode(h[:], line[len(prefix):])
	return err == nil
}

// rootEntries are the entries of a thread commit's root tree that a
// summary needs; zero when absent or of the wrong kind.
type rootEntries struct {
	node, start, workflow, nodes gitobj.Hash
}

// parseRootTree reads a tree object ("<octal mode> <name>\0<20-byte oid>"
// entries). As treeHash does, the first entry of a name counts: node and
// start must not be directories, workflow and nodes must be.
func parseRootTree(o gitrepo.Object) (rootEntries, bool) {
	var r rootEntries
	if o.Missing || o.Type != "tree" {
		return r, false
	}
	data := o.Data
	var seen [4]bool
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return r, false
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return r, false
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || len(data) < sp+1+nul+1+20 {
			return r, false
		}
		name := data[sp+1 : sp+1+nul]
		var oid gitobj.Hash
		copy(oid[:], data[sp+1+nul+1:])
		data = data[sp+1+nul+1+20:]
		dir := gitobj.FileMode(mode) == gitobj.ModeDir
		for i, want := range [...]struct {
			name string
			dir  bool
			into *gitobj.Hash
		}{{"node", false, &r.node}, {"start", false, &r.start}, {"workflow", true, &r.workflow}, {"nodes", true, &r.nodes}} {
			if seen[i] || string(name) != want.name {
				continue
			}
			seen[i] = true
			if dir == want.dir {
				*want.into = oid
			}
		}
	}
	return r, true
}
