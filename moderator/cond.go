package moderator

import (
	"fmt"
	"math"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/git-uwf/git-uwf/internal/text"
)

// Sandbox limits of condition expressions.
const (
	maxExprNodes     = 2000
	maxExprMemory    = 100_000
	maxExprSourceLen = 4096
)

// getFunc is the name of the nil-safe member access every a.b / a[i] is
// rewritten to, so missing fields and nil receivers evaluate to nil.
const getFunc = "__uwf_get"

// exprErrorWidth bounds, in runes, the first line of expr's multi-line
// error (message, source, caret) that a condition error keeps.
const exprErrorWidth = 500

// translateExpr turns the seed (JSONata-like) spelling into expr syntax:
// `$name(` becomes `name(` and a lone `=` becomes `==`. String literals are
// copied unchanged.
func translateExpr(src string) string {
	var b strings.Builder
	b.Grow(len(src) + 8)
	rs := []rune(src)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			// Copy the string literal through its closing quote.
			b.WriteRune(c)
			for i++; i < len(rs); i++ {
				b.WriteRune(rs[i])
				if rs[i] == '\\' && c != '`' && i+1 < len(rs) {
					i++
					b.WriteRune(rs[i])
					continue
				}
				if rs[i] == c {
					break
				}
			}
		case c == '$' && i+1 < len(rs) && isIdentStart(rs[i+1]):
			j := i + 1
			for j < len(rs) && isIdentPart(rs[j]) {
				j++
			}
			k := j
			for k < len(rs) && (rs[k] == ' ' || rs[k] == '\t') {
				k++
			}
			if k < len(rs) && rs[k] == '(' && (i == 0 || !isIdentPart(rs[i-1])) {
				b.WriteString(string(rs[i+1 : j]))
			} else {
				b.WriteString(string(rs[i:j]))
			}
			i = j - 1
		case c == '=':
			prev := rune(0)
			if i > 0 {
				prev = rs[i-1]
			}
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if strings.ContainsRune("=!<>", prev) || next == '=' {
				b.WriteRune(c)
			} else {
				b.WriteString("==")
			}
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func isIdentStart(r rune) bool {
	return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

func isIdentPart(r rune) bool { return isIdentStart(r) || ('0' <= r && r <= '9') }

// safeMembers rewrites member access (a.b, a[i]) into calls of getFunc.
type safeMembers struct{}

func (safeMembers) Visit(n *ast.Node) {
	m, ok := (*n).(*ast.MemberNode)
	if !ok || m.Method {
		return
	}
	ast.Patch(n, &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: getFunc},
		Arguments: []ast.Node{m.Node, m.Property},
	})
}

// safeGet is the nil-safe member access: nil for nil receivers, missing keys,
// out-of-range indexes and anything that is not a map or list.
func safeGet(params ...any) (any, error) {
	if len(params) != 2 {
		return nil, fmt.Errorf("%s: want 2 arguments, got %d", getFunc, len(params))
	}
	switch from := params[0].(type) {
	case map[string]any:
		k, ok := params[1].(string)
		if !ok {
			return nil, nil
		}
		return from[k], nil
	case []any:
		i, ok := toIndex(params[1])
		if !ok {
			return nil, nil
		}
		if i < 0 {
			i += len(from)
		}
		if i < 0 || i >= len(from) {
			return nil, nil
		}
		return from[i], nil
	case string:
		return nil, nil
	default:
		return nil, nil
	}
}

func toIndex(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		if x < math.MinInt32 || x > math.MaxInt32 {
			return 0, false
		}
		return int(x), true
	case float64:
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			return 0, false
		}
		return int(x), true
	default:
		return 0, false
	}
}

// exprEnv is the evaluation environment of one routing decision.
type exprEnv map[string]any

// newExprEnv builds {start, steps, last, first, exists} for ctx. Step outputs
// are passed as they are (maps of JSON values).
func newExprEnv(ctx RouteContext) exprEnv {
	steps := make([]any, len(ctx.Steps))
	for i, s := range ctx.Steps {
		var out any
		if s.Output != nil {
			out = s.Output
		}
		steps[i] = map[string]any{
			"role":       s.Role,
			"output":     out,
			"agent":      s.Agent,
			"edgePrompt": s.EdgePrompt,
		}
	}
	last := func(role string) any {
		for i := len(ctx.Steps) - 1; i >= 0; i-- {
			if ctx.Steps[i].Role == role {
				if o := ctx.Steps[i].Output; o != nil {
					return o
				}
				return nil
			}
		}
		return nil
	}
	first := func(role string) any {
		for _, s := range ctx.Steps {
			if s.Role == role {
				if s.Output != nil {
					return s.Output
				}
				return nil
			}
		}
		return nil
	}
	return exprEnv{
		"start":  map[string]any{"workflow": ctx.Start.Workflow, "prompt": ctx.Start.Prompt},
		"steps":  steps,
		"last":   last,
		"first":  first,
		"exists": func(x any) bool { return x != nil },
	}
}

// compileCondition compiles a condition expression (seed syntax accepted)
// against the routing environment.
func compileCondition(src string) (*vm.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("empty expression")
	}
	if len(src) > maxExprSourceLen {
		return nil, fmt.Errorf("expression longer than %d bytes", maxExprSourceLen)
	}
	prog, err := func() (p *vm.Program, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("compile: %v", r)
			}
		}()
		return expr.Compile(translateExpr(src),
			expr.Env(newExprEnv(RouteContext{})),
			expr.Function(getFunc, safeGet),
			expr.Patch(safeMembers{}),
			expr.MaxNodes(maxExprNodes),
		)
	}()
	if err != nil {
		return nil, fmt.Errorf("%s", text.FirstLine(err.Error(), exprErrorWidth))
	}
	return prog, nil
}

// evalCondition runs a compiled condition. nil counts as false; any other
// non-boolean result is an error.
func evalCondition(name string, prog *vm.Program, env exprEnv) (bool, error) {
	machine := vm.VM{MemoryBudget: maxExprMemory}
	out, err := func() (out any, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		return machine.Run(prog, map[string]any(env))
	}()
	if err != nil {
		return false, fmt.Errorf("evaluate condition %q: %s", name, text.FirstLine(err.Error(), exprErrorWidth))
	}
	switch v := out.(type) {
	case bool:
		return v, nil
	case nil:
		return false, nil
	default:
		return false, fmt.Errorf("condition %q evaluated to %T (%v), want a boolean", name, out, out)
	}
}
