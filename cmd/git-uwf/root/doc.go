// Package root is the git-uwf command line: it builds the urfave/cli app,
// runs it and turns its result into an exit code.
//
// [Main] is what cmd/git-uwf calls; [Run] does the work for one command line
// and is what tests (and testscript) call. A fresh *cli.App is built for
// every run by [Run]; nothing is kept in package variables, and urfave/cli's
// own globals (OsExiter, ErrWriter, HelpPrinter, HelpFlag, VersionFlag) are
// neither set nor relied on.
//
// # Registering commands
//
// Every top-level command is listed once, with the names it answers to, in
// registered (commands.go). A command group lives in its own package
// cmd/git-uwf/<group>, exported as NewCmdX(f *cmdutil.Factory) *cli.Command;
// its verbs live below it. A run builds only the top-level command its
// arguments name (found as the reordering below finds it); a command line
// that names none (`git uwf`, `git uwf -h`, an unknown command, whose error
// suggests the nearest names) builds them all, as does `__complete`, which
// completes from the whole tree. [Commands] and [App] return the whole
// tree, built. Run then, for every command in the tree it built:
//
//   - adds a -h/--help flag (there is no "help" subcommand);
//   - turns flag-parsing errors into a one-line *cmdutil.FlagError (exit 2);
//   - gives a group without an Action one that shows its help, or reports an
//     unknown subcommand as a usage error;
//   - gives its flags a Names that skips urfave/cli's regular expression
//     (flags.go).
//
// Do not use urfave/cli's Required flags (a missing one dumps help on
// stdout); check in the action and return a *cmdutil.FlagError. Never
// return cli.Exit; return a *cmdutil.ExitError for a specific code.
//
// # Global flags
//
//	--format text|json|yaml   output format; read it with cmdutil.FormatOf
//	-C DIR                    run as if started in DIR (relative to the current directory)
//	-v, --verbose             more output on stderr; read it with c.Bool("verbose")
//	-V, --version             print the version
//
// -C does not change the process's directory: it replaces the Factory's
// Getwd for the run. Commands must resolve paths against f.Getwd, never
// os.Getwd or relative paths.
//
// # Flags after arguments
//
// urfave/cli stops parsing flags at the first positional argument. Before
// running, the command line is reordered once for all commands (see
// reorderArgs), so `git uwf thread start review-loop -p x --format json` works
// as in git. Global flags may appear anywhere before "--"; a command's own
// flag of the same name takes precedence after the command's name.
package root
