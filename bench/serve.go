package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var serveURLRE = regexp.MustCompile(`at (http://[^ ]+/) `)

// serveFigure measures the web viewer's thread list page (first page, all
// states) over the 10,000-thread fixture against `thread list --all`, and
// the server's resident memory after many list requests across pages.
func (b *bench) serveFigure(ctx context.Context) error {
	f, err := b.bigFixture(ctx)
	if err != nil {
		return err
	}
	if _, err := proc(f.dir, nil, b.bin, "thread", "list", "--all"); err != nil { // build the caches
		return err
	}
	// The viewer itself rather than `git uwf serve`, which runs it: the
	// same pages, and the memory below is the viewer's, not git-uwf's.
	cmd := exec.CommandContext(ctx, b.serveBin, "--addr", "127.0.0.1:0")
	cmd.Dir = f.dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		return fmt.Errorf("serve did not start: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	m := serveURLRE.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("serve printed no URL: %q", line)
	}
	base := m[1]
	client := &http.Client{Timeout: time.Minute}
	get := func(path string) (sample, error) {
		start := time.Now()
		res, err := client.Get(base + path)
		if err != nil {
			return sample{}, err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", path, res.Status)
		}
		return sample{d: time.Since(start)}, err
	}
	page := func(int) (sample, error) { return get("") }
	list := func(int) (sample, error) { return proc(f.dir, nil, b.bin, "thread", "list", "--all") }
	v, bv, _, err := b.measure(page, list)
	if err != nil {
		return err
	}
	n := b.cfg.threads
	b.add(row{figure: fmt.Sprintf("`serve`: the thread list page (first 50), %d threads", n), baseline: "`thread list --all`",
		value: v, base: bv, unit: "ms", goal: "≤ 2×"})
	// Memory: the resident size after 200 list pages spread over all the
	// threads (every thread shown once: caches and the collector's headroom
	// have settled), then after 400 more; paging keeps nothing between
	// requests, so the second figure should equal the first.
	pages := n / 50
	browse := func(count int) error {
		for i := 0; i < count; i++ {
			if _, err := get("?page=" + strconv.Itoa(1+i*pages/count)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := browse(200); err != nil {
		return err
	}
	first := rss(cmd.Process.Pid)
	if err := browse(400); err != nil {
		return err
	}
	after := rss(cmd.Process.Pid)
	b.add(row{figure: fmt.Sprintf("`serve`: resident memory after 600 list pages across %d threads", n), baseline: "after the first 200",
		value: float64(after) / 1024, base: float64(first) / 1024, unit: "MiB", goal: "flat"})
	return nil
}

// rss reads a process's resident set size in KiB from /proc (0 elsewhere).
func rss(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
