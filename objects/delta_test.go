package objects

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestApplyDelta(t *testing.T) {
	base := []byte("0123456789abcdef")
	big := bytes.Repeat([]byte("x"), 0x10000+5)
	tests := []struct {
		name  string
		base  []byte
		delta []byte
		want  string // "" with wantErr
		err   bool
	}{
		{"insert only", base, []byte{16, 3, 3, 'x', 'y', 'z'}, "xyz", false},
		{"copy with offset and size", base, []byte{16, 4, 0x91, 10, 4}, "abcd", false},
		{"copy from zero, one size byte", base, []byte{16, 2, 0x90, 2}, "01", false},
		{"copy then insert", base, []byte{16, 6, 0x91, 12, 4, 2, '!', '?'}, "cdef!?", false},
		{"size zero means 64 KiB", big, []byte{0x85, 0x80, 4, 0x85, 0x80, 4, 0x80, 0x91, 5, 5}, string(big[:0x10000]) + "xxxxx", false},
		{"base size differs", base, []byte{15, 1, 1, 'x'}, "", true},
		{"copy past the base", base, []byte{16, 4, 0x91, 14, 4}, "", true},
		{"insert past the delta", base, []byte{16, 3, 5, 'x'}, "", true},
		{"result shorter than said", base, []byte{16, 4, 1, 'x'}, "", true},
		{"result longer than said", base, []byte{16, 1, 2, 'x', 'y'}, "", true},
		{"instruction zero", base, []byte{16, 1, 0, 'x'}, "", true},
		{"copy cut short", base, []byte{16, 4, 0x91, 10}, "", true},
		{"no sizes", base, []byte{0x90}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyDelta(tt.base, tt.delta)
			if tt.err {
				if !errors.Is(err, errPackEntry) {
					t.Fatalf("applyDelta = %q, %v; want errPackEntry", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("applyDelta = %q, %v; want %q", strings.ToValidUTF8(string(got[:min(len(got), 40)]), "?"), err, tt.want[:min(len(tt.want), 40)])
			}
		})
	}
}
