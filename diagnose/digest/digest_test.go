package digest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func item(ns, name string, code diagnose.Code, cause diagnose.Cause, wait time.Duration) Item {
	return Item{Namespace: ns, Kind: "Job", Name: name, LocalQueue: "lq", ClusterQueue: "cq", Code: code, Cause: cause, Wait: wait, WaitSeconds: int64(wait / time.Second)}
}

func finished(ns, name string, at time.Time) *kueue.Workload {
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       kueue.WorkloadSpec{QueueName: "lq"},
		Status: kueue.WorkloadStatus{Conditions: []metav1.Condition{
			{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)},
		}},
	}
}

func TestCompute(t *testing.T) {
	prevAt := now.Add(-24 * time.Hour)
	in := Input{
		Name: "team-a", Now: now,
		Objects: diagnose.Objects{
			LocalQueues: []*kueue.LocalQueue{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"}}},
			Workloads: []*kueue.Workload{
				finished("a", "done-today", now.Add(-time.Hour)),
				finished("a", "done-before", prevAt.Add(-time.Minute)),
			},
		},
		Pending: []Item{
			item("a", "short", diagnose.CodeWaitingForQuota, diagnose.CauseQuotaInUse, time.Hour),
			item("a", "long", diagnose.CodeWaitingForQuota, diagnose.CauseBorrowingLimited, 30*time.Hour),
			item("a", "big", diagnose.CodeExceedsMaxQuota, "", 2*time.Hour),
			item("a", "held", diagnose.CodeOnHold, diagnose.CauseLocalQueueStopped, 50*time.Hour),
		},
		Previous: &Figures{
			At:     prevAt,
			Totals: Totals{Pending: 2, Finished: 5, LongWaits: 1},
			ByCode: map[diagnose.Code]int{diagnose.CodeWaitingForQuota: 1, diagnose.CodeMisconfigured: 1},
			Queues: map[string]int{"LocalQueue a/lq": 2, "LocalQueue a/gone": 1},
		},
		Options: Options{LongWait: 24 * time.Hour, TopN: 2},
	}
	d := Compute(in)
	if want := (Totals{Pending: 4, Finished: 1, LongWaits: 2, NeedsAction: 2}); d.Totals != want {
		t.Errorf("totals = %+v, want %+v", d.Totals, want)
	}
	if !d.Since.Equal(prevAt) {
		t.Errorf("since = %v, want the previous digest's time %v", d.Since, prevAt)
	}
	type group struct {
		Code   diagnose.Code
		Names  []string
		Causes []CauseCount
		Action bool
	}
	var groups []group
	for _, g := range d.Groups {
		var names []string
		for _, it := range g.Workloads {
			names = append(names, it.Name)
		}
		groups = append(groups, group{g.Code, names, g.Causes, g.NeedsAction})
	}
	wantGroups := []group{
		{diagnose.CodeWaitingForQuota, []string{"long", "short"}, []CauseCount{{diagnose.CauseBorrowingLimited, 1}, {diagnose.CauseQuotaInUse, 1}}, false},
		{diagnose.CodeOnHold, []string{"held"}, []CauseCount{{diagnose.CauseLocalQueueStopped, 1}}, true},
		{diagnose.CodeExceedsMaxQuota, []string{"big"}, []CauseCount{{"", 1}}, true},
	}
	if diff := cmp.Diff(wantGroups, groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	var action, long []string
	for _, it := range d.NeedsAction {
		action = append(action, it.Name)
	}
	for _, it := range d.LongWaits {
		long = append(long, it.Name)
	}
	if diff := cmp.Diff([]string{"held", "big"}, action); diff != "" {
		t.Errorf("needs action (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"held", "long"}, long); diff != "" {
		t.Errorf("long waits (-want +got):\n%s", diff)
	}
	// The ClusterQueue is not among the objects: its line says so.
	if len(d.Queues) != 2 || d.Queues[0].Key() != "cq" || d.Queues[0].State != diagnose.QueueNotFound ||
		d.Queues[1].Key() != "a/lq" || d.Queues[1].LongWaits != 2 || d.Queues[0].LongWaits != 2 {
		t.Errorf("queues = %+v, want cq (not found) then a/lq, each with 2 long waits", d.Queues)
	}
	wantTrend := &Trend{
		Since: prevAt, Pending: 2, Finished: -4, LongWaits: 1, NeedsAction: 2,
		ByCode: []CodeDelta{
			{Code: diagnose.CodeMisconfigured, Then: 1, Now: 0, Delta: -1},
			{Code: diagnose.CodeOnHold, Then: 0, Now: 1, Delta: 1},
			{Code: diagnose.CodeExceedsMaxQuota, Then: 0, Now: 1, Delta: 1},
			{Code: diagnose.CodeWaitingForQuota, Then: 1, Now: 2, Delta: 1},
		},
		// The LocalQueue counts no pending Workload objects here (the
		// items came without them): its trend is the drop from 2.
		Queues: map[string]int{"LocalQueue a/gone": -1, "LocalQueue a/lq": -2},
	}
	if diff := cmp.Diff(wantTrend, d.Trend); diff != "" {
		t.Errorf("trend (-want +got):\n%s", diff)
	}
	f := d.Figures()
	if f.ByCode[diagnose.CodeWaitingForQuota] != 2 || !f.At.Equal(now) || f.Totals != d.Totals {
		t.Errorf("figures = %+v", f)
	}
}

func TestComputeFirstDigest(t *testing.T) {
	d := Compute(Input{Name: "x", Now: now, Objects: diagnose.Objects{Workloads: []*kueue.Workload{finished("a", "w", now.Add(-23*time.Hour))}}})
	if d.Trend != nil {
		t.Errorf("trend of a first digest = %+v, want none", d.Trend)
	}
	if d.Totals.Finished != 1 || !d.Since.Equal(now.Add(-24*time.Hour)) {
		t.Errorf("first digest counts finished since %v: %d, want a day and 1", d.Since, d.Totals.Finished)
	}
	if d.LongWait != DefaultLongWait || d.TopN != DefaultTopN || d.Groups == nil || d.NeedsAction == nil {
		t.Errorf("defaults not applied: %+v", d)
	}
}

func TestScope(t *testing.T) {
	lq := func(ns, name, cq string) *kueue.LocalQueue {
		return &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}}
	}
	wl := func(ns, name, queue string) *kueue.Workload {
		return &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(queue)}}
	}
	cq := func(name string) *kueue.ClusterQueue {
		return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	admitted := wl("b", "elsewhere", "lq")
	admitted.Status.Admission = &kueue.Admission{ClusterQueue: "gpu"}
	objs := diagnose.Objects{
		ClusterQueues: []*kueue.ClusterQueue{cq("cpu"), cq("gpu"), cq("idle")},
		LocalQueues:   []*kueue.LocalQueue{lq("a", "lq", "cpu"), lq("a", "gpu", "gpu"), lq("b", "lq", "cpu")},
		Workloads:     []*kueue.Workload{wl("a", "w1", "lq"), wl("a", "w2", "gpu"), wl("b", "w3", "lq"), admitted},
	}
	names := func(o diagnose.Objects) (cqs, lqs, wls []string) {
		for _, c := range o.ClusterQueues {
			cqs = append(cqs, c.Name)
		}
		for _, l := range o.LocalQueues {
			lqs = append(lqs, l.Namespace+"/"+l.Name)
		}
		for _, w := range o.Workloads {
			wls = append(wls, w.Namespace+"/"+w.Name)
		}
		return
	}
	tests := []struct {
		name          string
		scope         Scope
		cqs, lqs, wls []string
	}{
		{"everything", Scope{}, []string{"cpu", "gpu", "idle"}, []string{"a/lq", "a/gpu", "b/lq"}, []string{"a/w1", "a/w2", "b/w3", "b/elsewhere"}},
		{"a namespace and the queues it uses", Scope{Namespaces: []string{"a"}}, []string{"cpu", "gpu"}, []string{"a/lq", "a/gpu"}, []string{"a/w1", "a/w2"}},
		{"a ClusterQueue, through LocalQueues and admissions", Scope{ClusterQueues: []string{"gpu"}}, []string{"gpu"}, []string{"a/gpu"}, []string{"a/w2", "b/elsewhere"}},
		{"dimensions narrow each other", Scope{Namespaces: []string{"b"}, ClusterQueues: []string{"cpu"}}, []string{"cpu"}, []string{"b/lq"}, []string{"b/w3"}},
		{"a LocalQueue", Scope{LocalQueues: []string{"a/lq"}}, []string{"cpu"}, []string{"a/lq"}, []string{"a/w1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cqs, lqs, wls := names(Select(objs, tc.scope))
			if diff := cmp.Diff([][]string{tc.cqs, tc.lqs, tc.wls}, [][]string{cqs, lqs, wls}); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
}

func TestItemOf(t *testing.T) {
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "job-x-1", CreationTimestamp: metav1.NewTime(now.Add(-3 * time.Hour))},
		Spec:       kueue.WorkloadSpec{QueueName: "lq"},
	}
	r := &diagnose.Report{
		Verdict: diagnose.Verdict{Code: diagnose.CodeExceedsMaxQuota, Headline: "too big"},
		Target:  diagnose.TargetInfo{Kind: "Job", Namespace: "a", Name: "x", Workload: "job-x-1"},
		Queue:   diagnose.QueueInfo{LocalQueue: "lq", ClusterQueue: "cq"},
		Remedies: []diagnose.Remedy{
			{Who: diagnose.WhoYou, Summary: "Run it smaller."}, {Who: diagnose.WhoPlatform, Summary: "Raise the quota."}, {Who: diagnose.WhoYou},
		},
	}
	got := ItemOf(wl, wl.CreationTimestamp.Time, r, now)
	want := Item{
		Namespace: "a", Kind: "Job", Name: "x", Workload: "job-x-1", LocalQueue: "lq", ClusterQueue: "cq",
		Code: diagnose.CodeExceedsMaxQuota, Headline: "too big", Wait: 3 * time.Hour, WaitSeconds: 3 * 3600,
		Who: []diagnose.Who{diagnose.WhoYou, diagnose.WhoPlatform}, Remedy: "Run it smaller.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("item (-want +got):\n%s", diff)
	}
}
