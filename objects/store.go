package objects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
	"github.com/git-uwf/git-uwf/internal/jsonschema"
)

// IndexDirName is the directory, inside the git common dir, that OpenDir
// uses for the alias index.
const IndexDirName = "uwf/index"

// Store reads and writes nodes in a git object database. It is safe for
// concurrent use.
type Store struct {
	mu  sync.Mutex // guards idx
	st  *DB
	idx *index

	meta    Alias              // alias of the meta-schema node
	aliasOf func([]byte) Alias // AliasOf; tests swap in a weak hash to force collisions

	schemaMu sync.Mutex
	schemas  map[Alias]*compiled

	// refs, when set (UseRefFiles), reads the tips of the alias index, so
	// packed-refs is parsed once per process with every other ref read.
	refs *gitrepo.RefFiles
}

// UseRefFiles makes the store read ref tips through f, the reader of the
// common dir the store lives in that the rest of the process shares. Call
// it before the store is used.
func (s *Store) UseRefFiles(f *gitrepo.RefFiles) { s.refs = f }

type compiled struct {
	payload []byte // the schema node's canonical payload
	doc     any    // schema document, numbers as json.Number
	title   string
	sch     *jsonschema.Schema
}

// Open returns a Store on the object database db. The alias index lives in
// indexDir; "" keeps it in memory only.
func Open(db *DB, indexDir string) *Store {
	return &Store{
		st:      db,
		idx:     newIndex(indexDir),
		meta:    MetaSchemaAlias(),
		aliasOf: AliasOf,
		schemas: map[Alias]*compiled{},
	}
}

// OpenDir opens the object database of the git directory gitCommonDir (the
// common dir of a repository with worktrees) directly, without checking
// repository extensions, and keeps the alias index in <dir>/uwf/index.
func OpenDir(gitCommonDir string) (*Store, error) {
	db, err := OpenDB(gitCommonDir)
	if err != nil {
		return nil, err
	}
	return Open(db, filepath.Join(db.GitDir(), filepath.FromSlash(IndexDirName))), nil
}

// Storer returns the object database the store reads and writes.
func (s *Store) Storer() *DB { return s.st }

// MetaSchema writes the meta-schema node if needed and returns it.
func (s *Store) MetaSchema() (Ref, error) {
	return s.write(metaBlob())
}

// TextSchema writes the built-in text schema {"title":"text","type":"string"}.
func (s *Store) TextSchema() (Ref, error) {
	return s.PutSchema(json.RawMessage(textSchemaJSON))
}

// PutText stores text as a node of the text schema.
func (s *Store) PutText(text string) (Ref, error) {
	t, err := s.TextSchema()
	if err != nil {
		return Ref{}, err
	}
	return s.Put(t.Alias, text)
}

// PutSchema stores a schema node: schema must be a JSON Schema document that
// matches the meta-schema and compiles.
func (s *Store) PutSchema(schema any) (Ref, error) {
	return s.Put(s.meta, schema)
}

// Put validates payload against the schema node typ, writes the node blob and
// records it in the alias index.
func (s *Store) Put(typ Alias, payload any) (Ref, error) {
	p, err := MarshalCanonical(payload)
	if err != nil {
		return Ref{}, fmt.Errorf("put node of type %s: %w", typ, err)
	}
	blob := encodeCanonicalNode(typ, p)
	if typ == s.meta {
		return s.putSchema(blob, p)
	}
	if err := s.validateCanonical(typ, p); err != nil {
		return Ref{}, err
	}
	return s.write(blob)
}

// putSchema stores a schema node. A schema this Store has compiled before
// (the built-in ones are stored again on every step) is only written; a new
// one is validated against the meta-schema, compiled, and kept compiled.
func (s *Store) putSchema(blob, payload []byte) (Ref, error) {
	a := AliasOf(blob)
	s.schemaMu.Lock()
	_, known := s.schemas[a]
	s.schemaMu.Unlock()
	if !known {
		if _, err := s.MetaSchema(); err != nil {
			return Ref{}, err
		}
		if err := s.validateCanonical(s.meta, payload); err != nil {
			return Ref{}, err
		}
		doc, err := jsonschema.Decode(payload)
		if err != nil {
			return Ref{}, fmt.Errorf("put schema: %w", err)
		}
		sch, err := compileSchema(a, doc)
		if err != nil {
			return Ref{}, schemaError(s.meta, err)
		}
		s.schemaMu.Lock()
		s.schemas[a] = &compiled{payload: payload, doc: doc, title: schemaTitle(doc), sch: sch}
		s.schemaMu.Unlock()
	}
	return s.write(blob)
}

// write stores blob bytes (if not present) and indexes them.
func (s *Store) write(blob []byte) (Ref, error) {
	a := AliasOf(blob)
	oid := gitobj.ComputeHash(gitobj.BlobObject, blob)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.st.HasEncodedObject(oid); err != nil {
		if !errors.Is(err, gitobj.ErrObjectNotFound) {
			return Ref{}, fmt.Errorf("write node %s: %w", a, err)
		}
		obj := s.st.NewEncodedObject()
		obj.SetType(gitobj.BlobObject)
		obj.SetSize(int64(len(blob)))
		w, err := obj.Writer()
		if err != nil {
			return Ref{}, fmt.Errorf("write node %s: %w", a, err)
		}
		if _, err := w.Write(blob); err != nil {
			w.Close()
			return Ref{}, fmt.Errorf("write node %s: %w", a, err)
		}
		if err := w.Close(); err != nil {
			return Ref{}, fmt.Errorf("write node %s: %w", a, err)
		}
		got, err := s.st.SetEncodedObject(obj)
		if err != nil {
			return Ref{}, fmt.Errorf("write node %s: %w", a, err)
		}
		if got != oid {
			return Ref{}, fmt.Errorf("write node %s: storer returned oid %s, want %s", a, got, oid)
		}
	}
	if err := s.learnLocked(a, oid); err != nil {
		return Ref{}, err
	}
	return Ref{Alias: a, OID: oid}, nil
}

// Learn records that the blob oid has alias a. The claim is verified when
// the alias is read, so a wrong one is harmless.
func (s *Store) Learn(a Alias, oid gitobj.Hash) error {
	if !IsAlias(string(a)) {
		return fmt.Errorf("learn %q: not a canonical alias", a)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.learnLocked(a, oid)
}

func (s *Store) learnLocked(a Alias, oid gitobj.Hash) error {
	if err := s.idx.ensure(); err != nil {
		return err
	}
	if s.idx.has(a, oid) {
		return nil
	}
	s.idx.learn(a, oid)
	return nil
}

// BatchLearn starts a batch: until the returned function is called, the
// aliases this store learns (nodes read by oid, written or claimed with
// Learn) are known to the store at once but reach the index file together,
// in one locked append, at the next Refresh or when the batch ends; without
// a batch each one costs an append of its own. A run that reads thousands
// of nodes, such as checking a fetch, uses one. Records are checksummed
// lines as always; a process that dies before the append loses only those
// hints, and the next Refresh finds again every node a ref reaches (as
// after a lost index). Batches may nest;
// the outermost end writes. The returned function is safe to call more
// than once.
func (s *Store) BatchLearn() (end func()) {
	s.mu.Lock()
	s.idx.batching++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.idx.batching--
			if s.idx.batching == 0 {
				s.idx.flushPending()
			}
		})
	}
}

// readBlob reads a blob's bytes; s.mu must be held.
func (s *Store) readBlob(oid gitobj.Hash) ([]byte, error) {
	obj, err := s.st.EncodedObject(gitobj.BlobObject, oid)
	if err != nil {
		if errors.Is(err, gitobj.ErrObjectNotFound) {
			return nil, fmt.Errorf("blob %s: %w", oid, ErrNotFound)
		}
		return nil, fmt.Errorf("read blob %s: %w", oid, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", oid, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", oid, err)
	}
	return b, nil
}

// verified returns the distinct blobs indexed under a whose bytes really
// hash to a; s.mu must be held.
func (s *Store) verified(a Alias) ([]gitobj.Hash, [][]byte) {
	var oids []gitobj.Hash
	var blobs [][]byte
	for _, oid := range s.idx.lookup(a) {
		b, err := s.readBlob(oid)
		if err != nil || s.aliasOf(b) != a {
			continue
		}
		oids = append(oids, oid)
		blobs = append(blobs, b)
	}
	return oids, blobs
}

// Get returns the node with alias a. It refreshes the index once on a miss.
// Errors: ErrNotFound, *AliasCollisionError, ErrNotNode.
func (s *Store) Get(a Alias) (Node, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getLocked(context.Background(), a)
}

func (s *Store) getLocked(ctx context.Context, a Alias) (Node, error) {
	if err := s.idx.ensure(); err != nil {
		return Node{}, err
	}
	oids, blobs := s.verified(a)
	if len(oids) == 0 {
		if err := s.refreshLocked(ctx); err != nil {
			return Node{}, err
		}
		oids, blobs = s.verified(a)
	}
	switch len(oids) {
	case 0:
		return Node{}, fmt.Errorf("get %s: %w", a, ErrNotFound)
	case 1:
	default:
		return Node{}, &AliasCollisionError{Alias: a, OIDs: oids}
	}
	n, err := DecodeNode(blobs[0])
	if err != nil {
		return Node{}, fmt.Errorf("get %s (blob %s): %w", a, oids[0], err)
	}
	n.OID = oids[0]
	return n, nil
}

// GetOID reads the node stored in blob oid and records its alias.
func (s *Store) GetOID(oid gitobj.Hash) (Node, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.readBlob(oid)
	if err != nil {
		return Node{}, err
	}
	n, err := DecodeNode(b)
	if err != nil {
		return Node{}, fmt.Errorf("blob %s: %w", oid, err)
	}
	n.OID = oid
	if err := s.learnLocked(n.Alias, oid); err != nil {
		return Node{}, err
	}
	return n, nil
}

// Has reports whether a node with alias a is available (verified by
// re-hashing). A collision counts as present.
func (s *Store) Has(a Alias) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idx.ensure(); err != nil {
		return false, err
	}
	if oids, _ := s.verified(a); len(oids) > 0 {
		return true, nil
	}
	if err := s.refreshLocked(context.Background()); err != nil {
		return false, err
	}
	oids, _ := s.verified(a)
	return len(oids) > 0, nil
}

// ResolvePrefix returns the single indexed alias starting with prefix (at
// least MinPrefixLen characters, case-insensitive, Crockford substitutions
// allowed). Errors: ErrNotFound, *AmbiguousPrefixError.
func (s *Store) ResolvePrefix(prefix string) (Alias, error) {
	p, err := normalizePrefix(prefix)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idx.ensure(); err != nil {
		return "", err
	}
	m := s.matchPrefix(p)
	if len(m) == 0 {
		if err := s.refreshLocked(context.Background()); err != nil {
			return "", err
		}
		m = s.matchPrefix(p)
	}
	switch len(m) {
	case 0:
		return "", fmt.Errorf("resolve %s: %w", prefix, ErrNotFound)
	case 1:
		return m[0], nil
	default:
		return "", &AmbiguousPrefixError{Prefix: p, Matches: m}
	}
}

// matchPrefix lists indexed aliases with prefix p that have at least one
// verified blob, sorted.
func (s *Store) matchPrefix(p string) []Alias {
	var m []Alias
	for _, a := range s.idx.withPrefix(p) {
		if oids, _ := s.verified(a); len(oids) > 0 {
			m = append(m, a)
		}
	}
	return m
}
