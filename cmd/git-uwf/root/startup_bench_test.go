package root

import (
	"context"
	"testing"

	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/cmdutil"
	"github.com/git-uwf/git-uwf/cmd/git-uwf/internal/iostreams"
)

// BenchmarkVersion is the work of `git uwf version` after package
// initialisation: the app and the version command are built and run (the
// other commands are not built; see needed).
func BenchmarkVersion(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ios, _, _, errOut := iostreams.Test()
		if code := Run(context.Background(), cmdutil.NewFactory(ios), []string{"git-uwf", "version"}); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
}
