// Package gitobj holds git's object ids and object types, and reads and
// writes git's commit, tree and tag objects through a Storer (objects.DB).
//
// It stands in for go-git's plumbing and plumbing/object packages, whose
// dependencies' initialisation (OpenPGP curve tables, a collision-detecting
// SHA-1 that probes the CPU, encoding/gob, …) ran in every git-uwf process,
// though git-uwf neither signs nor verifies commits. Ids are computed with
// crypto/sha1: the same ids as git's collision-detecting SHA-1 gives for
// every object but a crafted collision. This package decodes
// what git-uwf reads (the tree, the parents, author, committer and message
// of a commit; a tree's entries; a tag's target) and encodes commits and
// trees in git's canonical layout, byte for byte as git does.
package gitobj

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Errors of decoding and of tree lookups.
var (
	ErrMalformed         = errors.New("malformed git object")
	ErrEntryNotFound     = errors.New("entry not found")
	ErrDirectoryNotFound = errors.New("directory not found")
	ErrUnsorted          = errors.New("tree entries are not in git's order")
)

// Storer reads and writes objects by id; objects.DB is one.
type Storer interface {
	// EncodedObject reads an object of type t (AnyObject: of
	// any type); a missing object, or one of another type, is
	// ErrObjectNotFound.
	EncodedObject(t ObjectType, h Hash) (EncodedObject, error)
	// HasEncodedObject returns nil when h is stored and
	// ErrObjectNotFound when it is not.
	HasEncodedObject(h Hash) error
	// NewEncodedObject returns an empty object for SetEncodedObject.
	NewEncodedObject() EncodedObject
	// SetEncodedObject stores an object and returns its id.
	SetEncodedObject(o EncodedObject) (Hash, error)
}

// read returns the content of an object of the wanted type.
func read(o EncodedObject, want ObjectType) ([]byte, error) {
	if o.Type() != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", o.Hash(), o.Type(), want)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, o.Size())
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read %s %s: %w", want, o.Hash(), err)
	}
	return buf, nil
}

// write encodes an object with content b.
func write(o EncodedObject, typ ObjectType, b []byte) error {
	o.SetType(typ)
	o.SetSize(int64(len(b)))
	w, err := o.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// Signature is the author or committer of a commit.
type Signature struct {
	Name, Email string
	When        time.Time
}

// ParseSignature reads "Name <email> <unix seconds> <±hhmm>". Like git,
// and like go-git, it is lenient: what cannot be read stays zero.
func ParseSignature(b []byte) Signature {
	var s Signature
	open, end := bytes.LastIndexByte(b, '<'), bytes.LastIndexByte(b, '>')
	if open < 0 || end < open {
		return s
	}
	s.Name = string(bytes.Trim(b[:open], " "))
	s.Email = string(b[open+1 : end])
	s.When = signatureTime(b, end)
	return s
}

// SignatureTime is ParseSignature(b).When, without a copy of the name and
// the email: for readers of thousands of commits that need only the time.
func SignatureTime(b []byte) time.Time {
	open, end := bytes.LastIndexByte(b, '<'), bytes.LastIndexByte(b, '>')
	if open < 0 || end < open {
		return time.Time{}
	}
	return signatureTime(b, end)
}

// signatureTime reads the time after the '>' at end of a signature.
func signatureTime(b []byte, end int) time.Time {
	if end+2 >= len(b) {
		return time.Time{}
	}
	rest := b[end+2:]
	secs, zone, _ := bytes.Cut(rest, []byte{' '})
	ts, err := strconv.ParseInt(string(secs), 10, 64)
	if err != nil {
		return time.Time{}
	}
	when := time.Unix(ts, 0).UTC()
	if len(zone) < 5 {
		return when
	}
	hours, err1 := strconv.ParseInt(string(zone[:3]), 10, 64)
	mins, err2 := strconv.ParseInt(string(zone[3:5]), 10, 64)
	if err1 != nil || err2 != nil {
		return when
	}
	if hours < 0 {
		mins = -mins
	}
	return when.In(time.FixedZone("", int(hours*3600+mins*60)))
}

// appendTo appends the signature as a commit header writes it.
func (s Signature) appendTo(b []byte) []byte {
	b = append(b, s.Name...)
	b = append(b, " <"...)
	b = append(b, s.Email...)
	b = append(b, "> "...)
	u := s.When.Unix()
	if u < 0 {
		u = 0
	}
	b = strconv.AppendInt(b, u, 10)
	b = append(b, ' ')
	return s.When.AppendFormat(b, "-0700")
}

// Commit is what git-uwf reads and writes of a commit. Other headers
// (encoding, gpgsig, mergetag, …) are skipped when reading and never
// written.
type Commit struct {
	Hash              Hash // of the object read; zero for a new commit
	TreeHash          Hash
	ParentHashes      []Hash
	Author, Committer Signature
	Message           string
}

// GetCommit reads a commit from s; a missing object is
// ErrObjectNotFound.
func GetCommit(s Storer, h Hash) (*Commit, error) {
	o, err := s.EncodedObject(CommitObject, h)
	if err != nil {
		return nil, err
	}
	return DecodeCommit(o)
}

// DecodeCommit decodes a commit object.
func DecodeCommit(o EncodedObject) (*Commit, error) {
	b, err := read(o, CommitObject)
	if err != nil {
		return nil, err
	}
	c, err := ParseCommit(b)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", o.Hash(), err)
	}
	c.Hash = o.Hash()
	return c, nil
}

// ParseCommit decodes the content of a commit object. The tree header
// must come first; parents are the "parent" lines right after it; author
// and committer are read where git writes them (a header elsewhere is
// ignored, as git and go-git ignore it). The message is everything after
// the first empty line.
func ParseCommit(b []byte) (*Commit, error) {
	c := &Commit{}
	head := b
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 {
		head, c.Message = b[:i+1], string(b[i+2:])
	}
	line, head := nextLine(head)
	v, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok {
		return nil, fmt.Errorf("%w: the tree header is not first", ErrMalformed)
	}
	var err error
	if c.TreeHash, err = parseHash(v, "tree"); err != nil {
		return nil, err
	}
	line, head = nextLine(head)
	for {
		v, ok := bytes.CutPrefix(line, []byte("parent "))
		if !ok {
			break
		}
		p, err := parseHash(v, "parent")
		if err != nil {
			return nil, err
		}
		c.ParentHashes = append(c.ParentHashes, p)
		line, head = nextLine(head)
	}
	if v, ok := bytes.CutPrefix(line, []byte("author ")); ok {
		c.Author = ParseSignature(v)
		line, _ = nextLine(head)
	}
	if v, ok := bytes.CutPrefix(line, []byte("committer ")); ok {
		c.Committer = ParseSignature(v)
	}
	return c, nil
}

// nextLine splits off the first line of b, without its newline.
func nextLine(b []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(b, []byte{'\n'})
	return line, rest
}

// parseHash reads a header's object id: 40 hex digits, of either case, as
// IsHash accepts them, decoded in place (for every parent and tree of every
// commit a walk reads).
func parseHash(v []byte, header string) (Hash, error) {
	var h Hash
	if len(v) != 2*len(h) {
		return ZeroHash, fmt.Errorf("%w: bad %s hash %q", ErrMalformed, header, v)
	}
	if _, err := hex.Decode(h[:], v); err != nil {
		return ZeroHash, fmt.Errorf("%w: bad %s hash %q", ErrMalformed, header, v)
	}
	return h, nil
}

// Bytes returns the commit object's content in git's layout.
func (c *Commit) Bytes() []byte {
	b := make([]byte, 0, 256+len(c.Message))
	b = append(b, "tree "...)
	b = append(b, c.TreeHash.String()...)
	b = append(b, '\n')
	for _, p := range c.ParentHashes {
		b = append(b, "parent "...)
		b = append(b, p.String()...)
		b = append(b, '\n')
	}
	b = append(b, "author "...)
	b = c.Author.appendTo(b)
	b = append(b, "\ncommitter "...)
	b = c.Committer.appendTo(b)
	b = append(b, "\n\n"...)
	return append(b, c.Message...)
}

// Encode writes the commit into o.
func (c *Commit) Encode(o EncodedObject) error {
	return write(o, CommitObject, c.Bytes())
}

// TreeEntry is one entry of a tree.
type TreeEntry struct {
	Name string
	Mode FileMode
	Hash Hash
}

// compareNames orders tree entry names as git does: a directory's name as
// if it ended in a slash. It does not allocate.
func compareNames(a string, aDir bool, b string, bDir bool) int {
	if !aDir && !bDir {
		return strings.Compare(a, b)
	}
	for i := 0; ; i++ {
		ca, okA := nameByte(a, aDir, i)
		cb, okB := nameByte(b, bDir, i)
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		case ca != cb:
			return int(ca) - int(cb)
		}
	}
}

// nameByte is byte i of name, with a slash after a directory's name.
func nameByte(name string, dir bool, i int) (byte, bool) {
	switch {
	case i < len(name):
		return name[i], true
	case dir && i == len(name):
		return '/', true
	}
	return 0, false
}

func compareEntries(a, b *TreeEntry) int {
	return compareNames(a.Name, a.Mode == ModeDir, b.Name, b.Mode == ModeDir)
}

// Tree is a decoded tree object.
type Tree struct {
	Hash    Hash // of the object read; zero for a new tree
	Entries []TreeEntry
	sorted  bool // Entries are in git's order, so lookups can bisect
}

// GetTree reads a tree from s; a missing object is
// ErrObjectNotFound.
func GetTree(s Storer, h Hash) (*Tree, error) {
	o, err := s.EncodedObject(TreeObject, h)
	if err != nil {
		return nil, err
	}
	return DecodeTree(o)
}

// DecodeTree decodes a tree object.
func DecodeTree(o EncodedObject) (*Tree, error) {
	b, err := read(o, TreeObject)
	if err != nil {
		return nil, err
	}
	t, err := ParseTree(b)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", o.Hash(), err)
	}
	t.Hash = o.Hash()
	return t, nil
}

// ParseTree decodes the content of a tree object: entries of
// "<octal mode> <name>\0<20-byte oid>". Modes are read as git reads them
// (any 04xxxx is a directory, 100xxx a regular or executable file, 120xxx
// a symlink, anything else a submodule).
func ParseTree(data []byte) (*Tree, error) {
	t := &Tree{sorted: true}
	// One string for the whole tree: entry names are slices of it, not an
	// allocation each.
	b := string(data)
	for len(b) > 0 {
		sp := strings.IndexByte(b, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: entry without a mode", ErrMalformed)
		}
		mode, err := strconv.ParseUint(b[:sp], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: mode %q", ErrMalformed, b[:sp])
		}
		b = b[sp+1:]
		nul := strings.IndexByte(b, 0)
		if nul < 0 {
			return nil, fmt.Errorf("%w: entry name without its terminator", ErrMalformed)
		}
		if nul == 0 {
			return nil, fmt.Errorf("%w: empty entry name", ErrMalformed)
		}
		if len(b) < nul+1+len(ZeroHash) {
			return nil, fmt.Errorf("%w: truncated object id", ErrMalformed)
		}
		e := TreeEntry{Name: b[:nul], Mode: canonicalMode(FileMode(mode))}
		copy(e.Hash[:], b[nul+1:])
		b = b[nul+1+len(e.Hash):]
		if n := len(t.Entries); t.sorted && n > 0 && compareEntries(&t.Entries[n-1], &e) > 0 {
			t.sorted = false
		}
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

func canonicalMode(m FileMode) FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return ModeDir
	case 0o100000:
		if m&0o111 != 0 {
			return ModeExecutable
		}
		return ModeRegular
	case 0o120000:
		return ModeSymlink
	}
	return ModeSubmodule
}

// SortEntries puts entries in git's order.
func SortEntries(entries []TreeEntry) {
	slices.SortFunc(entries, func(a, b TreeEntry) int { return compareEntries(&a, &b) })
}

// Bytes returns the tree object's content. The entries must be in git's
// order (SortEntries) and their names must not hold a NUL or a slash.
func (t *Tree) Bytes() ([]byte, error) {
	b := make([]byte, 0, len(t.Entries)*48)
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Name == "" || strings.ContainsAny(e.Name, "\x00/") {
			return nil, fmt.Errorf("%w: tree entry name %q", ErrMalformed, e.Name)
		}
		if i > 0 && compareEntries(&t.Entries[i-1], e) > 0 {
			return nil, ErrUnsorted
		}
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	return b, nil
}

// Encode writes the tree into o.
func (t *Tree) Encode(o EncodedObject) error {
	b, err := t.Bytes()
	if err != nil {
		return err
	}
	return write(o, TreeObject, b)
}

// Entry returns the entry called name, the first one if a malformed tree
// has several.
func (t *Tree) Entry(name string) (TreeEntry, bool) {
	if !t.sorted {
		for _, e := range t.Entries {
			if e.Name == name {
				return e, true
			}
		}
		return TreeEntry{}, false
	}
	// A file sorts as name, a directory as name + "/".
	for _, dir := range [2]bool{false, true} {
		i := sort.Search(len(t.Entries), func(i int) bool {
			e := &t.Entries[i]
			return compareNames(e.Name, e.Mode == ModeDir, name, dir) >= 0
		})
		if i < len(t.Entries) && t.Entries[i].Name == name {
			return t.Entries[i], true
		}
	}
	return TreeEntry{}, false
}

// FindEntry looks up a slash-separated path below t, reading the subtrees
// on the way from s. A missing last component is ErrEntryNotFound, a
// missing or non-directory one before it ErrDirectoryNotFound.
func FindEntry(s Storer, t *Tree, path string) (TreeEntry, error) {
	parts := strings.Split(path, "/")
	for _, dir := range parts[:len(parts)-1] {
		e, ok := t.Entry(dir)
		if !ok || e.Mode != ModeDir {
			return TreeEntry{}, ErrDirectoryNotFound
		}
		var err error
		if t, err = GetTree(s, e.Hash); err != nil {
			return TreeEntry{}, err
		}
	}
	e, ok := t.Entry(parts[len(parts)-1])
	if !ok {
		return TreeEntry{}, ErrEntryNotFound
	}
	return e, nil
}

// Subtree reads the tree at a slash-separated path below t;
// ErrDirectoryNotFound when there is none.
func Subtree(s Storer, t *Tree, path string) (*Tree, error) {
	e, err := FindEntry(s, t, path)
	if err != nil {
		if errors.Is(err, ErrEntryNotFound) {
			return nil, ErrDirectoryNotFound
		}
		return nil, err
	}
	sub, err := GetTree(s, e.Hash)
	if errors.Is(err, ErrObjectNotFound) {
		return nil, ErrDirectoryNotFound
	}
	return sub, err
}

// TagTarget returns the object an annotated tag points at.
func TagTarget(o EncodedObject) (Hash, error) {
	b, err := read(o, TagObject)
	if err != nil {
		return ZeroHash, err
	}
	line, _ := nextLine(b)
	v, ok := bytes.CutPrefix(line, []byte("object "))
	if !ok {
		return ZeroHash, fmt.Errorf("tag %s: %w: the object header is not first", o.Hash(), ErrMalformed)
	}
	return parseHash(v, "object")
}
