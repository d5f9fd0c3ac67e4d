package diagnose_test

import (
	"path/filepath"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// checkScenarios are check answers of every Fit, for the rendered goldens.
func checkScenarios(t *testing.T) map[string]*diagnose.CheckReport {
	t.Helper()
	out := map[string]*diagnose.CheckReport{}
	add := func(name string, s *diagnose.Snapshot, adj diagnose.PlanAdjustments) {
		qc := diagnose.CheckQueue(s, adj)
		rep := &diagnose.CheckReport{
			Target: diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "train"}, File: "job.yaml",
			PodSets: diagnose.SummarizePodSets(s.Workload.Spec.PodSets), Adjustments: adj, QueueNamed: true,
			Queues: []diagnose.QueueCheck{qc}, Notes: []string{}, Gaps: []diagnose.Gap{},
		}
		out[name] = rep
	}
	s, adj := planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "4", "0"))
	add("check-fits", s, adj)
	s, adj = planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "pool", "2", "0"), *testCQ("lender", "pool", "4", "1"))
	add("check-fits-borrowing", s, adj)
	s, adj = planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "4", "2"))
	add("check-waits", s, adj)
	s, adj = planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "2", "0"))
	add("check-never", s, adj)
	s, adj = planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "4", "0"))
	s.ClusterQueue, s.ResourceFlavors = nil, nil
	s.Gaps = []diagnose.Gap{{Kind: "ClusterQueue", Name: "cq", Reason: diagnose.GapForbidden}}
	add("check-unknown", s, adj)
	return out
}

// TestCheckRenderedEnglish pins check's English text and Markdown
// (testdata/golden/check/NAME.txt and NAME.md).
func TestCheckRenderedEnglish(t *testing.T) {
	for name, rep := range checkScenarios(t) {
		golden(t, filepath.Join("testdata", "golden", "check", name+".txt"), []byte(renderCheckText(rep)))
		golden(t, filepath.Join("testdata", "golden", "check", name+".md"), []byte(renderCheckMarkdown(rep)))
	}
}

// TestCheckRenderedInEachLanguage renders check's answers in French,
// Japanese and Chinese (testdata/golden/check/LANG/NAME.txt and NAME.md):
// no English prose is left once names, quantities and commands are set
// aside, and the JSON contract stays English.
func TestCheckRenderedInEachLanguage(t *testing.T) {
	for name, rep := range checkScenarios(t) {
		qc := rep.Queues[0]
		var verbatim []string
		add := func(m i18n.Message) { verbatim = append(verbatim, m.Verbatims()...) }
		add(qc.HeadlineMsg)
		add(qc.DetailMsg)
		for _, m := range qc.Remedies {
			add(m.SummaryMsg)
			verbatim = append(verbatim, m.Command)
		}
		for _, f := range qc.Findings {
			add(f.Msg)
		}
		for _, row := range qc.Quota {
			verbatim = append(verbatim, row.PodSet, row.Flavor, row.Resource)
		}
		verbatim = append(verbatim, "team-a/train", "user-queue", "requests", "limits")
		for _, g := range qc.Gaps {
			verbatim = append(verbatim, string(g.Reason))
		}
		for _, l := range i18n.All()[1:] {
			text := render.CheckTextWith(rep, render.Options{Lang: l})
			md := render.CheckMarkdownWith(rep, render.Options{Lang: l})
			golden(t, filepath.Join("testdata", "golden", "check", l.String(), name+".txt"), []byte(text))
			golden(t, filepath.Join("testdata", "golden", "check", l.String(), name+".md"), []byte(md))
			i18ntest.AssertTranslated(t, l, text, verbatim...)
			i18ntest.AssertTranslated(t, l, md, verbatim...)
			if qc.HeadlineIn(l) == qc.Headline {
				t.Errorf("%s: %s headline is the English one", name, l)
			}
		}
	}
}
