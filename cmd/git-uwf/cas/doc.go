// Package cas implements `git uwf cas …`, low-level access to git-uwf's
// content-addressed store of typed JSON nodes: read a node (get), write one
// (put), test for one (has), follow references (refs, walk), rebuild the
// local alias index (reindex) and inspect schemas (schema list|get).
//
// Nodes are addressed by alias or by an unambiguous alias prefix of at
// least four characters. Each verb is one small constructor,
// newCmd<Verb>(f), whose action parses the command line into an options
// struct and calls <verb>Run(ctx, opts).
package cas
