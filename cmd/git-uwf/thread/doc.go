// Package thread implements `git uwf thread …` and `git uwf step …`: start
// a run of a workflow, step it with agents, resume, cancel and fork it, and
// read it back (show, list, steps, read, export).
//
// Each verb is one small constructor, newCmd<Verb>(f), whose action parses
// the command line into an options struct and calls <verb>Run(ctx, opts).
// The verbs that run steps (step, resume, step --all, --background) carry
// the whole Factory in their options: the engine they build needs the
// environment, the executable and the supervisor besides the streams.
package thread
