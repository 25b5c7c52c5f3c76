package gitcli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Object is one answer of a Batch: an object's id, type and contents, or
// Missing when git could not find (or could not uniquely resolve) the name.
type Object struct {
	Name    string // what was asked for
	OID     string
	Type    string // "commit", "tree", "blob" or "tag"
	Data    []byte
	Missing bool
}

// Batch reads objects through one long-lived `git cat-file --batch`
// process: names (object ids or any revision such as <oid>:<path>) are
// streamed in and objects are parsed out, so reading many objects costs one
// process instead of one per object. A Batch is not safe for concurrent
// use. After any error it is broken and every later Get fails; Close
// always releases the process.
type Batch struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	err    error // sticky
}

// NewBatch starts `git cat-file --batch`. The process ends when ctx is done
// or Close is called.
func (r *Runner) NewBatch(ctx context.Context) (*Batch, error) {
	cmd := exec.CommandContext(ctx, r.Path, "cat-file", "--batch")
	cmd.Dir = r.Dir
	cmd.Env = append(append(os.Environ(), r.Env...), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: stdout: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file --batch: %w", err)
	}
	return &Batch{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 64<<10), stderr: &stderr}, nil
}

// Get asks for every name and returns the answers in the same order. The
// names are written while the answers are read, so any number of names
// can be asked at once without filling the pipes.
func (b *Batch) Get(names []string) ([]Object, error) {
	if b.err != nil {
		return nil, b.err
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\n\x00") {
			return nil, fmt.Errorf("git cat-file --batch: invalid object name %q", n)
		}
	}
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := bufio.NewWriterSize(b.stdin, 32<<10)
		for _, n := range names {
			if _, werr = w.WriteString(n); werr != nil {
				return
			}
			if werr = w.WriteByte('\n'); werr != nil {
				return
			}
		}
		werr = w.Flush()
	}()
	out := make([]Object, 0, len(names))
	var rerr error
	for _, n := range names {
		o, err := b.readOne(n)
		if err != nil {
			rerr = err
			break
		}
		out = append(out, o)
	}
	if rerr != nil {
		// The writer may be blocked on a process that no longer reads.
		b.kill()
	}
	wg.Wait()
	if rerr == nil && werr != nil {
		rerr = fmt.Errorf("git cat-file --batch: write: %w", werr)
	}
	if rerr != nil {
		b.err = rerr
		return nil, rerr
	}
	return out, nil
}

// readOne parses one answer: "<oid> <type> <size>\n<data>\n" or
// "<name> missing\n" (also "ambiguous").
func (b *Batch) readOne(name string) (Object, error) {
	header, err := b.out.ReadString('\n')
	if err != nil {
		return Object{}, b.failed(fmt.Sprintf("read header for %s", name), err)
	}
	header = strings.TrimSuffix(header, "\n")
	if rest, ok := strings.CutSuffix(header, " missing"); ok && rest == name {
		return Object{Name: name, Missing: true}, nil
	}
	if rest, ok := strings.CutSuffix(header, " ambiguous"); ok && rest == name {
		return Object{Name: name, Missing: true}, nil
	}
	f := strings.Split(header, " ")
	if len(f) != 3 {
		return Object{}, fmt.Errorf("git cat-file --batch: unexpected answer %q for %s", header, name)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return Object{}, fmt.Errorf("git cat-file --batch: bad size in %q for %s", header, name)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return Object{}, b.failed(fmt.Sprintf("read %d bytes of %s", size, name), err)
	}
	if data[size] != '\n' {
		return Object{}, fmt.Errorf("git cat-file --batch: object %s is not followed by a newline", name)
	}
	return Object{Name: name, OID: f[0], Type: f[1], Data: data[:size]}, nil
}

// failed describes a read error, with git's stderr when the process died.
func (b *Batch) failed(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		b.kill()
		_ = b.cmd.Wait()
		msg := strings.TrimSpace(b.stderr.String())
		if msg == "" {
			msg = "the process exited"
		}
		return fmt.Errorf("git cat-file --batch: %s: %s", what, msg)
	}
	return fmt.Errorf("git cat-file --batch: %s: %w", what, err)
}

func (b *Batch) kill() {
	if b.cmd.Process != nil {
		_ = b.cmd.Process.Kill()
	}
}

// Close ends the process. It is safe to call more than once.
func (b *Batch) Close() error {
	if b.cmd.ProcessState != nil {
		return nil
	}
	_ = b.stdin.Close() // EOF on stdin: cat-file exits on its own
	err := b.cmd.Wait()
	if b.err == nil && err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	return nil
}
