package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/steplog"
)

// handleEvents is a server-sent event stream for an open page. It sends
// "refs" whenever a thread or attempts ref moves or a step starts or ends
// (the page then fetches itself again), and with ?t=<thread> also "log"
// events carrying what the thread's running step appends to its log
// ("logreset" when the next step's log replaces it).
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	var follower *steplog.Follower
	if t := r.URL.Query().Get("t"); t != "" {
		id, err := chain.ParseThreadID(t)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		follower = steplog.NewFollower(steplog.Path(s.repo.UwfDir(), string(id)))
		defer follower.Close()
		// A finished step's log is not live output: show a log from its
		// start only when its step is running now.
		running := false
		_ = s.locked(r.Context(), func(context.Context, *chain.Repo) error {
			running = slices.Contains(s.repo.RunningThreads(), id)
			return nil
		})
		if !running {
			follower.SkipExisting()
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	ctx := r.Context()
	last, err := s.fingerprint(ctx)
	if err != nil {
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", jsonString(err.Error()))
		flusher.Flush()
		return
	}
	fmt.Fprint(w, "retry: 2000\n: watching refs\n\n")
	flusher.Flush()
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	quiet := 0
	// pending is the start of a UTF-8 character cut at the end of the last
	// chunk read: it is sent with the rest of the character, since JSON
	// would turn each half into U+FFFD.
	var pending []byte
	for {
		sent := false
		if follower != nil {
			for range 16 { // at most 1 MiB per tick
				b, err := follower.Read(64 << 10)
				if errors.Is(err, steplog.ErrReplaced) {
					pending = nil
					fmt.Fprint(w, "event: logreset\ndata: {}\n\n")
					sent = true
					continue
				}
				if err != nil || len(b) == 0 {
					break
				}
				b, tail := completeRunes(append(pending, b...))
				pending = append([]byte(nil), tail...)
				if len(b) == 0 {
					continue
				}
				fmt.Fprintf(w, "event: log\ndata: %s\n\n", jsonString(string(b)))
				sent = true
			}
		}
		if fp, err := s.fingerprint(ctx); err == nil && fp != last {
			last = fp
			fmt.Fprint(w, "event: refs\ndata: {}\n\n")
			sent = true
		}
		if !sent {
			quiet++
			if quiet%15 == 0 {
				fmt.Fprint(w, ": keep-alive\n\n")
				sent = true
			}
		}
		if sent {
			flusher.Flush()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// fingerprint hashes every thread and attempts ref and the set of running
// threads: it changes when anything a page shows may have changed.
func (s *Server) fingerprint(ctx context.Context) (uint64, error) {
	h := fnv.New64a()
	err := s.locked(ctx, func(ctx context.Context, repo *chain.Repo) error {
		refs, err := repo.ListRefs(ctx, chain.ThreadsPrefix, chain.AttemptsPrefix)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			fmt.Fprintf(h, "%s %s\n", ref.Name, ref.OID)
		}
		for _, id := range repo.RunningThreads() {
			fmt.Fprintf(h, "running %s\n", id)
		}
		return nil
	})
	return h.Sum64(), err
}

// completeRunes splits b before an incomplete UTF-8 sequence at its end
// (the start of a character whose other bytes are still to be read).
// Invalid bytes are not held back: they could never be completed.
func completeRunes(b []byte) (complete, tail []byte) {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i], b[len(b)-i:]
			}
			break
		}
	}
	return b, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
