package cas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
	"github.com/git-uwf/git-uwf/objects"
)

// PutOptions are the inputs of `cas put`.
type PutOptions struct {
	IO     *iostreams.IOStreams
	Getwd  func() (string, error)
	Repo   func(context.Context) (*chain.Repo, error)
	Format cmdutil.Format

	// Type and Input name the schema and the payload (a file, inline JSON
	// or "-" for stdin); unused when IsText.
	Type  string
	Input string
	// IsText stores Text as a text node; Text "-" reads stdin.
	IsText bool
	Text   string
}

// PutResult is the machine output of `cas put`.
type PutResult struct {
	Hash string `json:"hash"`
}

func newCmdPut(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "put",
		Usage:     "Validate a payload against a schema and store it as a node",
		ArgsUsage: "<type> <json-file|inline-json|->  |  --text <text|->",
		Description: "<type> is a schema alias, prefix or title (see 'git uwf cas schema list'). The payload\n" +
			"is read from stdin for \"-\", from the file if one exists at that path, else parsed as\n" +
			"inline JSON. --text stores a text node (\"-\" reads stdin).\n\n" +
			"The node is written to the object database but no ref points at it: it is not pushed,\n" +
			"and git gc may delete it (after gc.pruneExpire, two weeks by default) unless a thread\n" +
			"or workflow commit comes to reference it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "text", Usage: "store `TEXT` as a text node instead (\"-\" reads stdin)"},
		},
		Action: func(c *cli.Context) error {
			format, err := cmdutil.FormatOf(c)
			if err != nil {
				return err
			}
			opts := &PutOptions{IO: f.IO, Getwd: f.Getwd, Repo: f.Repo, Format: format}
			switch {
			case c.IsSet("text"):
				if c.NArg() > 0 {
					return cmdutil.FlagErrorf("--text takes no <type> or payload arguments")
				}
				opts.IsText, opts.Text = true, c.String("text")
			case c.NArg() == 2:
				opts.Type, opts.Input = c.Args().Get(0), c.Args().Get(1)
			case c.NArg() < 2:
				return cmdutil.FlagErrorf("want <type> and a payload (a JSON file, inline JSON or -), or --text")
			default:
				return cmdutil.FlagErrorf("expected <type> and one payload, got %d arguments", c.NArg())
			}
			return putRun(c.Context, opts)
		},
	}
}

func putRun(ctx context.Context, opts *PutOptions) error {
	repo, err := opts.Repo(ctx)
	if err != nil {
		return err
	}
	store := repo.Store
	var ref objects.Ref
	if opts.IsText {
		text := opts.Text
		if text == "-" {
			b, err := io.ReadAll(opts.IO.In)
			if err != nil {
				return fmt.Errorf("read text from stdin: %w", err)
			}
			text = string(b)
		}
		if ref, err = store.PutText(text); err != nil {
			return fmt.Errorf("store text node: %w", err)
		}
	} else {
		typ, err := resolveSchema(store, opts.Type)
		if err != nil {
			return err
		}
		payload, src, err := readPayload(opts)
		if err != nil {
			return err
		}
		ref, err = store.Put(typ, payload)
		switch {
		case errors.Is(err, objects.ErrNotSchema):
			return fmt.Errorf("type %s is not a schema node", typ)
		case errors.Is(err, objects.ErrNotFound):
			return fmt.Errorf("type %s: schema node not found", typ)
		case err != nil:
			return fmt.Errorf("%s: %w", src, err)
		}
	}
	res := PutResult{Hash: string(ref.Alias)}
	return cmdutil.Print(opts.IO, opts.Format, res, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, res.Hash)
		return err
	})
}

// readPayload reads the JSON payload named by opts.Input and says where it
// came from, for error messages.
func readPayload(opts *PutOptions) (json.RawMessage, string, error) {
	var data []byte
	src := "inline JSON"
	switch {
	case opts.Input == "-":
		b, err := io.ReadAll(opts.IO.In)
		if err != nil {
			return nil, "", fmt.Errorf("read payload from stdin: %w", err)
		}
		data, src = b, "stdin"
	default:
		path := opts.Input
		if !filepath.IsAbs(path) {
			wd, err := opts.Getwd()
			if err != nil {
				return nil, "", err
			}
			path = filepath.Join(wd, path)
		}
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, "", fmt.Errorf("read payload: %w", err)
			}
			data, src = b, opts.Input
		} else {
			data = []byte(opts.Input)
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		if src == "inline JSON" {
			return nil, "", fmt.Errorf("payload %q is neither a file nor valid JSON: %v", opts.Input, err)
		}
		return nil, "", fmt.Errorf("payload in %s is not valid JSON: %v", src, err)
	}
	return json.RawMessage(data), src, nil
}
