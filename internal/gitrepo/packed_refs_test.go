package gitrepo

import (
	"slices"
	"strings"
	"testing"
)

type packedRec struct{ oid, name string }

// modelPacked parses packed-refs line by line, independently of
// packedRefs: the records in file order, and whether the file is valid.
func modelPacked(data string) (recs []packedRec, sortedTrait, valid bool) {
	if data == "" {
		return nil, false, true
	}
	if !strings.HasSuffix(data, "\n") {
		return nil, false, false
	}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if strings.HasPrefix(lines[0], packedHeader) {
		// git: strstr(traits, " sorted "), spaces only
		sortedTrait = slices.Contains(strings.Split(lines[0][len(packedHeader):], " "), "sorted")
		lines = lines[1:]
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "^") {
			if i == 0 || strings.HasPrefix(lines[i-1], "^") || !validOIDLen(len(l)-1) || !allLowerHex(l[1:]) {
				return nil, false, false
			}
			continue
		}
		oid, name, ok := strings.Cut(l, " ")
		if !ok || !validOIDLen(len(oid)) || !allLowerHex(oid) || name == "" {
			return nil, false, false
		}
		recs = append(recs, packedRec{oid, name})
	}
	return recs, sortedTrait, true
}

func FuzzPackedRefs(f *testing.F) {
	const a, b = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	seeds := []string{
		"",
		"# pack-refs with: peeled fully-peeled sorted \n" + a + " refs/heads/main\n" + b + " refs/tags/v1\n^" + a + "\n" + a + " refs/uwf/threads/X\n",
		a + " refs/uwf/threads/B\n" + b + " refs/uwf/threads/A\n",
		"# pack-refs with: peeled \n" + b + " refs/z\n^" + a + "\n" + a + " refs/a\n",
		"# pack-refs with: sorted \n^" + a + "\n",
		a + " refs/x",
		a + " refs/x\n" + a + " refs/x\n",
		"# pack-refs with: sorted \n" + a + " refs/b\n" + a + " refs/a\n",
		strings.Repeat("3", 64) + " refs/sha256\n",
		"garbage\n",
	}
	for _, s := range seeds {
		f.Add(s, "refs/uwf/threads/X")
	}
	f.Fuzz(func(t *testing.T, data, key string) {
		p := newPackedRefs(data)
		recs, sortedTrait, valid := modelPacked(data)
		if !valid {
			// Malformed: may be noticed now or on a visit, never answered
			// differently from "malformed" once noticed.
			p.scan(0, func(string, string) bool { return true })
			return
		}
		byName := func(x, y packedRec) int { return strings.Compare(x.name, y.name) }
		if !sortedTrait {
			slices.SortStableFunc(recs, byName)
			for i := 1; i < len(recs); i++ {
				if recs[i].name == recs[i-1].name {
					if !p.malformed.Load() {
						t.Fatalf("duplicate %q accepted", recs[i].name)
					}
					return
				}
			}
		}
		if p.malformed.Load() {
			t.Fatalf("valid file refused")
		}
		var got []packedRec
		p.scan(0, func(oid, name string) bool { got = append(got, packedRec{oid, name}); return true })
		if p.malformed.Load() || !slices.Equal(got, recs) {
			t.Fatalf("scan = %v (malformed: %v), want %v", got, p.malformed.Load(), recs)
		}
		if !slices.IsSortedFunc(recs, byName) {
			return // a file that claims an order it lacks: git bisects it wrongly too
		}
		for _, k := range append([]string{key}, namesOf(recs)...) {
			i, _ := slices.BinarySearchFunc(recs, k, func(r packedRec, k string) int { return strings.Compare(r.name, k) })
			var first []packedRec
			p.scan(p.lowerBound(k), func(oid, name string) bool { first = append(first, packedRec{oid, name}); return false })
			if want := recs[i:min(i+1, len(recs))]; !slices.Equal(first, want) {
				t.Fatalf("lowerBound(%q) at %v, want %v", k, first, want)
			}
			oid, ok := p.lookup(k)
			want := ""
			if i < len(recs) && recs[i].name == k && validRefName(k) {
				want = recs[i].oid
			}
			if !ok && validRefName(k) || oid != want {
				t.Fatalf("lookup(%q) = %q, %v; want %q", k, oid, ok, want)
			}
		}
	})
}

func namesOf(recs []packedRec) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.name)
	}
	return out
}
