package chain

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"reflect"
	"strconv"
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
