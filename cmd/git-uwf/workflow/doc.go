// Package workflow implements `git uwf workflow …`: register workflow
// files in the repository (put), check them without writing anything
// (validate), and read the registry back (show, list, history, graph).
//
// Each verb is one small constructor, newCmd<Verb>(f), whose action parses
// the command line into an options struct and calls <verb>Run(ctx, opts).
// Machine output (--format json|yaml) goes through cmdutil.Print; the
// shapes are the exported structs of this package's files and are
// documented in docs/cli.md.
package workflow
