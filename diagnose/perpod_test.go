package diagnose

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// Headlines for TestPerPodVerdict.
var _ = i18n.Register(
	e("diagnose.test.waits", k(kO, kO), "%[1]s waits for quota in ClusterQueue %[2]s.", "%[1]s attend du quota dans la ClusterQueue %[2]s.", "%[1]s は ClusterQueue %[2]s のクォータを待っています。", "%[1]s 正在等待 ClusterQueue %[2]s 的配额。"),
	e("diagnose.test.noFlavor", nil, "No ResourceFlavor can take the job's pods: they do not tolerate the flavors' taints.", "Aucun ResourceFlavor ne peut prendre les Pods du job : ils ne tolèrent pas leurs taints.", "ジョブの Pod を受け入れられる ResourceFlavor がありません：Pod がフレーバーの taint を許容しません。", "没有 ResourceFlavor 能接收作业的 Pod：它们不容忍规格的污点。"),
	e("diagnose.test.unschedulable", k(kO), "%[1]s is admitted but its pods cannot be scheduled.", "%[1]s est admis mais ses Pods ne peuvent pas être placés.", "%[1]s はアドミットされましたが、Pod をスケジュールできません。", "%[1]s 已被准入，但其 Pod 无法调度。"),
	e("diagnose.test.running", k(kO), "%[1]s is running.", "%[1]s tourne.", "%[1]s は実行中です。", "%[1]s 正在运行。"),
)

// TestPerPodVerdict: a Deployment's verdict, reached on one of its pods'
// Workloads, says how many pods Kueue admitted and which pod it is about.
func TestPerPodVerdict(t *testing.T) {
	dep := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns"},
	}}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "pod-web-7c9-c-1a2b3", Namespace: "ns"}}
	tests := []struct {
		name       string
		pp         PerPodCount
		phase      corev1.PodPhase
		headline   func(job i18n.Object) i18n.Message
		wantHead   string
		wantDetail []string
	}{
		{
			name:     "the job's name in the headline becomes the pod's",
			pp:       PerPodCount{Replicas: 5, Pods: 5, Admitted: 2, Pod: "web-7c9-c", Waiting: []string{"web-7c9-d", "web-7c9-e"}},
			headline: func(job i18n.Object) i18n.Message { return msg("diagnose.test.waits", job, cqArg("cq")) },
			wantHead: "2 of 5 pods of deployment/web are admitted; pod/web-7c9-c waits for quota in ClusterQueue cq.",
			wantDetail: []string{"Workload pod-web-7c9-c-1a2b3 of pod web-7c9-c, the oldest one Kueue still holds",
				"others wait behind it: web-7c9-d, web-7c9-e)", "deployment/web waits"},
		},
		{
			name:     "more waiting than named, fewer pods than replicas",
			pp:       PerPodCount{Replicas: 9, Pods: 7, Admitted: 1, Pod: "a", Waiting: []string{"b", "c", "d"}},
			headline: func(i18n.Object) i18n.Message { return msg("diagnose.test.noFlavor") },
			wantHead: "1 of 7 pods of deployment/web are admitted (7 of its 9 replicas exist). pod/a: No ResourceFlavor can take",
			wantDetail: []string{
				": b, c, d and 2 more)"},
		},
		{
			name:       "all admitted, one not running",
			pp:         PerPodCount{Replicas: 3, Pods: 3, Admitted: 3, Pod: "x"},
			phase:      corev1.PodPending,
			headline:   func(job i18n.Object) i18n.Message { return msg("diagnose.test.unschedulable", job) },
			wantHead:   "All 3 pods of deployment/web are admitted; pod/x is admitted but",
			wantDetail: []string{"pod x, the first one that is not running."},
		},
		{
			name:       "all running",
			pp:         PerPodCount{Replicas: 1, Pods: 1, Admitted: 1, Pod: "x"},
			phase:      corev1.PodRunning,
			headline:   func(job i18n.Object) i18n.Message { return msg("diagnose.test.running", job) },
			wantHead:   "The one pod of deployment/web is admitted; pod/x is running.",
			wantDetail: []string{"the first of them (all run)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pp := tc.pp
			s := &Snapshot{Target: Target{Kind: "Deployment", Namespace: "ns", Name: "web"}, Job: dep, Workload: wl, PerPod: &pp,
				Pods: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: pp.Pod}, Status: corev1.PodStatus{Phase: tc.phase}}}}
			r := &Report{}
			a := &analysis{s: s, r: r, wl: wl, job: jobView{dep}, ns: "ns"}
			a.fillTarget()
			a.setM(CodeWaitingForQuota, CauseQuotaInUse, tc.headline(a.jobArg()), tc.headline(a.jobArg()))
			a.perPodVerdict()
			if !strings.HasPrefix(r.Verdict.Headline, tc.wantHead) {
				t.Errorf("headline %q\nwant prefix %q", r.Verdict.Headline, tc.wantHead)
			}
			for _, w := range tc.wantDetail {
				if !strings.Contains(r.Verdict.Detail, w) {
					t.Errorf("detail %q\nwants %q", r.Verdict.Detail, w)
				}
			}
		})
	}
	// Not a Deployment: nothing changes.
	a := &analysis{s: &Snapshot{}, r: &Report{}, wl: wl}
	a.set(CodeRunning, CauseHealthy, "job/x is running.", "")
	a.perPodVerdict()
	if a.r.Verdict.Headline != "job/x is running." {
		t.Errorf("headline %q", a.r.Verdict.Headline)
	}
}
