package chain

import (
	"hash/crc32"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEscapeFieldRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\there", "line\nbreak\r\n", `back\slash`, `\t literal`, "é ünïcode 日本", "\xff\x00", `\`} {
		e := escapeField(s)
		if strings.ContainsAny(e, "\t\n\r") {
			t.Errorf("escapeField(%q) = %q holds a delimiter", s, e)
		}
		if got, ok := unescapeField(e); !ok || got != s {
			t.Errorf("unescapeField(escapeField(%q)) = %q, %v", s, got, ok)
		}
	}
	for _, bad := range []string{`\`, `a\x`, `\q`} {
		if _, ok := unescapeField(bad); ok {
			t.Errorf("unescapeField(%q) accepted", bad)
		}
	}
}

func testSummary() cachedSummary {
	role := "reviewer"
	c := cachedSummary{key: cacheKey{head: [20]byte{1}, attempts: [20]byte{}}, sum: Summary{
		Thread: NewThreadID(time.Unix(1700000000, 0)), Status: StatusIdle, CurrentRole: &role, Workflow: "w\tx",
		WorkflowHash: "ABC", Head: "DEF", UpdatedAt: time.Unix(1700000001, 5).UTC(), Prompt: "p \"q\"\nr é\\", Error: "e\r",
		Branch: "feat/x\ty", StartCommit: strings.Repeat("ab", 20)}}
	c.sum.HeadCommit = c.key.head.String()
	c.sum.CreatedAt = c.sum.Thread.Time().UTC()
	return c
}

func TestSummaryLineRoundTrip(t *testing.T) {
	c := testSummary()
	failed := testSummary()
	failed.key.attempts = [20]byte{2}
	failed.sum.Status, failed.sum.CurrentRole, failed.sum.Error = StatusFailed, nil, "boom"
	suspended := testSummary()
	empty := ""
	suspended.sum.Status, suspended.sum.CurrentRole, suspended.sum.SuspendedRole = StatusSuspended, nil, &empty
	for _, c := range []cachedSummary{c, failed, suspended} {
		line := formatSummaryLine(c)
		l, ok := parseCacheLine(line, []byte(line[:len(line)-1]))
		if !ok {
			t.Fatalf("line %q not parsed", line)
		}
		head, attempts := c.key.hex()
		roles := make([]string, 0, 2)
		var got Summary
		ok = l.summary(&got, c.sum.CreatedAt, &roles)
		if !ok || l.id != c.sum.Thread || l.head != head || l.attempts != attempts || l.line != line {
			t.Fatalf("round trip: ok=%v %+v", ok, l)
		}
		w := c.sum
		if got.Prompt != w.Prompt || got.Workflow != w.Workflow || got.WorkflowHash != w.WorkflowHash || got.Head != w.Head ||
			got.Error != w.Error || got.Status != w.Status || got.HeadCommit != w.HeadCommit ||
			got.Branch != w.Branch || got.StartCommit != w.StartCommit || l.start != w.StartCommit || l.branch() != w.Branch ||
			!got.UpdatedAt.Equal(w.UpdatedAt) || !got.CreatedAt.Equal(w.CreatedAt) ||
			(got.CurrentRole == nil) != (w.CurrentRole == nil) || (got.SuspendedRole == nil) != (w.SuspendedRole == nil) ||
			(w.CurrentRole != nil && *got.CurrentRole != *w.CurrentRole) || (w.SuspendedRole != nil && *got.SuspendedRole != *w.SuspendedRole) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, w)
		}
	}
}

// TestSummaryLineAllocs: a line whose fields need no escapes is formatted
// in one allocation, the line (a cold listing formats one per thread),
// and is the line of the same fields written out one by one.
func TestSummaryLineAllocs(t *testing.T) {
	c := testSummary()
	c.sum.Workflow, c.sum.Prompt, c.sum.Error, c.sum.Branch = "loop", "Task 1: do nothing.", "", "main"
	tests := []struct {
		name   string
		change func(*cachedSummary)
	}{
		{"idle", func(*cachedSummary) {}},
		{"failed, with attempts", func(c *cachedSummary) {
			c.key.attempts = [20]byte{2}
			c.sum.Status, c.sum.CurrentRole, c.sum.Error = StatusFailed, nil, "boom"
		}},
		{"no start commit", func(c *cachedSummary) { c.sum.StartCommit, c.sum.Branch = "", "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c
			tt.change(&c)
			var line string
			if n := testing.AllocsPerRun(20, func() { line = formatSummaryLine(c) }); n != 1 {
				t.Errorf("formatSummaryLine makes %v allocations; want 1", n)
			}
			head, attempts := c.key.hex()
			role := "-"
			if c.sum.CurrentRole != nil {
				role = "=" + *c.sum.CurrentRole
			}
			rec := strings.Join([]string{string(c.sum.Thread), head, attempts, c.sum.StartCommit, c.sum.Branch, string(c.sum.Status),
				role, "-", c.sum.Workflow, c.sum.WorkflowHash, c.sum.Head, strconv.FormatInt(c.sum.UpdatedAt.UnixNano(), 10),
				c.sum.Prompt, c.sum.Error}, "\t")
			if want := rec + "\t" + formatCRC(rec) + "\n"; line != want {
				t.Errorf("line\n%q\nwant\n%q", line, want)
			}
		})
	}
}

func TestSummaryLineDamage(t *testing.T) {
	line := formatSummaryLine(testSummary())
	rec := line[:strings.LastIndexByte(line, '\t')]
	withCRC := func(rec string) string {
		return rec + "\t" + formatCRC(rec) + "\n"
	}
	more := rec + "\tx"
	fewer := rec[:strings.LastIndexByte(rec, '\t')]
	badStatus := strings.Replace(rec, "\tidle\t", "\trunning\t", 1)
	badEscape := strings.Replace(rec, `\t`, `\q`, 1)
	checksummed := map[string]bool{withCRC(more): true, withCRC(fewer): true, withCRC(badStatus): true, withCRC(badEscape): true}
	for _, bad := range []string{line[:len(line)/2] + "\n", "x" + line[1:], "\n",
		withCRC(more), withCRC(fewer), withCRC(badStatus), withCRC(badEscape)} {
		l, ok := parseCacheLine(bad, []byte(bad[:len(bad)-1]))
		if !ok {
			// Only lines whose checksum fails may stop here; the others
			// must reach the field checks below.
			if checksummed[bad] {
				t.Errorf("a line with a good checksum was refused before its fields were read: %q", bad)
			}
			continue
		}
		roles := make([]string, 0, 2)
		if l.summary(&Summary{}, time.Time{}, &roles) {
			t.Errorf("parsed a damaged line %q", bad)
		}
	}
}

func formatCRC(rec string) string { return crcHex(crc32.ChecksumIEEE([]byte(rec))) }

func TestParseSummaryCache(t *testing.T) {
	a, b := testSummary(), testSummary()
	b.sum.Thread = NewThreadID(time.Unix(1700000100, 0))
	la, lb := formatSummaryLine(a), formatSummaryLine(b)
	tests := []struct {
		name        string
		file        string
		n           int
		newestFirst bool
	}{
		{"newest first", summaryCacheHead + lb + la, 2, true},
		{"oldest first", summaryCacheHead + la + lb, 2, false},
		{"torn tail", summaryCacheHead + lb + la[:len(la)-5], 1, true},
		{"damaged line", summaryCacheHead + lb[:30] + "x" + lb[31:] + la, 1, true},
		{"old version", "uwf-summary-cache 2\n" + lb + la, 0, false},
		{"version 3", "uwf-summary-cache 3\n" + lb + la, 0, false},
		{"empty", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseSummaryCache([]byte(tt.file))
			if len(c.lines) != tt.n || (tt.n > 0 && c.newestFirst != tt.newestFirst) {
				t.Fatalf("%d lines, newestFirst=%v; want %d, %v", len(c.lines), c.newestFirst, tt.n, tt.newestFirst)
			}
		})
	}
}

func FuzzParseSummaryCache(f *testing.F) {
	f.Add([]byte(summaryCacheHead + formatSummaryLine(testSummary())))
	f.Add([]byte(summaryCacheHead + "x\ty\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := parseSummaryCache(data)
		for _, l := range c.lines {
			roles := make([]string, 0, 2)
			var s Summary
			if l.summary(&s, time.Time{}, &roles) && s.Thread != l.id {
				t.Fatalf("summary of %s names %s", l.id, s.Thread)
			}
		}
	})
}
