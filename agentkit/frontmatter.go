// Notes for the package documentation (agent output, prompts, spawning,
// redaction), to be merged into doc.go:
//
// An agent answers a role with one markdown document that begins with a YAML
// frontmatter block:
//
//	---
//	$status: ready
//	plan: Split the parser into two passes.
//	---
//
//	## Plan
//	…
//
// The frontmatter is the structured output the engine routes on; the markdown
// after it is the human-readable body. [SplitFrontmatter] finds the block,
// [ParseFrontmatter] decodes it into JSON-compatible values and
// [ExtractOutput] keeps the fields the role's JSON Schema declares
// ([SchemaFields]). Validation against the schema is the caller's job; when it
// fails, [CorrectionPrompt] builds the retry message that feeds the
// validator's problems back to the agent, and [LLMExtract] is an opt-in last
// resort that asks an OpenAI-compatible model to extract the object.
//
// The prompt side is [RolePrompt], [AssemblePrompt] and
// [OutputFormatInstruction]. [Run] spawns an agent CLI in its own process
// group with a timeout and output caps, and [Redactor] scrubs secrets from
// anything before it is written to git.
//
// (Kept apart from the package clause on purpose: doc.go owns the package
// comment.)

package agentkit

import (
	"fmt"
	"iter"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// MaxFrontmatterSize is the largest YAML block, in bytes, that
// [ParseFrontmatter] accepts.
const MaxFrontmatterSize = 1 << 20

// maxYAMLNodes bounds the number of YAML nodes visited while converting a
// frontmatter block, aliases counted each time they are expanded. It keeps a
// "billion laughs" alias bomb from exhausting memory.
const maxYAMLNodes = 200_000

// maxYAMLDepth bounds the nesting depth of a frontmatter value.
const maxYAMLDepth = 1_000

// FrontmatterError reports a response whose frontmatter is missing or cannot
// be decoded. Line is the 1-based line within the YAML block (line 1 is the
// first line after the opening "---"), or 0 when no line applies.
//
// Limit is set when the block broke one of the parser's limits (size,
// alias expansion, nesting depth): a correction prompt cannot be expected
// to fix that, so [Execute] fails at once instead of paying for retries.
type FrontmatterError struct {
	Reason string
	Line   int
	Limit  bool
}

func (e *FrontmatterError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("frontmatter line %d: %s", e.Line, e.Reason)
	}
	return "frontmatter: " + e.Reason
}

// SplitFrontmatter separates a leading YAML frontmatter block from the rest
// of text.
//
// A byte-order mark and leading whitespace are ignored. The text must then
// start with a line that is exactly "---" (trailing spaces and a CR are
// tolerated); the block ends at the next line that is exactly "---" or "...".
// yamlBlock is the text between the two delimiter lines and body is what
// follows the closing line, with leading blank lines removed.
//
// Agents often wrap the whole answer, or just the frontmatter, in a code
// fence. So a first line that opens a fence (“```”, “```yaml”, “```yml”,
// “```markdown” or “```md”) is accepted when the fence's content begins with
// the "---" line. A fence closing right after the block is dropped from the
// body; for a fence around the whole answer, the final closing fence is
// dropped when the body has an odd number of fence lines.
//
// ok is false when there is no complete frontmatter block.
func SplitFrontmatter(text string) (yamlBlock, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.TrimLeft(text, " \t\r\n")

	fenced := false
	if line, rest := cutLine(text); strings.HasPrefix(line, "```") {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "```"))) {
		case "", "yaml", "yml", "markdown", "md":
		default:
			return "", "", false
		}
		fenced = true
		text = strings.TrimLeft(rest, " \t\r\n")
	}

	first, rest := cutLine(text)
	if !isDelimiter(first, "---") {
		return "", "", false
	}
	var block strings.Builder
	for rest != "" {
		line, next, found := strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if isDelimiter(line, "---") || isDelimiter(line, "...") {
			body = trimLeadingBlankLines(next)
			if fenced {
				body = dropWrapperFence(body)
			}
			return block.String(), body, true
		}
		if !found {
			break
		}
		block.WriteString(line)
		block.WriteByte('\n')
		rest = next
	}
	return "", "", false
}

// cutLine returns the first line of s without its line ending, and the rest
// after the newline.
func cutLine(s string) (line, rest string) {
	line, rest, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest
}

func isDelimiter(line, delim string) bool {
	return strings.TrimRight(line, " \t\r") == delim
}

func isFenceLine(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "```")
}

func trimLeadingBlankLines(s string) string {
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		if strings.TrimSpace(line) != "" {
			return s
		}
		if !found {
			return ""
		}
		s = rest
	}
	return s
}

// dropWrapperFence removes the closing fence of a code fence that wrapped the
// frontmatter: either the fence line right after the block, or, when the
// fence wrapped the whole answer, the last fence line of the body.
func dropWrapperFence(body string) string {
	if first, rest := cutLine(body); strings.TrimSpace(first) == "```" {
		return trimLeadingBlankLines(rest)
	}
	lines := strings.Split(body, "\n")
	fences := 0
	for _, l := range lines {
		if isFenceLine(l) {
			fences++
		}
	}
	if fences%2 == 0 {
		return body
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		if strings.TrimSpace(lines[i]) == "```" {
			return strings.TrimRight(strings.Join(lines[:i], "\n"), " \t\r\n") + "\n"
		}
		break
	}
	return body
}

// ParseFrontmatter splits text with [SplitFrontmatter] and decodes the YAML
// block into JSON-compatible values: map[string]any (mapping keys become
// their source text), []any, string, bool, nil, int64 for integers that fit
// and float64 for other numbers. Integers stay integers so that a count like
// 3 survives a JSON round trip unchanged; .inf and .nan, which JSON cannot
// hold, are kept as their source text. Timestamps stay strings. An empty
// block yields an empty map.
//
// The block may be at most [MaxFrontmatterSize] bytes. Alias expansion is
// bounded, duplicate keys are rejected and merge keys ("<<") are applied.
// Every failure is a *[FrontmatterError].
func ParseFrontmatter(text string) (fields map[string]any, body string, err error) {
	block, body, ok := SplitFrontmatter(text)
	if !ok {
		return nil, "", &FrontmatterError{Reason: "no frontmatter block: the response must begin with a line \"---\", then YAML fields, then a closing \"---\" line"}
	}
	if len(block) > MaxFrontmatterSize {
		return nil, "", &FrontmatterError{Reason: fmt.Sprintf("block is %d bytes, larger than the limit of %d", len(block), MaxFrontmatterSize), Limit: true}
	}
	fields, err = decodeYAMLMapping(block)
	if err != nil {
		return nil, "", err
	}
	return fields, body, nil
}

// yamlLineRE finds the line number in yaml.v3 error messages.
var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

func decodeYAMLMapping(block string) (fields map[string]any, err error) {
	defer func() {
		// The YAML parser is third-party code fed with untrusted input;
		// a panic there must not take the engine down.
		if r := recover(); r != nil {
			fields, err = nil, &FrontmatterError{Reason: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	if strings.TrimSpace(block) == "" {
		return map[string]any{}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
		}
		// yaml.v3 refuses alias bombs itself ("excessive aliasing").
		return nil, &FrontmatterError{Reason: "invalid YAML: " + msg, Line: line, Limit: strings.Contains(msg, "excessive aliasing")}
	}
	root := &doc
	if root.Kind == 0 { // only comments
		return map[string]any{}, nil
	}
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return map[string]any{}, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return map[string]any{}, nil
	}
	if resolveAlias(root).Kind != yaml.MappingNode {
		return nil, &FrontmatterError{Reason: "the block must be a YAML mapping of field names to values", Line: root.Line}
	}
	c := &yamlConverter{budget: maxYAMLNodes}
	v, err := c.convert(root, 0)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; i < 100 && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

// yamlConverter turns a yaml.Node tree into JSON-compatible values.
type yamlConverter struct {
	budget int
}

func (c *yamlConverter) convert(n *yaml.Node, depth int) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, &FrontmatterError{Reason: fmt.Sprintf("too many values (more than %d, counting alias expansions)", maxYAMLNodes), Line: n.Line, Limit: true}
	}
	if depth > maxYAMLDepth {
		return nil, &FrontmatterError{Reason: fmt.Sprintf("values nested more than %d levels deep", maxYAMLDepth), Line: n.Line, Limit: true}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &FrontmatterError{Reason: "unknown alias", Line: n.Line}
		}
		return c.convert(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.convert(n.Content[0], depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.convert(item, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, &FrontmatterError{Reason: "unsupported YAML node", Line: n.Line}
}

func (c *yamlConverter) mapping(n *yaml.Node, depth int) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		rk := resolveAlias(k)
		if rk.Kind != yaml.ScalarNode {
			return nil, &FrontmatterError{Reason: "mapping keys must be plain values, not lists or mappings", Line: k.Line}
		}
		if _, dup := out[rk.Value]; dup {
			return nil, &FrontmatterError{Reason: fmt.Sprintf("key %q appears more than once", rk.Value), Line: k.Line}
		}
		val, err := c.convert(v, depth+1)
		if err != nil {
			return nil, err
		}
		out[rk.Value] = val
	}
	// Merge keys: explicit keys win, earlier merged mappings win over later ones.
	for _, m := range merges {
		m = resolveAlias(m)
		var sources []*yaml.Node
		switch m.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{m}
		case yaml.SequenceNode:
			sources = m.Content
		default:
			return nil, &FrontmatterError{Reason: "a merge key (<<) needs a mapping or a list of mappings", Line: m.Line}
		}
		for _, s := range sources {
			if resolveAlias(s).Kind != yaml.MappingNode {
				return nil, &FrontmatterError{Reason: "a merge key (<<) needs a mapping or a list of mappings", Line: s.Line}
			}
			v, err := c.convert(s, depth+1)
			if err != nil {
				return nil, err
			}
			mv, _ := v.(map[string]any)
			for key, val := range mv {
				if _, exists := out[key]; !exists {
					out[key] = val
				}
			}
		}
	}
	return out, nil
}

func scalarValue(n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!null":
		return nil, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
			msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
		}
		return nil, &FrontmatterError{Reason: "invalid value: " + msg, Line: n.Line}
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
		return float64(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return n.Value, nil
		}
		return x, nil
	case bool, string, nil:
		return x, nil
	}
	return n.Value, nil
}

// SchemaFields returns the top-level property names a JSON Schema declares:
// the union of "properties" of the schema and, recursively, of its "allOf",
// "anyOf" and "oneOf" variants (local "$ref"s such as "#/$defs/x" are
// followed). Names appear in a stable order: the schema's own properties
// sorted by name, then each variant's new names in variant order.
func SchemaFields(schema map[string]any) []string {
	w := schemaWalker{root: schema}
	var out []string
	seen := map[string]bool{}
	w.collectFields(schema, seen, &out, 0)
	return out
}

// maxSchemaDepth bounds recursion through variants and $refs.
const maxSchemaDepth = 32

// schemaWalker reads decoded JSON Schemas, resolving local $refs against root.
type schemaWalker struct {
	root map[string]any
}

// resolve follows local "$ref"s of s (up to a small bound).
func (w schemaWalker) resolve(s map[string]any) map[string]any {
	for i := 0; i < maxSchemaDepth && s != nil; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		target := w.lookup(ref)
		if target == nil {
			return s
		}
		s = target
	}
	return s
}

// lookup resolves a local JSON pointer reference ("#", "#/$defs/x").
func (w schemaWalker) lookup(ref string) map[string]any {
	if ref == "#" {
		return w.root
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = w.root
	for _, tok := range strings.Split(p, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

func (w schemaWalker) collectFields(s map[string]any, seen map[string]bool, out *[]string, depth int) {
	for part := range w.parts(s, depth, variantKeys) {
		props, _ := part["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if !seen[name] {
				seen[name] = true
				*out = append(*out, name)
			}
		}
	}
}

// declaresProperties reports whether s or any of its variants has a
// "properties" keyword.
func (w schemaWalker) declaresProperties(s map[string]any, depth int) bool {
	for part := range w.parts(s, depth, variantKeys) {
		if _, ok := part["properties"].(map[string]any); ok {
			return true
		}
	}
	return false
}

// The keywords whose subschemas parts descends into: allOfKeys for what an
// object is made of, variantKeys for everything it may be.
var (
	allOfKeys   = []string{"allOf"}
	variantKeys = []string{"allOf", "anyOf", "oneOf"}
)

// parts yields s and then, depth first and in order, the subschemas under
// keys, each with its local $refs resolved; it stops maxSchemaDepth levels
// below depth.
func (w schemaWalker) parts(s map[string]any, depth int, keys []string) iter.Seq[map[string]any] {
	return func(yield func(map[string]any) bool) {
		w.walk(s, depth, keys, yield)
	}
}

// walk is parts' recursion; it reports whether to go on.
func (w schemaWalker) walk(s map[string]any, depth int, keys []string, yield func(map[string]any) bool) bool {
	if depth > maxSchemaDepth {
		return true
	}
	s = w.resolve(s)
	if s == nil {
		return true
	}
	if !yield(s) {
		return false
	}
	for _, key := range keys {
		for _, sub := range schemaList(s[key]) {
			if !w.walk(sub, depth+1, keys, yield) {
				return false
			}
		}
	}
	return true
}

func schemaList(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// ExtractOutput parses the frontmatter of an agent's response and keeps only
// the fields the schema declares ([SchemaFields]); other fields are dropped.
// A schema that declares no properties at all (for example nil) keeps every
// field. ExtractOutput does not validate the output against the schema.
//
// A missing frontmatter block or invalid YAML yields a *[FrontmatterError].
func ExtractOutput(text string, schema map[string]any) (output map[string]any, body string, err error) {
	fields, body, err := ParseFrontmatter(text)
	if err != nil {
		return nil, "", err
	}
	return filterFields(fields, schema), body, nil
}

// filterFields keeps the fields of the schema; see [ExtractOutput].
func filterFields(fields, schema map[string]any) map[string]any {
	w := schemaWalker{root: schema}
	if !w.declaresProperties(schema, 0) {
		if fields == nil {
			return map[string]any{}
		}
		return fields
	}
	out := map[string]any{}
	for _, name := range SchemaFields(schema) {
		if v, ok := fields[name]; ok {
			out[name] = v
		}
	}
	return out
}
