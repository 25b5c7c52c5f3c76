package root

import "github.com/urfave/cli/v2"

// urfave/cli's flag types trim each of a flag's names with a regular
// expression whenever Names is called, and urfave/cli calls it again and
// again while it runs a command: every flag lookup (c.Bool, c.IsSet) walks
// the names of the flags of every command on the path, and the flag
// actions of each command ask whether each of its flags is set that way,
// which makes the count grow with the square of the flags. In a run of
// `git uwf version` that was most of urfave/cli's work.
//
// So Run gives the flags of the commands it runs (see prepare) and its own
// global flags a Names that returns the Name and Aliases as written: the
// flag types below embed urfave/cli's, so everything else about a flag
// (parsing, help, its value) is the embedded flag's own. No name of ours
// has a comma or a space, which is all the regular expression removes
// (TestPlainFlagNames checks).

type boolFlag struct{ *cli.BoolFlag }

func (f boolFlag) Names() []string { return plainNames(f.Name, f.Aliases) }

type stringFlag struct{ *cli.StringFlag }

func (f stringFlag) Names() []string { return plainNames(f.Name, f.Aliases) }

type intFlag struct{ *cli.IntFlag }

func (f intFlag) Names() []string { return plainNames(f.Name, f.Aliases) }

type durationFlag struct{ *cli.DurationFlag }

func (f durationFlag) Names() []string { return plainNames(f.Name, f.Aliases) }

func plainNames(name string, aliases []string) []string {
	return append([]string{name}, aliases...)
}

// withPlainNames returns f as one of the flag types above, when it is of a
// type they wrap, else f itself.
func withPlainNames(f cli.Flag) cli.Flag {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return boolFlag{f}
	case *cli.StringFlag:
		return stringFlag{f}
	case *cli.IntFlag:
		return intFlag{f}
	case *cli.DurationFlag:
		return durationFlag{f}
	}
	return f
}

// flagsWithPlainNames returns a new slice of flags, each passed through
// withPlainNames, with room for one more. A command's Flags may be shared
// with other commands, so they are never rewritten in place.
func flagsWithPlainNames(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags), len(flags)+1)
	for i, f := range flags {
		out[i] = withPlainNames(f)
	}
	return out
}

// flagNames returns a flag's name and aliases, as written for the flag
// types above and the ones they wrap (reorder and helpFlag ask for them
// before prepare has wrapped a command's flags), through Names otherwise.
func flagNames(f cli.Flag) []string { return withPlainNames(f).Names() }
