package mangen

// The prose of the page, in the small markup roff.prose reads: paragraphs
// separated by blank lines, examples indented by two spaces, "term\n: text"
// for a tagged paragraph, *word* for bold. Keep it true: every fact here is
// also in docs/cli.md or README.md.

const description = `
git-uwf runs multi-role AI-agent workflows (planner, developer, reviewer and so on) inside a git repository and keeps their whole state in that repository's object database. git runs it as *git uwf* when it is on PATH.

A *workflow* is a YAML file of roles (goal, procedure, and a JSON Schema for the frontmatter each role must produce) and a graph that routes from role to role. Registering one stores it as refs/uwf/workflows/<name>.

A *thread* is one run of a workflow: refs/uwf/threads/<ULID>. Each *git uwf thread step* asks the moderator for the next role, runs an agent command for it (a coding-agent CLI, a local model, a person in $EDITOR, a script), validates what it produced and appends one commit. Threads travel with git push and git fetch; *git uwf sync* shares them both ways.

Ids are accepted as unambiguous prefixes of at least 4 characters, like git: thread ULIDs, step aliases, commit ids, workflow aliases. Text for people is written by default; --format json or --format yaml writes stable machine shapes. Errors are one line on stderr, "error: <what and where>".

Every command needs a git repository, found as git finds it (the current directory and its parents, GIT_DIR, worktrees, bare repositories), except *workflow validate*, *version*, *demo*, *setup*, *agent list*, *agent doctor* and *config*.
`

type section struct{ title, body string }

// sections follow COMMANDS, in this order.
var sections = []section{
	{"EXAMPLES", `
Run a whole workflow offline on the built-in mock agent, in a new repository in a temp directory:

  git uwf demo

Check and register a workflow, start a thread on it and step it until it completes or suspends (with a configured default agent):

  git uwf workflow validate .uwf/workflows/review.yaml
  git uwf workflow put .uwf/workflows/review.yaml
  git uwf thread start review -p "Add a --verbose flag"
  git uwf thread step <thread> --until-done

Run one step with a given agent command, then read the thread as markdown and as git history:

  git uwf thread step <thread> --agent "git uwf agent pipe --preset claude"
  git uwf thread read <thread>
  git log --format='%h %s' refs/uwf/threads/<thread>

List the active threads as JSON, and share threads with a teammate's clone:

  git uwf thread list --format json
  git uwf remote setup origin
  git uwf sync origin
`},
	{"ENVIRONMENT", `
*UWF_EDGE_PROMPT_FILE*, *UWF_EDGE_PROMPT*
: Set by *thread step* for the agent it runs: the file holds the moderator's instruction for the step, byte for byte (removed after the step); the variable holds it too when it fits (at most 32 KiB, valid UTF-8, no NUL byte), else a cleaned copy cut at 32 KiB. Agents read the file first.

*UWF_THREAD*, *UWF_ROLE*, *UWF_HEAD*
: Set by *thread step* for the agent: the thread id, the role and the commit the step builds on.

*UWF_MOCK_SCRIPT*
: The script of *git uwf agent mock* when *--script* is not given.

*UWF_INVOCATION_DIR*
: Set by *thread step* for every agent: the directory the step was run in. The built-in agents resolve a relative command (pipe) or *--script* (mock) against it rather than the step's directory, which thread data chooses.

*UWF_SPAWN_AGENTS*
: Set to 1, *thread step* runs the built-in agents (mock, pipe, llm) as processes of their own instead of inside its own process.

*GOGC*, *GOMEMLIMIT*
: When neither is set, *thread step* and *thread list* let the Go garbage collector run less often (GOGC=400 under a 48 MiB soft limit); setting either keeps the Go runtime's behaviour.

*XDG_CONFIG_HOME*
: Where the user configuration file is looked for (see FILES); ~/.config when unset.

*GIT_DIR*
: As for git: the repository to use when the current directory is not in one.
`},
	{"FILES", `
*$XDG_CONFIG_HOME/uwf/config.yaml*
: The user configuration (default ~/.config/uwf/config.yaml): agent aliases, the default agent, providers and models. Not part of any repository.

*.uwf/config.yaml*
: The team configuration, at the top of the work tree; it is committed and travels with the repository.

*$GIT_COMMON_DIR/uwf/config.yaml*
: The repository-local configuration (.git/uwf/config.yaml), shared by linked worktrees. It wins over the team file, which wins over the user file.

*.uwf/workflows/<name>.yaml*
: Where workflow names are looked up, in the current directory and its parents up to the top of the work tree (also <name>.yml and <name>/index.yaml).

*refs/uwf/threads/<ULID>*, *refs/uwf/workflows/<name>*
: Threads and registered workflows: commit chains in the repository, shared with git push and git fetch.

*$GIT_COMMON_DIR/uwf/locks/*, *limits/*, *kill/*, *background/*
: Per-thread step locks, per-workflow concurrency slots and queue, kill flags raised by *thread cancel* for a running step, and the records, logs and outcomes of *thread step --background*. All are local to the machine; none travels with the repository. See docs/running-many-threads.md.

*$GIT_COMMON_DIR/uwf/index*
: The alias index of the object store, rebuilt by *git uwf cas reindex*.

*git-uwf-serve*
: The web viewer, a program of its own that *git uwf serve* runs with its arguments: looked for in the directory of the running git-uwf (symbolic links resolved), then on PATH. *make install* installs it with git-uwf.

*git-uwf-agent-supervisor*
: The supervisor of a spawned agent: it leads the agent's process group and kills it when git-uwf dies. Used from the directory of the running git-uwf (symbolic links resolved) only; without it git-uwf supervises with a copy of itself, which starts slower. *make install* installs it with git-uwf.

*git-uwf-llm*
: Sends git-uwf's HTTP requests to model servers: the chat completions of the *llm* agent and of LLM extraction, and the endpoint probe of *agent doctor*. Used from the directory of the running git-uwf (symbolic links resolved) only; without it those requests fail, saying so. *make install* installs it with git-uwf.
`},
	{"EXIT STATUS", `
*0*
: Success.

*1*
: Failure. The reason is printed on stderr as "error: ...", except where a command documents a silent exit 1 (e.g. "cas has" when the object is absent).

*2*
: Usage error: unknown command or flag, bad or missing argument.

*3*
: *review --check* could not run the check (git failed, the remote could not be listed); exit 1 there means it found problems, one line each on stdout.

*75*
: Temporarily unavailable: a lock is held by another process, a workflow's concurrency limit refused the step (overflow drop, or discarded from a full queue), a worker holds the thread's lease, or *thread join --timeout* ran out. Try again later.

*130*
: Cancelled (interrupted by SIGINT or SIGTERM).
`},
	{"SEE ALSO", `
*git*(1), *git-log*(1), *git-push*(1), *git-fetch*(1)

The command reference docs/cli.md and the README.md of the git-uwf sources.
`},
}
