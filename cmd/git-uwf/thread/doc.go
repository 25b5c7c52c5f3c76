// Package thread implements `git uwf thread …` and `git uwf step …`: start
// a run of a workflow, step it with agents, resume, cancel and fork it, and
// read it back (show, list, steps, read, export).
package thread
