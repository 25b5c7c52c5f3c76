package cas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/objects"
)

// NewCmdCas returns the `cas` command group.
func NewCmdCas(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "cas",
		Usage: "Read and write nodes of the content-addressed store",
		Description: "Every git-uwf record is a node {type, payload} stored as a git blob and named by\n" +
			"its alias (13 Crockford base32 characters; any unambiguous prefix of 4 or more works).",
		Subcommands: []*cli.Command{
			newCmdGet(f),
			newCmdPut(f),
			newCmdHas(f),
			newCmdRefs(f),
			newCmdWalk(f),
			newCmdReindex(f),
			newCmdSchema(f),
		},
	}
}

// parseAlias checks the syntax of an alias or alias prefix argument and
// returns it normalized. A malformed argument is a usage error.
func parseAlias(arg string) (full objects.Alias, prefix string, err error) {
	if len(arg) == objects.AliasLen {
		a, err := objects.ParseAlias(arg)
		if err != nil {
			return "", "", cmdutil.FlagErrorf("%q is not an alias: %v", arg, cut(err))
		}
		return a, "", nil
	}
	if len(arg) < objects.MinPrefixLen || len(arg) > objects.AliasLen {
		return "", "", cmdutil.FlagErrorf("%q is not an alias: want %d characters, or a prefix of at least %d",
			arg, objects.AliasLen, objects.MinPrefixLen)
	}
	// Check the characters with a padded copy: ParseAlias knows the alphabet.
	if _, err := objects.ParseAlias(arg + strings.Repeat("0", objects.AliasLen-len(arg))); err != nil {
		return "", "", cmdutil.FlagErrorf("%q is not an alias prefix: %v", arg, cut(err))
	}
	return "", arg, nil
}

// cut drops the "parse alias ...: " context of an objects error.
func cut(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// resolveAlias turns an alias or an unambiguous prefix into an alias known
// to store. An unknown one is "node <arg> not found".
func resolveAlias(store *objects.Store, arg string) (objects.Alias, error) {
	full, prefix, err := parseAlias(arg)
	if err != nil {
		return "", err
	}
	if full != "" {
		return full, nil
	}
	a, err := store.ResolvePrefix(prefix)
	if errors.Is(err, objects.ErrNotFound) {
		return "", notFound(arg)
	}
	return a, err
}

// getNode reads the node named by arg.
func getNode(store *objects.Store, arg string) (objects.Node, error) {
	a, err := resolveAlias(store, arg)
	if err != nil {
		return objects.Node{}, err
	}
	n, err := store.Get(a)
	if errors.Is(err, objects.ErrNotFound) {
		return objects.Node{}, notFound(string(a))
	}
	if err != nil {
		return objects.Node{}, fmt.Errorf("read node %s: %w", a, err)
	}
	return n, nil
}

func notFound(what string) error {
	return fmt.Errorf("node %s not found", what)
}

// resolveSchema turns an alias, a prefix or a schema title into the alias
// of a schema node.
func resolveSchema(store *objects.Store, arg string) (objects.Alias, error) {
	a, aliasErr := resolveAlias(store, arg)
	if aliasErr == nil {
		return a, nil
	}
	if _, ok := errors.AsType[*objects.AmbiguousPrefixError](aliasErr); ok {
		return "", aliasErr
	}
	schemas, err := store.Schemas()
	if err != nil {
		return "", err
	}
	var matches []objects.Alias
	for _, s := range schemas {
		if s.Title == arg {
			matches = append(matches, s.Alias)
		}
	}
	switch len(matches) {
	case 0:
		if _, ok := errors.AsType[*cmdutil.FlagError](aliasErr); ok {
			return "", fmt.Errorf("schema %q not found: not an alias, a prefix or a schema title (see 'git uwf cas schema list')", arg)
		}
		return "", fmt.Errorf("schema %s not found (see 'git uwf cas schema list')", arg)
	case 1:
		return matches[0], nil
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = string(m)
	}
	return "", fmt.Errorf("schema title %q is ambiguous: matches %s", arg, strings.Join(names, ", "))
}

// schemaTitle returns the title of schema node a, or "".
func schemaTitle(store *objects.Store, a objects.Alias) string {
	doc, err := store.Schema(a)
	if err != nil {
		return ""
	}
	t, _ := doc["title"].(string)
	return t
}

// writeJSON writes v as indented JSON, for text output of JSON data.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeLines writes one alias per line.
func writeLines(w io.Writer, aliases []string) error {
	var sb strings.Builder
	for _, a := range aliases {
		sb.WriteString(a)
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// aliasStrings converts aliases for output (never nil, so JSON has []).
func aliasStrings(as []objects.Alias) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}
