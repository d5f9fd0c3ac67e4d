package digest

import (
	"slices"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Scope says what a digest covers. Each dimension given narrows it: a
// workload is in scope when it is in one of the Namespaces (if any are
// given), in one of the LocalQueues (if any) and in one of the
// ClusterQueues (if any). An empty Scope covers everything the digest's
// identity can read.
type Scope struct {
	Namespaces []string `json:"namespaces,omitempty"`
	// LocalQueues are "namespace/name".
	LocalQueues   []string `json:"localQueues,omitempty"`
	ClusterQueues []string `json:"clusterQueues,omitempty"`
}

// Includes reports whether a workload (or job) in namespace, queued in
// localQueue of clusterQueue (empty when unknown), is in scope.
func (s Scope) Includes(namespace, localQueue, clusterQueue string) bool {
	return (len(s.Namespaces) == 0 || slices.Contains(s.Namespaces, namespace)) &&
		(len(s.LocalQueues) == 0 || slices.Contains(s.LocalQueues, namespace+"/"+localQueue)) &&
		(len(s.ClusterQueues) == 0 || slices.Contains(s.ClusterQueues, clusterQueue))
}

// ClusterQueueOf returns the ClusterQueue a Workload belongs to: the one
// holding its admission, else its LocalQueue's (lqs maps "namespace/name"),
// else "".
func ClusterQueueOf(wl *kueue.Workload, lqs map[string]*kueue.LocalQueue) string {
	if wl.Status.Admission != nil && wl.Status.Admission.ClusterQueue != "" {
		return string(wl.Status.Admission.ClusterQueue)
	}
	if lq := lqs[wl.Namespace+"/"+string(wl.Spec.QueueName)]; lq != nil {
		return string(lq.Spec.ClusterQueue)
	}
	return ""
}

// LocalQueueIndex maps "namespace/name" to each LocalQueue.
func LocalQueueIndex(lqs []*kueue.LocalQueue) map[string]*kueue.LocalQueue {
	m := make(map[string]*kueue.LocalQueue, len(lqs))
	for _, lq := range lqs {
		m[lq.Namespace+"/"+lq.Name] = lq
	}
	return m
}

// Select returns the objects in scope: the Workloads and LocalQueues it
// includes, and the ClusterQueues it names (or, when it names none, those
// its LocalQueues and Workloads use; all of them for an empty Scope).
// ResourceFlavors and Cohorts are kept whole.
func Select(objs diagnose.Objects, s Scope) diagnose.Objects {
	lqs := LocalQueueIndex(objs.LocalQueues)
	out := diagnose.Objects{ResourceFlavors: objs.ResourceFlavors, Cohorts: objs.Cohorts}
	used := map[string]bool{}
	for _, lq := range objs.LocalQueues {
		if s.Includes(lq.Namespace, lq.Name, string(lq.Spec.ClusterQueue)) {
			out.LocalQueues = append(out.LocalQueues, lq)
			used[string(lq.Spec.ClusterQueue)] = true
		}
	}
	for _, wl := range objs.Workloads {
		cq := ClusterQueueOf(wl, lqs)
		if s.Includes(wl.Namespace, string(wl.Spec.QueueName), cq) {
			out.Workloads = append(out.Workloads, wl)
			if cq != "" {
				used[cq] = true
			}
		}
	}
	everything := len(s.Namespaces) == 0 && len(s.LocalQueues) == 0 && len(s.ClusterQueues) == 0
	for _, cq := range objs.ClusterQueues {
		if slices.Contains(s.ClusterQueues, cq.Name) || len(s.ClusterQueues) == 0 && (everything || used[cq.Name]) {
			out.ClusterQueues = append(out.ClusterQueues, cq)
		}
	}
	return out
}
