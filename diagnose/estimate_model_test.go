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

// done adds a finished Workload of cq, created at created, that reserved
// quota at reserved and finished at end (offsets from now).
func (w *world) done(name, cq string, created, reserved, end time.Duration, mod ...func(*kueue.Workload)) *world {
	wl := wlOf(name, cq, "1")
	wl.CreationTimestamp = metav1.NewTime(estNow.Add(created))
	wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
	wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, estNow.Add(reserved)), cond(kueue.WorkloadAdmitted, estNow.Add(reserved)), cond(kueue.WorkloadFinished, estNow.Add(end))}
	for _, m := range mod {
		m(wl)
	}
	w.in.Objects.Workloads = append(w.in.Objects.Workloads, wl)
	return w
}

func estimateOf(t *testing.T, w *world, me *kueue.Workload, cq string) span {
	t.Helper()
	e := NewForecast(w.in).Estimate(me, waiting(cq))
	if e == nil {
		t.Fatal("no Estimate")
	}
	return spanOf(e)
}

// TestEstimateShareOfLimit: a run with a limit is predicted from the share
// of their limits that the queue's finished runs used, not the limit
// itself, nor the absolute run times.
func TestEstimateShareOfLimit(t *testing.T) {
	w := newWorld()
	w.cq("a", "", "4")
	// Three finished runs of 50s, 60s and 70s, each with a 100s limit:
	// shares 0.5, 0.6, 0.7.
	for i, run := range []time.Duration{50 * s, 60 * s, 70 * s} {
		end := -time.Duration(10-i) * m
		w.done("f"+string(rune('0'+i)), "a", end-run-time.Minute, end-run, end, maxExec(100))
	}
	// Created after the last finish: its admission is no handover.
	w.running("big", "a", "4", 10*s, maxExec(200), func(wl *kueue.Workload) { wl.CreationTimestamp = metav1.NewTime(estNow.Add(-11 * s)) })
	me := w.pending("me", "a", "4", m)
	got := estimateOf(t, w, me, "a")
	// Of a 200s limit: 0.54, 0.6 and 0.66 are 108s, 120s and 132s, less
	// the 10s it has run. (From the run times it would be 44-56s; from
	// the limit, 190s.)
	want := span{98 * s, 110 * s, 122 * s, "1 running workload (1 with limits), 3 finished in the last 10m, 0 ahead in ClusterQueue a", ""}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(span{})); diff != "" {
		t.Errorf("estimate (-want +got):\n%s", diff)
	}

	// A run past every share is predicted from the run times, then its
	// limit.
	h := history{runs: []time.Duration{50 * s, 60 * s, 70 * s}, shares: []float64{0.5, 0.6, 0.7}}
	if d, ok := h.remaining(150*s, ptr.To(200*s), 0.5); !ok || d != 50*s {
		t.Errorf("past every share: %v %v, want its limit (50s left)", d, ok)
	}
	if d, ok := h.remaining(65*s, nil, 0.5); !ok || d != 5*s {
		t.Errorf("without a limit: %v %v, want the run times (5s left)", d, ok)
	}
}

// TestEstimatePoolsCohortHistory: a ClusterQueue with fewer than three
// finished runs borrows the run times of its cohort tree; one with three
// keeps its own.
func TestEstimatePoolsCohortHistory(t *testing.T) {
	build := func(ownRuns int) (*world, *kueue.Workload) {
		w := newWorld()
		w.cq("a", "pool", "4").cq("b", "pool", "0")
		for i, run := range []time.Duration{60 * s, 120 * s, 180 * s} {
			end := -time.Duration(10-i) * m
			w.done("b"+string(rune('0'+i)), "b", end-run-time.Minute, end-run, end)
		}
		for i := range ownRuns {
			end := -time.Duration(5-i) * m
			w.done("a"+string(rune('0'+i)), "a", end-40*s, end-30*s, end)
		}
		w.running("big", "a", "4", 0)
		return w, w.pending("me", "a", "4", m)
	}
	w, me := build(0)
	got := estimateOf(t, w, me, "a")
	// b's runs 60s, 120s, 180s: 84s, 120s, 156s.
	if want := (span{84 * s, 120 * s, 156 * s, "1 running workload (1 by run times), 3 finished in the last 10m, 0 ahead in ClusterQueue a, cohort pool", ""}); !cmp.Equal(want, got, cmp.AllowUnexported(span{})) {
		t.Errorf("no history of its own: %+v, want the cohort's %+v", got, want)
	}
	w, me = build(3)
	got = estimateOf(t, w, me, "a")
	if got.likely != 30*s {
		t.Errorf("three runs of its own: likely %v, want 30s (its own runs)", got.likely)
	}
}

// TestEstimateHandover: once three admissions followed finishes, the
// median time from a finish to the next admission is added to every
// freeing in the replay.
func TestEstimateHandover(t *testing.T) {
	w := newWorld()
	w.cq("a", "", "4")
	// A chain: each admitted 5s after the previous one finished; all
	// created before the first finish.
	w.done("w0", "a", -10*m, -10*m, -9*m)
	w.done("w1", "a", -10*m, -9*m+5*s, -8*m)
	w.done("w2", "a", -10*m, -8*m+5*s, -7*m)
	w.done("w3", "a", -10*m, -7*m+5*s, -6*m)
	// Created after the last finish: admitted on arrival, not a handover.
	w.running("big", "a", "4", 30*s, maxExec(90), func(wl *kueue.Workload) { wl.CreationTimestamp = metav1.NewTime(estNow.Add(-31 * s)) })
	me := w.pending("me", "a", "4", m)
	got := estimateOf(t, w, me, "a")
	// The runs (55s, 55s, 55s, 60s), all past the 30s it has run and
	// within its 90s limit: 55s, 55s, 57s, less 30s, plus 5s.
	want := span{30 * s, 30 * s, 32 * s, "1 running workload (1 with limits), 4 finished in the last 9m, 0 ahead in ClusterQueue a", ""}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(span{})); diff != "" {
		t.Errorf("estimate (-want +got):\n%s", diff)
	}

	at := estNow.Add
	fin := []finishedRun{{at: at(0)}, {at: at(10 * s)}, {at: at(20 * s)}}
	for _, c := range []struct {
		name string
		adm  []admission
		want time.Duration
	}{
		{"fewer than three samples", []admission{{at(-m), at(2 * s)}, {at(-m), at(12 * s)}}, 0},
		{"median of three", []admission{{at(-m), at(2 * s)}, {at(-m), at(13 * s)}, {at(-m), at(21 * s)}}, 2 * s},
		{"arrivals after the finish are not handovers", []admission{{at(-m), at(2 * s)}, {at(-m), at(13 * s)}, {at(15 * s), at(15 * s)}, {at(16 * s), at(17 * s)}}, 0},
	} {
		if got := handoverOf(c.adm, fin); got != c.want {
			t.Errorf("%s: handover %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEstimateVisibilityOrder: the order Kueue's visibility API reports
// is replayed when served (here a Workload requeued with an older
// timestamp than the objects show goes first); without it, or for
// another ClusterQueue, the objects' order.
func TestEstimateVisibilityOrder(t *testing.T) {
	build := func(queued map[string][]QueuedWorkload) span {
		w := newWorld()
		w.cq("a", "", "4").cq("b", "", "4")
		w.running("big", "a", "4", 0, maxExec(100))
		w.pending("older", "a", "4", 3*m, maxExec(50))
		me := w.pending("me", "a", "4", m, maxExec(50))
		w.in.Queued = queued
		return estimateOf(t, w, me, "a")
	}
	listed := []QueuedWorkload{{Namespace: "ns", Name: "me", LocalQueue: "lq-a", PositionInClusterQueue: 0}, {Namespace: "ns", Name: "older", LocalQueue: "lq-a", PositionInClusterQueue: 1}}
	for _, c := range []struct {
		name   string
		queued map[string][]QueuedWorkload
		likely time.Duration
	}{
		{"not served: the objects' order", nil, 150 * s},
		{"served: Kueue's order", map[string][]QueuedWorkload{"a": listed}, 100 * s},
		{"served for another ClusterQueue only", map[string][]QueuedWorkload{"b": listed}, 150 * s},
		{"only this one listed: the others keep their places", map[string][]QueuedWorkload{"a": listed[:1]}, 150 * s},
	} {
		if got := build(c.queued); got.likely != c.likely {
			t.Errorf("%s: likely %v, want %v", c.name, got.likely, c.likely)
		}
	}
}

// TestEstimateStaleStatus: quota a ClusterQueue's status still reserves
// for Workloads the reads show finished (Kueue writes the status after
// them) is free, up to what those that finished within a minute held;
// beyond it, it stays held for workloads not read.
func TestEstimateStaleStatus(t *testing.T) {
	build := func(ago time.Duration, reserved string) span {
		w := newWorld()
		w.cq("a", "", "4").running("big", "a", "2", 10*s, maxExec(40))
		// Finished ago, 1 cpu; the status still counts it.
		w.done("gone", "a", -2*m, -ago-30*s, -ago, func(wl *kueue.Workload) {
			wl.Status.Admission.PodSetAssignments = []kueue.PodSetAssignment{{Name: "main", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"},
				ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, Count: ptr.To[int32](1)}}
		})
		w.clusterQueue("a").Status.FlavorsReservation[0].Resources[0].Total = resource.MustParse(reserved)
		return estimateOf(t, w, w.pending("me", "a", "4", m), "a")
	}
	// Finished 2s ago: the status's third cpu is the finished one's; me
	// (4 cpu) fits once big ends (20s left by the one run seen, 30s).
	if got := build(2*s, "3"); got.likely != 20*s || got.none != "" {
		t.Errorf("stale status: %+v, want likely 20s", got)
	}
	// The same, finished two minutes ago: the cpu is held by a workload
	// not read, for the whole replay.
	if got := build(2*m, "3"); got.likely != -1 || got.none == "" {
		t.Errorf("reserved for workloads not read: %+v, want no estimate", got)
	}
	// A status that reserves more than the finished one explains keeps
	// the rest held.
	if got := build(2*s, "4"); got.likely != -1 || got.none == "" {
		t.Errorf("more than the finished explain: %+v, want no estimate", got)
	}
}
