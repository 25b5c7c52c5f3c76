package deps
import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/urfave/cli/v2"
	_ "github.com/cespare/xxhash/v2"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "gopkg.in/yaml.v3"
	_ "github.com/cbroglie/mustache"
	_ "github.com/expr-lang/expr"
	_ "github.com/gofrs/flock"
	_ "github.com/kballard/go-shellquote"
	_ "github.com/rogpeppe/go-internal/testscript"
)
