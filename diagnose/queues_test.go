package diagnose

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

func TestQueueSummaries(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	cond := func(typ string, status metav1.ConditionStatus, at metav1.Time) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, LastTransitionTime: at}
	}
	wl := func(ns, name, lq string, created time.Duration, conds ...metav1.Condition) *kueue.Workload {
		return &kueue.Workload{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: ago(created)},
			Spec:       kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(lq)},
			Status:     kueue.WorkloadStatus{Conditions: conds},
		}
	}
	admitted := func(w *kueue.Workload, cq string) *kueue.Workload {
		w.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
		w.Status.Conditions = append(w.Status.Conditions, cond(kueue.WorkloadQuotaReserved, metav1.ConditionTrue, ago(time.Hour)), cond(kueue.WorkloadAdmitted, metav1.ConditionTrue, ago(time.Hour)))
		return w
	}
	q := resource.MustParse
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "cq"},
		Spec: kueue.ClusterQueueSpec{CohortName: "co", ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory},
			Flavors: []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{
				{Name: corev1.ResourceCPU, NominalQuota: q("8")}, {Name: corev1.ResourceMemory, NominalQuota: q("0")},
			}}},
		}}},
		Status: kueue.ClusterQueueStatus{FlavorsReservation: []kueue.FlavorUsage{{Name: "f", Resources: []kueue.ResourceUsage{
			{Name: corev1.ResourceCPU, Total: q("10"), Borrowed: q("2")},
		}}}},
	}
	stopped := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "held"}, Spec: kueue.ClusterQueueSpec{StopPolicy: ptr.To(kueue.Hold)}}
	lqA := &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"},
		Status: kueue.LocalQueueStatus{FlavorsReservation: []kueue.LocalQueueFlavorUsage{{Name: "f", Resources: []kueue.LocalQueueResourceUsage{
			{Name: corev1.ResourceCPU, Total: q("2")},
		}}}},
	}
	lqB := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "held"}}
	objs := Objects{
		ClusterQueues: []*kueue.ClusterQueue{cq, stopped},
		LocalQueues:   []*kueue.LocalQueue{lqA, lqB},
		Workloads: []*kueue.Workload{
			wl("a", "old", "lq", 30*time.Hour),
			// Created earlier, but evicted 2h ago: it has waited 2h.
			wl("a", "evicted", "lq", 50*time.Hour, cond(kueue.WorkloadEvicted, metav1.ConditionTrue, ago(2*time.Hour))),
			admitted(wl("a", "running", "lq", 3*time.Hour), "cq"),
			wl("a", "checks", "lq", time.Hour, cond(kueue.WorkloadQuotaReserved, metav1.ConditionTrue, ago(time.Minute))),
			admitted(wl("a", "done", "lq", 5*time.Hour, cond(kueue.WorkloadFinished, metav1.ConditionTrue, ago(time.Hour))), "cq"),
			wl("b", "held", "lq", time.Hour),
			wl("b", "typo", "lqq", 4*time.Hour),
			wl("b", "no-queue", "", time.Hour),
		},
	}
	got := QueueSummaries(objs, now)
	want := []QueueSummary{
		{
			Kind: QueueKindCluster, Name: "cq", ClusterQueue: "cq", Cohort: "co", State: QueueActive,
			Pending: 2, Reserved: 1, Admitted: 1, Finished: 1, OldestPending: "a/old", OldestWait: 30 * time.Hour, OldestWaitSeconds: 108000,
			Usage: []ResourceUsage{
				{Flavor: "f", Resource: corev1.ResourceCPU, Used: q("10"), Nominal: q("8"), Borrowed: q("2"), Percent: 125},
				{Flavor: "f", Resource: corev1.ResourceMemory, Nominal: q("0"), Percent: -1},
			},
			NominalKnown: true,
		},
		{
			Kind: QueueKindCluster, Name: "held", ClusterQueue: "held", State: QueueStopped,
			Pending: 1, OldestPending: "b/held", OldestWait: time.Hour, OldestWaitSeconds: 3600, Usage: []ResourceUsage{}, NominalKnown: true,
		},
		{
			Kind: QueueKindLocal, Namespace: "a", Name: "lq", ClusterQueue: "cq", Cohort: "co", State: QueueActive,
			Pending: 2, Reserved: 1, Admitted: 1, Finished: 1, OldestPending: "a/old", OldestWait: 30 * time.Hour, OldestWaitSeconds: 108000,
			Usage: []ResourceUsage{
				{Flavor: "f", Resource: corev1.ResourceCPU, Used: q("2"), Nominal: q("8"), Percent: 25},
				{Flavor: "f", Resource: corev1.ResourceMemory, Nominal: q("0"), Percent: -1},
			},
			NominalKnown: true,
		},
		{
			Kind: QueueKindLocal, Namespace: "b", Name: "lq", ClusterQueue: "held", State: QueueStopped,
			Pending: 1, OldestPending: "b/held", OldestWait: time.Hour, OldestWaitSeconds: 3600, Usage: []ResourceUsage{}, NominalKnown: true,
		},
		{
			Kind: QueueKindLocal, Namespace: "b", Name: "lqq", State: QueueNotFound,
			Pending: 1, OldestPending: "b/typo", OldestWait: 4 * time.Hour, OldestWaitSeconds: 14400,
		},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
}

func TestQueuedSinceAndPhase(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
	if got := QueuedSince(wl); !got.Equal(created) {
		t.Errorf("QueuedSince = %v, want the creation time", got)
	}
	requeued := created.Add(time.Hour)
	wl.Status.Conditions = []metav1.Condition{
		{Type: kueue.WorkloadEvicted, Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(created.Add(2 * time.Hour))},
		{Type: kueue.WorkloadRequeued, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(requeued)},
	}
	if got := QueuedSince(wl); !got.Equal(requeued) {
		t.Errorf("QueuedSince = %v, want the requeue time %v (a false Evicted does not count)", got, requeued)
	}
	if PhaseOf(wl) != PhasePending {
		t.Errorf("PhaseOf = %v, want Pending", PhaseOf(wl))
	}
	if !FinishedAt(wl).IsZero() {
		t.Error("FinishedAt of an unfinished Workload is not zero")
	}
}
