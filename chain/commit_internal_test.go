package chain

import "testing"

// trailerValue answers what trailers answers, for every key.
func TestTrailerValueMatchesTrailers(t *testing.T) {
	messages := []string{
		"",
		"subject only",
		"Uwf-Branch: main",
		"subject\n\nUwf-Branch: main\n",
		"subject\n\nbody\n\nUwf-Thread: 01X\nUwf-Branch: main\nUwf-Code: abc\n",
		"subject\n\nUwf-Branch: first\nUwf-Branch: second\n",
		"subject\n\nUwf-Branch: main\nnot a trailer\nUwf-Code: abc\n",
		"subject\n\nUwf Branch: main\nUwf-Code: abc\n",
		"subject\n\nUwf-Branch: with: colon\n\n\n",
		"subject\nUwf-Branch: x",
		"subject\n\nUwf-Branch:nospace\nUwf-Code: c\n",
		"subject\n\nUwf-Branch: \n",
	}
	for _, msg := range messages {
		all := trailers(msg)
		for _, key := range []string{"Uwf-Branch", "Uwf-Code", "Uwf-Thread", "Missing"} {
			if got, want := trailerValue(msg, key), all[key]; got != want {
				t.Errorf("trailerValue(%q, %s) = %q, trailers gives %q", msg, key, got, want)
			}
		}
	}
}
