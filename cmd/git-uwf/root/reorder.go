package root

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs rewrites a command line so that urfave/cli, which stops
// parsing flags at the first positional argument, accepts flags anywhere, as
// git does. See reorder.
func reorderArgs(app *cli.App, args []string) []string {
	out, _ := reorder(app.Flags, app.Commands, args)
	return out
}

// reorder walks args (args[0] is the program name) down the command tree
// (cmds, the app's commands, whose global flags are flags), following
// command names and aliases, to the leaf command. It returns the rewritten
// arguments and the path of command names to the leaf.
//
// The result is: program, global flags, then each command name followed by
// its own flags, then the leaf's positional arguments, then a literal "--"
// and everything after it, untouched.
//
//   - A flag is matched against the current command's flags first, then the
//     app's global flags. A flag that takes a value carries the next argument
//     with it (whatever it looks like) unless written --flag=value.
//   - Global flags found after a command name move in front of the command
//     path, keeping their relative order.
//   - Leaf flags found after positional arguments move in front of them,
//     keeping their relative order.
//   - A flag nobody defines is kept with the command it was found at, in front
//     of the positionals, so urfave/cli reports it as unknown. Its value, if
//     any, is not known, so write unknown flags as --flag=value.
//   - "-" and negative numbers ("-1") are positional.
//   - After "--" nothing is moved. As with Go's flag package, the "--" is
//     consumed by the parser when no positional precedes it and is left in
//     the command's arguments otherwise.
//   - -h/--help shows the help of the command reached, wherever it is given
//     (`git uwf -h thread` is `git uwf thread --help`). Positionals, and "--"
//     and what follows, are then dropped: urfave/cli would read the first one
//     as a help topic.
//   - A command with SkipFlagParsing takes everything after its name as is.
func reorder(flags []cli.Flag, cmds []*cli.Command, args []string) (out, path []string) {
	if len(args) == 0 {
		return args, nil
	}
	global := flagArity(flags)

	var (
		globals     []string // global flags, in order
		cmdPart     []string // command names, each followed by its flags
		leafFlags   []string // leaf flags found after a positional
		positionals []string
		tail        []string // "--" and what follows
		cur         *cli.Command
		subs        = cmds
		sawPos      bool
		cmdHelp     bool // a command was given -h/--help
		appHelp     bool // the app was given -h/--help
	)
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			tail = rest[i:]
			break
		}
		if isFlag(a) {
			name, inline := splitFlag(a)
			tokens := []string{a}
			takeValue := func(takes bool) {
				if takes && !inline && i+1 < len(rest) {
					i++
					tokens = append(tokens, rest[i])
				}
			}
			if cur != nil {
				if takes, ok := flagArity(cur.Flags).lookup(name); ok {
					cmdHelp = cmdHelp || isHelp(cur.Flags, name)
					takeValue(takes)
					if sawPos {
						leafFlags = append(leafFlags, tokens...)
					} else {
						cmdPart = append(cmdPart, tokens...)
					}
					continue
				}
			}
			if takes, ok := global.lookup(name); ok {
				if isHelp(flags, name) {
					appHelp = true // moved to the leaf below
					continue
				}
				takeValue(takes)
				globals = append(globals, tokens...)
				continue
			}
			switch {
			case cur == nil:
				globals = append(globals, a)
			case sawPos:
				leafFlags = append(leafFlags, a)
			default:
				cmdPart = append(cmdPart, a)
			}
			continue
		}
		if !sawPos {
			if sub := findCommand(subs, a); sub != nil {
				cur, subs = sub, sub.Subcommands
				cmdPart = append(cmdPart, a)
				path = append(path, sub.Name)
				if sub.SkipFlagParsing {
					tail = rest[i+1:]
					break
				}
				continue
			}
		}
		sawPos = true
		positionals = append(positionals, a)
	}

	out = make([]string, 0, len(args))
	out = append(out, args[0])
	out = append(out, globals...)
	out = append(out, cmdPart...)
	out = append(out, leafFlags...)
	if appHelp && !cmdHelp {
		out = append(out, "--help")
	}
	if !appHelp && !cmdHelp {
		// With -h, urfave/cli would take the first positional as a help
		// topic; help for the command needs no arguments.
		out = append(out, positionals...)
		out = append(out, tail...)
	}
	return out, path
}

// isHelp reports whether the flag called name among flags is the help flag.
func isHelp(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if names := flagNames(f); slices.Contains(names, name) {
			return names[0] == "help"
		}
	}
	return name == "help" || name == "h"
}

// arity maps each flag name to whether it takes a value.
type arity map[string]bool

func (a arity) lookup(name string) (takesValue, ok bool) {
	takesValue, ok = a[name]
	if !ok && (name == "help" || name == "h") {
		return false, true // every command gets a help flag at run time
	}
	return takesValue, ok
}

func flagArity(flags []cli.Flag) arity {
	m := arity{}
	for _, f := range flags {
		takes := false
		if d, ok := f.(cli.DocGenerationFlag); ok {
			takes = d.TakesValue()
		}
		for _, n := range flagNames(f) {
			m[n] = takes
		}
	}
	return m
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// isFlag reports whether a looks like a flag: "-x" or "--xyz", but not "-",
// "--" or a negative number.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return false
	}
	c := a[1]
	return !('0' <= c && c <= '9') && c != '.'
}

// splitFlag returns the name of flag a (without dashes) and whether its
// value is attached with "=".
func splitFlag(a string) (name string, inline bool) {
	name = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, _, inline = strings.Cut(name, "=")
	return name, inline
}
