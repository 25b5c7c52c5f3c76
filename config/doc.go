// Package config loads git-uwf's configuration and resolves which agent
// command plays a workflow's role.
//
// # Files and precedence
//
// Three YAML files are read, each optional, and merged key by key over the
// built-in defaults; a later layer wins for every key it sets. From lowest
// to highest precedence:
//
//   - built-in defaults (the built-in agent aliases)
//   - user: $XDG_CONFIG_HOME/uwf/config.yaml (default ~/.config/uwf/config.yaml)
//   - team: .uwf/config.yaml at the top of the work tree; it is committed and
//     so comes from other people
//   - repository-local: $GIT_COMMON_DIR/uwf/config.yaml, never committed
//
// A key set to null in a later layer removes what earlier layers set.
//
// # Trust
//
// The team file travels with the repository, so it may only choose among
// agents the local user already has: it may set defaultAgent,
// overrides.<workflow>.<role> and extraction.retries. Any other key in it
// (agents, providers, models, extraction.llm, timeouts, …) is rejected with
// an error naming the file and line. Configuration is never read from git
// objects: workflows and threads fetched from a remote are data and can never
// make a command run that the local user did not configure.
//
// Secrets never live in these files: an API key is named by the environment
// variable that holds it (providers.<p>.apiKeyEnv) and read from the
// environment or from the user-level .env file next to the user config
// (KEY=VALUE lines).
//
// # Agents
//
// An agent alias maps to a command line (agents.<alias>.command, a
// shell-quoted string or an argv list). Built-in aliases are always defined:
// mock, human, llm and one per pipe preset (claude, codex, …); the user and
// repository-local files may redefine them. ResolveAgent picks the alias for a
// workflow's role (overrides, then defaultAgent) and ParseAgentFlag reads the
// value of --agent (an alias, or a command line).
package config
