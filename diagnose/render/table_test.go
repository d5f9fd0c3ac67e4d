package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestTableMatchesTabwriter: on text without wide characters the table
// writes what text/tabwriter writes, byte for byte (English output does
// not change), column blocks and unpadded last cells included.
func TestTableMatchesTabwriter(t *testing.T) {
	inputs := []string{
		"a\tbb\tccc\ndddd\te\tf\n",
		"Job:\tteam-a/sample-job\nWorkload:\twl\nLocalQueue:\tlq (position 1)\n",
		"  POD SET\tFLAVOR\tRESOURCE\n  main\tdefault-flavor\tcpu\n  w\tgpu-a100\tnvidia.com/gpu\n",
		"x\ty\tz\nno tabs here\nlonger cell\tq\n\n1\t2\n",
		"a\tb\nc\td\te\nf\tg\n",
		"only one line\n",
		"×\t…\n’’’\tx\n",
		"",
	}
	for _, in := range inputs {
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 8, 2, ' ', 0)
		fmt.Fprint(tw, in)
		_ = tw.Flush()
		tb := newTable(&got)
		fmt.Fprint(tb, in)
		if err := tb.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("table(%q) =\n%q\ntabwriter writes\n%q", in, got.String(), want.String())
		}
	}
}

// TestTableAlignsWideCharacters: Japanese and Chinese cells take two
// columns per character, and the next column starts at the same terminal
// column on every line.
func TestTableAlignsWideCharacters(t *testing.T) {
	var b bytes.Buffer
	tb := newTable(&b)
	fmt.Fprint(tb, "  Pod セット\tフレーバー\tリソース\t要求\n  main\tdefault-flavor\tcpu\t3\n  ワーカー\tgpu\tnvidia.com/gpu\t8\n")
	_ = tb.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	col := func(line, cell string) int {
		i := strings.Index(line, cell)
		if i < 0 {
			t.Fatalf("%q is not in %q", cell, line)
		}
		return displayWidth(line[:i])
	}
	if a, c, d := col(lines[0], "フレーバー"), col(lines[1], "default-flavor"), col(lines[2], "gpu"); a != c || c != d {
		t.Errorf("second column starts at %d, %d, %d:\n%s", a, c, d, b.String())
	}
	if a, c, d := col(lines[0], "リソース"), col(lines[1], "cpu"), col(lines[2], "nvidia.com/gpu"); a != c || c != d {
		t.Errorf("third column starts at %d, %d, %d:\n%s", a, c, d, b.String())
	}
	if a, c, d := col(lines[0], "要求"), col(lines[1], "3"), col(lines[2], "8"); a != c || c != d {
		t.Errorf("fourth column starts at %d, %d, %d:\n%s", a, c, d, b.String())
	}
	for _, tc := range []struct {
		s string
		w int
	}{{"abc", 3}, {"クォータ", 8}, {"配额", 4}, {"（", 2}, {"Pod 集", 6}, {"×", 1}, {"é", 1}} {
		if got := displayWidth(tc.s); got != tc.w {
			t.Errorf("displayWidth(%q) = %d, want %d", tc.s, got, tc.w)
		}
	}
}
