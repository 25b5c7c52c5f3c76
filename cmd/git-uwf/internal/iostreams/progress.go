package iostreams

import (
	"fmt"
	"sync"
	"time"
)

// spinnerFrames are drawn in turn, one per tick.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// StartProgress reports that a long task named label has started and returns
// a function to call when it ends, with a short result such as "done" or
// "failed" (empty means "done").
//
// When ErrOut is a terminal, a spinner with the elapsed time is redrawn about
// ten times a second ("⠋ developer · claude · 12s") and stop replaces it with
// one final line. Otherwise one line is written at the start
// ("developer · claude …") and one at the end
// ("developer · claude: done in 12.3s").
//
// stop is safe to call from any goroutine and more than once; only the first
// call has an effect, and it returns after the spinner has stopped writing.
func (s *IOStreams) StartProgress(label string) (stop func(result string)) {
	now := s.now
	if now == nil {
		now = time.Now
	}
	start := now()
	final := func(result string) string {
		if result == "" {
			result = "done"
		}
		return fmt.Sprintf("%s: %s in %s\n", label, result, now().Sub(start).Round(100*time.Millisecond))
	}

	if !s.IsStderrTTY() {
		fmt.Fprintf(s.ErrOut, "%s …\n", label)
		var once sync.Once
		return func(result string) {
			once.Do(func() { fmt.Fprint(s.ErrOut, final(result)) })
		}
	}

	tick := s.tick
	if tick <= 0 {
		tick = 100 * time.Millisecond
	}
	frames := []rune(spinnerFrames)
	done := make(chan struct{})
	exited := make(chan struct{})
	draw := func(frame int) {
		elapsed := now().Sub(start).Truncate(time.Second)
		fmt.Fprintf(s.ErrOut, "\r\x1b[K%s %s · %s", string(frames[frame%len(frames)]), label, elapsed)
	}
	draw(0)
	go func() {
		defer close(exited)
		t := time.NewTicker(tick)
		defer t.Stop()
		for frame := 1; ; frame++ {
			select {
			case <-done:
				return
			case <-t.C:
				draw(frame)
			}
		}
	}()

	var once sync.Once
	return func(result string) {
		once.Do(func() {
			close(done)
			<-exited
			fmt.Fprint(s.ErrOut, "\r\x1b[K"+final(result))
		})
	}
}
