package moderator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/osteele/liquid/expressions"
	"github.com/osteele/liquid/filters"
	"github.com/osteele/liquid/parser"
	"github.com/osteele/liquid/render"
	"github.com/osteele/liquid/tags"
	"github.com/osteele/liquid/values"
)

// Limits of a Liquid rendering. Liquid has no unbounded loop of its own,
// but ranges, nested loops and self-appending assignments can still ask for
// more time or memory than an edge prompt deserves; these bound them.
const (
	// liquidMaxOutput caps a rendered template and every string a template
	// builds on the way (assign, capture, replace, join).
	liquidMaxOutput = 1 << 20
	// liquidMaxIterations caps the loop iterations of one rendering, over
	// all loops together.
	liquidMaxIterations = 10_000
	// liquidMaxTime caps the wall time of one rendering.
	liquidMaxTime = time.Second
)

// BodyVariable is the Liquid variable that holds the markdown body of the
// previous step (version 1 workflows). Frontmatter schemas cannot define it.
const BodyVariable = "_body"

// budgetKey holds a rendering's *liquidBudget in the bindings. It contains a
// space, so no template can name it.
const budgetKey = "uwf budget"

// tickTag is the tag spliced into every loop and capture body to charge the
// budget; see instrument.
const tickTag = "uwfbudgettick"

var errNoInclude = errors.New("include is not supported in edge templates: they never read files")

// A limitError is a rendering that went past one of the limits above. Its
// message is formatted when asked for: fmt.Errorf at package level would
// format every message at every process start.
type limitError int

const (
	errLiquidTooLong limitError = iota + 1
	errLiquidTooLarge
	errLiquidRange
	errLiquidTooMany
)

func (e limitError) Error() string {
	switch e {
	case errLiquidTooLong:
		return fmt.Sprintf("the template ran too long (more than %d loop iterations or %v)", liquidMaxIterations, liquidMaxTime)
	case errLiquidTooLarge:
		return fmt.Sprintf("the template produced more than %d bytes", liquidMaxOutput)
	case errLiquidRange:
		return fmt.Sprintf("a range has more than %d values", liquidMaxIterations)
	case errLiquidTooMany:
		return fmt.Sprintf("a filter produced more than %d values", liquidMaxOutput)
	}
	return fmt.Sprintf("liquid limit %d", int(e))
}

// liquidBudget is what one rendering may still spend.
type liquidBudget struct {
	iterations int
	deadline   time.Time
	now        func() time.Time // the clock: time.Now but in tests
}

func (b *liquidBudget) tick(bindings map[string]any) error {
	b.iterations--
	// The clock is read every time (at most liquidMaxIterations reads): one
	// iteration can cost a sort of a million values.
	if b.iterations < 0 || b.now().After(b.deadline) {
		return errLiquidTooLong
	}
	// A capture or assign in a loop can double a string each time round:
	// no binding may outgrow the output cap.
	for _, v := range bindings {
		if s, ok := v.(string); ok && len(s) > liquidMaxOutput {
			return errLiquidTooLarge
		}
	}
	return nil
}

// newLiquidBudget is the budget of one rendering.
func newLiquidBudget() *liquidBudget {
	return newLiquidBudgetClock(time.Now)
}

// newLiquidBudgetClock is the budget of one rendering timed by now.
func newLiquidBudgetClock(now func() time.Time) *liquidBudget {
	return &liquidBudget{iterations: liquidMaxIterations, deadline: now().Add(liquidMaxTime), now: now}
}

// liquidConfig is the Liquid grammar of edge templates: the standard tags
// and filters, with include refused, assign bounded, replace and join
// bounded, and the budget tick. It is built once and only read afterwards.
var liquidConfig = sync.OnceValue(func() render.Config {
	cfg := render.NewConfig()
	// Every filter goes through boundedFilters, ours too: a range (a..b)
	// costs nothing until a filter turns it into an array.
	fd := boundedFilters{&cfg}
	filters.AddStandardFilters(fd)
	tags.AddStandardTags(cfg)
	cfg.AddTag("include", func(string) (func(io.Writer, render.Context) error, error) {
		return nil, errNoInclude
	})
	cfg.AddTag("assign", boundedAssign)
	cfg.AddTag(tickTag, func(string) (func(io.Writer, render.Context) error, error) {
		return func(_ io.Writer, ctx render.Context) error {
			b, _ := ctx.Get(budgetKey).(*liquidBudget)
			if b == nil {
				return nil
			}
			return b.tick(ctx.Bindings())
		}, nil
	})
	fd.AddFilter("replace", func(s, old, repl string) (string, error) {
		n := strings.Count(s, old)
		if old == "" {
			n = len(s) + 1
		}
		if len(s)+n*(len(repl)-len(old)) > liquidMaxOutput {
			return "", errLiquidTooLarge
		}
		return strings.ReplaceAll(s, old, repl), nil
	})
	fd.AddFilter("join", func(a []any, sep func(string) string) (string, error) {
		glue := sep(" ")
		var b strings.Builder
		for i, x := range a {
			if i > 0 {
				b.WriteString(glue)
			}
			if x != nil {
				fmt.Fprint(&b, x)
			}
			if b.Len() > liquidMaxOutput {
				return "", errLiquidTooLarge
			}
		}
		return b.String(), nil
	})
	return cfg
})

// boundedFilters registers filters wrapped by boundFilter.
type boundedFilters struct{ cfg *render.Config }

func (d boundedFilters) AddFilter(name string, fn any) { d.cfg.AddFilter(name, boundFilter(fn)) }

var (
	anyType   = reflect.TypeFor[any]()
	errorType = reflect.TypeFor[error]()
)

// boundFilter wraps a filter so that it refuses a range of more than
// liquidMaxIterations values before the range becomes an array (Liquid
// converts the arguments before the call: slice parameters become any in
// the wrapper, which converts them itself), and refuses a result longer
// than liquidMaxOutput bytes or values (concat can double an array each
// time round a loop, append a string). Each filter call allocates at most
// about twice the caps.
func boundFilter(fn any) any {
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	if ft.IsVariadic() || ft.NumOut() < 1 || ft.NumOut() > 2 || (ft.NumOut() == 2 && ft.Out(1) != errorType) {
		return fn // no standard filter has this shape; Liquid decides
	}
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
		if in[i].Kind() == reflect.Slice {
			in[i] = anyType
		}
	}
	wt := reflect.FuncOf(in, []reflect.Type{ft.Out(0), errorType}, false)
	fail := func(err error) []reflect.Value {
		return []reflect.Value{reflect.Zero(ft.Out(0)), reflect.ValueOf(&err).Elem()}
	}
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		call := make([]reflect.Value, len(args))
		for i, a := range args {
			call[i] = a
			if in[i] == ft.In(i) {
				continue
			}
			if a.IsNil() {
				call[i] = reflect.Zero(ft.In(i))
				continue
			}
			v := a.Interface()
			if r, ok := v.(values.Range); ok {
				// Len wraps around on huge bounds: rebuild the end.
				lo, _ := r.Index(0).(int)
				hi := lo + r.Len() - 1
				if rangeTooLong(int64(lo), int64(hi)) {
					return fail(errLiquidRange)
				}
				if hi < lo { // empty, as in Liquid (the library panics)
					call[i] = reflect.MakeSlice(ft.In(i), 0, 0)
					continue
				}
			}
			c, err := values.Convert(v, ft.In(i))
			if err != nil {
				return fail(err)
			}
			call[i] = reflect.ValueOf(c)
		}
		out := fv.Call(call)
		if len(out) == 2 && !out[1].IsNil() {
			return out
		}
		r := out[0]
		if r.Kind() == reflect.Interface && !r.IsNil() {
			r = r.Elem()
		}
		switch {
		case r.Kind() == reflect.String && r.Len() > liquidMaxOutput:
			return fail(errLiquidTooLarge)
		case r.Kind() == reflect.Slice && r.Len() > liquidMaxOutput:
			return fail(errLiquidTooMany)
		}
		return []reflect.Value{out[0], reflect.Zero(errorType)}
	}).Interface()
}

// liquidStrictConfig is liquidConfig that fails on undefined variables,
// for checking templates against the previous role's schema.
var liquidStrictConfig = sync.OnceValue(func() render.Config {
	cfg := liquidConfig()
	cfg.StrictVariables = true
	return cfg
})

// tickNode is a compiled tick tag, spliced into loop and capture bodies.
var tickNode = sync.OnceValue(func() render.Node {
	n, err := liquidConfig().Compile("{% "+tickTag+" %}", parser.SourceLoc{})
	if err != nil {
		panic(err) // a constant template
	}
	if seq, ok := n.(*render.SeqNode); ok && len(seq.Children) == 1 {
		return seq.Children[0]
	}
	return n
})

func boundedAssign(source string) (func(io.Writer, render.Context) error, error) {
	stmt, err := expressions.ParseStatement(expressions.AssignStatementSelector, source)
	if err != nil {
		return nil, err
	}
	return func(_ io.Writer, ctx render.Context) error {
		v, err := ctx.Evaluate(stmt.Assignment.ValueFn)
		if err != nil {
			return err
		}
		if s, ok := v.(string); ok && len(s) > liquidMaxOutput {
			return errLiquidTooLarge
		}
		ctx.Set(stmt.Assignment.Variable, v)
		return nil
	}, nil
}

// rangeRE finds a range expression "(a..b)" in tag markup.
var rangeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(([^()]*?)\.\.([^()]*?)\)`) })

// parseLiquid compiles a Liquid edge template and instruments it: every
// loop and capture body charges the rendering's budget.
func parseLiquid(tpl string) (root render.Node, err error) {
	defer func() {
		// The expression lexer panics on an integer literal that does
		// not fit 64 bits ({{ 9227000000000000000 }}): a hostile template
		// must not take the process.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("invalid template: %v", r)
		}
	}()
	root, err = liquidConfig().Compile(tpl, parser.SourceLoc{})
	if err != nil {
		return nil, liquidError(err)
	}
	if err := instrument(root, 0); err != nil {
		return nil, err
	}
	return root, nil
}

// instrument splices the tick into loop and capture bodies and refuses
// what can never be rendered: include, loops nested deeper than 4, and
// literal ranges of more than liquidMaxIterations values wherever they
// are (outputs, assign, conditions, loops). Ranges with variable bounds
// are bounded at render time: by the tick in a loop, by boundFilter when
// a filter would make them an array.
func instrument(n render.Node, depth int) error {
	switch x := n.(type) {
	case *render.SeqNode:
		for _, c := range x.Children {
			if err := instrument(c, depth); err != nil {
				return err
			}
		}
	case *render.ObjectNode:
		return checkRanges(x.Args)
	case *render.TagNode:
		return checkRanges(x.Args)
	case *render.BlockNode:
		if x.Name == "comment" {
			return nil // never rendered
		}
		if err := checkRanges(x.Args); err != nil {
			return err
		}
		inner := depth
		switch x.Name {
		case "for", "tablerow":
			inner++
			if inner > 4 {
				return errors.New("loops are nested more than 4 deep")
			}
			x.Body = append([]render.Node{tickNode()}, x.Body...)
		case "capture":
			x.Body = append([]render.Node{tickNode()}, x.Body...)
		}
		for _, c := range x.Body {
			if err := instrument(c, inner); err != nil {
				return err
			}
		}
		for _, c := range x.Clauses {
			if err := instrument(c, inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRanges accepts literal ranges of at most liquidMaxIterations
// values; other ranges are bounded at render time (see instrument).
func checkRanges(args string) error {
	for _, m := range rangeRE().FindAllStringSubmatch(args, -1) {
		lo, err1 := strconv.ParseInt(strings.TrimSpace(m[1]), 10, 64)
		hi, err2 := strconv.ParseInt(strings.TrimSpace(m[2]), 10, 64)
		if err1 == nil && err2 == nil && rangeTooLong(lo, hi) {
			return fmt.Errorf("range %s has more than %d values", strings.TrimSpace(m[0]), liquidMaxIterations)
		}
	}
	return nil
}

// rangeTooLong tells whether the range (lo..hi) has more than
// liquidMaxIterations values, without overflowing.
func rangeTooLong(lo, hi int64) bool {
	return hi >= lo && uint64(hi)-uint64(lo) >= liquidMaxIterations
}

// liquidError flattens a Liquid error into one line without its location
// (the caller names the edge).
func liquidError(err error) error {
	msg := err.Error()
	var pe parser.Error
	if errors.As(err, &pe) && pe.Cause() != nil {
		msg = pe.Cause().Error()
		if errors.Is(pe.Cause(), errNoInclude) {
			return errNoInclude
		}
	}
	msg = strings.TrimPrefix(msg, "Liquid error: ")
	return errors.New(strings.Join(strings.Fields(msg), " "))
}

// cappedWriter fails once more than max bytes are written.
type cappedWriter struct {
	buf bytes.Buffer
	max int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		return 0, errLiquidTooLarge
	}
	return w.buf.Write(p)
}

// renderLiquid renders a compiled template over data (plus body as _body)
// within the budget. strict fails on undefined variables.
func renderLiquid(root render.Node, data map[string]any, body string, strict bool) (string, error) {
	return renderLiquidBudget(root, data, body, strict, newLiquidBudget())
}

// renderLiquidBudget is renderLiquid within a given budget.
func renderLiquidBudget(root render.Node, data map[string]any, body string, strict bool, budget *liquidBudget) (string, error) {
	out, rerr, err := renderLiquidRaw(root, data, body, strict, budget)
	if rerr != nil {
		return "", liquidRenderError(rerr)
	}
	return out, err
}

// renderLiquidRaw is renderLiquid returning the renderer's own error (with
// the failing node's source) apart from the limits and panics.
func renderLiquidRaw(root render.Node, data map[string]any, body string, strict bool, budget *liquidBudget) (out string, rerr render.Error, err error) {
	cfg := liquidConfig()
	if strict {
		cfg = liquidStrictConfig()
	}
	vars := make(map[string]any, len(data)+2)
	for k, v := range data {
		vars[k] = v
	}
	vars[BodyVariable] = body
	vars[budgetKey] = budget
	w := &cappedWriter{max: liquidMaxOutput}
	defer func() {
		// The renderer panics when its writer fails on a final flush, and
		// a filter may panic on odd input: neither may take the process.
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, errLiquidTooLarge) {
				out, rerr, err = "", nil, errLiquidTooLarge
				return
			}
			out, rerr, err = "", nil, fmt.Errorf("template failed: %v", r)
		}
	}()
	if rerr := render.Render(root, w, vars, cfg); rerr != nil {
		return "", rerr, nil
	}
	return w.buf.String(), nil, nil
}

func liquidRenderError(err render.Error) error {
	for _, sentinel := range []error{errLiquidTooLong, errLiquidTooLarge, errLiquidRange, errLiquidTooMany, errNoInclude} {
		if errors.Is(err.Cause(), sentinel) || strings.Contains(err.Error(), sentinel.Error()) {
			return sentinel
		}
	}
	return liquidError(err)
}

// liquidUnknownVariable extracts the variable a strict rendering found
// undefined, from the failing node's source text ("{{ x | f }}" → "x").
var liquidObjectRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{\{-?\s*([A-Za-z_][\w-]*)`) })

// checkLiquid renders the template strictly over mock data built from the
// previous output's properties, and reports the variables it uses that the
// output cannot have. props nil means no variables at all ($START).
//
// budget is shared by all the checks of one workflow, so that loading a
// hostile file costs at most one rendering's budget; once it is spent,
// only the cheap static half of the check runs.
func checkLiquid(root render.Node, props map[string]map[string]any, budget *liquidBudget) (unknown []string, err error) {
	unknown, err = strictUnknown(root, props, budget)
	if err != nil {
		return nil, err
	}
	// Strict rendering misses a variable whose filters turn nil into a
	// value ({{ x | upcase }}): also look at what every output starts with.
	local := map[string]bool{}
	var leads []string
	collectNames(root, local, &leads)
	seen := map[string]bool{}
	for _, u := range unknown {
		seen[u] = true
	}
	for _, name := range leads {
		if _, ok := props[name]; ok || local[name] || seen[name] || liquidBuiltinName(name) {
			continue
		}
		seen[name] = true
		unknown = append(unknown, name)
	}
	return unknown, nil
}

// liquidLeadRE is the variable an output starts with.
var liquidLeadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z_][\w-]*)\s*(?:$|[|.\[])`) })

// liquidDefRE finds the variables a tag defines: assign, capture, for.
var liquidDefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z_][\w-]*)`) })

func liquidBuiltinName(name string) bool {
	switch name {
	case BodyVariable, statusKey, "forloop", "tablerowloop", "true", "false", "nil", "null", "empty", "blank":
		return true
	}
	return false
}

// collectNames lists the variables outputs start with (leads) and the
// names the template defines itself (local).
func collectNames(n render.Node, local map[string]bool, leads *[]string) {
	switch x := n.(type) {
	case *render.SeqNode:
		for _, c := range x.Children {
			collectNames(c, local, leads)
		}
	case *render.ObjectNode:
		if m := liquidLeadRE().FindStringSubmatch(x.Args); m != nil {
			*leads = append(*leads, m[1])
		}
	case *render.TagNode:
		if x.Name == "assign" {
			if m := liquidDefRE().FindStringSubmatch(x.Args); m != nil {
				local[m[1]] = true
			}
		}
	case *render.BlockNode:
		switch x.Name {
		case "capture", "for", "tablerow":
			if m := liquidDefRE().FindStringSubmatch(x.Args); m != nil {
				local[m[1]] = true
			}
		}
		for _, c := range x.Body {
			collectNames(c, local, leads)
		}
		for _, c := range x.Clauses {
			collectNames(c, local, leads)
		}
	}
}

// strictUnknown is the strict-rendering half of checkLiquid.
func strictUnknown(root render.Node, props map[string]map[string]any, budget *liquidBudget) (unknown []string, err error) {
	data := map[string]any{statusKey: "x"}
	for name, p := range props {
		data[name] = mockValue(p, 0)
	}
	// Strict rendering stops at the first undefined variable: remove it by
	// defining it, and go on, so that every unknown name is reported.
	for range 32 {
		if budget.iterations <= 0 || time.Now().After(budget.deadline) {
			return unknown, nil
		}
		_, rerr, err := renderLiquidRaw(root, data, "body", true, budget)
		if err != nil || rerr == nil {
			// The limits apply to real data, not to these samples.
			return unknown, nil
		}
		if rerr.Cause() == nil || rerr.Cause().Error() != "undefined variable" {
			if strings.Contains(rerr.Error(), "undefined filter") {
				return unknown, liquidError(rerr)
			}
			// Sample data of the wrong shape for a filter or a range:
			// the template's own business at render time.
			return unknown, nil
		}
		name := undefinedName(rerr)
		if name == "" || data[name] != nil {
			return unknown, nil // not one we can name; rendering decides
		}
		unknown = append(unknown, name)
		data[name] = "x"
	}
	return unknown, nil
}

// undefinedName names the variable of a strict rendering's
// "undefined variable" error, from the source text it quotes.
func undefinedName(err error) string {
	msg := err.Error()
	i := strings.Index(msg, "{{")
	if i < 0 {
		return ""
	}
	m := liquidObjectRE().FindStringSubmatch(msg[i:])
	if m == nil {
		return ""
	}
	return m[1]
}

// mockValue is a value of the shape a property schema describes, truthy
// and non-empty so that conditionals and loops reach their bodies.
func mockValue(p map[string]any, depth int) any {
	if p == nil || depth > 8 {
		return "x"
	}
	if c, ok := p["const"]; ok {
		return c
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	t := p["type"]
	if list, ok := t.([]any); ok {
		t = nil
		for _, x := range list {
			if x != "null" {
				t = x
				break
			}
		}
	}
	switch t {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		items, _ := p["items"].(map[string]any)
		return []any{mockValue(items, depth+1)}
	case "object":
		m := map[string]any{}
		for k, v := range properties(p) {
			sub, _ := v.(map[string]any)
			m[k] = mockValue(sub, depth+1)
		}
		return m
	case "null":
		return nil
	}
	if _, ok := p["properties"]; ok {
		return mockValue(map[string]any{"type": "object", "properties": p["properties"]}, depth)
	}
	if _, ok := p["items"]; ok {
		return mockValue(map[string]any{"type": "array", "items": p["items"]}, depth)
	}
	return "x"
}
