package mangen

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	return &cli.App{
		Name:  "git uwf",
		Usage: "run workflows",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run in `DIR`"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "say more"},
			&cli.StringFlag{Name: "format", Usage: "output `FORMAT`"},
			&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help"},
		},
		Commands: []*cli.Command{
			{Name: "thread", Usage: "work on threads", Subcommands: []*cli.Command{
				{Name: "start", Usage: "start a thread", ArgsUsage: "<workflow>", Flags: []cli.Flag{
					&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the task `TEXT`"},
					&cli.IntFlag{Name: "count", Usage: "how many"},
					&cli.BoolFlag{Name: "secret", Hidden: true},
				}},
				{Name: "step", Aliases: []string{"exec"}, Usage: "run a step → commit"},
				{Name: "debug", Usage: "internal", Hidden: true},
			}},
			{Name: "version", Usage: "print the version"},
			{Name: "man", Usage: "hidden page", Hidden: true},
		},
	}
}

func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Page{Name: "git-uwf", Command: "git uwf", Version: "v1.2.3"}, testApp()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	tests := []struct {
		name   string
		want   []string
		reject []string
	}{
		{"header names the page and version", []string{`.TH GIT-UWF 1 "" "git\-uwf v1.2.3" "Git Manual"`}, nil},
		{"sections in order", []string{".SH \"NAME\"", ".SH \"SYNOPSIS\"", ".SH \"DESCRIPTION\"", ".SH \"OPTIONS\"", ".SH \"COMMANDS\"",
			".SH \"EXAMPLES\"", ".SH \"ENVIRONMENT\"", ".SH \"FILES\"", ".SH \"EXIT STATUS\"", ".SH \"SEE ALSO\""}, nil},
		{"registered commands with their arguments", []string{`\fBgit uwf thread start\fR \fI<workflow>\fR`, "Start a thread.", `\fBgit uwf version\fR`}, nil},
		{"aliases", []string{"Alias: exec."}, nil},
		{"hidden commands and flags are left out", nil, []string{"debug", "hidden page", "secret", "git uwf man"}},
		{"help and format are not listed per command", nil, []string{`\-\-help\fR`}},
		{"flags with placeholders", []string{`\fB\-p\fR|\fB\-\-prompt\fR \fITEXT\fR`, `\fB\-\-count\fR \fIVALUE\fR`}, nil},
		{"global options", []string{".TP\n\\fB\\-C\\fR \\fIDIR\\fR\nRun in DIR.", `\fB\-v\fR, \fB\-\-verbose\fR`}, nil},
		{"non-ASCII as code points", []string{`\[u2192]`}, []string{"→"}},
		{"exit status facts kept", []string{"\\fB75\\fR", "\\fB130\\fR", "UWF_SPAWN_AGENTS", "GOMEMLIMIT", "UWF_MOCK_SCRIPT"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := 0
			for _, w := range tt.want {
				i := strings.Index(page[at:], w)
				if i < 0 {
					t.Errorf("page lacks %q (after offset %d)", w, at)
					continue
				}
				if tt.name == "sections in order" {
					at += i
				}
			}
			for _, r := range tt.reject {
				if strings.Contains(page, r) {
					t.Errorf("page contains %q", r)
				}
			}
		})
	}
}

func TestNoLineStartsAsRequestByAccident(t *testing.T) {
	app := testApp()
	app.Commands[1].Usage = ".dot starts this usage"
	app.Commands[1].ArgsUsage = `'quoted \back`
	var buf bytes.Buffer
	if err := Write(&buf, Page{Name: "git-uwf", Command: "git uwf"}, app); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, ".Dot") || strings.HasPrefix(l, ".dot") || strings.HasPrefix(l, "'") {
			t.Errorf("line %d is read as a request: %q", i+1, l)
		}
	}
	if !strings.Contains(buf.String(), `\e`) {
		t.Error("backslash was not escaped")
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"--flag", `\-\-flag`},
		{`a\b`, `a\eb`},
		{"a…b", `a\[u2026]b`},
		{"é", `\[u00E9]`},
	}
	for _, tt := range tests {
		if got := escape(tt.in); got != tt.want {
			t.Errorf("escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"run *git uwf* now", `run \fBgit uwf\fR now`},
		{"a * b", `a * b`},
		{".starts with a dot", `\&.starts with a dot`},
	}
	for _, tt := range tests {
		if got := inline(tt.in); got != tt.want {
			t.Errorf("inline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	err := Write(failWriter{}, Page{Name: "git-uwf", Command: "git uwf"}, testApp())
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the writer's error", err)
	}
}
