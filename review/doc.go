// Package review tells the story behind a range of code commits: for every
// commit, the git-uwf step that made it (followed through its Uwf-Step
// trailers), grouped by the thread that holds the step, with the thread's
// task, its whole path through the workflow, failed attempts and forks; and
// the commits that no step claims.
//
// [Build] reads the range with one git log (messages included) and the
// threads through the chain package's cached chain reads, so a range of
// hundreds of commits costs one git process plus a few per thread family.
// [Report.Check] lists what a reviewer could not follow (a trailer that
// names no step, a thread the remote does not have, steps out of order);
// the markdown and the json/yaml shapes are rendered from the same Report.
package review
