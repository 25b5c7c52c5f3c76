package chain

import (
	"strings"
	"testing"
)

func TestParseParentTrailer(t *testing.T) {
	const id, head = "01M86ZCEFF4MS140TN5H88HQXG", "20860cbdbb46db272c89f91f0e741f3117f498e8"
	tests := []struct {
		msg  string
		want string // "thread head role", "" for no link
	}{
		{"start: x\n\nUwf-Thread: 01\nUwf-Parent: " + id + " " + head + " fix\n", id + " " + head + " fix"},
		{"start: x\n", ""},
		{"Uwf-Parent: " + id + " " + head + "\n", ""},                      // no role
		{"Uwf-Parent: " + id + " " + head[:39] + " fix\n", ""},             // short head
		{"Uwf-Parent: " + id + " " + strings.ToUpper(head) + " fix\n", ""}, // not lower hex
		{"Uwf-Parent: not-a-ulid " + head + " fix\n", ""},                  // bad id
		{"Uwf-Parent: " + strings.ToLower(id) + " " + head + " fix\n", ""}, // not canonical
		{"Uwf-Parent: " + id + " " + head + " fix extra\n", ""},            // too many fields
		{"Uwf-Parent:" + id + " " + head + " fix\n", ""},                   // no space
	}
	for _, tt := range tests {
		got := ""
		if l := parseParentTrailer(tt.msg); l != nil {
			got = string(l.Thread) + " " + l.Head + " " + l.Role
		}
		if got != tt.want {
			t.Errorf("parseParentTrailer(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

func FuzzParseParentTrailer(f *testing.F) {
	f.Add("Uwf-Parent: 01M86ZCEFF4MS140TN5H88HQXG 20860cbdbb46db272c89f91f0e741f3117f498e8 fix\n")
	f.Add("start\n\nUwf-Parent: x y z")
	f.Add("")
	f.Fuzz(func(t *testing.T, msg string) {
		l := parseParentTrailer(msg)
		if l == nil {
			return
		}
		if len(l.Head) != 40 || l.Role == "" || strings.ContainsAny(l.Role, " \t\n") {
			t.Fatalf("bad link %+v from %q", l, msg)
		}
		if _, err := ParseThreadID(string(l.Thread)); err != nil {
			t.Fatalf("link thread %q: %v", l.Thread, err)
		}
	})
}
