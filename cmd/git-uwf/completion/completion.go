// Package completion implements `git uwf completion bash|zsh|fish`, which
// prints a shell completion script, and the hidden `git uwf __complete`
// the scripts call: it completes command and verb names, flags, thread ids
// and workflow names from the command tree and the repository.
//
// Each command's action parses the command line into an options struct
// and calls <command>Run(ctx, opts), as every command verb does.
package completion

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// CompletionOptions are the inputs of `completion`.
type CompletionOptions struct {
	IO    *iostreams.IOStreams
	Shell string
}

// CompleteOptions are the inputs of `__complete`.
type CompleteOptions struct {
	IO   *iostreams.IOStreams
	Repo func(context.Context) (*chain.Repo, error)

	// Commands is the command tree that is completed.
	Commands []*cli.Command
	// Words are the words after `git uwf`, the last one under the cursor.
	Words []string
}

// NewCmdCompletion returns the `completion` command.
func NewCmdCompletion(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "Print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "<bash|zsh|fish>",
		Description: "Completes commands, flags, thread ids and workflow names, for both git uwf and git-uwf.\n" +
			"  bash: source <(git uwf completion bash)        (in ~/.bashrc, after git's completion)\n" +
			"  zsh:  source <(git uwf completion zsh)         (in ~/.zshrc, after compinit)\n" +
			"  fish: git uwf completion fish > ~/.config/fish/completions/git-uwf.fish",
		Action: func(c *cli.Context) error {
			shell, err := cmdutil.OneArg(c, "shell (bash, zsh or fish)")
			if err != nil {
				return err
			}
			return completionRun(&CompletionOptions{IO: f.IO, Shell: shell})
		},
	}
}

func completionRun(opts *CompletionOptions) error {
	script, ok := shellScript(opts.Shell)
	if !ok {
		return cmdutil.FlagErrorf("unknown shell %q: want bash, zsh or fish%s", opts.Shell, cmdutil.DidYouMean(opts.Shell, []string{"bash", "zsh", "fish"}))
	}
	_, err := io.WriteString(opts.IO.Out, script)
	return err
}

// NewCmdComplete returns the hidden `__complete` command: its arguments are
// the words after `git uwf`, the last one being the word under the cursor;
// it prints the candidates, one a line.
func NewCmdComplete(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			return completeRun(c.Context, &CompleteOptions{IO: f.IO, Repo: f.Repo, Commands: c.App.Commands, Words: c.Args().Slice()})
		},
	}
}

func completeRun(ctx context.Context, opts *CompleteOptions) error {
	for _, cand := range Complete(ctx, opts.Repo, opts.Commands, opts.Words) {
		fmt.Fprintln(opts.IO.Out, cand)
	}
	return nil
}

// Complete returns the candidates for the last of words, given the words
// before it (flags among them are skipped); openRepo opens the repository
// that thread ids and workflow names come from.
func Complete(ctx context.Context, openRepo func(context.Context) (*chain.Repo, error), root []*cli.Command, words []string) []string {
	cur := ""
	if len(words) > 0 {
		cur, words = words[len(words)-1], words[:len(words)-1]
	}
	cmds := root
	var cmd *cli.Command
	var args int
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if next := find(cmds, w); next != nil && args == 0 {
			cmd, cmds = next, next.Subcommands
			continue
		}
		args++
	}
	var cands []string
	switch {
	case strings.HasPrefix(cur, "-"):
		flags := []cli.Flag{}
		if cmd != nil {
			flags = cmd.VisibleFlags()
		}
		for _, fl := range flags {
			for _, name := range fl.Names() {
				if len(name) == 1 {
					cands = append(cands, "-"+name)
				} else {
					cands = append(cands, "--"+name)
				}
			}
		}
	case len(cmds) > 0 && args == 0:
		for _, c := range cmds {
			if !c.Hidden {
				cands = append(cands, c.Name)
			}
		}
	case cmd != nil && args == 0:
		cands = argCandidates(ctx, openRepo, cmd.ArgsUsage)
	}
	out := cands[:0]
	for _, c := range cands {
		if strings.HasPrefix(c, cur) || strings.HasPrefix(strings.ToUpper(c), strings.ToUpper(cur)) && isThreadLike(c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if slices.Contains(c.Names(), name) {
			return c
		}
	}
	return nil
}

func isThreadLike(s string) bool { return len(s) == 26 }

// argCandidates completes a command's first argument from what its usage
// names: thread ids for <thread>, workflow names (registered and in
// .uwf/workflows) for <workflow…>, shells for completion.
func argCandidates(ctx context.Context, openRepo func(context.Context) (*chain.Repo, error), usage string) []string {
	switch {
	case strings.HasPrefix(usage, "<thread"):
		repo, err := openRepo(ctx)
		if err != nil {
			return nil
		}
		ids, _, err := repo.ThreadIDs(ctx)
		if err != nil {
			return nil
		}
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = string(id)
		}
		return out
	case strings.HasPrefix(usage, "<workflow") || strings.HasPrefix(usage, "<name"):
		var out []string
		if repo, err := openRepo(ctx); err == nil {
			if ws, err := repo.Workflows(ctx); err == nil {
				for _, w := range ws {
					out = append(out, w.Name)
				}
			}
			if ents, err := os.ReadDir(filepath.Join(repo.Info.WorkTree, ".uwf", "workflows")); err == nil {
				for _, e := range ents {
					if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
						out = append(out, name)
					} else if e.IsDir() {
						out = append(out, e.Name())
					}
				}
			}
		}
		return out
	case strings.HasPrefix(usage, "<bash"):
		return []string{"bash", "fish", "zsh"}
	}
	return nil
}

// Each shell's script is a constant, chosen by a switch: a map literal
// at package level would be built at every process start.
const (
	bashScript = `# git-uwf completion for bash: source <(git uwf completion bash)
__git_uwf_complete_from() {
	local start=$1 cur="${COMP_WORDS[COMP_CWORD]}" IFS=$'\n'
	COMPREPLY=($(git uwf __complete "${COMP_WORDS[@]:start:COMP_CWORD-start}" "$cur" 2>/dev/null))
}
# git's own completion calls _git_uwf for "git uwf …".
_git_uwf() {
	local i start=2
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == uwf ]]; then start=$((i + 1)); break; fi
	done
	__git_uwf_complete_from "$start"
}
_git_uwf_direct() { __git_uwf_complete_from 1; }
complete -o default -F _git_uwf_direct git-uwf
`
	zshScript = `#compdef git-uwf
# git-uwf completion for zsh: source <(git uwf completion zsh)
# For "git uwf …" also: zstyle ':completion:*:*:git:*' user-commands uwf:'run multi-role agent workflows'
_git-uwf() {
	local -a cands
	cands=("${(@f)$(git uwf __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
	compadd -a cands
}
compdef _git-uwf git-uwf
`
	fishScript = `# git-uwf completion for fish: git uwf completion fish > ~/.config/fish/completions/git-uwf.fish
function __git_uwf_complete
	set -l toks (commandline -opc)
	if test "$toks[1]" = git
		set toks $toks[3..-1]
	else
		set toks $toks[2..-1]
	end
	git uwf __complete $toks (commandline -ct) 2>/dev/null
end
complete -c git-uwf -f -a '(__git_uwf_complete)'
complete -c git -n '__fish_seen_subcommand_from uwf' -f -a '(__git_uwf_complete)'
`
)

// shellScript returns the completion script for shell.
func shellScript(shell string) (string, bool) {
	switch shell {
	case "bash":
		return bashScript, true
	case "zsh":
		return zshScript, true
	case "fish":
		return fishScript, true
	}
	return "", false
}
