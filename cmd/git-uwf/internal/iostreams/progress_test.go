package iostreams

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests advance by hand; safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestProgressPlain(t *testing.T) {
	tests := []struct {
		name    string
		elapsed time.Duration
		result  string
		want    string
	}{
		{"done", 12340 * time.Millisecond, "", "developer · claude …\ndeveloper · claude: done in 12.3s\n"},
		{"failed", 1500 * time.Millisecond, "failed", "developer · claude …\ndeveloper · claude: failed in 1.5s\n"},
		{"minutes", 62 * time.Second, "done", "developer · claude …\ndeveloper · claude: done in 1m2s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			clock := &fakeClock{t: time.Unix(0, 0)}
			ios.now = clock.Now
			stop := ios.StartProgress("developer · claude")
			clock.Advance(tt.elapsed)
			stop(tt.result)
			stop("again") // idempotent
			if got := errOut.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// syncBuffer is a strings.Builder guarded by a mutex, so the test can read
// what the spinner goroutine writes without a data race.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestProgressSpinner(t *testing.T) {
	ios, _, _, _ := Test()
	buf := &syncBuffer{}
	ios.ErrOut = buf
	ios.SetStderrTTY(true)
	ios.tick = time.Millisecond
	clock := &fakeClock{t: time.Unix(0, 0)}
	ios.now = clock.Now

	stop := ios.StartProgress("developer · claude")
	clock.Advance(12 * time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "developer · claude · 12s") {
		if time.Now().After(deadline) {
			t.Fatalf("spinner never showed the elapsed time; got %q", buf.String())
		}
		time.Sleep(time.Millisecond)
	}
	clock.Advance(300 * time.Millisecond)

	var wg sync.WaitGroup
	for range 4 { // concurrent stops: one wins, none races
		wg.Add(1)
		go func() { defer wg.Done(); stop("done") }()
	}
	wg.Wait()
	got := buf.String()
	time.Sleep(5 * time.Millisecond) // the spinner must have stopped writing
	if buf.String() != got {
		t.Error("spinner wrote after stop returned")
	}

	if !strings.HasPrefix(got, "\r\x1b[K⠋ developer · claude · 0s") {
		t.Errorf("first frame: got %q", got)
	}
	const final = "\r\x1b[Kdeveloper · claude: done in 12.3s\n"
	if !strings.HasSuffix(got, final) {
		t.Errorf("final line: got %q, want suffix %q", got, final)
	}
	if n := strings.Count(got, "\n"); n != 1 {
		t.Errorf("got %d newlines, want exactly 1 (the final line)", n)
	}
}
