//go:build !unix

package agentkit

// SuperviseIfAsked returns at once: agents are only spawned on Unix.
func SuperviseIfAsked() {}
