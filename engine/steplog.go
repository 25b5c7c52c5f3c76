package engine

import (
	"fmt"
	"io"
	"time"

	"github.com/git-uwf/git-uwf/chain"
	"github.com/git-uwf/git-uwf/internal/steplog"
)

// stepLog opens the thread's live log for a step (see package steplog)
// and returns where the agent's stderr goes: the log, plus AgentStderr
// when set. A log that cannot be created only loses the live view.
func (e *Engine) stepLog(t *chain.Thread, role, agent string) (io.Writer, func()) {
	header := fmt.Sprintf("== %s · %s · started %s", role, agent, time.Now().UTC().Format(time.RFC3339))
	f, err := steplog.Create(e.Repo.UwfDir(), string(t.ID), header)
	if err != nil {
		return e.AgentStderr, func() {}
	}
	closeLog := func() { _ = f.Close() }
	if e.AgentStderr == nil {
		return f, closeLog
	}
	return io.MultiWriter(e.AgentStderr, f), closeLog
}
