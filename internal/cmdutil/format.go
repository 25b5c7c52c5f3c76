package cmdutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/internal/iostreams"
)

// Format selects how a command writes its result.
type Format string

// The output formats.
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// formatFlagName is the name of the --format flag, global and per command.
const formatFlagName = "format"

// ParseFormat parses a --format value; the empty string means text.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return FormatText, nil
	case FormatText, FormatJSON, FormatYAML:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: want text, json or yaml", s)
}

// FormatFlag returns a fresh --format flag. The root command defines it
// globally; a command may add its own, which then takes precedence.
func FormatFlag() cli.Flag {
	return &cli.StringFlag{
		Name:  formatFlagName,
		Usage: "output `FORMAT`: text, json or yaml",
		Value: string(FormatText),
	}
}

// FormatOf returns the output format chosen for the running command: the
// command's own --format if given, else the nearest one given on an
// ancestor (the global flag), else the default, text. A bad value is a
// *FlagError.
func FormatOf(c *cli.Context) (Format, error) {
	value := string(FormatText)
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		if slices.Contains(ctx.LocalFlagNames(), formatFlagName) {
			value = ctx.String(formatFlagName)
			break
		}
	}
	f, err := ParseFormat(value)
	if err != nil {
		return "", &FlagError{Err: fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}

// Print writes v to ios.Out in format f. For json, v is indented by two
// spaces, without HTML escaping, with a trailing newline. For yaml, v is
// first encoded as JSON, so field names and key order match the json output.
// For text, text writes the human form; a nil text falls back to yaml.
// Nothing is written if encoding fails.
func Print(ios *iostreams.IOStreams, f Format, v any, text func(w io.Writer) error) error {
	switch f {
	case FormatText, "":
		if text != nil {
			// Buffered: a tabwriter writes every cell separately, which is
			// one write(2) each on an unbuffered terminal or pipe.
			bw := bufio.NewWriterSize(ios.Out, 64<<10)
			err := text(bw)
			if ferr := bw.Flush(); err == nil && ferr != nil {
				err = ferr
			}
			return err
		}
		return Print(ios, FormatYAML, v, nil)
	case FormatJSON:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encode json: %w", err)
		}
		_, err := ios.Out.Write(buf.Bytes())
		return err
	case FormatYAML:
		out, err := marshalYAML(v)
		if err != nil {
			return err
		}
		_, err = ios.Out.Write(out)
		return err
	}
	return fmt.Errorf("unknown format %q", string(f))
}

// marshalYAML encodes v as JSON, rebuilds the JSON as a yaml.Node tree
// (keeping object key order) and encodes that with a two-space indent.
func marshalYAML(v any) ([]byte, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	dec := json.NewDecoder(&js)
	dec.UseNumber()
	node, err := jsonToNode(dec)
	if err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	var out bytes.Buffer
	ye := yaml.NewEncoder(&out)
	ye.SetIndent(2)
	if err := ye.Encode(node); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	if err := ye.Close(); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return out.Bytes(), nil
}

// jsonToNode reads one JSON value from dec as a yaml.Node.
func jsonToNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				ks, ok := key.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", key)
				}
				val, err := jsonToNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ks}, val)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := jsonToNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, errors.New("unexpected json token")
}
