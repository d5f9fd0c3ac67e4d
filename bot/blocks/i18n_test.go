package blocks

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "blocks.")
}

// translatedReport is waitingForQuota with its sentences as catalog
// messages, as package diagnose returns them.
func translatedReport() diagnose.Report {
	r := waitingForQuota()
	cq := i18n.Obj("ClusterQueue", "", r.Queue.ClusterQueue)
	r.Verdict.HeadlineMsg = i18n.M("diagnose.cqStopped", cq, i18n.Ref("job", r.Target.Namespace, r.Target.Name))
	r.Verdict.DetailMsg = i18n.M("diagnose.cqStopped.detail", cq, i18n.Name("Hold"))
	r.Findings = nil
	for i := range r.Remedies {
		r.Remedies[i].SummaryMsg = i18n.M("diagnose.cqStopped.remedy", cq)
	}
	r.Gaps, r.Evidence = nil, nil
	return r
}

// TestAnswerInEachLanguage: the compact answer (headline, detail, remedies,
// chrome, buttons) holds no English prose in French, Japanese or Chinese.
func TestAnswerInEachLanguage(t *testing.T) {
	r := translatedReport()
	var verbatim []string
	verbatim = append(verbatim, r.Verdict.HeadlineMsg.Verbatims()...)
	verbatim = append(verbatim, r.Verdict.DetailMsg.Verbatims()...)
	for _, m := range r.Remedies {
		verbatim = append(verbatim, m.Command)
	}
	en := Text(Answer(r, AnswerOptions{Shareable: true}).Blocks)
	for _, l := range i18n.All()[1:] {
		got := Text(Answer(r, AnswerOptions{Options: Options{Lang: l}, Shareable: true}).Blocks)
		if got == en {
			t.Errorf("%s answer is the English one", l)
		}
		i18ntest.AssertTranslated(t, l, got, verbatim...)
	}
}

func BenchmarkAnswer(b *testing.B) {
	r := translatedReport()
	for _, l := range i18n.All() {
		b.Run(l.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Answer(r, AnswerOptions{Options: Options{Lang: l}, Shareable: true, Detailed: true})
			}
		})
	}
}

// TestWorkersInEachLanguage: a MultiKueue worker's own diagnosis, shown
// under the manager's answer, is in the answer's language, headings
// included.
func TestWorkersInEachLanguage(t *testing.T) {
	r := translatedReport()
	w := translatedReport()
	r.Workers = []diagnose.WorkerReport{{Cluster: "worker1", Report: &w}}
	var verbatim []string
	verbatim = append(verbatim, w.Verdict.HeadlineMsg.Verbatims()...)
	verbatim = append(verbatim, w.Verdict.DetailMsg.Verbatims()...)
	for _, m := range w.Remedies {
		verbatim = append(verbatim, m.Command)
		verbatim = append(verbatim, m.SummaryMsg.Verbatims()...)
	}
	en := Text(Report(r, Options{}).Blocks)
	if !strings.Contains(en, "On worker cluster `worker1`") || !strings.Contains(en, "What to do on `worker1`") {
		t.Fatalf("English answer lacks the worker's sections:\n%s", en)
	}
	for _, l := range i18n.All()[1:] {
		text := Text(Report(r, Options{Lang: l}).Blocks)
		if !strings.Contains(text, w.Verdict.HeadlineMsg.In(l)) {
			t.Errorf("%s: the worker's headline is not in %s:\n%s", l, l, text)
		}
		i18ntest.AssertTranslated(t, l, text, verbatim...)
	}
}

// TestUnreadClustersInEachLanguage: why a worker cluster's own diagnosis
// is missing and why a cluster could not be searched are in the answer's
// language (their ErrorMsg), not the English Error.
func TestUnreadClustersInEachLanguage(t *testing.T) {
	worker := i18n.M("render.gap.forbidden")
	cluster := i18n.M("render.gap.timeout")
	r := translatedReport()
	r.Workers = []diagnose.WorkerReport{{Cluster: "worker1", Error: worker.String(), ErrorMsg: worker}}
	r.Clusters = []diagnose.ClusterLook{{Cluster: "gpu-east", Error: cluster.String(), ErrorMsg: cluster}}
	for l, want := range map[i18n.Lang][2]string{
		i18n.English: {
			"you may not read it; your platform team can check it or grant read access",
			"⚠️ `gpu-east` did not answer: the API server did not answer in time; try again",
		},
		i18n.French: {
			"vous n’avez pas le droit de le lire ; votre équipe plateforme peut le vérifier ou vous en donner l’accès en lecture",
			"⚠️ `gpu-east` n’a pas répondu : le serveur d’API n’a pas répondu à temps ; réessayez",
		},
		i18n.Japanese: {
			"あなたには読み取り権限がありません。プラットフォームチームが確認するか、読み取り権限を付与できます",
			"⚠️ `gpu-east` から応答がありませんでした：API サーバーが時間内に応答しませんでした。もう一度試してください",
		},
		i18n.Chinese: {
			"你无权读取它；平台团队可以帮你检查或授予读取权限",
			"⚠️ `gpu-east` 没有响应：API 服务器未及时响应；请重试",
		},
	} {
		text := Text(Report(r, Options{Lang: l}).Blocks)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s answer lacks %q:\n%s", l, w, text)
			}
		}
	}
}
