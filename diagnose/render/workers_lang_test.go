package render

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// TestUnreadClustersInEachLanguage: why a worker cluster's own diagnosis
// is missing (WorkerReport.ErrorMsg) and why a cluster could not be
// searched (ClusterLook.ErrorMsg) render in the report's language, in
// text and Markdown; without a message, the English Error is shown.
func TestUnreadClustersInEachLanguage(t *testing.T) {
	worker := i18n.M("render.gap.forbidden")
	cluster := i18n.M("render.gap.timeout")
	r := &diagnose.Report{
		Verdict: diagnose.Verdict{Stage: diagnose.StageAdmission, Code: diagnose.CodeWaitingForQuota, Headline: "h"},
		Workers: []diagnose.WorkerReport{
			{Cluster: "worker1", Error: worker.String(), ErrorMsg: worker},
			{Cluster: "worker2", Error: "connection refused"},
		},
		Clusters: []diagnose.ClusterLook{{Cluster: "gpu-east", Error: cluster.String(), ErrorMsg: cluster}},
	}
	for l, want := range map[i18n.Lang][2]string{
		i18n.English: {
			"you may not read it; your platform team can check it or grant read access",
			"gpu-east did not answer: the API server did not answer in time; try again",
		},
		i18n.French: {
			"vous n’avez pas le droit de le lire ; votre équipe plateforme peut le vérifier ou vous en donner l’accès en lecture",
			"gpu-east n’a pas répondu : le serveur d’API n’a pas répondu à temps ; réessayez",
		},
		i18n.Japanese: {
			"あなたには読み取り権限がありません。プラットフォームチームが確認するか、読み取り権限を付与できます",
			"gpu-east から応答がありません：API サーバーが時間内に応答しませんでした。もう一度試してください",
		},
		i18n.Chinese: {
			"你无权读取它；平台团队可以帮你检查或授予读取权限",
			"gpu-east 未响应：API 服务器未及时响应；请重试",
		},
	} {
		o := Options{Lang: l}
		// Text wraps long lines (Japanese and Chinese anywhere): compare
		// without spaces and line breaks.
		text := noSpace(TextStringWith(r, o))
		md := MarkdownStringWith(r, o)
		for _, w := range want {
			if !strings.Contains(text, noSpace(w)) {
				t.Errorf("%s text lacks %q:\n%s", l, w, TextStringWith(r, o))
			}
		}
		if !strings.Contains(md, mdEscape(want[0])) || !strings.Contains(md, "connection refused") {
			t.Errorf("%s Markdown lacks the workers' errors:\n%s", l, md)
		}
		if !strings.Contains(md, "**gpu-east**") || !strings.Contains(md, mdEscape(cluster.In(l))) {
			t.Errorf("%s Markdown lacks gpu-east's error:\n%s", l, md)
		}
		if !strings.Contains(text, noSpace("connection refused")) {
			t.Errorf("%s text lacks worker2's English error:\n%s", l, text)
		}
	}
}

// noSpace is s without its spaces and line breaks.
func noSpace(s string) string { return strings.Join(strings.Fields(s), "") }
