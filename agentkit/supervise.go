package agentkit

import "github.com/git-uwf/git-uwf/agentkit/supervisor"

// SuperviseIfAsked makes the calling program an agent supervisor when
// [Run] started it as one (Invocation.Supervisor), and then exits;
// otherwise it returns at once. See package supervisor; programs that care
// about the supervisor's start-up time import package supervisor/early
// instead.
func SuperviseIfAsked() { supervisor.IfAsked() }
