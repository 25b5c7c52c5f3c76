// Package objects is git-uwf's content-addressed store of typed JSON nodes on
// top of a git object database.
//
// A node is a pair {type, payload}: payload is any JSON value and type is the
// [Alias] of the schema node that describes it. A node is stored as one git
// blob holding the RFC 8785 canonical JSON of {"payload":P,"type":"T"}; the
// self-typed meta-schema is stored as {"payload":P} and is its own type. The
// same node therefore has the same bytes, the same git oid and the same alias
// on every machine, and blobs carry no timestamps.
//
// # Aliases
//
// An [Alias] is the 13-character Crockford base32 form of the XXH64 (seed 0)
// of the blob bytes. It is always recomputable from the blob, so every read
// verifies it by re-hashing; XXH64 is not collision resistant, which is why an
// alias may map to several oids ([AliasCollisionError]).
//
// # Schemas
//
// Schemas are nodes typed by the meta-schema. Their payloads are JSON Schema
// documents (draft 2020-12 unless "$schema" says otherwise), compiled with
// format assertions on and no remote loading. The format "uwf_ref" (and the
// upstream spelling "ocas_ref") marks a string holding an alias; [Store.Refs],
// [Store.Walk] and [Store.Expand] follow such references.
//
// # Alias index
//
// git knows oids, not aliases. A [Store] keeps a local, derived, rebuildable
// alias → oid index (never the source of truth). It learns from the store's
// own writes and from commit trees reachable from refs/uwf/* and
// refs/remotes/*/uwf/* whose blob entries are named by alias; lookups that
// miss refresh it from those refs, so aliases fetched with plain git resolve
// with no extra step. Deleting the index loses nothing.
//
// A [Store] is safe for concurrent use; several processes may share one index
// directory.
package objects
