// Package llmwire is how git-uwf talks to git-uwf-llm, the program of its
// own that sends git-uwf's HTTP requests to model servers (an
// OpenAI-compatible chat completion, and the reachability probe of
// `agent doctor`). git-uwf itself links no HTTP client, TLS or X.509 code:
// their package initialisation and size would be paid by every command,
// while only the llm agent, LLM extraction and the doctor use them (see
// docs/architecture.md, "Why a second binary").
//
// The exchange is one process per request: a [Request] as JSON on the
// program's stdin, a [Reply] as JSON on its stdout and exit status 0; or a
// message on its stderr and exit status 1. The API key travels in the
// program's environment as [EnvAPIKey], never on its command line.
//
// This package holds the request, the reply and [Run], which starts the
// program; package internal/llmhttp holds the HTTP side.
package llmwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/git-uwf/git-uwf/internal/lockedexec"
	"github.com/git-uwf/git-uwf/internal/text"
)

// Program is the name of the program, installed next to git-uwf.
const Program = "git-uwf-llm"

// EnvAPIKey is the variable that carries the API key to the program; it
// is removed from the environment the program inherits when the request
// has no key.
const EnvAPIKey = "GIT_UWF_LLM_API_KEY"

// MaxResponse caps the body of a model server's answer the program reads.
const MaxResponse = 8 << 20

// maxReply caps what Run reads from the program's stdout: a Reply whose
// content is a MaxResponse body, every byte of it escaped as \u00XX.
// maxStderr caps the message read from its stderr.
const (
	maxReply  = 6*MaxResponse + 64<<10
	maxStderr = 64 << 10
)

// Operations of a Request.
const (
	// OpChat sends one non-streaming chat completion request.
	OpChat = "chat"
	// OpProbe sends GET URL; any HTTP answer counts as reachable.
	OpProbe = "probe"
)

// Request is what the program is asked to do.
type Request struct {
	Op string `json:"op"`

	// BaseURL is the API root of an OpChat request; the request goes to
	// BaseURL + "/chat/completions".
	BaseURL string `json:"baseUrl,omitempty"`
	Model   string `json:"model,omitempty"`
	// System is the optional system message, User the user message.
	System string `json:"system,omitempty"`
	User   string `json:"user,omitempty"`
	// ResponseFormat, when set, is sent as response_format's type (e.g.
	// "json_object").
	ResponseFormat string `json:"responseFormat,omitempty"`

	// URL is what an OpProbe request gets.
	URL string `json:"url,omitempty"`

	// Timeout bounds the request in the program; 0 means no bound of its
	// own (the caller's context still ends it).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ChatEndpoint returns the chat completion URL of the API root base
// (base + "/chat/completions"), and the same URL without any password in
// it, for messages.
func ChatEndpoint(base string) (endpoint, shown string) {
	endpoint = strings.TrimRight(base, "/") + "/chat/completions"
	if u, err := neturl.Parse(endpoint); err == nil {
		return endpoint, u.Redacted()
	}
	return endpoint, endpoint
}

// Reply is the program's answer to a request it could carry out.
type Reply struct {
	// Content is the first choice's message of an OpChat request.
	Content string `json:"content"`
	// Reachable tells whether the URL of an OpProbe request answered
	// HTTP, and Unreachable why not.
	Reachable   bool   `json:"reachable,omitempty"`
	Unreachable string `json:"unreachable,omitempty"`
}

// NotInstalledError is Run's error when the program is not where it was
// looked for.
type NotInstalledError struct {
	// Path is where the program was looked for; "" when no path was
	// given (git-uwf could not find its own executable, or an agent ran
	// without UWF_LLM_PROGRAM).
	Path string
}

func (e *NotInstalledError) Error() string {
	const install = "install it next to git-uwf: `make install` in a git-uwf checkout, or `go install ./cmd/git-uwf-llm` there"
	if e.Path == "" {
		return fmt.Sprintf("HTTP requests to model servers are sent by the program %s, and no path to it was given "+
			"(git-uwf gives the one next to it, as UWF_LLM_PROGRAM for the agents it runs); %s", Program, install)
	}
	return fmt.Sprintf("HTTP requests to model servers are sent by the program %s, which is not installed at %s; %s", Program, e.Path, install)
}

// Run starts program with req and returns its reply. apiKey, when not
// empty, is passed as EnvAPIKey in the environment the program inherits
// from this process. Ending ctx kills the program. An error the program
// reports is returned with its message as the program wrote it; a program
// that is missing, crashes or answers something other than a Reply gets
// an error that names it.
func Run(ctx context.Context, program string, req Request, apiKey string) (Reply, error) {
	if program == "" {
		return Reply{}, &NotInstalledError{}
	}
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return Reply{}, fmt.Errorf("encode the request for %s: %w", Program, err)
	}
	if req.Timeout > 0 {
		// The program ends a request that takes too long itself and says
		// so; this bound is for a program that does not.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout+5*time.Second)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, program)
	cmd.Env = environ(os.Environ(), apiKey)
	cmd.Stdin = bytes.NewReader(payload)
	stdout := &capped{max: maxReply}
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setParentDeathSignal(cmd.SysProcAttr)
	setOwnGroup(cmd.SysProcAttr)
	// Time for the pipes to drain once the program has exited (or was
	// killed): a loaded machine can take more than a second to copy a
	// finished reply, and only a child the program left behind holding
	// the pipes needs the bound at all.
	cmd.WaitDelay = 5 * time.Second
	err = lockedexec.Run(cmd)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return Reply{}, &NotInstalledError{Path: program}
	}
	if ctx.Err() != nil {
		return Reply{}, ctx.Err()
	}
	if stdout.over {
		return Reply{}, fmt.Errorf("%s (%s) wrote more than %d bytes to its stdout", Program, program, maxReply)
	}
	msg := strings.TrimSpace(strings.ToValidUTF8(stderr.buf.String(), "\uFFFD"))
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		if ee.ExitCode() == 1 && msg != "" {
			return Reply{}, errors.New(msg)
		}
		return Reply{}, fmt.Errorf("%s (%s) failed: %v: %s", Program, program, ee, text.Excerpt(msg, "(nothing)"))
	}
	if err != nil {
		return Reply{}, fmt.Errorf("%s (%s): %w", Program, program, err)
	}
	var reply Reply
	dec := json.NewDecoder(bytes.NewReader(stdout.buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil || dec.More() {
		return Reply{}, fmt.Errorf("%s (%s) answered something other than a reply: %s", Program, program, text.Excerpt(stdout.buf.String(), "(nothing)"))
	}
	return reply, nil
}

// environ is env for the program: without any EnvAPIKey, then with apiKey
// as EnvAPIKey when it is not empty.
func environ(env []string, apiKey string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvAPIKey+"=") {
			out = append(out, kv)
		}
	}
	if apiKey != "" {
		out = append(out, EnvAPIKey+"="+apiKey)
	}
	return out
}

// capped keeps what is written to it up to max bytes; past that it fails
// the write, which stops the copy from the program's pipe.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, errors.New("output limit reached")
	}
	return c.buf.Write(p)
}
