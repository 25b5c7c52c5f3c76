package root

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSupervisor: the supervisor's program installed beside git-uwf (the
// link git-uwf was run through resolved) supervises spawned agents; where
// it is missing or cannot be executed, git-uwf itself does.
func TestSupervisor(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	install := filepath.Join(root, "install")
	write(filepath.Join(install, "git-uwf"), 0o755)
	write(filepath.Join(install, SupervisorProgram), 0o755)
	linked := filepath.Join(root, "links", "git-uwf")
	if err := os.MkdirAll(filepath.Dir(linked), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(install, "git-uwf"), linked); err != nil {
		t.Fatal(err)
	}
	// A supervisor beside the link, not beside its target, is not used.
	write(filepath.Join(root, "links", SupervisorProgram), 0o755)
	lonely := filepath.Join(root, "lonely", "git-uwf")
	write(lonely, 0o755)
	notExec := filepath.Join(root, "notexec", "git-uwf")
	write(notExec, 0o755)
	write(filepath.Join(root, "notexec", SupervisorProgram), 0o644)
	dirNamed := filepath.Join(root, "dir", "git-uwf")
	write(dirNamed, 0o755)
	if err := os.Mkdir(filepath.Join(root, "dir", SupervisorProgram), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		exe  string
		want string
	}{
		{"beside git-uwf", filepath.Join(install, "git-uwf"), filepath.Join(install, SupervisorProgram)},
		{"beside the link's target", linked, filepath.Join(install, SupervisorProgram)},
		{"not installed", lonely, lonely},
		{"not executable", notExec, notExec},
		{"a directory of that name", dirNamed, dirNamed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := supervisor(func() (string, error) { return tt.exe, nil })
			if err != nil || got != tt.want {
				t.Errorf("supervisor = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("executable unknown", func(t *testing.T) {
		if got, err := supervisor(func() (string, error) { return "", errors.New("no executable") }); err == nil {
			t.Errorf("supervisor = %q, want the executable's error", got)
		}
	})
}
