package thread

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

func TestTableMatchesTabwriter(t *testing.T) {
	for i, rows := range [][][]string{
		{{"#", "STEP", "COMMIT", "ROLE"}, {"0", "AGZHVJ6XVHHEX", "bf3f483e25b0", "(start)"}, {"10", "", "é日本", "x"}},
		{{"a", "b"}, {"", ""}, {"long cell here", "z"}},
		{{"only"}, {"one column"}},
		{{"a", "b", "c"}, {"d", "e"}},
		{{"tab\tinside", "b"}, {"c", "line\nbreak"}},
		{{"bad \xff utf8", "x"}, {"\xe6\x97", "y"}},
		{{"a\xffb\xffc", "x"}, {"d", "y"}},
		{{"\ufffd", "x"}, {"d", "y"}},
		{},
	} {
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 2, 2, ' ', 0)
		var tb table
		for _, r := range rows {
			fmt.Fprint(tw, strings.Join(r, "\t")+"\n")
			tb.add(r...)
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := tb.write(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("case %d:\n got %q\nwant %q", i, got.String(), want.String())
		}
	}
}
