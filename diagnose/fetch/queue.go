package fetch

import (
	"cmp"
	"slices"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	visibilityv1beta1 "sigs.k8s.io/kueue/apis/visibility/v1beta1"
	visibility "sigs.k8s.io/kueue/apis/visibility/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// queued is one pending Workload with both of its 0-based positions.
type queued struct {
	diagnose.QueuedWorkload
	inLocalQueue int32
}

func queuedFromV1beta2(sum *visibility.PendingWorkloadsSummary) []queued {
	if sum == nil {
		return nil
	}
	out := make([]queued, 0, len(sum.Items))
	for _, it := range sum.Items {
		out = append(out, queued{
			QueuedWorkload: diagnose.QueuedWorkload{
				Namespace: it.Namespace, Name: it.Name, LocalQueue: string(it.LocalQueueName),
				Priority: it.Priority, PositionInClusterQueue: it.PositionInClusterQueue,
			},
			inLocalQueue: it.PositionInLocalQueue,
		})
	}
	return out
}

// queuedFromV1beta1 reads the older visibility API's summary, whose JSON
// form is the same as v1beta2's.
func queuedFromV1beta1(sum *visibilityv1beta1.PendingWorkloadsSummary) ([]queued, error) {
	if sum == nil {
		return nil, nil
	}
	var v2 visibility.PendingWorkloadsSummary
	if err := viaJSON(sum, &v2); err != nil {
		return nil, err
	}
	return queuedFromV1beta2(&v2), nil
}

// positionIn finds wl among the pending items of its LocalQueue and returns
// its position and the items ahead of it in the LocalQueue, head first, at
// most maxQueueAhead. When wl is not listed the position is unknown (nil).
func positionIn(items []queued, wl *kueue.Workload) (*diagnose.Position, []diagnose.QueuedWorkload) {
	var pos *diagnose.Position
	for _, it := range items {
		if it.Name == wl.Name && it.Namespace == wl.Namespace {
			pos = &diagnose.Position{InLocalQueue: it.inLocalQueue, InClusterQueue: it.PositionInClusterQueue}
			break
		}
	}
	if pos == nil {
		return nil, nil
	}
	var ahead []queued
	for _, it := range items {
		if it.LocalQueue == string(wl.Spec.QueueName) && it.Namespace == wl.Namespace && it.inLocalQueue < pos.InLocalQueue {
			ahead = append(ahead, it)
		}
	}
	slices.SortFunc(ahead, func(a, b queued) int { return cmp.Compare(a.inLocalQueue, b.inLocalQueue) })
	if len(ahead) > maxQueueAhead {
		ahead = ahead[:maxQueueAhead]
	}
	out := make([]diagnose.QueuedWorkload, 0, len(ahead))
	for _, a := range ahead {
		out = append(out, a.QueuedWorkload)
	}
	return pos, out
}

// priority is a Workload's priority as Kueue orders by it (nil is 0).
func priority(wl *kueue.Workload) int32 {
	if wl.Spec.Priority == nil {
		return 0
	}
	return *wl.Spec.Priority
}

// queueOrder compares two pending Workloads in Kueue's ClusterQueue order:
// higher priority first, then older creationTimestamp, then UID. (Kueue may
// use an eviction time instead of the creation time for requeued Workloads;
// files cannot tell, so creation time is used.)
func queueOrder(a, b *kueue.Workload) int {
	if c := cmp.Compare(priority(b), priority(a)); c != 0 {
		return c
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.UID, b.UID)
}

// rankPending ranks the pending Workloads of one ClusterQueue as Kueue's
// visibility API would list them: in queueOrder, ties broken by namespace
// and name so that the result never depends on input order.
func rankPending(in []*kueue.Workload) []queued {
	in = slices.Clone(in)
	slices.SortFunc(in, func(a, b *kueue.Workload) int {
		if c := queueOrder(a, b); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	perLQ := map[string]int32{}
	out := make([]queued, 0, len(in))
	for i, w := range in {
		key := w.Namespace + "/" + string(w.Spec.QueueName)
		out = append(out, queued{
			QueuedWorkload: diagnose.QueuedWorkload{
				Namespace: w.Namespace, Name: w.Name, LocalQueue: string(w.Spec.QueueName),
				Priority: priority(w), PositionInClusterQueue: int32(i), //nolint:gosec // bounded by the store's size
			},
			inLocalQueue: perLQ[key],
		})
		perLQ[key]++
	}
	return out
}
