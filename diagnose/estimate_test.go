package diagnose

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

var estNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// world builds ForecastInputs: ClusterQueues of one cpu flavor, their
// LocalQueues ("lq-" + the ClusterQueue's name, in namespace "ns") and
// Workloads.
type world struct {
	in ForecastInput
}

func newWorld() *world { return &world{in: ForecastInput{Now: estNow}} }

func (w *world) cq(name, cohort string, nominal string, mod ...func(*kueue.ClusterQueue)) *world {
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.ClusterQueueSpec{
			CohortName: kueue.CohortReference(cohort),
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{{
					Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal),
				}}}},
			}},
		},
	}
	for _, m := range mod {
		m(cq)
	}
	w.in.Objects.ClusterQueues = append(w.in.Objects.ClusterQueues, cq)
	w.in.Objects.LocalQueues = append(w.in.Objects.LocalQueues, &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq-" + name},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(name)},
	})
	return w
}

func (w *world) clusterQueue(name string) *kueue.ClusterQueue {
	for _, cq := range w.in.Objects.ClusterQueues {
		if cq.Name == name {
			return cq
		}
	}
	panic(name)
}

func wlOf(name, cq, cpu string) *kueue.Workload {
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(estNow.Add(-time.Hour))},
		Spec: kueue.WorkloadSpec{
			QueueName: kueue.LocalQueueName("lq-" + cq),
			PodSets: []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			}}}}}},
		},
	}
}

func cond(typ string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(at), Reason: typ}
}

// running adds a Workload admitted to cq elapsed ago, holding cpu.
func (w *world) running(name, cq, cpu string, elapsed time.Duration, mod ...func(*kueue.Workload)) *world {
	wl := wlOf(name, cq, cpu)
	wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq), PodSetAssignments: []kueue.PodSetAssignment{{
		Name: "main", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"},
		ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}, Count: ptr.To[int32](1),
	}}}
	at := estNow.Add(-elapsed)
	wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, at), cond(kueue.WorkloadAdmitted, at)}
	for _, m := range mod {
		m(wl)
	}
	w.in.Objects.Workloads = append(w.in.Objects.Workloads, wl)
	c := w.clusterQueue(cq)
	q := resource.MustParse(cpu)
	if len(c.Status.FlavorsReservation) == 0 {
		c.Status.FlavorsReservation = []kueue.FlavorUsage{{Name: "default", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU}}}}
	}
	c.Status.FlavorsReservation[0].Resources[0].Total.Add(q)
	return w
}

// finished adds Workloads of cq that ran for each of runs, the last
// finishing ago before now.
func (w *world) finished(cq string, ago time.Duration, runs ...time.Duration) *world {
	for i, run := range runs {
		wl := wlOf(fmt.Sprintf("done-%s-%d", cq, i), cq, "1")
		end := estNow.Add(-ago - time.Duration(len(runs)-1-i)*time.Minute)
		wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
		wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, end.Add(-run)), cond(kueue.WorkloadAdmitted, end.Add(-run)), cond(kueue.WorkloadFinished, end)}
		w.in.Objects.Workloads = append(w.in.Objects.Workloads, wl)
	}
	return w
}

// pending adds a pending Workload of cq, created age ago.
func (w *world) pending(name, cq, cpu string, age time.Duration, mod ...func(*kueue.Workload)) *kueue.Workload {
	wl := wlOf(name, cq, cpu)
	wl.CreationTimestamp = metav1.NewTime(estNow.Add(-age))
	wl.Status.ResourceRequests = []kueue.PodSetRequest{{Name: "main", Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
	for _, m := range mod {
		m(wl)
	}
	w.in.Objects.Workloads = append(w.in.Objects.Workloads, wl)
	return wl
}

func maxExec(s int32) func(*kueue.Workload) {
	return func(wl *kueue.Workload) { wl.Spec.MaximumExecutionTimeSeconds = &s }
}

func prio(p int32) func(*kueue.Workload) {
	return func(wl *kueue.Workload) { wl.Spec.Priority = &p }
}

func waiting(cq string) *Report {
	return &Report{Verdict: Verdict{Code: CodeWaitingForQuota, Cause: CauseQuotaInUse}, Queue: QueueInfo{ClusterQueue: cq, LocalQueue: "lq-" + cq}}
}

// span is an estimate as offsets from now; -1 means absent.
type span struct {
	earliest, likely, latest time.Duration
	basis, none              string
}

func spanOf(e *Estimate) span {
	off := func(t *time.Time) time.Duration {
		if t == nil {
			return -1
		}
		return t.Sub(e.At)
	}
	return span{off(e.Earliest), off(e.Likely), off(e.Latest), e.Basis, e.NoEstimate}
}

const (
	s = time.Second
	m = time.Minute
)

func TestEstimate(t *testing.T) {
	runs5 := []time.Duration{60 * s, 120 * s, 180 * s, 240 * s, 300 * s}
	cases := []struct {
		name   string
		build  func(w *world) *kueue.Workload
		report func() *Report
		want   span
	}{
		{
			name: "a running workload's limit frees the quota",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 100*s, maxExec(600))
				return w.pending("me", "a", "2", m)
			},
			want: span{500 * s, 500 * s, 500 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "run times of finished workloads, conditioned on what has run",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 30*s).finished("a", 2*m, runs5...)
				return w.pending("me", "a", "4", m)
			},
			// Survivors past 30s are all five: 20th pct 108s, median
			// 180s, 80th pct 252s, less the 30s run.
			want: span{78 * s, 150 * s, 222 * s, "1 running workload (1 by run times), 5 finished in the last 6m, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "a run past the short ones is conditioned on the longer ones",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 200*s).finished("a", 2*m, runs5...)
				return w.pending("me", "a", "4", m)
			},
			// Survivors 240s, 300s: 252s, 270s, 288s.
			want: span{52 * s, 70 * s, 88 * s, "1 running workload (1 by run times), 5 finished in the last 6m, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "a limit truncates the history",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 30*s, maxExec(120)).finished("a", 2*m, runs5...)
				return w.pending("me", "a", "4", m)
			},
			// Of the finished runs, those within the limit and past 30s:
			// 60s and 120s.
			want: span{42 * s, 60 * s, 78 * s, "1 running workload (1 with limits), 5 finished in the last 6m, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "no limit and no history: no estimate",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 30*s)
				return w.pending("me", "a", "4", m)
			},
			want: span{-1, -1, -1, "", "1 running workload has no limit (maximumExecutionTimeSeconds, activeDeadlineSeconds) and its queue has no finished workloads to learn from (ns/big)"},
		},
		{
			name: "running longer than any finished one, without a limit: no estimate",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", time.Hour).finished("a", 2*m, runs5...)
				return w.pending("me", "a", "4", m)
			},
			want: span{-1, -1, -1, "", "1 running workload has no limit (maximumExecutionTimeSeconds, activeDeadlineSeconds) and no finished workload in its queue has run that long (ns/big)"},
		},
		{
			name: "free now: now",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("small", "a", "1", 30*s)
				return w.pending("me", "a", "2", m)
			},
			want: span{0, 0, 0, "1 running workload (1 with no limit or history), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "the workloads ahead take what frees first",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 0, maxExec(100))
				w.pending("first", "a", "4", 2*m, maxExec(200))
				w.pending("urgent", "a", "4", 0, prio(10), maxExec(50))
				return w.pending("me", "a", "4", m)
			},
			// big ends at 100s, urgent (higher priority) runs 100-150s,
			// first (older) 150-350s, then me.
			want: span{350 * s, 350 * s, 350 * s, "1 running workload (1 with limits), no finished workloads to learn from, 2 ahead in ClusterQueue a", ""},
		},
		{
			name: "BestEffortFIFO: a smaller one behind a big head goes first",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("half", "a", "2", 0, maxExec(100))
				w.pending("head", "a", "4", 2*m, maxExec(200))
				return w.pending("me", "a", "2", m)
			},
			want: span{0, 0, 0, "1 running workload (1 with limits), no finished workloads to learn from, 1 ahead in ClusterQueue a", ""},
		},
		{
			name: "StrictFIFO: the head blocks",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4", func(cq *kueue.ClusterQueue) { cq.Spec.QueueingStrategy = kueue.StrictFIFO }).running("half", "a", "2", 0, maxExec(100))
				w.pending("head", "a", "4", 2*m, maxExec(200))
				return w.pending("me", "a", "2", m)
			},
			want: span{300 * s, 300 * s, 300 * s, "1 running workload (1 with limits), no finished workloads to learn from, 1 ahead in ClusterQueue a", ""},
		},
		{
			name: "a head that can never fit does not block",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4", func(cq *kueue.ClusterQueue) { cq.Spec.QueueingStrategy = kueue.StrictFIFO }).running("half", "a", "2", 0, maxExec(100))
				w.pending("huge", "a", "40", 2*m)
				return w.pending("me", "a", "4", m)
			},
			want: span{100 * s, 100 * s, 100 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "borrowing from the cohort, within the borrowing limit",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "pool", "2", func(cq *kueue.ClusterQueue) {
					cq.Spec.ResourceGroups[0].Flavors[0].Resources[0].BorrowingLimit = ptr.To(resource.MustParse("1"))
				})
				w.cq("b", "pool", "4").running("lender", "b", "4", 0, maxExec(100))
				return w.pending("me", "a", "3", m)
			},
			want: span{100 * s, 100 * s, 100 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a, cohort pool", ""},
		},
		{
			name: "the cohort's other queue competes for what frees",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "pool", "0")
				w.cq("b", "pool", "4").running("lender", "b", "4", 0, maxExec(100))
				w.pending("theirs", "b", "4", 2*m, maxExec(60))
				return w.pending("me", "a", "4", m)
			},
			// b's own Workload is older: it takes the freed quota first.
			want: span{160 * s, 160 * s, 160 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a, cohort pool", ""},
		},
		{
			name: "within its nominal quota it goes before an older one that must borrow",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "pool", "2").running("mine", "a", "2", 0, maxExec(50))
				w.cq("b", "pool", "2").running("theirs", "b", "2", 0, maxExec(100))
				w.pending("older", "b", "2", 2*m, maxExec(100))
				return w.pending("me", "a", "2", m)
			},
			want: span{50 * s, 50 * s, 50 * s, "2 running workloads (2 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a, cohort pool", ""},
		},
		{
			name: "the job's activeDeadlineSeconds bounds it",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 10*s, func(wl *kueue.Workload) {
					wl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "big", UID: "job-big"}}
				})
				w.in.Deadlines = map[types.UID]time.Duration{"job-big": 70 * s}
				return w.pending("me", "a", "4", m)
			},
			want: span{60 * s, 60 * s, 60 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "past execution time counts against maximumExecutionTimeSeconds",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 10*s, maxExec(100), func(wl *kueue.Workload) {
					wl.Status.AccumulatedPastExecutionTimeSeconds = ptr.To[int32](40)
				})
				return w.pending("me", "a", "4", m)
			},
			want: span{50 * s, 50 * s, 50 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "a requeue backoff delays it",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4")
				return w.pending("me", "a", "4", m, func(wl *kueue.Workload) {
					wl.Status.RequeueState = &kueue.RequeueState{RequeueAt: ptr.To(metav1.NewTime(estNow.Add(45 * s)))}
				})
			},
			report: func() *Report {
				return &Report{Verdict: Verdict{Code: CodeRequeuing, Cause: CauseBackoff}, Queue: QueueInfo{ClusterQueue: "a"}}
			},
			want: span{45 * s, 45 * s, 45 * s, "nothing running, no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "quota reserved for workloads not read: no estimate",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4")
				w.clusterQueue("a").Status.FlavorsReservation = []kueue.FlavorUsage{{Name: "default", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU, Total: resource.MustParse("3")}}}}
				w.in.Incomplete = msg("diagnose.quotedPlain", i18n.Verbatim("the Workloads of other namespaces"))
				return w.pending("me", "a", "2", m)
			},
			want: span{-1, -1, -1, "", "ClusterQueue a reserves 3 cpu of flavor default for workloads I could not read"},
		},
		{
			name: "a stopped LocalQueue ahead does not hold the others",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 0, maxExec(30))
				w.in.Objects.LocalQueues = append(w.in.Objects.LocalQueues, &kueue.LocalQueue{
					ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "held"},
					Spec:       kueue.LocalQueueSpec{ClusterQueue: "a", StopPolicy: ptr.To(kueue.Hold)},
				})
				w.pending("parked", "a", "4", 2*m, func(wl *kueue.Workload) { wl.Spec.QueueName = "held" })
				return w.pending("me", "a", "4", m)
			},
			want: span{30 * s, 30 * s, 30 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
		{
			name: "pending workloads of namespaces not read are named",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 0, maxExec(60))
				w.clusterQueue("a").Status.PendingWorkloads = 3
				return w.pending("me", "a", "4", m)
			},
			want: span{60 * s, 60 * s, 60 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a, 2 pending workloads of other namespaces not read (it may start later)", ""},
		},
		{
			name: "ExceedsMaxQuota: no estimate",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4")
				return w.pending("me", "a", "8", m)
			},
			report: func() *Report {
				return &Report{Verdict: Verdict{Code: CodeExceedsMaxQuota}, Queue: QueueInfo{ClusterQueue: "a"}}
			},
			want: span{-1, -1, -1, "", "it asks for more than ClusterQueue a can ever hold, so waiting will not admit it"},
		},
		{
			name: "a stopped ClusterQueue: no estimate",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4", func(cq *kueue.ClusterQueue) { cq.Spec.StopPolicy = ptr.To(kueue.Hold) })
				return w.pending("me", "a", "1", m)
			},
			report: func() *Report {
				return &Report{Verdict: Verdict{Code: CodeOnHold, Cause: CauseClusterQueueStopped}, Queue: QueueInfo{ClusterQueue: "a"}}
			},
			want: span{-1, -1, -1, "", "ClusterQueue a is stopped (stopPolicy): nothing is admitted until it is started again"},
		},
		{
			name: "the LocalQueue's ClusterQueue is learned from its admitted workloads",
			build: func(w *world) *kueue.Workload {
				w.cq("a", "", "4").running("big", "a", "4", 0, maxExec(90))
				w.in.Objects.LocalQueues = nil // another namespace's, not read
				return w.pending("me", "a", "4", m)
			},
			want: span{90 * s, 90 * s, 90 * s, "1 running workload (1 with limits), no finished workloads to learn from, 0 ahead in ClusterQueue a", ""},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			wl := c.build(w)
			r := waiting(string(w.in.Objects.ClusterQueues[0].Name))
			if c.report != nil {
				r = c.report()
			}
			e := NewForecast(w.in).Estimate(wl, r)
			if e == nil {
				t.Fatal("no Estimate")
			}
			if diff := cmp.Diff(c.want, spanOf(e), cmp.AllowUnexported(span{})); diff != "" {
				t.Errorf("estimate (-want +got):\n%s", diff)
			}
			checkEstimateLangs(t, e)
		})
	}
}

// checkEstimateLangs: the estimate's messages say its English words, and
// its phrase and basis read in French, Japanese and Chinese with no English
// prose left (names, codes and the basis' compact spans aside).
func checkEstimateLangs(t *testing.T, e *Estimate) {
	t.Helper()
	if got := e.BasisMsg.String(); got != e.Basis {
		t.Errorf("BasisMsg says %q, Basis %q", got, e.Basis)
	}
	if got := e.NoEstimateMsg.String(); got != e.NoEstimate {
		t.Errorf("NoEstimateMsg says %q, NoEstimate %q", got, e.NoEstimate)
	}
	if got := e.PhraseIn(i18n.English); got != e.Phrase() {
		t.Errorf("PhraseIn(en) %q, Phrase %q", got, e.Phrase())
	}
	for _, l := range []i18n.Lang{i18n.French, i18n.Japanese, i18n.Chinese} {
		phrase, basis := e.PhraseIn(l), e.BasisIn(l)
		if phrase == e.Phrase() {
			t.Errorf("%s: the phrase %q is the English one", l, phrase)
		}
		i18ntest.AssertTranslated(t, l, phrase+"\n"+basis)
	}
}

func TestEstimateOnlyForWaiting(t *testing.T) {
	w := newWorld()
	w.cq("a", "", "4")
	wl := w.pending("me", "a", "1", m)
	f := NewForecast(w.in)
	for _, code := range []Code{CodeRunning, CodeFinished, CodeStarting, CodePodsUnschedulable, CodeWaitingForPodsReady, CodeNotFound} {
		if e := f.Estimate(wl, &Report{Verdict: Verdict{Code: code}}); e != nil {
			t.Errorf("%s: got an estimate %+v, want none", code, e)
		}
	}
	for _, code := range []Code{CodeMisconfigured, CodeNoMatchingFlavor, CodeDeactivated, CodeWaitingForAdmissionChecks, CodeAdmissionGated, CodeWorkloadMissing} {
		e := f.Estimate(wl, &Report{Verdict: Verdict{Code: code}})
		if e == nil || e.Known() || e.NoEstimate == "" {
			t.Errorf("%s: got %+v, want no estimate with a reason", code, e)
		}
	}
	var nilF *Forecast
	if nilF.Estimate(wl, waiting("a")) != nil {
		t.Error("a nil Forecast estimated")
	}
}

// TestEstimateDeterministic: the same objects in any order give the same
// estimates, and asking twice gives the same answer.
func TestEstimateDeterministic(t *testing.T) {
	build := func(seed uint64) (ForecastInput, []*kueue.Workload) {
		w := newWorld()
		w.cq("a", "pool", "6").cq("b", "pool", "4")
		rng := rand.New(rand.NewPCG(1, 2))
		var runs []time.Duration
		for range 12 {
			runs = append(runs, time.Duration(30+rng.IntN(300))*s)
		}
		w.finished("a", m, runs[:6]...).finished("b", m, runs[6:]...)
		for i := range 5 {
			w.running(fmt.Sprintf("run-%d", i), []string{"a", "b"}[i%2], "2", time.Duration(rng.IntN(120))*s)
		}
		var mine []*kueue.Workload
		for i := range 10 {
			mine = append(mine, w.pending(fmt.Sprintf("p-%d", i), []string{"a", "b"}[i%2], fmt.Sprint(1+rng.IntN(3)), time.Duration(i)*m))
		}
		sh := rand.New(rand.NewPCG(seed, 7))
		sh.Shuffle(len(w.in.Objects.Workloads), func(i, j int) {
			w.in.Objects.Workloads[i], w.in.Objects.Workloads[j] = w.in.Objects.Workloads[j], w.in.Objects.Workloads[i]
		})
		return w.in, mine
	}
	var first []span
	for seed := range uint64(4) {
		in, mine := build(seed)
		f := NewForecast(in)
		var got []span
		for _, wl := range mine {
			cq := "a"
			if strings.HasSuffix(string(wl.Spec.QueueName), "b") {
				cq = "b"
			}
			e := f.Estimate(wl, waiting(cq))
			if again := f.Estimate(wl, waiting(cq)); !cmp.Equal(spanOf(e), spanOf(again), cmp.AllowUnexported(span{})) {
				t.Fatalf("%s: asked twice, two answers", wl.Name)
			}
			if !e.Known() {
				t.Fatalf("%s: no estimate: %s", wl.Name, e.NoEstimate)
			}
			if e.Earliest.After(*e.Likely) || e.Latest != nil && e.Latest.Before(*e.Likely) {
				t.Errorf("%s: range out of order: %+v", wl.Name, spanOf(e))
			}
			got = append(got, spanOf(e))
		}
		if first == nil {
			first = got
			continue
		}
		if diff := cmp.Diff(first, got, cmp.AllowUnexported(span{})); diff != "" {
			t.Errorf("seed %d: estimates depend on input order (-first +got):\n%s", seed, diff)
		}
	}
}

func TestQuantileAndRemaining(t *testing.T) {
	runs := []time.Duration{10 * s, 20 * s, 30 * s, 40 * s}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0, 10 * s}, {0.5, 25 * s}, {1, 40 * s}, {0.2, 16 * s}} {
		if got := quantile(runs, c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got, ok := remaining(runs, 35*s, nil, 0.5); !ok || got != 5*s {
		t.Errorf("remaining past 35s = %v %v, want 5s", got, ok)
	}
	if _, ok := remaining(runs, 45*s, nil, 0.5); ok {
		t.Error("remaining past every run, without a bound, is unknown")
	}
	if got, ok := remaining(runs, 45*s, ptr.To(60*s), 0.5); !ok || got != 15*s {
		t.Errorf("remaining with a bound = %v %v, want 15s", got, ok)
	}
	if got, ok := remaining(nil, 90*s, ptr.To(60*s), 0.5); !ok || got != 0 {
		t.Errorf("remaining past its bound = %v %v, want 0", got, ok)
	}
	if got, ok := remaining(runs, 5*s, ptr.To(25*s), 0.5); !ok || got != 10*s {
		t.Errorf("remaining within a bound = %v %v, want 10s (the median of 10s and 20s, less 5s)", got, ok)
	}
}

func TestEstimatePhrase(t *testing.T) {
	at := estNow
	mk := func(lo, likely, hi time.Duration) *Estimate {
		e := &Estimate{At: at}
		l, li := at.Add(lo), at.Add(likely)
		e.Earliest, e.Likely = &l, &li
		if hi >= 0 {
			h := at.Add(hi)
			e.Latest = &h
		}
		return e
	}
	for _, c := range []struct {
		e    *Estimate
		want string
	}{
		{mk(20*m, 30*m, 45*m), "in 20-45 min, most likely in 30 min"},
		{mk(0, 0, 0), "likely now (it fits as soon as Kueue evaluates it)"},
		{mk(10*s, 2*m, 5*m), "within 5 min, most likely in 2 min"},
		{mk(10*s, 65*s, 70*s), "within 1 min"},
		{mk(10*s, 50*s, 70*s), "within 1 min, most likely in under a minute"},
		{mk(30*m, 30*m, 30*m), "likely in 30 min"},
		{mk(50*m, 80*m, 2*time.Hour), "in 50 min-2 h, most likely in 1 h 20 min"},
		{mk(2*time.Hour, 3*time.Hour, -1), "likely in 3 h or later (a workload it waits for has no known end)"},
		{mk(26*time.Hour, 30*time.Hour, 50*time.Hour), "in 1 d 2 h-2 d 2 h, most likely in 1 d 6 h"},
		{&Estimate{At: at, NoEstimate: "ClusterQueue a is stopped"}, "no estimate: ClusterQueue a is stopped"},
	} {
		if got := c.e.Phrase(); got != c.want {
			t.Errorf("Phrase() = %q, want %q", got, c.want)
		}
	}
	var none *Estimate
	if none.Phrase() != "" {
		t.Error("a nil estimate has a phrase")
	}
}

// TestEstimateWithoutClusterQueue: a ClusterQueue the caller could not
// read is named, and nothing is made up.
func TestEstimateWithoutClusterQueue(t *testing.T) {
	w := newWorld()
	w.cq("a", "", "4")
	wl := w.pending("me", "a", "1", m)
	w.in.Objects.ClusterQueues = nil
	e := NewForecast(w.in).Estimate(wl, waiting("a"))
	if e == nil || e.Known() || e.NoEstimate != "I could not read ClusterQueue a, so I cannot replay its quota" {
		t.Errorf("got %+v", e)
	}
}
