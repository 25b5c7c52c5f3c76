package jsonschema

// The oracle: santhosh-tekuri/jsonschema/v6 behind the API this package had
// before it got its own validator. Tests compare the two; the binary never
// links v6.

import (
	"errors"
	"slices"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

type oracleSchema struct{ s *js.Schema }

func oracleCompile(url string, doc any, cfg Config) (*oracleSchema, error) {
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft2020)
	if cfg.AssertFormat {
		c.AssertFormat()
	}
	c.UseLoader(oracleLoader(cfg.Refuse))
	for name, fn := range cfg.Formats {
		c.RegisterFormat(&js.Format{Name: name, Validate: fn})
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &oracleSchema{s}, nil
}

func (s *oracleSchema) Validate(v any) error { return s.s.Validate(v) }

type oracleLoader func(url string) error

func (r oracleLoader) Load(url string) (any, error) {
	if r == nil {
		return nil, errors.New("loading " + url + ": external schema documents are not allowed")
	}
	return nil, r(url)
}

// oracleViolations is Violations of the old wrapper, except that the
// properties of one additionalProperties line are sorted (v6 lists them in
// map order).
func oracleViolations(err error) []string {
	var ve *js.ValidationError
	if errors.As(err, &ve) {
		if out := oracleLeaves(ve); len(out) > 0 {
			return out
		}
	}
	return []string{"at /: " + OneLine(err.Error())}
}

// oracleMetaError reports whether err is v6's meta-schema error.
func oracleMetaError(err error) bool {
	var sve *js.SchemaValidationError
	return errors.As(err, &sve)
}

func oracleLeaves(ve *js.ValidationError) []string {
	p := message.NewPrinter(language.English)
	var out []string
	var walk func(e *js.ValidationError)
	walk = func(e *js.ValidationError) {
		if len(e.Causes) == 0 {
			k := e.ErrorKind
			if ap, ok := k.(*kind.AdditionalProperties); ok {
				sorted := *ap
				sorted.Properties = slices.Sorted(slices.Values(ap.Properties))
				k = &sorted
			}
			out = append(out, "at "+Pointer(e.InstanceLocation)+": "+OneLine(k.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}
