package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"", FormatText, false},
		{"text", FormatText, false},
		{"json", FormatJSON, false},
		{"YAML", FormatYAML, false},
		{" json ", FormatJSON, false},
		{"xml", "", true},
		{"jsonl", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFormat(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseFormat(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseFormat(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

type sample struct {
	Zeta    string            `json:"zeta"`
	Alpha   int               `json:"alpha"`
	HTML    string            `json:"html"`
	Looks   []string          `json:"looks"`
	Ratio   float64           `json:"ratio"`
	Multi   string            `json:"multi"`
	Nested  *sample           `json:"nested,omitempty"`
	Nothing *int              `json:"nothing"`
	Empty   []int             `json:"empty"`
	Map     map[string]string `json:"map"`
	Skip    string            `json:"-"`
}

var sampleValue = sample{
	Zeta:   "z",
	Alpha:  1,
	HTML:   "<a&b>",
	Looks:  []string{"true", "123", "null", "1.5", "- x", ""},
	Ratio:  0.25,
	Multi:  "line one\nline two\n",
	Nested: &sample{Zeta: "inner", Empty: []int{}, Map: map[string]string{}},
	Empty:  []int{},
	Map:    map[string]string{"b": "2", "a": "1"},
	Skip:   "secret",
}

func TestPrintJSON(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	if err := Print(ios, FormatJSON, map[string]any{"x": "<&>", "n": []int{1}}, nil); err != nil {
		t.Fatal(err)
	}
	const want = "{\n  \"n\": [\n    1\n  ],\n  \"x\": \"<&>\"\n}\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestPrintYAMLMatchesJSON checks that yaml output has the json field names,
// in the json key order, and decodes to the same data.
func TestPrintYAMLMatchesJSON(t *testing.T) {
	ios, _, jsonOut, _ := iostreams.Test()
	if err := Print(ios, FormatJSON, sampleValue, nil); err != nil {
		t.Fatal(err)
	}
	yios, _, yamlOut, _ := iostreams.Test()
	if err := Print(yios, FormatYAML, sampleValue, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(yamlOut.String(), "secret") || strings.Contains(yamlOut.String(), "Skip") {
		t.Errorf("yaml ignores json tags:\n%s", yamlOut)
	}
	var fromJSON, fromYAML yaml.Node
	if err := yaml.Unmarshal(jsonOut.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(yamlOut.Bytes(), &fromYAML); err != nil {
		t.Fatalf("yaml output does not parse: %v\n%s", err, yamlOut)
	}
	if a, b := nodeShape(&fromJSON), nodeShape(&fromYAML); a != b {
		t.Errorf("json and yaml differ:\njson: %s\nyaml: %s\nyaml text:\n%s", a, b, yamlOut)
	}
	if !strings.HasPrefix(yamlOut.String(), "zeta: z\nalpha: 1\nhtml: <a&b>\nlooks:\n  - \"true\"\n") {
		t.Errorf("unexpected yaml start:\n%s", yamlOut)
	}
}

// nodeShape renders a decoded node tree with keys in order and resolved
// scalar tags, so two documents can be compared whatever their style.
func nodeShape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.DocumentNode:
		return nodeShape(n.Content[0])
	case yaml.MappingNode:
		var parts []string
		for i := 0; i < len(n.Content); i += 2 {
			parts = append(parts, n.Content[i].Value+"="+nodeShape(n.Content[i+1]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			parts = append(parts, nodeShape(c))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%s(%q)", n.ShortTag(), n.Value)
}

func TestPrintText(t *testing.T) {
	tests := []struct {
		name string
		text func(io.Writer) error
		want string
	}{
		{"custom", func(w io.Writer) error { _, err := io.WriteString(w, "human\n"); return err }, "human\n"},
		{"nil falls back to yaml", nil, "a: 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			if err := Print(ios, FormatText, map[string]int{"a": 1}, tt.text); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out, tt.want)
			}
		})
	}
}

func TestPrintErrors(t *testing.T) {
	for _, f := range []Format{FormatJSON, FormatYAML, "bogus"} {
		ios, _, out, _ := iostreams.Test()
		if err := Print(ios, f, map[string]any{"c": make(chan int)}, nil); err == nil {
			t.Errorf("%s: want an error for an unencodable value", f)
		}
		if out.Len() != 0 {
			t.Errorf("%s: partial output %q", f, out)
		}
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		local   bool // the command defines its own --format
		want    Format
		wantErr bool
	}{
		{"default", []string{"app", "cmd"}, false, FormatText, false},
		{"global", []string{"app", "--format", "json", "cmd"}, false, FormatJSON, false},
		{"global with local flag defined", []string{"app", "--format", "yaml", "cmd"}, true, FormatYAML, false},
		{"local wins", []string{"app", "--format", "yaml", "cmd", "--format", "json"}, true, FormatJSON, false},
		{"bad value", []string{"app", "--format", "xml", "cmd"}, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Format
			var gotErr error
			cmd := &cli.Command{Name: "cmd", Action: func(c *cli.Context) error {
				got, gotErr = FormatOf(c)
				return nil
			}}
			if tt.local {
				cmd.Flags = []cli.Flag{FormatFlag()}
			}
			app := &cli.App{
				Name:           "app",
				Writer:         io.Discard,
				ErrWriter:      io.Discard,
				ExitErrHandler: func(*cli.Context, error) {},
				Flags:          []cli.Flag{FormatFlag()},
				Commands:       []*cli.Command{cmd},
			}
			if err := app.RunContext(context.Background(), tt.args); err != nil {
				t.Fatal(err)
			}
			if (gotErr != nil) != tt.wantErr {
				t.Fatalf("FormatOf error = %v, wantErr %v", gotErr, tt.wantErr)
			}
			if gotErr != nil && ExitCode(gotErr) != ExitUsage {
				t.Errorf("bad format exits %d, want %d", ExitCode(gotErr), ExitUsage)
			}
			if got != tt.want {
				t.Errorf("FormatOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewFactory(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios)
	if f.IO != ios || f.Getwd == nil || f.Getenv == nil || f.Environ == nil || f.Now == nil || f.Executable == nil {
		t.Fatalf("NewFactory left a field unset: %+v", f)
	}
	if _, err := f.Getwd(); err != nil {
		t.Error(err)
	}
}

// countingWriter counts Write calls.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

func TestPrintTextBuffered(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cw := &countingWriter{}
	ios.Out = cw
	boom := errors.New("boom")
	err := Print(ios, FormatText, nil, func(w io.Writer) error {
		for i := 0; i < 1000; i++ {
			fmt.Fprintf(w, "line %d\n", i)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error: %v", err)
	}
	if cw.writes > 2 || !strings.HasPrefix(cw.String(), "line 0\n") || !strings.HasSuffix(cw.String(), "line 999\n") {
		t.Fatalf("%d writes of %d bytes: want the whole text (written before the error) in one or two writes", cw.writes, cw.Len())
	}
}

// tabwriterOf is what Table replaces: the rows joined by tabs through
// text/tabwriter.
func tabwriterOf(rows [][]string) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
	for _, r := range rows {
		io.WriteString(tw, strings.Join(r, "\t")+"\n")
	}
	tw.Flush()
	return b.String()
}

func tableOf(rows [][]string) string {
	t := NewTable(rows[0]...)
	t.Grow(len(rows) - 1)
	for _, r := range rows[1:] {
		t.Row(r...)
	}
	var b bytes.Buffer
	n, err := t.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		panic(fmt.Sprint(n, err))
	}
	return b.String()
}

func TestTableMatchesTabwriter(t *testing.T) {
	tests := []struct {
		name string
		rows [][]string
	}{
		{"header only", [][]string{{"A", "BB", "C"}}},
		{"plain", [][]string{{"THREAD", "STATUS", "TASK"}, {"01ABC", "idle", "do it"}, {"01ABCDEFG", "completed", ""}}},
		{"empty cells", [][]string{{"A", "", "C"}, {"", "", ""}, {"x", "", "long last cell"}}},
		{"unicode", [][]string{{"NAME", "TASK"}, {"é日本", "ü…"}, {"ab", "c"}}},
		{"one column", [][]string{{"A"}, {"bbb"}, {"c"}}},
		{"tab in a cell", [][]string{{"A", "B", "C"}, {"x\ty", "z", "w"}, {"1", "2", "3"}}},
		{"newline in a cell", [][]string{{"A", "B", "C"}, {"x\ny", "z", "w"}}},
		{"escape byte", [][]string{{"A", "B"}, {"x\xffy\xff", "z"}}},
		{"form feed", [][]string{{"A", "B"}, {"x\fy", "z"}, {"long cell", "q"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tableOf(tt.rows), tabwriterOf(tt.rows); got != want {
				t.Fatalf("table:\n%q\ntabwriter:\n%q", got, want)
			}
		})
	}
}

func FuzzTableMatchesTabwriter(f *testing.F) {
	f.Add("THREAD|WORKFLOW|STATUS\n01ABC|loop|idle\n01ABCDE|é|completed", 3)
	f.Add("a|b\n\t|c\nd|\n", 2)
	f.Fuzz(func(t *testing.T, spec string, ncol int) {
		if ncol < 1 || ncol > 8 {
			return
		}
		var rows [][]string
		for line := range strings.SplitSeq(spec, "\n") {
			cells := strings.Split(line, "|")
			for len(cells) < ncol {
				cells = append(cells, "")
			}
			rows = append(rows, cells[:ncol])
		}
		if got, want := tableOf(rows), tabwriterOf(rows); got != want {
			t.Fatalf("table:\n%q\ntabwriter:\n%q", got, want)
		}
	})
}
