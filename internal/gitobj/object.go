package gitobj

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Hash is the SHA-1 id of a git object.
type Hash [20]byte

// ZeroHash is the all-zero id: no object.
var ZeroHash Hash

// NewHash decodes a hexadecimal object id. What cannot be decoded (a
// string that is not hex, or too short) leaves the rest zero; IsHash says
// whether s is a whole id.
func NewHash(s string) Hash {
	b, _ := hex.DecodeString(s)
	var h Hash
	copy(h[:], b)
	return h
}

// IsHash reports whether s is a SHA-1 object id in hexadecimal.
func IsHash(s string) bool {
	if len(s) != 2*len(Hash{}) {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// ComputeHash returns the id of an object of type t with the given content:
// the SHA-1 of "<type> <size>\x00" and the content, as git computes it.
func ComputeHash(t ObjectType, content []byte) Hash {
	d := sha1.New()
	d.Write(t.header(len(content)))
	d.Write(content)
	var h Hash
	d.Sum(h[:0])
	return h
}

// IsZero reports whether h is ZeroHash.
func (h Hash) IsZero() bool { return h == ZeroHash }

// String returns h in lower-case hexadecimal, in one allocation (the
// string): hex.EncodeToString makes two, which showed in a cold listing
// that formats two ids a thread.
func (h Hash) String() string {
	var b [2 * len(h)]byte
	hex.Encode(b[:], h[:])
	return string(b[:])
}

// ObjectType is the type of a git object, numbered as in a pack.
type ObjectType int8

// Object types. The delta types occur only in packs; AnyObject asks a
// Storer for an object of any type.
const (
	InvalidObject  ObjectType = 0
	CommitObject   ObjectType = 1
	TreeObject     ObjectType = 2
	BlobObject     ObjectType = 3
	TagObject      ObjectType = 4
	OFSDeltaObject ObjectType = 6
	REFDeltaObject ObjectType = 7
	AnyObject      ObjectType = -127
)

// String returns the type's name as git writes it ("commit", "blob", …).
func (t ObjectType) String() string {
	switch t {
	case CommitObject:
		return "commit"
	case TreeObject:
		return "tree"
	case BlobObject:
		return "blob"
	case TagObject:
		return "tag"
	case OFSDeltaObject:
		return "ofs-delta"
	case REFDeltaObject:
		return "ref-delta"
	case AnyObject:
		return "any"
	}
	return "unknown"
}

// Valid reports whether t is the type of a stored object: a commit, tree,
// blob or tag.
func (t ObjectType) Valid() bool { return t >= CommitObject && t <= TagObject }

// header returns "<type> <size>\x00", which starts a loose object and the
// input of its id.
func (t ObjectType) header(size int) []byte {
	b := append([]byte(t.String()), ' ')
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, 0)
}

// ErrInvalidType is the error of ParseObjectType for a name that is not a
// type.
var ErrInvalidType = errors.New("invalid object type")

// ParseObjectType returns the type git names name.
func ParseObjectType(name string) (ObjectType, error) {
	for _, t := range []ObjectType{CommitObject, TreeObject, BlobObject, TagObject, OFSDeltaObject, REFDeltaObject} {
		if t.String() == name {
			return t, nil
		}
	}
	return InvalidObject, fmt.Errorf("%q: %w", name, ErrInvalidType)
}

// ErrObjectNotFound is returned for an object that is not stored (or is
// not of the type asked for).
var ErrObjectNotFound = errors.New("object not found")

// EncodedObject is a git object: its type and content.
type EncodedObject interface {
	Hash() Hash
	Type() ObjectType
	SetType(ObjectType)
	Size() int64
	SetSize(int64)
	Reader() (io.ReadCloser, error)
	Writer() (io.WriteCloser, error)
}

// MemoryObject is an EncodedObject held in memory. Its id is computed when
// first asked for, once the content is complete; share an object between
// goroutines only after that.
type MemoryObject struct {
	t    ObjectType
	h    Hash
	cont []byte
	sz   int64
}

// Hash returns the id of the object's type and content; ZeroHash when a
// size set with SetSize is not the length of the content.
func (o *MemoryObject) Hash() Hash {
	if o.h == ZeroHash && int64(len(o.cont)) == o.sz {
		o.h = ComputeHash(o.t, o.cont)
	}
	return o.h
}

// Type returns the object's type.
func (o *MemoryObject) Type() ObjectType { return o.t }

// SetType sets the object's type.
func (o *MemoryObject) SetType(t ObjectType) { o.t = t }

// Size returns the object's size.
func (o *MemoryObject) Size() int64 { return o.sz }

// SetSize sets the object's size, before its content is written.
func (o *MemoryObject) SetSize(s int64) { o.sz = s }

// Bytes returns the object's content; the caller must not modify it.
func (o *MemoryObject) Bytes() []byte { return o.cont }

// Reader returns a reader of the object's content.
func (o *MemoryObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.cont)), nil
}

// Writer returns the object itself: what is written to it is appended to
// its content.
func (o *MemoryObject) Writer() (io.WriteCloser, error) { return o, nil }

// Write appends p to the object's content and sets its size to match.
func (o *MemoryObject) Write(p []byte) (int, error) {
	o.cont = append(o.cont, p...)
	o.sz = int64(len(o.cont))
	o.h = ZeroHash // computed again when asked for
	return len(p), nil
}

// Close does nothing: a MemoryObject needs no closing.
func (o *MemoryObject) Close() error { return nil }

// FileMode is the mode of a tree entry.
type FileMode uint32

// The modes git writes in trees, and ModeDeprecated (group-writable files
// of early git), which it still reads.
const (
	ModeEmpty      FileMode = 0
	ModeDir        FileMode = 0o040000
	ModeRegular    FileMode = 0o100644
	ModeDeprecated FileMode = 0o100664
	ModeExecutable FileMode = 0o100755
	ModeSymlink    FileMode = 0o120000
	ModeSubmodule  FileMode = 0o160000
)

// String returns the mode in octal as git writes it in a tree, with
// leading zeros to seven digits.
func (m FileMode) String() string { return fmt.Sprintf("%07o", uint32(m)) }
