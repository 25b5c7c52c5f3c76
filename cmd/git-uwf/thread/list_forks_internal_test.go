package thread

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadRootsSkipsDamagedLines(t *testing.T) {
	good := strings.Repeat("a", 40)
	root := strings.Repeat("0", 39) + "1"
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"well formed", good + " " + root, true},
		{"short head", good[:39] + " " + root, false},
		{"not hex", strings.Repeat("g", 40) + " " + root, false},
		{"upper case", strings.ToUpper(good) + " " + root, false},
		{"root not hex", good + " " + strings.Repeat("z", 40), false},
		{"no separator", good + root, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "roots")
			if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got := loadRoots(path)
			if (len(got) == 1) != tt.want {
				t.Errorf("loadRoots(%q) = %v, want kept=%v", tt.line, got, tt.want)
			}
		})
	}
	if got := loadRoots(filepath.Join(t.TempDir(), "missing")); len(got) != 0 {
		t.Errorf("a missing cache gave %v", got)
	}
}
