package chain

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestUnquoteMatchesStrconv(t *testing.T) {
	for _, s := range []string{`""`, `"plain"`, `"tab\there"`, `"quote \" inside"`, `"a"b"`, `"é ünïcode"`, "\"\xff\"",
		`"unterminated`, `plain`, `"`, `"back\\slash"`, strconv.Quote("line\nbreak"), strconv.Quote("日本")} {
		want, err := strconv.Unquote(s)
		got, ok := unquote(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Errorf("unquote(%q) = %q, %v; strconv: %q, %v", s, got, ok, want, err)
		}
	}
}

func TestSummaryLineRoundTrip(t *testing.T) {
	role := "reviewer"
	c := cachedSummary{key: cacheKey{head: [20]byte{1}, attempts: [20]byte{}}, sum: Summary{
		Thread: NewThreadID(time.Unix(1700000000, 0)), Status: StatusIdle, CurrentRole: &role, Workflow: "w\tx",
		WorkflowHash: "ABC", Head: "DEF", UpdatedAt: time.Unix(1700000001, 5).UTC(), Prompt: "p \"q\"\nr é", Error: ""}}
	c.sum.HeadCommit = c.key.head.String()
	c.sum.CreatedAt = c.sum.Thread.Time().UTC()
	line := formatSummaryLine(c)
	id, got, ok := parseSummaryLine(line[:len(line)-1])
	if !ok || id != c.sum.Thread || got.key != c.key || got.sum.Prompt != c.sum.Prompt || got.sum.Workflow != c.sum.Workflow ||
		*got.sum.CurrentRole != role || got.sum.SuspendedRole != nil || !got.sum.UpdatedAt.Equal(c.sum.UpdatedAt) {
		t.Fatalf("round trip: ok=%v\n got %+v\nwant %+v", ok, got, c)
	}
	rec := line[:strings.LastIndexByte(line, ' ')]
	more := rec + "\tx"
	fewer := rec[:strings.LastIndexByte(rec, '\t')]
	for _, bad := range []string{line[:len(line)/2], "x" + line[1:len(line)-1], "",
		more + " " + lineCRC(more), fewer + " " + lineCRC(fewer)} {
		if _, _, ok := parseSummaryLine(bad); ok {
			t.Errorf("parsed a damaged line %q", bad)
		}
	}
}
