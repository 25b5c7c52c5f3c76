package agentkit

import (
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
