package blocks

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

func TestWillItFit(t *testing.T) {
	r := &diagnose.CheckReport{
		Target:  diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "train<x>"},
		PodSets: []diagnose.PlannedPodSet{{Name: "main", Count: 3, PerPod: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}},
		Queues: []diagnose.QueueCheck{
			{LocalQueue: "small", Fit: diagnose.FitNever, Headline: "job/train asks for more than ClusterQueue small can ever hold.",
				Remedies: []diagnose.Remedy{{Who: diagnose.WhoYou, Summary: "Run it smaller.", Command: "kubectl patch --local -f job.yaml --type=merge -p '{\"spec\":{\"parallelism\":2}}' -o yaml | kubectl create -f -"}}},
			{LocalQueue: "big", Fit: diagnose.FitWaits, Headline: "If submitted now: job/train waits for quota."},
			{LocalQueue: "gpu", Fit: diagnose.FitAdmittedNow, Headline: "job/train fits."},
		},
		Notes: []string{"The manifest has no kueue.x-k8s.io/queue-name label."},
	}
	m := WillItFit(r)
	if v := Check(m.Blocks); len(v) > 0 {
		t.Fatalf("breaks Slack's limits: %v", v)
	}
	text := Text(m.Blocks)
	for _, want := range []string{"Will job/train<x> fit?", "`small`: *never, as it is*", "`big`: *would wait*", "`gpu`: *admitted now*", "3 × 1 cpu", "*Estimated start:* no estimate", `"parallelism":2`} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(m.Text, "<x>") {
		t.Errorf("fallback text not escaped: %s", m.Text)
	}
}

// TestWillItFitIn: the "Will this fit?" answer's chrome (header, fit
// words, pod sets, estimate, who acts, what to do) in French, Japanese and
// Chinese holds no English once the answers' own sentences (English here,
// as the report has no catalog messages), names and commands are set
// aside; the English is WillItFit's.
func TestWillItFitIn(t *testing.T) {
	r := &diagnose.CheckReport{
		Target:  diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "train"},
		PodSets: []diagnose.PlannedPodSet{{Name: "main", Count: 3, PerPod: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}},
		Queues: []diagnose.QueueCheck{
			{LocalQueue: "small", Fit: diagnose.FitNever, Headline: "job/train asks for more than ClusterQueue small can ever hold.",
				Remedies: []diagnose.Remedy{{Who: diagnose.WhoYou, Summary: "Run it smaller.", Command: "kubectl patch job/train"}}},
			{LocalQueue: "big", Fit: diagnose.FitWaits, Headline: "If submitted now: job/train waits for quota.",
				Gaps: []diagnose.Gap{{Kind: "ClusterQueue", Name: "big", Reason: diagnose.GapForbidden}}},
			{LocalQueue: "gpu", Fit: diagnose.FitAdmittedNow, Headline: "job/train fits."},
		},
	}
	if en, want := Text(WillItFitIn(r, i18n.English).Blocks), Text(WillItFit(r).Blocks); en != want {
		t.Errorf("WillItFitIn(English) differs from WillItFit:\n%s\n%s", en, want)
	}
	verbatim := []string{"job/train asks for more than ClusterQueue small can ever hold.", "If submitted now: job/train waits for quota.", "job/train fits.", "Run it smaller.", "kubectl patch job/train", "Forbidden"}
	for _, l := range i18n.All()[1:] {
		m := WillItFitIn(r, l)
		if v := Check(m.Blocks); len(v) > 0 {
			t.Fatalf("%s: breaks Slack's limits: %v", l, v)
		}
		text := Text(m.Blocks)
		i18ntest.AssertTranslated(t, l, text, verbatim...)
		i18ntest.AssertTranslated(t, l, m.Text, verbatim...)
		if !strings.Contains(text, "job/train") || !strings.Contains(text, "3 × 1 cpu") {
			t.Errorf("%s answer lacks the job or the pod set:\n%s", l, text)
		}
	}
}

// TestWillItFitNotesAndAdjustmentsIn: the notes on the manifest, the
// LimitRange defaults, overheads and violations are shown in the answer's
// language (the English strings of the report stay as they are).
func TestWillItFitNotesAndAdjustmentsIn(t *testing.T) {
	obj, _, err := diagnose.ParseManifest([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: team-a}\nspec:\n  replicas: 4\n  template:\n    spec:\n      runtimeClassName: kata\n      containers: [{name: web, image: nginx, resources: {requests: {cpu: '2'}, limits: {cpu: '1'}}}, {name: log, image: busybox}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	podSets, err := diagnose.PlannedPodSets(obj)
	if err != nil {
		t.Fatal(err)
	}
	lrs := []corev1.LimitRange{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
		DefaultRequest: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}}}}
	rcs := map[string]*nodev1.RuntimeClass{"kata": {Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}
	r := &diagnose.CheckReport{
		Target:      diagnose.TargetInfo{Kind: "Deployment", Namespace: "team-a", Name: "web"},
		Adjustments: diagnose.AdjustPlannedPodSets(podSets, lrs, rcs),
		PodSets:     diagnose.SummarizePodSets(podSets),
	}
	for _, n := range diagnose.PlanNotes(obj) {
		r.AddNote(n)
	}
	adj := r.Adjustments
	if len(r.NotesMsg) != 1 || len(adj.LimitRangeDefaultsMsg) != 1 || len(adj.OverheadMsg) != 1 || len(adj.LimitRangeViolationsMsg) != 1 {
		t.Fatalf("want one note, default, overhead and violation: %+v %+v", r.Notes, adj)
	}
	all := append(append(append(slices.Clone(r.NotesMsg), adj.LimitRangeDefaultsMsg...), adj.OverheadMsg...), adj.LimitRangeViolationsMsg...)
	var verbatim []string
	for _, m := range all {
		verbatim = append(verbatim, m.Verbatims()...)
	}
	english := Text(WillItFit(r).Blocks)
	for _, s := range append(append(append(slices.Clone(r.Notes), adj.LimitRangeDefaults...), adj.Overhead...), adj.LimitRangeViolations...) {
		if !strings.Contains(english, s) {
			t.Errorf("English answer lacks %q:\n%s", s, english)
		}
	}
	for _, l := range i18n.All()[1:] {
		text := Text(WillItFitIn(r, l).Blocks)
		for _, m := range all {
			if !strings.Contains(text, m.In(l)) {
				t.Errorf("%s answer lacks %q:\n%s", l, m.In(l), text)
			}
		}
		i18ntest.AssertTranslated(t, l, text, append(verbatim, "request", "limit", "web", "log", "memory", "cpu")...)
	}
}
