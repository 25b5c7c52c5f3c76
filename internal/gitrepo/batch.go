package gitrepo

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
// The Data of small objects share larger blocks of memory: copy what is
// kept for long.
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
// process instead of one per object.
//
// Requests are pipelined: Ask queues names and returns at once, one
// goroutine writes them to git and another reads and parses the answers
// as git writes them (running the Ask's callback on each, if any), and
// Pending.Wait waits for them. Git answers in the order it was asked, so
// git works on later requests, and the reading goroutine parses their
// answers, while the caller decodes earlier ones. A Batch (and its
// Pendings) is not safe for concurrent use. After any error it is broken
// and every later request fails; Close always releases the process.
type Batch struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader // the reader goroutine's
	stderr *bytes.Buffer
	// buffered: git runs --batch-command --buffer and answers only after
	// a "flush" line.
	buffered bool
	asked    []*Pending // the caller's: asked and not waited for, in the order asked
	slab     []byte     // the reader's: the free rest of the block small answers are read into

	// shared with the writer and reader goroutines
	mu      sync.Mutex
	err     error // sticky
	queue   [][]string
	toRead  []*Pending // asked, answers not read yet, in the order asked
	closing bool
	wake    chan struct{} // cap 1: queue or closing changed
	rwake   chan struct{} // cap 1: toRead or closing changed
	wrote   chan struct{} // closed when the writer has finished
	werr    error         // set by the writer before wrote is closed
	read    chan struct{} // closed when the reader has finished
	started bool
	waitErr error
	waited  sync.Once
}

// Pending is the answer to one Ask, read by Wait.
type Pending struct {
	b      *Batch
	names  []string
	each   func(i int, o Object)
	objs   []Object
	err    error
	ready  chan struct{} // closed when objs or err is set
	waited bool          // the caller's
	closed bool          // the caller's: Close came before Wait
}

// NewBatch starts `git cat-file --batch`. The process ends when ctx is done
// or Close is called.
//
// With git 2.36 or later it runs `git cat-file --batch-command --buffer`
// instead, asking "contents <name>" and sending "flush" after each round
// of names: git then writes its answers in large blocks rather than one
// write per object, which saves a pipe write and a wake-up of the reader
// per object. Older git gets the plain --batch, with the same answers.
func (r *Runner) NewBatch(ctx context.Context) (*Batch, error) {
	bs, err := r.NewBatches(ctx, 1)
	if err != nil {
		return nil, err
	}
	return bs[0], nil
}

// NewBatches starts up to n Batches (at least one, or an error), so that
// independent requests can be read by several git processes at once. The
// version of git decides the mode (see NewBatch): with r.VersionFile set,
// it is usually read from there rather than asked of git.
func (r *Runner) NewBatches(ctx context.Context, n int) ([]*Batch, error) {
	v, err := r.Version(ctx)
	buffered := err == nil && gitAtLeast(v, 2, 36)
	var out []*Batch
	for len(out) < max(n, 1) {
		b, err := r.startBatch(ctx, buffered)
		if err != nil {
			if len(out) == 0 {
				return nil, err
			}
			break
		}
		out = append(out, b)
	}
	return out, nil
}

// startBatch starts cat-file with --batch-command --buffer when buffered,
// else with --batch.
func (r *Runner) startBatch(ctx context.Context, buffered bool) (*Batch, error) {
	args := []string{"cat-file", "--batch"}
	if buffered {
		args = []string{"cat-file", "--batch-command", "--buffer"}
	}
	cmd := exec.CommandContext(ctx, r.Path, args...)
	cmd.Dir = r.Dir
	// Objects are read as stored: objects.DB, which reads the same objects
	// on the other paths, does not follow refs/replace, so neither does this.
	cmd.Env = append(append(os.Environ(), r.Env...), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1")
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: stdout: %w", err)
	}
	if f, ok := stdout.(*os.File); ok {
		widenPipe(f, pipeSize)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file --batch: %w", err)
	}
	return &Batch{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 256<<10), stderr: &stderr,
		buffered: buffered, wake: make(chan struct{}, 1), rwake: make(chan struct{}, 1),
		wrote: make(chan struct{}), read: make(chan struct{})}, nil
}

// pipeSize is the pipe buffer asked for git's answers: git writes them in
// 4 KiB pieces, and with the default 64 KiB pipe it waits for the reader
// (and wakes it) every 16 of them.
const pipeSize = 1 << 20

// gitAtLeast reports whether the output of `git version` ("git version
// 2.39.5", perhaps with a vendor suffix) names major.minor or later.
func gitAtLeast(version string, major, minor int) bool {
	f := strings.Fields(version)
	if len(f) < 3 || f[0] != "git" || f[1] != "version" {
		return false
	}
	parts := strings.SplitN(f[2], ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || (maj == major && mnr >= minor)
}

// Get asks for every name and returns the answers in the same order. Any
// number of names can be asked at once without filling the pipes.
func (b *Batch) Get(names []string) ([]Object, error) {
	return b.Ask(names).Wait()
}

// Ask queues names to be written to git and returns without waiting for
// the answers. Several Asks may be outstanding: answers are read as git
// writes them and held in memory until Wait.
func (b *Batch) Ask(names []string) *Pending {
	return b.AskEach(names, nil)
}

// AskEach is Ask, with each called on the reading goroutine for every
// answer, in order, as it is parsed: i is the index of its name. It may
// decode the answer into memory of the caller's, which the caller may use
// once Wait has returned without error; Wait then returns no answers
// itself (each has seen them). each must not call into b.
func (b *Batch) AskEach(names []string, each func(i int, o Object)) *Pending {
	p := &Pending{b: b, names: names, each: each, ready: make(chan struct{})}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\n\x00") {
			p.err = fmt.Errorf("git cat-file --batch: invalid object name %q", n)
			close(p.ready)
			return p
		}
	}
	if len(names) == 0 {
		close(p.ready)
		return p
	}
	b.mu.Lock()
	if b.err != nil || b.closing {
		p.err = b.err
		if p.err == nil {
			p.err = errClosed
		}
		b.mu.Unlock()
		close(p.ready)
		return p
	}
	if !b.started {
		b.started = true
		go b.writeLoop()
		go b.readLoop()
	}
	b.queue = append(b.queue, names)
	b.toRead = append(b.toRead, p)
	b.mu.Unlock()
	b.signal()
	notify(b.rwake)
	b.asked = append(b.asked, p)
	return p
}

var errClosed = errors.New("git cat-file --batch: closed")

// Wait returns the answers to the names of p, in the same order.
func (p *Pending) Wait() ([]Object, error) {
	if !p.waited {
		p.waited = true
		b := p.b
		for len(b.asked) > 0 && b.asked[0].waited {
			b.asked = b.asked[1:]
		}
	}
	if p.closed {
		return nil, errClosed
	}
	<-p.ready
	return p.objs, p.err
}

// readLoop reads the answers of every Pending handed to it, in order,
// until Close. After an error it fails every Pending, then and later.
func (b *Batch) readLoop() {
	defer close(b.read)
	for {
		b.mu.Lock()
		var p *Pending
		if len(b.toRead) > 0 {
			p = b.toRead[0]
			b.toRead = b.toRead[1:]
		}
		closing, err := b.closing, b.err
		b.mu.Unlock()
		if p == nil {
			if closing {
				return
			}
			<-b.rwake
			continue
		}
		if err == nil {
			err = b.readAll(p)
		}
		if err != nil {
			p.objs, p.err = nil, err
		}
		close(p.ready)
	}
}

// readAll reads the answers of p. On an error it breaks b.
func (b *Batch) readAll(p *Pending) error {
	var objs []Object
	if p.each == nil {
		objs = make([]Object, 0, len(p.names))
	}
	for i, n := range p.names {
		o, err := b.readOne(n)
		if err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			err = b.err
			b.mu.Unlock()
			// The writer may be blocked on a process that no longer reads.
			b.kill()
			return err
		}
		if p.each != nil {
			p.each(i, o)
			continue
		}
		objs = append(objs, o)
	}
	p.objs = objs
	return nil
}

// notify wakes the goroutine waiting on c, if any.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (b *Batch) signal() { notify(b.wake) }

// writeLoop writes queued names to git, flushing whenever the queue runs
// empty, until Close. It closes git's stdin when done. On a write error it
// kills git, so that a reader waiting for answers sees the process end.
func (b *Batch) writeLoop() {
	defer close(b.wrote)
	w := bufio.NewWriterSize(b.stdin, 64<<10)
	flush := false // names were written since the last "flush"
	fail := func(err error) {
		b.werr = err
		b.kill()
	}
	for {
		b.mu.Lock()
		queue, closing := b.queue, b.closing
		b.queue = nil
		b.mu.Unlock()
		if len(queue) == 0 {
			if flush && b.buffered {
				if _, err := w.WriteString("flush\n"); err != nil {
					fail(err)
					return
				}
			}
			flush = false
			if err := w.Flush(); err != nil {
				fail(err)
				return
			}
			if closing {
				if err := b.stdin.Close(); err != nil {
					b.werr = err
				}
				return
			}
			<-b.wake
			continue
		}
		flush = true
		for _, names := range queue {
			for _, n := range names {
				if b.buffered {
					if _, err := w.WriteString("contents "); err != nil {
						fail(err)
						return
					}
				}
				if _, err := w.WriteString(n); err != nil {
					fail(err)
					return
				}
				if err := w.WriteByte('\n'); err != nil {
					fail(err)
					return
				}
			}
		}
	}
}

// readOne parses one answer: "<oid> <type> <size>\n<data>\n" or
// "<name> missing\n" (also "ambiguous").
func (b *Batch) readOne(name string) (Object, error) {
	line, err := b.out.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return Object{}, fmt.Errorf("git cat-file --batch: answer header too long for %s", name)
		}
		return Object{}, b.failed(fmt.Sprintf("read header for %s", name), err)
	}
	header := line[:len(line)-1]
	if rest, ok := bytes.CutSuffix(header, []byte(" missing")); ok && string(rest) == name {
		return Object{Name: name, Missing: true}, nil
	}
	if rest, ok := bytes.CutSuffix(header, []byte(" ambiguous")); ok && string(rest) == name {
		return Object{Name: name, Missing: true}, nil
	}
	oid, rest, ok1 := bytes.Cut(header, []byte{' '})
	typ, sizeText, ok2 := bytes.Cut(rest, []byte{' '})
	if !ok1 || !ok2 || bytes.IndexByte(sizeText, ' ') >= 0 {
		return Object{}, fmt.Errorf("git cat-file --batch: unexpected answer %q for %s", header, name)
	}
	size, err := strconv.ParseInt(string(sizeText), 10, 64)
	if err != nil || size < 0 {
		return Object{}, fmt.Errorf("git cat-file --batch: bad size in %q for %s", header, name)
	}
	o := Object{Name: name, OID: string(oid), Type: objectType(typ)}
	data := b.alloc(int(size) + 1)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return Object{}, b.failed(fmt.Sprintf("read %d bytes of %s", size, name), err)
	}
	if data[size] != '\n' {
		return Object{}, fmt.Errorf("git cat-file --batch: object %s is not followed by a newline", name)
	}
	o.Data = data[:size:size]
	return o, nil
}

// Small objects are carved out of shared blocks: one allocation per block
// rather than per object.
const (
	slabSize  = 64 << 10
	slabLimit = 4 << 10
)

// alloc returns n bytes for an answer's data.
func (b *Batch) alloc(n int) []byte {
	if n > slabLimit {
		return make([]byte, n)
	}
	if len(b.slab) < n {
		b.slab = make([]byte, slabSize)
	}
	p := b.slab[:n:n]
	b.slab = b.slab[n:]
	return p
}

// objectType returns typ as a string, without allocating for the four
// object types.
func objectType(typ []byte) string {
	for _, t := range [...]string{"blob", "tree", "commit", "tag"} {
		if string(typ) == t {
			return t
		}
	}
	return string(typ)
}

// failed describes a read error, with git's stderr when the process died.
func (b *Batch) failed(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		b.kill()
		b.stopWriter()
		_ = b.wait()
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

// stopWriter tells the writer to finish and waits for it: it flushes what
// is queued and closes git's stdin.
func (b *Batch) stopWriter() {
	b.mu.Lock()
	b.closing = true
	started := b.started
	b.started = true // no writer may start after this
	b.mu.Unlock()
	if !started {
		close(b.wrote)
		_ = b.stdin.Close()
		return
	}
	b.signal()
	<-b.wrote
}

// wait waits for the process once; the reader must be done with its
// output or about to be.
func (b *Batch) wait() error {
	b.waited.Do(func() { b.waitErr = b.cmd.Wait() })
	return b.waitErr
}

// Close ends the process. It is safe to call more than once.
func (b *Batch) Close() error {
	unread := false
	for _, p := range b.asked {
		if !p.waited {
			unread = true
			p.waited, p.closed = true, true
			select {
			case <-p.ready:
			default:
				// Git may be blocked writing answers nobody will read.
				b.kill()
			}
		}
	}
	b.asked = nil
	b.mu.Lock()
	if unread && b.err == nil {
		b.err = errClosed
	}
	started := b.started
	b.mu.Unlock()
	b.stopWriter() // EOF on stdin: cat-file exits on its own
	notify(b.rwake)
	if started {
		<-b.read
	}
	err := b.wait()
	b.mu.Lock()
	berr := b.err
	b.mu.Unlock()
	if berr == nil && err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	if berr == nil && b.werr != nil {
		return fmt.Errorf("git cat-file --batch: write: %w", b.werr)
	}
	return nil
}
