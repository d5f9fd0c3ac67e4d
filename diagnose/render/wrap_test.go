package render

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n"
)

// TestWrapL: Japanese and Chinese wrap by display width, breaking between
// CJK characters but never before closing punctuation nor after opening
// punctuation; English and French wrap as wrap does (bytes, spaces).
func TestWrapL(t *testing.T) {
	ja := "Kueue は Deployment の Pod ごとに Workload を作成します。ここでは 4 個（spec.replicas）のうち 1 つの Pod をチェックします。Kueue はクォータが空くたびに 1 つずつアドミットするため、実行中のものと待機中のものが混在することがあります。"
	zh := "Kueue 会为 Deployment 的每个 Pod 创建一个 Workload：这里检查 4 个（spec.replicas）中的一个 Pod；Kueue 会随着配额释放逐个准入它们，因此可能有些在运行而另一些在等待。"
	for _, tc := range []struct {
		l    i18n.Lang
		s    string
		cols int
	}{{i18n.Japanese, ja, 40}, {i18n.Japanese, ja, 23}, {i18n.Chinese, zh, 30}, {i18n.Chinese, zh, 17}} {
		got := wrapL(tc.l, tc.s, tc.cols, "  ")
		lines := strings.Split(got, "\n")
		if len(lines) < 3 {
			t.Errorf("%s at %d: not wrapped:\n%s", tc.l, tc.cols, got)
		}
		var joined strings.Builder
		for i, line := range lines {
			if i > 0 {
				if !strings.HasPrefix(line, "  ") {
					t.Errorf("%s: line %d lacks the indent: %q", tc.l, i, line)
				}
				line = strings.TrimPrefix(line, "  ")
			}
			// A closing mark may hang one character past the width.
			if w := displayWidth(line); w > tc.cols+2 {
				t.Errorf("%s at %d: line %d is %d columns: %q", tc.l, tc.cols, i, w, line)
			}
			if r := []rune(line); len(r) > 0 && strings.ContainsRune("。、，：；）」", r[0]) {
				t.Errorf("%s at %d: line %d starts with closing punctuation: %q", tc.l, tc.cols, i, line)
			}
			if r := []rune(line); len(r) > 0 && strings.ContainsRune("（「", r[len(r)-1]) {
				t.Errorf("%s at %d: line %d ends with opening punctuation: %q", tc.l, tc.cols, i, line)
			}
			joined.WriteString(line)
		}
		// Nothing lost: the text less its spaces is the same.
		if strip := func(s string) string { return strings.Join(strings.Fields(s), "") }; strip(joined.String()) != strip(tc.s) {
			t.Errorf("%s at %d: text changed:\n%s", tc.l, tc.cols, got)
		}
		if strings.Contains(got, "spec.\n") || strings.Contains(got, "Deploy\n") {
			t.Errorf("%s: a word was cut:\n%s", tc.l, got)
		}
	}
	en := "Kueue would never admit job/train: its container resources are invalid (a LimitRange of namespace team-a, or a request above its limit)."
	fr := "Le quota est dans la ClusterQueue (à l’échelle du cluster) ; voir les lacunes ci-dessous pour savoir qui peut la lire."
	for l, s := range map[i18n.Lang]string{i18n.English: en, i18n.French: fr} {
		for _, cols := range []int{20, 40, 100} {
			if got, want := wrapL(l, s, cols, "    "), wrap(s, cols, "    "); got != want {
				t.Errorf("%s at %d: %q, want wrap's %q", l, cols, got, want)
			}
		}
	}
}
