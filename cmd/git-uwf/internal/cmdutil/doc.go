// Package cmdutil holds what every git-uwf command shares: the [Factory] of
// dependencies, machine-readable output ([Format], [Print]), the flags every
// command understands ([FormatFlag], [FormatOf]) and the mapping from errors
// to exit codes ([ExitCode], [PrintError]).
//
// # Exit codes
//
//	0    success
//	1    failure (default); also [ErrSilent], after the command printed its own message
//	2    usage error: [*FlagError] (unknown flag, bad argument)
//	4    the thread waits for an answer: it, or the child thread playing its role, is suspended ([ExitSuspended])
//	75   temporarily unavailable, e.g. a lock held by another process ([*ExitError] with [ExitLocked])
//	130  cancelled: [ErrCancelled] or [context.Canceled] (Ctrl-C)
//
// Any other code is returned with [*ExitError].
//
// # Output formats
//
// [Print] writes text for humans or the same value as JSON or YAML. YAML
// output is derived from the JSON encoding, so both have the same field names
// and key order; a value's json struct tags are its machine contract.
package cmdutil
