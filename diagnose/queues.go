package diagnose

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Objects are Workloads and queue objects in hand, as read by one identity
// (for example everything a fetch.Store holds). Slices hold the caller's
// objects, which the functions here only read.
type Objects struct {
	Workloads       []*kueue.Workload
	LocalQueues     []*kueue.LocalQueue
	ClusterQueues   []*kueue.ClusterQueue
	ResourceFlavors []*kueue.ResourceFlavor
	Cohorts         []*kueue.Cohort
}

// Phase is where a Workload is in its life, from its conditions.
type Phase string

// Phase values.
const (
	// PhasePending: no quota reserved and not finished (queued, or held:
	// deactivated, on a stopped queue, misconfigured).
	PhasePending Phase = "Pending"
	// PhaseReserved: quota reserved, admission checks not all ready.
	PhaseReserved Phase = "Reserved"
	// PhaseAdmitted: admitted and not finished (starting or running).
	PhaseAdmitted Phase = "Admitted"
	// PhaseFinished: finished, succeeded or failed.
	PhaseFinished Phase = "Finished"
)

// PhaseOf returns the Workload's phase.
func PhaseOf(wl *kueue.Workload) Phase {
	c := wl.Status.Conditions
	switch {
	case apimeta.IsStatusConditionTrue(c, kueue.WorkloadFinished):
		return PhaseFinished
	case apimeta.IsStatusConditionTrue(c, kueue.WorkloadAdmitted):
		return PhaseAdmitted
	case apimeta.IsStatusConditionTrue(c, kueue.WorkloadQuotaReserved):
		return PhaseReserved
	}
	return PhasePending
}

// QueuedSince is when a pending Workload started its current wait: its
// creation, or its last eviction (the Evicted or Requeued condition's
// transition), whichever is later.
func QueuedSince(wl *kueue.Workload) time.Time {
	t := wl.CreationTimestamp.Time
	for _, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadRequeued} {
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue && c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	return t
}

// FinishedAt is when a finished Workload finished (zero when it has not).
func FinishedAt(wl *kueue.Workload) time.Time {
	if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// QueueKind says which kind of queue a QueueSummary is about.
type QueueKind string

// QueueKind values.
const (
	QueueKindLocal   QueueKind = "LocalQueue"
	QueueKindCluster QueueKind = "ClusterQueue"
)

// QueueState is a queue's state, from its spec and conditions.
type QueueState string

// QueueState values.
const (
	// QueueActive: the queue admits Workloads.
	QueueActive QueueState = "Active"
	// QueueStopped: spec.stopPolicy is Hold or HoldAndDrain.
	QueueStopped QueueState = "Stopped"
	// QueueInactive: Kueue reports the queue not Active (e.g. a missing
	// flavor or admission check).
	QueueInactive QueueState = "Inactive"
	// QueueNotFound: Workloads name the queue, but it does not exist (or
	// could not be read).
	QueueNotFound QueueState = "NotFound"
)

// QueueSummary is one queue at a glance: how many Workloads wait and hold
// quota in it, the longest wait, and what it holds against its nominal
// quota. It is computed from objects alone (QueueSummaries), so the
// `/kueue queues` answer and the digests show the same figures.
type QueueSummary struct {
	Kind QueueKind `json:"kind"`
	// Cluster is the configured cluster the queue is in, when the bot
	// reads several (explain.Fleet); empty with one.
	Cluster string `json:"cluster,omitempty"`
	// Namespace is the LocalQueue's namespace; empty for a ClusterQueue.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// ClusterQueue is a LocalQueue's ClusterQueue (a ClusterQueue's own
	// name); Cohort is that ClusterQueue's cohort, when known.
	ClusterQueue string     `json:"clusterQueue"`
	Cohort       string     `json:"cohort,omitempty"`
	State        QueueState `json:"state"`

	// Pending, Reserved and Admitted count the queue's Workloads by Phase
	// (Admitted excludes finished ones); Finished counts the finished
	// Workloads still present.
	Pending  int `json:"pending"`
	Reserved int `json:"reserved"`
	Admitted int `json:"admitted"`
	Finished int `json:"finished"`
	// WithoutWorkload counts the jobs that name the LocalQueue but for
	// which Kueue made no Workload (a missing WorkloadPriorityClass, a
	// namespace Kueue does not manage): they wait too, and Pending does
	// not count them. Set by the callers that read jobs (explain.Queues).
	WithoutWorkload int `json:"withoutWorkload,omitempty"`
	// OldestPending is the pending Workload that has waited longest
	// ("namespace/name"), and OldestWait how long (Now minus QueuedSince;
	// OldestWaitSeconds in whole seconds, for JSON).
	OldestPending     string        `json:"oldestPending,omitempty"`
	OldestWait        time.Duration `json:"-"`
	OldestWaitSeconds int64         `json:"oldestWaitSeconds"`

	// Usage compares, per flavor and resource, what the queue holds with
	// the ClusterQueue's nominal quota. A LocalQueue's usage is its own
	// share of its ClusterQueue. NominalKnown is false when the
	// ClusterQueue could not be read: then only the usage is shown.
	Usage        []ResourceUsage `json:"usage"`
	NominalKnown bool            `json:"nominalKnown"`
}

// Key returns "namespace/name" for a LocalQueue and the name of a
// ClusterQueue.
func (q *QueueSummary) Key() string {
	if q.Kind == QueueKindLocal {
		return q.Namespace + "/" + q.Name
	}
	return q.Name
}

// ResourceUsage is one flavor and resource of a queue.
type ResourceUsage struct {
	Flavor   string              `json:"flavor"`
	Resource corev1.ResourceName `json:"resource"`
	// Used is the quota reserved by the queue's Workloads
	// (status.flavorsReservation).
	Used resource.Quantity `json:"used"`
	// Nominal is the ClusterQueue's nominal quota (zero when unknown).
	Nominal resource.Quantity `json:"nominal"`
	// Borrowed is what a ClusterQueue borrows from its cohort.
	Borrowed resource.Quantity `json:"borrowed"`
	// Percent is Used over Nominal in percent, rounded down; -1 when the
	// nominal quota is zero or unknown. It exceeds 100 when borrowing.
	Percent int `json:"percent"`
}

// QueueSummaries summarizes every ClusterQueue and LocalQueue of objs, plus
// a NotFound entry for each LocalQueue that Workloads name but objs lack.
// ClusterQueues come first, sorted by name, then LocalQueues by namespace
// and name. A Workload counts for its LocalQueue (spec.queueName) and for
// that queue's ClusterQueue (or the one holding its admission).
func QueueSummaries(objs Objects, now time.Time) []QueueSummary {
	cqs := map[string]*kueue.ClusterQueue{}
	for _, cq := range objs.ClusterQueues {
		cqs[cq.Name] = cq
	}
	lqs := map[string]*kueue.LocalQueue{}
	for _, lq := range objs.LocalQueues {
		lqs[lq.Namespace+"/"+lq.Name] = lq
	}

	cqSum := map[string]*QueueSummary{}
	lqSum := map[string]*QueueSummary{}
	cqEntry := func(name string) *QueueSummary {
		if s, ok := cqSum[name]; ok {
			return s
		}
		s := &QueueSummary{Kind: QueueKindCluster, Name: name, ClusterQueue: name, State: QueueNotFound}
		if cq := cqs[name]; cq != nil {
			s.Cohort = string(cq.Spec.CohortName)
			s.State = clusterQueueState(cq)
			s.Usage, s.NominalKnown = clusterQueueUsage(cq), true
		}
		cqSum[name] = s
		return s
	}
	lqEntry := func(ns, name string) *QueueSummary {
		key := ns + "/" + name
		if s, ok := lqSum[key]; ok {
			return s
		}
		s := &QueueSummary{Kind: QueueKindLocal, Namespace: ns, Name: name, State: QueueNotFound}
		if lq := lqs[key]; lq != nil {
			s.ClusterQueue = string(lq.Spec.ClusterQueue)
			s.State = localQueueState(lq)
			cq := cqs[s.ClusterQueue]
			if cq != nil {
				s.Cohort = string(cq.Spec.CohortName)
				if cqState := clusterQueueState(cq); s.State == QueueActive && cqState != QueueActive {
					s.State = cqState
				}
			}
			s.Usage, s.NominalKnown = localQueueUsage(lq, cq), cq != nil
		}
		lqSum[key] = s
		return s
	}
	for _, cq := range objs.ClusterQueues {
		cqEntry(cq.Name)
	}
	for _, lq := range objs.LocalQueues {
		lqEntry(lq.Namespace, lq.Name)
	}

	for _, wl := range objs.Workloads {
		if wl.Spec.QueueName == "" {
			continue
		}
		lq := lqEntry(wl.Namespace, string(wl.Spec.QueueName))
		cqName := lq.ClusterQueue
		if wl.Status.Admission != nil && wl.Status.Admission.ClusterQueue != "" {
			cqName = string(wl.Status.Admission.ClusterQueue)
		}
		targets := []*QueueSummary{lq}
		if cqName != "" {
			if _, known := cqSum[cqName]; known || cqs[cqName] != nil || lqs[wl.Namespace+"/"+string(wl.Spec.QueueName)] != nil {
				targets = append(targets, cqEntry(cqName))
			}
		}
		phase := PhaseOf(wl)
		for _, s := range targets {
			s.count(wl, phase, now)
		}
	}

	out := make([]QueueSummary, 0, len(cqSum)+len(lqSum))
	for _, s := range cqSum {
		out = append(out, *s)
	}
	for _, s := range lqSum {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b QueueSummary) int {
		if a.Kind != b.Kind {
			if a.Kind == QueueKindCluster {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

func (q *QueueSummary) count(wl *kueue.Workload, phase Phase, now time.Time) {
	switch phase {
	case PhasePending:
		q.Pending++
		wait := now.Sub(QueuedSince(wl))
		name := wl.Namespace + "/" + wl.Name
		if q.OldestPending == "" || wait > q.OldestWait || wait == q.OldestWait && name < q.OldestPending {
			q.OldestPending, q.OldestWait = name, wait
			q.OldestWaitSeconds = int64(wait / time.Second)
		}
	case PhaseReserved:
		q.Reserved++
	case PhaseAdmitted:
		q.Admitted++
	case PhaseFinished:
		q.Finished++
	}
}

func clusterQueueState(cq *kueue.ClusterQueue) QueueState {
	if cq.Spec.StopPolicy != nil && *cq.Spec.StopPolicy != kueue.None {
		return QueueStopped
	}
	if c := apimeta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive); c != nil && c.Status != metav1.ConditionTrue {
		return QueueInactive
	}
	return QueueActive
}

func localQueueState(lq *kueue.LocalQueue) QueueState {
	if lq.Spec.StopPolicy != nil && *lq.Spec.StopPolicy != kueue.None {
		return QueueStopped
	}
	return QueueActive
}

// nominalOf returns a ClusterQueue's nominal quota per flavor and resource,
// in the order of its resource groups.
func nominalOf(cq *kueue.ClusterQueue) ([]fr, map[fr]resource.Quantity) {
	var order []fr
	nominal := map[fr]resource.Quantity{}
	for _, g := range cq.Spec.ResourceGroups {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				k := fr{string(f.Name), r.Name}
				if _, seen := nominal[k]; !seen {
					order = append(order, k)
				}
				nominal[k] = r.NominalQuota
			}
		}
	}
	return order, nominal
}

func clusterQueueUsage(cq *kueue.ClusterQueue) []ResourceUsage {
	order, nominal := nominalOf(cq)
	used := map[fr]kueue.ResourceUsage{}
	for _, f := range cq.Status.FlavorsReservation {
		for _, r := range f.Resources {
			k := fr{string(f.Name), r.Name}
			if _, ok := nominal[k]; !ok {
				order = append(order, k)
			}
			used[k] = r
		}
	}
	out := make([]ResourceUsage, 0, len(order))
	for _, k := range order {
		u := used[k]
		out = append(out, newUsage(k, u.Total, u.Borrowed, nominal[k], true))
	}
	return out
}

func localQueueUsage(lq *kueue.LocalQueue, cq *kueue.ClusterQueue) []ResourceUsage {
	var order []fr
	nominal := map[fr]resource.Quantity{}
	if cq != nil {
		order, nominal = nominalOf(cq)
	}
	used := map[fr]resource.Quantity{}
	for _, f := range lq.Status.FlavorsReservation {
		for _, r := range f.Resources {
			k := fr{string(f.Name), r.Name}
			if _, ok := nominal[k]; !ok && !slices.Contains(order, k) {
				order = append(order, k)
			}
			used[k] = r.Total
		}
	}
	out := make([]ResourceUsage, 0, len(order))
	for _, k := range order {
		out = append(out, newUsage(k, used[k], resource.Quantity{}, nominal[k], cq != nil))
	}
	return out
}

func newUsage(k fr, used, borrowed, nominal resource.Quantity, nominalKnown bool) ResourceUsage {
	u := ResourceUsage{Flavor: k.flavor, Resource: k.resource, Used: used, Borrowed: borrowed, Nominal: nominal, Percent: -1}
	if n := value(k.resource, nominal); nominalKnown && n > 0 {
		u.Percent = int(value(k.resource, used) * 100 / n)
	}
	return u
}
