package chain

import (
	"github.com/git-uwf/git-uwf/objects"
)

// The aliases of the built-in node schemas (schemas.go). An alias follows
// from a schema's bytes alone, so reading a thread needs neither to store
// nor to compile the built-in schemas (Repo.schema does both, for
// writers), nor to encode and hash them in every process: they are spelled
// out here, and a test fails when a schema changes and its alias here does
// not.
const (
	startNodeAlias  objects.Alias = "ATNYZTV7BZ153"
	stepNodeAlias   objects.Alias = "6T4H6QP9S7ZYD"
	cancelNodeAlias objects.Alias = "2Q810ECYSDBYH"
	workflowAlias   objects.Alias = "7Q97E05M01186"
)

// builtinTitle returns the title of the thread node schema whose alias is
// a, or "" when a is none of them.
func builtinTitle(a objects.Alias) string {
	switch a {
	case stepNodeAlias:
		return "uwf.StepNode"
	case startNodeAlias:
		return "uwf.StartNode"
	case cancelNodeAlias:
		return "uwf.CancelNode"
	}
	return ""
}
