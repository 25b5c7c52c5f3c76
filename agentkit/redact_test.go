package agentkit

import (
	"reflect"
	"strings"
	"testing"
)

// Fake secrets, built from pieces so that this file does not itself look
// like it holds credentials.
var (
	fakeGitHub    = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	fakePAT       = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	fakeOpenAI    = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
	fakeOpenAIOld = "sk-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
	fakeAnthropic = "sk-ant-api03-" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4-_Nm5"
	fakeAWS       = "AKIA" + "IOSFODNN7EXAMPLE"
	fakeSlack     = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl"
	fakeGoogle    = "AIza" + "SyD4nP2qR8sT1uV6wX9yZ0aB3cD5eF7gH1i"
	fakeJWT       = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	fakePEM       = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1c7\nq8Zx/abc+def==\n-----END RSA PRIVATE KEY-----"
)

func newTestRedactor(t testing.TB, extra ...string) *Redactor {
	t.Helper()
	r, err := NewRedactor(extra)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRedactPositives(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string
		kinds []Redaction
	}{
		{"github token", "token " + fakeGitHub + " here", "token [REDACTED:github-token] here", []Redaction{{"github-token", 1}}},
		{"github pat", "use " + fakePAT, "use [REDACTED:github-token]", []Redaction{{"github-token", 1}}},
		{"openai project key", "key=" + fakeOpenAI + ".", "key=[REDACTED:openai-key].", []Redaction{{"openai-key", 1}}},
		{"openai legacy key", "(" + fakeOpenAIOld + ")", "([REDACTED:openai-key])", []Redaction{{"openai-key", 1}}},
		{"anthropic key", "ANTHROPIC_API_KEY " + fakeAnthropic, "ANTHROPIC_API_KEY [REDACTED:anthropic-key]", []Redaction{{"anthropic-key", 1}}},
		{"aws key twice", fakeAWS + " and " + fakeAWS, "[REDACTED:aws-access-key] and [REDACTED:aws-access-key]", []Redaction{{"aws-access-key", 2}}},
		{"slack", "slack: " + fakeSlack, "slack: [REDACTED:slack-token]", []Redaction{{"slack-token", 1}}},
		{"google", "maps " + fakeGoogle, "maps [REDACTED:google-api-key]", []Redaction{{"google-api-key", 1}}},
		{"authorization header", "Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED:bearer-token]", []Redaction{{"bearer-token", 1}}},
		{"curl header", `curl -H "authorization: bearer s3cr3t" x`, `curl -H "authorization: bearer [REDACTED:bearer-token]" x`, []Redaction{{"bearer-token", 1}}},
		{"bearer jwt", "send bearer " + fakeJWT, "send bearer [REDACTED:bearer-token]", []Redaction{{"bearer-token", 1}}},
		{"basic auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic-auth]", []Redaction{{"basic-auth", 1}}},
		{"private key", "key:\n" + fakePEM + "\ndone", "key:\n[REDACTED:private-key]\ndone", []Redaction{{"private-key", 1}}},
		{"truncated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r", "[REDACTED:private-key]", []Redaction{{"private-key", 1}}},
		{"url credentials", "clone https://bob:hunter2@example.com/repo.git", "clone https://bob:[REDACTED]@example.com/repo.git", []Redaction{{"url-credentials", 1}}},
		{"db url", "postgres://app:p4ss:w0rd@db:5432/x", "postgres://app:[REDACTED]@db:5432/x", []Redaction{{"url-credentials", 1}}},
		{"api_key assignment", "API_KEY=Zq81mNx04LpW", "API_KEY=[REDACTED:secret-assignment]", []Redaction{{"secret-assignment", 1}}},
		{"yaml password", "db_password: 'Tr0ub4dor&3xyz'", "db_password: '[REDACTED:secret-assignment]'", []Redaction{{"secret-assignment", 1}}},
		{"json apiKey", `{"apiKey": "abcdEFGHijklMNOP"}`, `{"apiKey": "[REDACTED:secret-assignment]"}`, []Redaction{{"secret-assignment", 1}}},
		{"go secret", `clientSecret := "x9y8z7w6v5u4t3"`, `clientSecret := "[REDACTED:secret-assignment]"`, []Redaction{{"secret-assignment", 1}}},
		{"long lowercase token", "token=" + strings.Repeat("abcdefgh", 4), "token=[REDACTED:secret-assignment]", []Redaction{{"secret-assignment", 1}}},
		{"specific key wins over assignment", "OPENAI_API_KEY=" + fakeOpenAIOld, "OPENAI_API_KEY=[REDACTED:openai-key]", []Redaction{{"openai-key", 1}}},
		{"several kinds", fakeAWS + " " + fakeGitHub, "[REDACTED:aws-access-key] [REDACTED:github-token]", []Redaction{{"aws-access-key", 1}, {"github-token", 1}}},
	}
	r := newTestRedactor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kinds := r.Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if !reflect.DeepEqual(kinds, tt.kinds) {
				t.Errorf("redactions = %v, want %v", kinds, tt.kinds)
			}
			again, more := r.Redact(got)
			if again != got || more != nil {
				t.Errorf("second pass changed %q to %q (%v)", got, again, more)
			}
		})
	}
}

func TestRedactNegatives(t *testing.T) {
	tests := []string{
		"The reviewer approved the plan; the bearer of bad news was the linter.",
		"Use the token bucket algorithm. The password field must be hashed.",
		"bearer responsibilities are documented",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
		"thread 01ARZ3NDEKTSV4RRFFQ69G5FAV step 7ZZ1X0C9A2B4M",
		"alias 0123456789ABC and 7ZZZZZZZZZZZZ",
		"see https://example.com/path?q=1 and ssh://git@github.com/org/repo.git",
		"git@github.com:org/repo.git and https://user@example.com/x",
		"http://localhost:8080/api and https://[::1]:443/x",
		"sk-learn-compatible-estimators are fine",
		"max_tokens: 4096, token_count: 123456789012345",
		"password: <string>  # required",
		"api_key: ${OPENAI_API_KEY} or $API_KEY or {{ .Token }}",
		"token = get_token_from_env()",
		"secret: 12345678901234",
		"ghp_ tokens start with ghp_; AKIA keys too",
		"Authorization: Bearer [REDACTED:bearer-token]",
		"",
		"ünïcödé prose — with dashes –",
	}
	r := newTestRedactor(t)
	for _, in := range tests {
		if got, kinds := r.Redact(in); got != in || kinds != nil {
			t.Errorf("Redact(%q) = %q, %v; want unchanged", in, got, kinds)
		}
	}
}

func TestNewRedactorExtraPatterns(t *testing.T) {
	r := newTestRedactor(t, `corp-[0-9]{6}`, `(?i)internal-secret`)
	got, kinds := r.Redact("id corp-123456 and INTERNAL-SECRET, not corp-12")
	if want := "id [REDACTED:custom] and [REDACTED:custom], not corp-12"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !reflect.DeepEqual(kinds, []Redaction{{"custom", 2}}) {
		t.Errorf("kinds = %v", kinds)
	}
	for _, bad := range []string{"", "(", "a*", `\b`} {
		if _, err := NewRedactor([]string{bad}); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
	// A custom pattern that matches the marker text must not make redaction
	// grow on every pass.
	r = newTestRedactor(t, `REDACTED`, `\[`, `.`)
	once, _ := r.Redact("ab")
	twice, more := r.Redact(once)
	if once != twice || more != nil {
		t.Errorf("not idempotent: %q then %q", once, twice)
	}
}

func TestRedactValue(t *testing.T) {
	r := newTestRedactor(t)
	in := map[string]any{
		"api_key": fakeGitHub,
		"notes":   []any{"plain", "use " + fakeAWS, int64(3), true, nil},
		"nested":  map[string]any{"env": []string{"A=1", "T=" + fakeSlack}, "m": map[string]string{"k": fakeGoogle}},
		"count":   42.5,
	}
	got, kinds := r.RedactValue(in)
	want := map[string]any{
		"api_key": "[REDACTED:github-token]",
		"notes":   []any{"plain", "use [REDACTED:aws-access-key]", int64(3), true, nil},
		"nested":  map[string]any{"env": []string{"A=1", "T=[REDACTED:slack-token]"}, "m": map[string]string{"k": "[REDACTED:google-api-key]"}},
		"count":   42.5,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactValue:\n got %#v\nwant %#v", got, want)
	}
	wantKinds := []Redaction{{"aws-access-key", 1}, {"github-token", 1}, {"google-api-key", 1}, {"slack-token", 1}}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds = %v, want %v", kinds, wantKinds)
	}
	if in["api_key"] != fakeGitHub {
		t.Error("input was modified")
	}
	if v, k := r.RedactValue(7); v != 7 || k != nil {
		t.Errorf("RedactValue(7) = %v, %v", v, k)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		fakeGitHub, fakeOpenAI, fakeAnthropic, fakeAWS, fakeSlack, fakeGoogle, fakePEM,
		"Authorization: Bearer " + fakeJWT, "https://u:p@h/x", "password=Abcdefgh12345",
		"token=abc[REDACTED:github-token]def123456789", "api_key: [REDACTED]xyz", "plain prose",
	} {
		f.Add(s)
	}
	r := newTestRedactor(f)
	f.Fuzz(func(t *testing.T, s string) {
		once, _ := r.Redact(s)
		twice, more := r.Redact(once)
		if once != twice || more != nil {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q (%v)", s, once, twice, more)
		}
	})
}

// BenchmarkRedact measures redaction of a 64 KiB prompt-like text with a
// few secrets in it, and of 4 MiB of text without any hint of one.
func BenchmarkRedact(b *testing.B) {
	r, err := NewRedactor(nil)
	if err != nil {
		b.Fatal(err)
	}
	prose := strings.Repeat("## Step 3: reviewer\nThe change adds a --verbose flag; tests pass. ", 1000)[:64<<10] +
		" token=Zm9vYmFyYmF6cXV4MTIzNDU2 and ghp_0123456789abcdefghijABCDEFGHIJ012345"
	plain := strings.Repeat("x", 4<<20)
	b.Run("prompt-64KiB", func(b *testing.B) {
		b.SetBytes(int64(len(prose)))
		for i := 0; i < b.N; i++ {
			r.Redact(prose)
		}
	})
	b.Run("plain-4MiB", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for i := 0; i < b.N; i++ {
			r.Redact(plain)
		}
	})
}

// TestBuiltinPatternsCompile compiles every built-in pattern, which the
// Redactor otherwise compiles only when a text holds one of its hints.
func TestBuiltinPatternsCompile(t *testing.T) {
	r, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.marker() == nil {
		t.Fatal("no marker pattern")
	}
	for _, rule := range r.rules {
		if re := rule.re(); re == nil || re.NumSubexp() < rule.group {
			t.Errorf("rule %s: pattern %v has no group %d", rule.kind, re, rule.group)
		}
	}
}

// TestRedactAnyCase: a key is a key in lower or upper case; words after a
// key prefix are not.
func TestRedactAnyCase(t *testing.T) {
	keys := []struct{ kind, key string }{
		{"anthropic-key", fakeAnthropic},
		{"openai-key", fakeOpenAI},
		{"openai-key", fakeOpenAIOld},
		{"github-token", fakeGitHub},
		{"github-token", fakePAT},
		{"slack-token", fakeSlack},
		{"google-api-key", fakeGoogle},
		{"aws-access-key", fakeAWS},
	}
	r := newTestRedactor(t)
	for _, k := range keys {
		for _, variant := range []string{strings.ToLower(k.key), strings.ToUpper(k.key)} {
			in := "the key is " + variant + " now"
			want := "the key is [REDACTED:" + k.kind + "] now"
			if got, _ := r.Redact(in); got != want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", in, got, want)
			}
		}
	}
	prose := []string{
		"sk-skiing is a sport and task-based planning works",
		"the sk-learn-compatible-estimators-and-transformers guide",
		"sk-2024-roadmap-notes-for-the-platform-team-meeting",
		"SK-ANT-COLONY-OPTIMISATION-ALGORITHMS-EXPLAINED",
		"xoxo-and-kisses-from-the-whole-team and xoxb-without-digits-here",
		"ghs_configuration_manager_for_the_application_server",
		"akiakiakiakiakiakiak is not a key",
	}
	for _, in := range prose {
		if got, kinds := r.Redact(in); got != in || kinds != nil {
			t.Errorf("Redact(%q) = %q, %v; want unchanged", in, got, kinds)
		}
	}
}

// FuzzKeyAnyCase: a random key behind any of the key prefixes, in any
// case, never survives redaction.
func FuzzKeyAnyCase(f *testing.F) {
	f.Add("sk-ant-api03-", []byte("q3er4ty5ui6op7as8df9gh0jk1lz2xc3vb4nm5"), uint8(0))
	f.Add("ghp_", []byte("ab3de5fg7hj9kl1mn3pq5rs7tu9vw1xy3za5"), uint8(1))
	f.Add("xoxb-", []byte("1234567890-0987654321-abcdefghijkl"), uint8(2))
	f.Add("sk-", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41}, uint8(3))
	prefixes := map[string]bool{"sk-ant-api03-": true, "sk-": true, "sk-proj-": true, "ghp_": true, "gho_": true, "github_pat_": true, "xoxb-": true, "xoxp-": true}
	r := newTestRedactor(f)
	f.Fuzz(func(t *testing.T, prefix string, seed []byte, caseMode uint8) {
		if !prefixes[prefix] || len(seed) < 40 {
			return
		}
		// Key material as issued: letters and digits drawn from the seed,
		// at least 40 of them, with letters and digits mixed.
		const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		key := make([]byte, len(seed))
		for i, b := range seed {
			key[i] = alphabet[int(b)%len(alphabet)]
		}
		key[0], key[1] = 'a', '1' // both kinds present
		secret := prefix + string(key)
		if !keyLike(secret) {
			return // a seed without the randomness of a key
		}
		switch caseMode % 3 {
		case 1:
			secret = strings.ToLower(secret)
		case 2:
			secret = strings.ToUpper(secret)
		}
		if !keyLike(secret) {
			return // changing the case removed what made it look random
		}
		got, _ := r.Redact("before " + secret + " after")
		if strings.Contains(got, secret) || strings.Contains(strings.ToLower(got), strings.ToLower(string(key))) {
			t.Fatalf("key survived: %q", got)
		}
	})
}
