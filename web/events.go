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
	for {
		sent := false
		if follower != nil {
			for range 16 { // at most 1 MiB per tick
				b, err := follower.Read(64 << 10)
				if errors.Is(err, steplog.ErrReplaced) {
					fmt.Fprint(w, "event: logreset\ndata: {}\n\n")
					sent = true
					continue
				}
				if err != nil || len(b) == 0 {
					break
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

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
