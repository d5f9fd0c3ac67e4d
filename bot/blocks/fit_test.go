package blocks

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
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
