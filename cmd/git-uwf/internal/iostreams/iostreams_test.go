package iostreams

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTestStreams(t *testing.T) {
	ios, in, out, errOut := Test()
	in.WriteString("input")
	if _, err := ios.Out.Write([]byte("out")); err != nil {
		t.Fatal(err)
	}
	if _, err := ios.ErrOut.Write([]byte("err")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if n, _ := ios.In.Read(buf); string(buf[:n]) != "input" {
		t.Errorf("In read %q, want %q", buf[:n], "input")
	}
	if out.String() != "out" || errOut.String() != "err" {
		t.Errorf("out=%q errOut=%q", out, errOut)
	}
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || ios.IsStderrTTY() {
		t.Error("Test streams must not be terminals")
	}
}

func TestTTYOverridesAndColor(t *testing.T) {
	tests := []struct {
		name                 string
		stdin, stdout, stder bool
		noColor              bool
		wantColor            bool
	}{
		{name: "no tty", wantColor: false},
		{name: "stdout tty", stdout: true, wantColor: true},
		{name: "stdout tty, NO_COLOR", stdout: true, noColor: true, wantColor: false},
		{name: "only stderr tty", stder: true, wantColor: false},
		{name: "all tty", stdin: true, stdout: true, stder: true, wantColor: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			ios.SetStdinTTY(tt.stdin)
			ios.SetStdoutTTY(tt.stdout)
			ios.SetStderrTTY(tt.stder)
			ios.SetNoColor(tt.noColor)
			if got := ios.IsStdinTTY(); got != tt.stdin {
				t.Errorf("IsStdinTTY = %v, want %v", got, tt.stdin)
			}
			if got := ios.IsStdoutTTY(); got != tt.stdout {
				t.Errorf("IsStdoutTTY = %v, want %v", got, tt.stdout)
			}
			if got := ios.IsStderrTTY(); got != tt.stder {
				t.Errorf("IsStderrTTY = %v, want %v", got, tt.stder)
			}
			if got := ios.ColorEnabled(); got != tt.wantColor {
				t.Errorf("ColorEnabled = %v, want %v", got, tt.wantColor)
			}
		})
	}
}

// TestSystemNoColor: System's streams read NO_COLOR from the environment
// when colour is asked about, not when they are made.
func TestSystemNoColor(t *testing.T) {
	for _, tt := range []struct {
		value, atSystem string // NO_COLOR when asked, and when System ran
		wantColor       bool
	}{
		{"", "", true},
		{"1", "1", false},
		{"", "1", true},
		{"1", "", false},
	} {
		t.Run("NO_COLOR="+tt.value+" (at System: "+tt.atSystem+")", func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.atSystem)
			ios := System()
			ios.SetStdoutTTY(true)
			t.Setenv("NO_COLOR", tt.value)
			if got := ios.ColorEnabled(); got != tt.wantColor {
				t.Errorf("ColorEnabled = %v, want %v", got, tt.wantColor)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, f := range []*os.File{null, file} {
		if isTerminal(f) {
			t.Errorf("isTerminal(%s) = true, want false", f.Name())
		}
	}
}

func TestSystem(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	ios := System()
	if ios.In != os.Stdin || ios.Out != os.Stdout || ios.ErrOut != os.Stderr {
		t.Error("System must wrap the process streams")
	}
	if ios.ColorEnabled() {
		t.Error("ColorEnabled with NO_COLOR set")
	}
	// Asked when first wanted, the answers are the streams'.
	for _, s := range []struct {
		name string
		is   func() bool
		f    *os.File
	}{
		{"stdin", ios.IsStdinTTY, os.Stdin},
		{"stdout", ios.IsStdoutTTY, os.Stdout},
		{"stderr", ios.IsStderrTTY, os.Stderr},
	} {
		if got, want := s.is(), isTerminal(s.f); got != want {
			t.Errorf("%s: is a terminal = %v, want %v", s.name, got, want)
		}
	}
	// An override wins over what was found out.
	found := ios.IsStdoutTTY()
	ios.SetStdoutTTY(!found)
	if ios.IsStdoutTTY() != !found {
		t.Errorf("IsStdoutTTY = %v after SetStdoutTTY(%v)", found, !found)
	}
}

// TestSystemAsksEachStream: each Is…TTY of System answers for the file
// System wrapped as that stream, even when first asked after os.Stdin and
// the others have changed. One stream at a time is a character device
// other than the null device (what isTerminal takes for a terminal), the
// others regular files, so that a check that asked another stream, or
// another file, answers wrong.
func TestSystemAsksEachStream(t *testing.T) {
	const device = "/dev/zero"
	fi, err := os.Stat(device)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("no character device %s", device)
	}
	open := func(name string) *os.File {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	stdin, stdout, stderr := os.Stdin, os.Stdout, os.Stderr
	defer func() { os.Stdin, os.Stdout, os.Stderr = stdin, stdout, stderr }()
	for _, terminal := range []string{"stdin", "stdout", "stderr"} {
		streams := map[string]*os.File{}
		for _, name := range []string{"stdin", "stdout", "stderr"} {
			if name == terminal {
				streams[name] = open(device)
			} else {
				streams[name] = open(filepath.Join(t.TempDir(), name))
			}
		}
		os.Stdin, os.Stdout, os.Stderr = streams["stdin"], streams["stdout"], streams["stderr"]
		ios := System()
		os.Stdin, os.Stdout, os.Stderr = stdin, stdout, stderr
		got := map[string]bool{"stdin": ios.IsStdinTTY(), "stdout": ios.IsStdoutTTY(), "stderr": ios.IsStderrTTY()}
		for name, is := range got {
			if want := name == terminal; is != want {
				t.Errorf("with %s a terminal, %s is one: %v, want %v", terminal, name, is, want)
			}
		}
	}
}
