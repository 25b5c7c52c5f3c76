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
	nodes, err := threadNodeAliases()
	if err != nil {
		return "", err
	}
	for i, title := range threadNodeTitles {
		if nodes[i] == a {
			return title, nil
		}
	}
	return "", nil
}

// threadNodeTitles are the schemas of the nodes a thread commit holds,
// the most frequent first.
var threadNodeTitles = [3]string{"uwf.StepNode", "uwf.StartNode", "uwf.CancelNode"}

// threadNodeAliases are the aliases of threadNodeTitles, in that order.
var threadNodeAliases = sync.OnceValues(func() ([3]objects.Alias, error) {
	var out [3]objects.Alias
	aliases, err := builtinAliases()
	if err != nil {
		return out, err
	}
	for i, title := range threadNodeTitles {
		out[i] = aliases[title]
	}
	return out, nil
})
