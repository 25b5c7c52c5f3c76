package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-uwf/git-uwf/chain"
)

const testThread = "01J0000000000000000000000A"

func TestParseLease(t *testing.T) {
	head := strings.Repeat("ab", 20)
	good := &Lease{Thread: testThread, Worker: "host:42", Head: head, Expires: time.UnixMilli(1_800_000_000_000)}
	tests := []struct {
		name, msg, err string
	}{
		{"round trip", good.message(), ""},
		{"no thread", "x\n\nUwf-Lease-Worker: w\nUwf-Lease-Head: " + head + "\nUwf-Lease-Expires: 5\n", "Uwf-Lease-Thread"},
		{"bad head", strings.Replace(good.message(), head, "HEAD", 1), "not a commit id"},
		{"bad expiry", strings.Replace(good.message(), "1800000000000", "soon", 1), "not a time"},
		{"no worker", strings.Replace(good.message(), "Uwf-Lease-Worker: host:42\n", "", 1), "no worker"},
		{"duplicate", good.message() + "Uwf-Lease-Worker: other\n", "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLease(tt.msg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseLease = %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Thread != good.Thread || l.Worker != good.Worker || l.Head != good.Head || !l.Expires.Equal(good.Expires) {
				t.Errorf("got %+v, want %+v", l, good)
			}
			if !l.Expired(good.Expires) || l.Expired(good.Expires.Add(-time.Millisecond)) {
				t.Error("Expired is wrong at the boundary")
			}
		})
	}
}

func FuzzParseLease(f *testing.F) {
	f.Add((&Lease{Thread: testThread, Worker: "w", Head: strings.Repeat("0", 40), Expires: time.UnixMilli(1)}).message())
	f.Add("Uwf-Lease-Thread: x\nUwf-Lease-Expires: -1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, msg string) {
		l, err := ParseLease(msg)
		if err != nil {
			return
		}
		// What parses renders and parses back to the same lease.
		again, err := ParseLease(l.message())
		if err != nil || again.Thread != l.Thread || again.Head != l.Head || !again.Expires.Equal(l.Expires) {
			t.Fatalf("round trip of %+v: %+v, %v", l, again, err)
		}
	})
}

func TestLeaseExpired(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	tests := []struct {
		name    string
		expires time.Time
		want    bool
	}{
		{"in the past", now.Add(-time.Millisecond), true},
		{"now", now, true},
		{"in a minute", now.Add(time.Minute), false},
		{"a full lease ahead", now.Add(MaxLease), false},
		{"at the bound", now.Add(MaxLeaseAhead), false},
		{"past the bound", now.Add(MaxLeaseAhead + time.Millisecond), true},
		{"year 9999", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Lease{Thread: testThread, Worker: "w", Head: strings.Repeat("0", 40), Expires: tt.expires}
			if got := l.Expired(now); got != tt.want {
				t.Errorf("Expired(now) with expiry %s = %v, want %v", tt.expires.Sub(now), got, tt.want)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"host:42", "host:42"},
		{"ci-7 é", "ci-7 é"},
		{"ci\x1b[31m-7", `ci\x1b[31m-7`},
		{"a\x07b\rc\x7f", `a\ab\rc\x7f`},
		{"evil\u202eexe", `evil\u202eexe`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"real \ufffd", "real \ufffd"},
		{`back\slash`, `back\\slash`},
		{"\u009b31m", `\u009b31m`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMayBeLeased reads real ref files: only a ref
// refs/remotes/<remote>/uwf/leases/<thread>, loose or packed, under any
// remote (nested names too), makes a thread possibly leased; remote thread
// refs, other threads' leases and branches do not.
func TestMayBeLeased(t *testing.T) {
	const id = chain.ThreadID("01M80VFP0000000000000000AA")
	const other = "01M80VFP0000000000000000BB"
	tests := []struct {
		name string
		refs []string // under refs/remotes/
		pack bool
		want bool
	}{
		{name: "no remote-tracking refs", want: false},
		{name: "branches and thread refs only", refs: []string{"origin/main", "origin/feature/x", "origin/uwf/threads/" + string(id), "origin/uwf/threads/" + other}, want: false},
		{name: "another thread's lease", refs: []string{"origin/uwf/leases/" + other}, want: false},
		{name: "its lease, loose", refs: []string{"origin/main", "origin/uwf/leases/" + string(id)}, want: true},
		{name: "its lease, packed", refs: []string{"origin/main", "origin/uwf/leases/" + string(id)}, pack: true, want: true},
		{name: "its lease on another remote", refs: []string{"backup/uwf/leases/" + string(id)}, want: true},
		{name: "a nested remote name", refs: []string{"team/a/uwf/leases/" + string(id)}, want: true},
		{name: "a remote nested in another's thread refs", refs: []string{"o/uwf/threads/" + other, "o/uwf/threads/uwf/leases/" + string(id)}, want: true},
		{name: "a remote nested deeper in another's thread refs", refs: []string{"o/uwf/threads/" + other, "o/uwf/threads/b/uwf/leases/" + string(id)}, want: true},
		{name: "another thread's lease, packed", refs: []string{"origin/uwf/leases/" + other}, pack: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			tree := gitIn(t, dir, "hash-object", "-t", "tree", "-w", "/dev/null")
			commit := gitIn(t, dir, "commit-tree", tree, "-m", "c")
			for _, r := range tt.refs {
				gitIn(t, dir, "update-ref", "refs/remotes/"+r, commit)
			}
			if tt.pack {
				gitIn(t, dir, "pack-refs", "--all", "--prune")
				if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "remotes", "origin", "uwf", "leases")); err == nil {
					t.Fatal("the lease ref is still loose after pack-refs")
				}
			}
			repo, err := chain.Open(context.Background(), dir, chain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := MayBeLeased(repo, id); got != tt.want {
				t.Errorf("MayBeLeased = %v, want %v", got, tt.want)
			}
		})
	}
}
