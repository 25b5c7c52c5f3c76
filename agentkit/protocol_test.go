package agentkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAdapterOutput(t *testing.T) {
	tests := []struct {
		name, stdout, wantHash, wantErr string
	}{
		{"bare alias", "3F2KQ8R1VX0AB\n", "3F2KQ8R1VX0AB", ""},
		{"logs then alias", "working…\ndone\n3F2KQ8R1VX0AB", "3F2KQ8R1VX0AB", ""},
		{"json", `{"stepHash":"3F2KQ8R1VX0AB","stepOid":"0123456789abcdef0123456789abcdef01234567"}`, "3F2KQ8R1VX0AB", ""},
		{"json failure", `{"error":"no valid frontmatter","nodes":["3F2KQ8R1VX0AB"]}`, "", ""},
		{"empty", "  \n\n", "", "stdout is empty"},
		{"garbage", "hello world", "", "neither a step alias nor a JSON object"},
		{"bad json", `{"stepHash":`, "", "not valid JSON"},
		{"bad alias in json", `{"stepHash":"../../etc"}`, "", "not a valid alias"},
		{"bad oid", `{"stepHash":"3F2KQ8R1VX0AB","stepOid":"xyz"}`, "", "not an object id"},
		{"alias starting above F", "ZZZZZZZZZZZZZ", "", "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ParseAdapterOutput([]byte(tt.stdout))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.StepHash != tt.wantHash {
				t.Fatalf("stepHash %q, want %q", out.StepHash, tt.wantHash)
			}
		})
	}
}

// FuzzParseAdapterOutput: any stdout an agent prints is parsed without a
// panic, and a success always names a valid alias.
func FuzzParseAdapterOutput(f *testing.F) {
	for _, seed := range []string{"3F2KQ8R1VX0AB", `{"stepHash":"3F2KQ8R1VX0AB"}`, `{"error":"x","nodes":["A"]}`, "", "\xff\x00", "log\n{\"stepHash\":1}", strings.Repeat("{", 1000)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		out, err := ParseAdapterOutput(stdout)
		if err != nil || out.Error != "" {
			return
		}
		if _, err := out.StepRef(); err != nil {
			t.Fatalf("accepted output with an unusable step: %+v: %v", out, err)
		}
	})
}

func TestEdgePromptForEnv(t *testing.T) {
	long := strings.Repeat("é", MaxEdgePromptEnv)
	tests := []struct {
		name, in string
		same     bool
	}{
		{"short", "Review it.", true},
		{"at the limit", strings.Repeat("x", MaxEdgePromptEnv), true},
		{"NUL", "a\x00b", false},
		{"invalid UTF-8", "a\xffb", false},
		{"long multibyte", long, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EdgePromptForEnv(tt.in)
			if (got == tt.in) != tt.same || EdgePromptFitsEnv(tt.in) != tt.same {
				t.Fatalf("same=%v, want %v", got == tt.in, tt.same)
			}
			if !EdgePromptFitsEnv(got) {
				t.Fatalf("the env value does not fit: %d bytes", len(got))
			}
			if len(tt.in) > MaxEdgePromptEnv && !strings.Contains(got, EnvEdgePromptFile) {
				t.Fatalf("a cut value does not name the file")
			}
		})
	}
}

func TestReadEdgePrompt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "edge")
	if err := os.WriteFile(file, []byte("from \x00the file\xff"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  string
	}{
		{"file first", map[string]string{EnvEdgePromptFile: file, EnvEdgePrompt: "env"}, "from the file\uFFFD", ""},
		{"variable without file", map[string]string{EnvEdgePrompt: "env"}, "env", ""},
		{"missing file", map[string]string{EnvEdgePromptFile: filepath.Join(dir, "gone")}, "", "read the edge prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadEdgePrompt(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("want error %q, got %v", tt.err, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// FuzzEdgePromptForEnv: whatever the prompt, the variable's value fits an
// environment variable, and a prompt that fits is passed unchanged.
func FuzzEdgePromptForEnv(f *testing.F) {
	f.Add("Review it.")
	f.Add("a\x00b\xff")
	f.Add(strings.Repeat("é", MaxEdgePromptEnv))
	f.Fuzz(func(t *testing.T, prompt string) {
		if len(prompt) < 1000 && len(prompt) > 0 {
			// Reach the cut path from small inputs as well.
			prompt = strings.Repeat(prompt, MaxEdgePromptEnv/len(prompt)+1)
		}
		got := EdgePromptForEnv(prompt)
		if !EdgePromptFitsEnv(got) {
			t.Fatalf("value of %d bytes does not fit", len(got))
		}
		if EdgePromptFitsEnv(prompt) && got != prompt {
			t.Fatal("a prompt that fits was changed")
		}
	})
}
