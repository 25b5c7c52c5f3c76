package chain

// Built-in node schemas. They are ordinary schema nodes (typed by the
// meta-schema) whose aliases follow from their bytes, so every clone agrees
// on them without registration.

func refField() map[string]any { return map[string]any{"type": "string", "format": "uwf_ref"} }

func optionalRef() map[string]any {
	return map[string]any{"anyOf": []any{refField(), map[string]any{"type": "null"}}}
}

func startNodeSchema() map[string]any {
	return map[string]any{
		"title": "uwf.StartNode",
		"type":  "object",
		"properties": map[string]any{
			"workflow": refField(),
			"prompt":   map[string]any{"type": "string"},
			"cwd":      map[string]any{"type": "string"},
		},
		"required":             []any{"workflow", "prompt", "cwd"},
		"additionalProperties": false,
	}
}

func stepNodeSchema() map[string]any {
	return map[string]any{
		"title": "uwf.StepNode",
		"type":  "object",
		"properties": map[string]any{
			"start":           refField(),
			"prev":            optionalRef(),
			"role":            map[string]any{"type": "string", "minLength": 1},
			"output":          refField(),
			"body":            refField(),
			"detail":          refField(),
			"assembledPrompt": refField(),
			"agent":           map[string]any{"type": "string"},
			"edgePrompt":      map[string]any{"type": "string"},
			"startedAtMs":     map[string]any{"type": "integer"},
			"completedAtMs":   map[string]any{"type": "integer"},
			"cwd":             map[string]any{"type": "string"},
			"extraction":      map[string]any{"enum": []any{"frontmatter", "retry", "llm"}},
			"attempts":        map[string]any{"type": "integer", "minimum": 1},
			"redactions":      map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}},
			"resumed":         map[string]any{"type": "boolean"},
		},
		"required": []any{"start", "prev", "role", "output", "agent", "startedAtMs", "completedAtMs", "cwd"},
	}
}

func cancelNodeSchema() map[string]any {
	return map[string]any{
		"title": "uwf.CancelNode",
		"type":  "object",
		"properties": map[string]any{
			"start":         refField(),
			"prev":          optionalRef(),
			"reason":        map[string]any{"type": "string"},
			"cancelledAtMs": map[string]any{"type": "integer"},
		},
		"required":             []any{"start", "prev", "reason", "cancelledAtMs"},
		"additionalProperties": false,
	}
}

// workflowNodeSchema types stored workflows. Role frontmatter fields hold
// the alias of the role's schema node.
func workflowNodeSchema() map[string]any {
	return map[string]any{
		"title": "uwf.Workflow",
		"type":  "object",
		"properties": map[string]any{
			"name":        map[string]any{"type": "string"},
			"description": map[string]any{"type": "string"},
			"roles": map[string]any{
				"type": "object",
				"additionalProperties": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"frontmatter": refField(),
					},
					"required": []any{"frontmatter"},
				},
			},
			"graph":      map[string]any{"type": "object"},
			"conditions": map[string]any{"type": "object"},
		},
		"required": []any{"name", "roles", "graph"},
	}
}

// attemptNodeSchema types a failed step attempt: what the agent produced,
// kept reachable so nothing that was paid for is lost.
func attemptNodeSchema() map[string]any {
	return map[string]any{
		"title": "uwf.FailedAttempt",
		"type":  "object",
		"properties": map[string]any{
			"start":         refField(),
			"prev":          optionalRef(),
			"role":          map[string]any{"type": "string"},
			"agent":         map[string]any{"type": "string"},
			"error":         map[string]any{"type": "string"},
			"phase":         map[string]any{"type": "string"},
			"stdout":        refField(),
			"stderr":        refField(),
			"exitCode":      map[string]any{"type": "integer"},
			"startedAtMs":   map[string]any{"type": "integer"},
			"completedAtMs": map[string]any{"type": "integer"},
		},
		"required": []any{"start", "prev", "role", "agent", "error", "startedAtMs", "completedAtMs"},
	}
}

// suspendOutputSchema types the output with which a role of a version 1
// workflow yields ($status "$SUSPEND" and the question for a human), in
// place of the role's own schema.
func suspendOutputSchema() map[string]any {
	return map[string]any{
		"title": "uwf.SuspendOutput",
		"type":  "object",
		"properties": map[string]any{
			"$status": map[string]any{"const": "$SUSPEND"},
			"reason":  map[string]any{"type": "string", "minLength": 1},
		},
		"required":             []any{"$status", "reason"},
		"additionalProperties": false,
	}
}
