package diagnose_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// checkScenarios are check answers of every Fit, for the rendered goldens.
func checkScenarios(t *testing.T) map[string]*diagnose.CheckReport {
	t.Helper()
	out := map[string]*diagnose.CheckReport{}
	add := func(name string, s *diagnose.Snapshot, adj diagnose.PlanAdjustments, notes ...i18n.Message) {
		qc := diagnose.CheckQueue(s, adj)
		rep := &diagnose.CheckReport{
			Target: diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "train"}, File: "job.yaml",
			PodSets: diagnose.SummarizePodSets(s.Workload.Spec.PodSets), Adjustments: adj, QueueNamed: true,
			Queues: []diagnose.QueueCheck{qc}, Notes: []string{}, Gaps: []diagnose.Gap{},
		}
		for _, n := range notes {
			rep.AddNote(n)
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

	// A LimitRange's defaults and a RuntimeClass's overhead, with a note.
	kata := "kata"
	rcs := map[string]*nodev1.RuntimeClass{kata: {Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}
	lr := func(item corev1.LimitRangeItem) []corev1.LimitRange {
		item.Type = corev1.LimitTypeContainer
		return []corev1.LimitRange{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}}}}
	}
	deployment, _, err := diagnose.ParseManifest([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 4\n  template: {spec: {containers: [{name: web, image: nginx}]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ = planned(t, sidecarManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "6", "0"))
	s.Workload.Spec.PodSets[0].Template.Spec.RuntimeClassName = &kata
	adj = diagnose.AdjustPlannedPodSets(s.Workload.Spec.PodSets, lr(corev1.LimitRangeItem{
		DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
	}), rcs)
	add("check-adjusted", s, adj, diagnose.PlanNotes(deployment)...)
	// A LimitRange's max the job breaks, and a request above its limit.
	s, _ = planned(t, sidecarManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "6", "0"))
	s.Workload.Spec.PodSets[0].Template.Spec.Containers[1].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	s.Workload.Spec.PodSets[0].Template.Spec.Containers[1].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}
	adj = diagnose.AdjustPlannedPodSets(s.Workload.Spec.PodSets, lr(corev1.LimitRangeItem{
		Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
	}), nil)
	add("check-invalid", s, adj)
	return out
}

// sidecarManifest is a job whose sidecar sets no resources.
const sidecarManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources: {requests: {cpu: "1"}}
      - name: sidecar
        image: busybox
`

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
		verbatim = append(verbatim, "team-a/train", "user-queue", "requests", "limits", "request", "limit")
		for _, m := range rep.NotesMsg {
			add(m)
		}
		adj := rep.Adjustments
		for _, m := range append(append(slices.Clone(adj.LimitRangeDefaultsMsg), adj.OverheadMsg...), adj.LimitRangeViolationsMsg...) {
			add(m)
		}
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
			for i, n := range rep.NotesIn(l) {
				if n == rep.Notes[i] || !strings.Contains(md, n) {
					t.Errorf("%s: %s note %d is English or not shown: %q", name, l, i, n)
				}
			}
			for i, a := range adj.LimitRangeDefaultsIn(l) {
				if a == adj.LimitRangeDefaults[i] || !strings.Contains(md, a) {
					t.Errorf("%s: %s LimitRange default %d is English or not shown: %q", name, l, i, a)
				}
			}
		}
	}
}
