package uwfsync

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/gitrepo"
)

func TestForkID(t *testing.T) {
	const thread = chain.ThreadID("01J9Z3K4D5E6F7G8H9JAKBMCND")
	tip := strings.Repeat("ab", 20)
	when := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	base := ForkID(thread, tip, when)
	tests := []struct {
		name   string
		id     chain.ThreadID
		tip    string
		when   time.Time
		same   bool
		wantAt time.Time
	}{
		{"same inputs", thread, tip, when, true, when},
		{"tip case does not matter", thread, strings.ToUpper(tip), when, true, when},
		{"other tip", thread, strings.Repeat("cd", 20), when, false, when},
		{"other thread", "01J9Z3K4D5E6F7G8H9JAKBMCNE", tip, when, false, when},
		{"other time", thread, tip, when.Add(time.Second), false, when.Add(time.Second)},
		{"before 1970 clamps", thread, tip, time.Unix(-5, 0), false, time.UnixMilli(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ForkID(tt.id, tt.tip, tt.when)
			if parsed, err := chain.ParseThreadID(string(got)); err != nil || parsed != got {
				t.Fatalf("ForkID = %q is not a canonical thread id: %v", got, err)
			}
			if (got == base) != tt.same {
				t.Errorf("ForkID = %s, base %s: same = %v, want %v", got, base, got == base, tt.same)
			}
			if !got.Time().Equal(tt.wantAt) {
				t.Errorf("ForkID time = %v, want %v", got.Time(), tt.wantAt)
			}
		})
	}
}

func TestWorkflowForkName(t *testing.T) {
	tip := "0123456789abcdef0123456789abcdef01234567"
	tests := []struct{ name, want string }{
		{"review-loop", "review-loop-local-01234567"},
		{strings.Repeat("a", 100), strings.Repeat("a", 85) + "-local-01234567"},
		{strings.Repeat("a", 84) + "..b", strings.Repeat("a", 84) + "-local-01234567"},
	}
	for _, tt := range tests {
		got := workflowForkName(tt.name, tip)
		if got != tt.want {
			t.Errorf("workflowForkName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if err := chain.ValidWorkflowName(got); err != nil {
			t.Errorf("workflowForkName(%q) = %q: %v", tt.name, got, err)
		}
	}
}

func TestParsePorcelain(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []porcelainLine
	}{
		{"empty", "", nil},
		{"mixed", "To ../remote.git\n" +
			" \trefs/uwf/threads/X:refs/uwf/threads/X\t5304dd4..54bbb3c\n" +
			"*\trefs/uwf/threads/Y:refs/uwf/threads/Y\t[new reference]\n" +
			"=\trefs/uwf/workflows/w:refs/uwf/workflows/w\t[up to date]\n" +
			"!\trefs/uwf/threads/Z:refs/uwf/threads/Z\t[rejected] (fetch first)\n" +
			"Done\n", []porcelainLine{
			{' ', "refs/uwf/threads/X", "refs/uwf/threads/X", "5304dd4..54bbb3c"},
			{'*', "refs/uwf/threads/Y", "refs/uwf/threads/Y", "[new reference]"},
			{'=', "refs/uwf/workflows/w", "refs/uwf/workflows/w", "[up to date]"},
			{'!', "refs/uwf/threads/Z", "refs/uwf/threads/Z", "[rejected] (fetch first)"},
		}},
		{"no summary", "*\ta:b\n", []porcelainLine{{'*', "a", "b", ""}}},
		{"noise only", "To x\nerror: something\nDone\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parsePorcelain(tt.out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parsePorcelain = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestListedDigest checks that the digest the adopt check computes from a
// listing as it streams past is the one the record holds for the same
// refs (digestOf(refLines(...))), and that a listing out of order is left
// to the long way.
func TestListedDigest(t *testing.T) {
	const remote = "origin"
	oid := func(c string) string { return strings.Repeat(c, 40) }
	tracking := func(names ...string) []gitrepo.RefEntry {
		var refs []gitrepo.RefEntry
		for i, n := range names {
			refs = append(refs, gitrepo.RefEntry{Name: trackingPrefix(remote) + n, OID: oid(string(rune('a' + i%6)))})
		}
		return refs
	}
	tests := []struct {
		name   string
		refs   []gitrepo.RefEntry
		sorted bool
	}{
		{"none", nil, true},
		{"one", tracking("threads/01A"), true},
		{"threads and workflows", tracking("threads/01A", "threads/01B", "threads/01B-fork", "workflows/loop"), true},
		{"out of order", tracking("threads/01B", "threads/01A"), false},
		{"twice", tracking("threads/01A", "threads/01A"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sorted := listedDigest(remote, tt.refs)
			if sorted != tt.sorted {
				t.Fatalf("listedDigest sorted = %v, want %v", sorted, tt.sorted)
			}
			if !sorted {
				return
			}
			st := &refState{}
			st.setTracking(remote, tt.refs)
			if want := digestOf(refLines(st.trackingOrder, st.tracking)); got != want {
				t.Errorf("listedDigest = %s, the record's digest of the same refs = %s", got, want)
			}
		})
	}
	a, _ := listedDigest(remote, tracking("threads/01A"))
	moved := tracking("threads/01A")
	moved[0].OID = oid("f")
	if b, _ := listedDigest(remote, moved); a == b {
		t.Errorf("a moved ref keeps the digest %s", a)
	}
}
