package chain

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
	"github.com/git-uwf/git-uwf/objects"
)

func TestEntryRecordRoundTrip(t *testing.T) {
	h := func(b byte) gitobj.Hash { return gitobj.Hash{b, 1, 2} }
	recs := []entryRecord{
		{commit: h(1), parent: h(2), tree: h(3), unix: 1700000000, tzOffset: -3600,
			node:   objects.Node{Alias: "0ABCDEFGHJKMN", OID: h(4), Type: "1ABCDEFGHJKMN", Payload: json.RawMessage(`{"role":"r\tx"}`)},
			output: json.RawMessage(`{"$status":"done"}`), workflow: h(5), body: json.RawMessage(`"text\nwith lines"`), start: h(9)},
		{commit: h(6), tree: h(7), node: objects.Node{Alias: "2ABCDEFGHJKMN", OID: h(8), Type: "3ABCDEFGHJKMN", Payload: json.RawMessage(`{}`)}},
	}
	for _, rec := range recs {
		line := formatEntryRecord(rec)
		got, ok := parseEntryRecord(line[:len(line)-1])
		if !ok || !reflect.DeepEqual(got, rec) {
			t.Fatalf("round trip of %q: ok=%v\n got %+v\nwant %+v", line, ok, got, rec)
		}
		// A line with a field more or less, correctly checksummed, is
		// still refused.
		body := line[:bytes.LastIndexByte(line, '\t')]
		for _, bad := range [][]byte{append(append([]byte{}, body...), "\tx"...), body[:bytes.LastIndexByte(body, '\t')]} {
			bad = append(bad, '\t')
			bad = strconv.AppendUint(bad, uint64(crc32.Checksum(bad[:len(bad)-1], entryCRC())), 16)
			if _, ok := parseEntryRecord(bad); ok {
				t.Errorf("parsed a line with the wrong number of fields: %q", bad)
			}
		}
	}
}

// TestLoadEntryShard checks the reading of a cache file: lines longer
// than the read buffer, a line that fails its checksum, a commit written
// twice (the later record wins, in the first one's place), a torn tail,
// and files that are missing or of another version.
func TestLoadEntryShard(t *testing.T) {
	h := func(n, kind int) gitobj.Hash { return gitobj.Hash{byte(n), byte(n >> 8), byte(kind)} }
	rec := func(c int, payload string) entryRecord {
		return entryRecord{commit: h(c, 0), parent: h(c-1, 0), tree: h(c, 1), unix: 1700000000 + int64(c),
			node:   objects.Node{Alias: "0ABCDEFGHJKMN", OID: h(c, 2), Type: stepNodeAlias, Payload: json.RawMessage(payload)},
			output: json.RawMessage(`{"$status":"s` + strconv.Itoa(c) + `"}`), workflow: h(0, 3), start: h(0, 4)}
	}
	long := `{"edgePrompt":"` + strings.Repeat("x", 3*entryReadBuffer) + `"}`
	a, b, c, a2 := rec(1, `{"role":"a"}`), rec(2, long), rec(3, `{"role":"c"}`), rec(1, `{"role":"a, again"}`)
	c.output, c.body = nil, json.RawMessage(`"body"`)
	bad := formatEntryRecord(rec(4, `{}`))
	bad[50] ^= 1 // fails its checksum
	var file []byte
	file = append(file, entryCacheHeader()...)
	for _, r := range []entryRecord{a, b} {
		file = appendEntryRecord(file, r)
	}
	file = append(file, bad...)
	file = appendEntryRecord(file, c)
	file = appendEntryRecord(file, a2)
	want := []entryRecord{a2, b, c}
	// Enough lines after them that the buffer is read into again.
	for i := 10; len(file) < 8*entryReadBuffer; i++ {
		r := rec(i, `{"role":"filler `+strconv.Itoa(i)+`"}`)
		file = appendEntryRecord(file, r)
		want = append(want, r)
	}
	torn := formatEntryRecord(rec(5, `{}`))
	file = append(file, torn[:len(torn)-1]...)

	dir := t.TempDir()
	path := filepath.Join(dir, "shard")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	got, rewrite := loadEntryShard(path)
	if rewrite {
		t.Fatal("a current file is marked for rewriting")
	}
	if len(got.list) != len(want) {
		t.Fatalf("%d records, want %d", len(got.list), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got.list[i], want[i]) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got.list[i], want[i])
		}
	}
	for i, r := range want {
		if got.index[r.commit] != int32(i) {
			t.Errorf("index of %s = %d, want %d", r.commit, got.index[r.commit], i)
		}
	}
	if len(got.index) != len(want) {
		t.Errorf("index holds %d commits, want %d", len(got.index), len(want))
	}

	old := append([]byte("uwf-entry-cache 1\n"), file[len(entryCacheHeader()):]...)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"older version": path, "missing": filepath.Join(dir, "none")} {
		if got, rewrite := loadEntryShard(p); !rewrite || len(got.list) != 0 {
			t.Errorf("%s: %d records, rewrite %v; want none, rewrite", name, len(got.list), rewrite)
		}
	}
}
