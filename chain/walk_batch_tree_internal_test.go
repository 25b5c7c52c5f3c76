package chain

import (
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// treeNames are the names a walk looks up, and one that it does not.
var treeNames = []string{"node", "nodes", "workflow", "start", "other"}

// parsedLookup is what scanTree must give: ParseTree, then topEntry.
func parsedLookup(data []byte) ([]gitobj.Hash, error) {
	t, err := gitobj.ParseTree(data)
	if err != nil {
		return make([]gitobj.Hash, len(treeNames)), err
	}
	out := make([]gitobj.Hash, len(treeNames))
	for i, n := range treeNames {
		out[i] = topEntry(t, n)
	}
	return out, nil
}

func treeBytes(entries ...string) []byte {
	var b []byte
	for i, e := range entries {
		b = append(b, e...)
		b = append(b, 0)
		var h gitobj.Hash
		h[0], h[19] = byte(i+1), 0xee
		b = append(b, h[:]...)
	}
	return b
}

func TestScanTree(t *testing.T) {
	valid := treeBytes("100644 node", "40000 nodes", "100644 start", "40000 workflow")
	tests := []struct {
		name string
		data []byte
		ok   bool
	}{
		{"empty", nil, true},
		{"root tree", valid, true},
		{"a name twice: the first wins", treeBytes("100644 node", "100644 node"), true},
		{"other names only", treeBytes("100644 a", "100644 nodesx", "100644 nod"), true},
		{"leading zeros in the mode", treeBytes("0000100644 node"), true},
		{"largest mode", treeBytes("37777777777 node"), true},
		{"mode over 32 bits", treeBytes("40000000000 node"), false},
		{"mode with an 8", treeBytes("100648 node"), false},
		{"empty mode", treeBytes(" node"), false},
		{"signed mode", treeBytes("+100644 node"), false},
		{"empty name", treeBytes("100644 "), false},
		{"no space", []byte("100644node\x00" + string(make([]byte, 20))), false},
		{"no NUL", []byte("100644 node"), false},
		{"truncated id", valid[:len(valid)-1], false},
		{"a bad entry after the names", append(valid, "1 x"...), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := make([]gitobj.Hash, len(treeNames))
			found[0][0] = 0x42 // cleared by the scan
			err := scanTree(tt.data, treeNames, found)
			if (err == nil) != tt.ok {
				t.Fatalf("scanTree error = %v; want ok %v", err, tt.ok)
			}
			want, werr := parsedLookup(tt.data)
			if (werr == nil) != tt.ok {
				t.Fatalf("ParseTree error = %v; want ok %v", werr, tt.ok)
			}
			for i := range found {
				if found[i] != want[i] {
					t.Errorf("%s: scanTree found %s, ParseTree %s", treeNames[i], found[i], want[i])
				}
			}
		})
	}
}

// FuzzScanTree: scanTree fails exactly where ParseTree fails, and finds
// what topEntry finds in the parsed tree.
func FuzzScanTree(f *testing.F) {
	f.Add(treeBytes("100644 node", "40000 nodes", "100644 start", "40000 workflow"))
	f.Add(treeBytes("100644 node", "100644 node"))
	f.Add([]byte("100644 node\x00short"))
	f.Add([]byte("37777777777 x\x00" + string(make([]byte, 20))))
	f.Fuzz(func(t *testing.T, data []byte) {
		found := make([]gitobj.Hash, len(treeNames))
		err := scanTree(data, treeNames, found)
		want, werr := parsedLookup(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("scanTree error %v, ParseTree error %v", err, werr)
		}
		for i := range found {
			if found[i] != want[i] {
				t.Fatalf("%s: scanTree found %s, ParseTree %s", treeNames[i], found[i], want[i])
			}
		}
	})
}
