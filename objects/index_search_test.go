package objects

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/git-uwf/git-uwf/internal/gitobj"
)

// searchMapped finds what a binary search over the same records finds, for
// evenly spread aliases, clustered ones, repeated ones and prefixes.
func TestSearchMappedAgreesWithBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	even := func(n int) []Alias {
		out := make([]Alias, n)
		for i := range out {
			out[i] = encodeAlias(rng.Uint64())
		}
		return out
	}
	clustered := func(n int) []Alias {
		out := make([]Alias, n)
		for i := range out {
			switch i % 3 {
			case 0:
				out[i] = encodeAlias(rng.Uint64() >> 40) // near zero
			case 1:
				out[i] = encodeAlias(^uint64(0) - rng.Uint64()>>50) // near the top
			default:
				out[i] = encodeAlias(1 << 63)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		aliases []Alias
	}{
		{"empty", nil},
		{"one", even(1)},
		{"few", even(7)},
		{"even", even(5000)},
		{"clustered and repeated", clustered(3000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			entries := make([]entry, len(tc.aliases))
			for i, a := range tc.aliases {
				entries[i] = entry{a, gitobj.ComputeHash(gitobj.BlobObject, fmt.Appendf(nil, "%d", i))}
			}
			tag, err := writeTable(dir, entries, nil, "0000000000000000")
			if err != nil {
				t.Fatal(err)
			}
			tab, err := openTable(dir, tag)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.close()
			if tab.mapped == nil && len(entries) > 0 {
				t.Skip("the table is not mapped on this system")
			}
			sorted := slices.Clone(tc.aliases)
			slices.Sort(sorted)
			queries := append(slices.Clone(tc.aliases), even(500)...)
			queries = append(queries, "0000000000000", "FZZZZZZZZZZZZ")
			for _, a := range tc.aliases[:min(len(tc.aliases), 200)] {
				queries = append(queries, a[:4], a[:7]) // prefixes
			}
			for _, q := range queries {
				want := sort.Search(len(sorted), func(i int) bool { return string(sorted[i]) >= string(q) })
				if got := tab.searchMapped(string(q)); got != want {
					t.Fatalf("searchMapped(%s) = %d, binary search %d", q, got, want)
				}
			}
		})
	}
}

func TestAliasValueOrdersLikeStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		a, b := encodeAlias(rng.Uint64()), encodeAlias(rng.Uint64())
		if (a < b) != (aliasValue(a) < aliasValue(b)) {
			t.Fatalf("%s < %s is %v as strings, %v as values", a, b, a < b, aliasValue(a) < aliasValue(b))
		}
	}
	if v := aliasValue(encodeAlias(0xdeadbeefcafef00d)); v != 0xdeadbeefcafef00d {
		t.Fatalf("aliasValue does not invert encodeAlias: %x", v)
	}
}
