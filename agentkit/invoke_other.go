//go:build !unix

package agentkit

import (
	"context"
	"errors"
)

// Run runs an agent command. It is only implemented on Unix systems, where
// agents run in their own process group; elsewhere it returns an error.
func Run(ctx context.Context, inv Invocation) (*Result, error) {
	return nil, errors.New("run agent: spawning agents is only supported on Unix systems")
}
