package config

import (
	"fmt"
	"strconv"
)

// Overflow says what a step does when its workflow's concurrency limit is
// reached.
type Overflow string

// The overflow policies.
const (
	// OverflowQueue waits its turn, oldest first.
	OverflowQueue Overflow = "queue"
	// OverflowDrop refuses at once (exit code 75).
	OverflowDrop Overflow = "drop"
)

// WorkflowLimit is workflows.<name>: how many steps of the workflow may run
// at once on this machine and what happens to the others.
type WorkflowLimit struct {
	// Concurrency is the number of steps that may run at once (0: no
	// limit, the key is not set).
	Concurrency int
	// Overflow is what a step over the limit does (default: queue).
	Overflow Overflow
	// MaxQueue bounds the waiting steps; past it the oldest waiting one is
	// discarded (0: no bound).
	MaxQueue int
}

// Limited reports whether a concurrency limit is set.
func (l WorkflowLimit) Limited() bool { return l.Concurrency > 0 }

func (l WorkflowLimit) with(key string, v any) WorkflowLimit {
	switch key {
	case "concurrency":
		l.Concurrency = v.(int)
	case "overflow":
		l.Overflow = Overflow(v.(string))
	case "maxQueue":
		l.MaxQueue = v.(int)
	}
	if l.Overflow == "" {
		l.Overflow = OverflowQueue
	}
	return l
}

// Limit returns the limit of a workflow (the zero limit when none is set).
func (c *Config) Limit(workflow string) WorkflowLimit {
	l, ok := c.Workflows[workflow]
	if !ok {
		return WorkflowLimit{Overflow: OverflowQueue}
	}
	return l
}

// checkWorkflowValue checks the value of workflows.<name>.<key> beyond its
// type: a concurrency of at least one and a known overflow policy.
func checkWorkflowValue(path []string, v any) error {
	if len(path) != 3 {
		return nil
	}
	key := "workflows." + path[1] + "." + path[2]
	switch path[2] {
	case "concurrency":
		if n, _ := v.(int); n < 1 {
			return fmt.Errorf("%s is %d: a concurrency must be at least 1 (unset the key for no limit)", key, n)
		}
	case "overflow":
		switch s, _ := v.(string); Overflow(s) {
		case OverflowQueue, OverflowDrop:
		default:
			return fmt.Errorf("%s is %q: want queue or drop", key, s)
		}
	case "maxQueue":
		if n, _ := v.(int); n < 0 {
			return fmt.Errorf("%s is %s: want a non-negative number (0: no bound)", key, strconv.Itoa(n))
		}
	}
	return nil
}
