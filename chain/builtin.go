package chain

import (
	"fmt"
	"sync"

	"github.com/git-uwf/git-uwf/objects"
)

// builtinAliases maps the title of each thread node schema to its alias.
// An alias follows from the schema's bytes alone, so reading a thread needs
// neither to store nor to compile the built-in schemas (Repo.schema does
// both, for writers). The map is computed once and never changed.
var builtinAliases = sync.OnceValues(func() (map[string]objects.Alias, error) {
	docs := map[string]map[string]any{
		"uwf.StartNode":  startNodeSchema(),
		"uwf.StepNode":   stepNodeSchema(),
		"uwf.CancelNode": cancelNodeSchema(),
		"uwf.Workflow":   workflowNodeSchema(),
	}
	out := make(map[string]objects.Alias, len(docs))
	for title, doc := range docs {
		blob, err := objects.EncodeNode(objects.MetaSchemaAlias(), doc)
		if err != nil {
			return nil, fmt.Errorf("built-in schema %s: %w", title, err)
		}
		out[title] = objects.AliasOf(blob)
	}
	return out, nil
})

// builtinTitle returns the title of the built-in schema whose alias is a,
// or "" when a is none of them.
func builtinTitle(a objects.Alias) (string, error) {
	aliases, err := builtinAliases()
	if err != nil {
		return "", err
	}
	for _, title := range []string{"uwf.StepNode", "uwf.StartNode", "uwf.CancelNode"} {
		if aliases[title] == a {
			return title, nil
		}
	}
	return "", nil
}
