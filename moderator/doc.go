// Package moderator loads, validates and routes git-uwf workflows.
//
// A workflow is a YAML file of roles and a routing graph. [Load] and [Parse]
// read one through an [io/fs.FS] (so `!include` can be resolved without the
// package doing any I/O of its own), check its shape and its semantics, and
// return a [Workflow]. Every problem is reported with its file, line and
// column; semantic problems are collected and returned together as a
// [*ValidationError].
//
// # Dialects
//
// A file without a top-level version is the older dialect: Mustache edge
// templates, $START: {_: …}, $SUSPEND as an edge target. A file with
// `version: 1` (upstream uwf's current format) has Liquid edge templates
// (with _body, the previous step's markdown body; bounded in time, loop
// iterations and size), $START: {new, resume}, top-level x-… keys that hold
// YAML anchors, roles that all declare $status, and $SUSPEND as a status any
// role may emit (a yield). Both load into the same [Workflow]; its Version
// is stored in the document, so a pinned workflow routes and renders the
// same way forever. A file without version whose $START has a new edge and
// no _ edge (which the older dialect never accepted) is read as version 1,
// unless it shows upstream's Mustache era (Mustache-only tags such as
// {{{x}}}, or an edge to $SUSPEND): then it is the older dialect with new
// in place of _. Either way the file loads with a note ([Workflow.Notes]),
// as it does when its name differs from the one it declares.
//
// # Graph forms
//
// Two routing forms load into the same model of ordered [Edge]s:
//
//   - the status map, graph[role][status] = {role, prompt, location}, where the
//     guard is the previous output's "$status" ([DefaultStatus] when absent and
//     for [Start]);
//   - the transitions form, graph[role] = [{role, condition, prompt, location}]
//     with named conditions written in expr-lang/expr (the older JSONata-like
//     spellings such as `$last('reviewer').approved = false` are translated).
//
// # Routing
//
// [Workflow.Route] is pure: given the thread's start and its steps (outputs
// expanded), it returns the next [Decision] — another role ([Next]), the end of
// the workflow ([Finish]) or a suspension ([Pause]) — with the edge prompt and
// location rendered (Mustache or Liquid by dialect, no HTML escaping) over
// the previous output. [Workflow.RouteResume] takes the $START resume edge
// for an ended thread.
//
// # Storage
//
// [Workflow.Document] returns the JSON-able payload that is stored in the
// object database, and [FromDocument] rebuilds (and re-validates) a workflow
// from it.
//
// The package has no global mutable state, touches no files, git repository or
// clock, and never panics on user input.
package moderator
