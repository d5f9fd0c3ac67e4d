package diagnose

import (
	"maps"
	"sync"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Shared holds what Analyze derives from objects that many Snapshots hold
// in common, so that classifying every Workload of a store derives it once
// instead of once per Workload: each ClusterQueue's quota tree, each pod
// template's per-pod request and each parsed Kueue message. Analyze uses
// it when Snapshot.Shared is set; the reports are the same without it, but
// for what Brief leaves out.
//
// Entries are keyed by the objects' addresses, so a Shared may only be
// given to Snapshots whose objects nobody changes while it is in use: the
// objects a Store hands out read-only (fetch.Store.Classify makes one
// Shared per call). A Shared is safe for concurrent use.
type Shared struct {
	// Brief leaves out of every report what a summary of many never
	// shows: its quota rows, findings and evidence. The verdict, target,
	// queue, remedies and gaps are the same as without it.
	Brief bool

	trees    sync.Map // treeKey -> *quotaTree
	flavors  sync.Map // flavorKey -> *flavorIndex
	requests sync.Map // requestsKey -> map[corev1.ResourceName]int64
	messages sync.Map // string -> ParsedMessage
}

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{} }

func (sh *Shared) brief() bool { return sh != nil && sh.Brief }

// treeKey is what buildQuotaTree reads of a Snapshot: the ClusterQueue,
// the cohort's other members and Cohort objects (slices of values the
// Snapshots share, named by their first element and length), and whether
// their reads failed.
type treeKey struct {
	cq       *kueue.ClusterQueue
	members  *kueue.ClusterQueue
	nMembers int
	cohorts  *kueue.Cohort
	nCohorts int
	partial  bool
}

// quotaTree returns the quota tree of s.ClusterQueue, built once per
// Shared (every call builds it when sh is nil). Trees are never changed
// once built: quotaView keeps what belongs to one evaluation.
func (sh *Shared) quotaTree(s *Snapshot) *quotaTree {
	if sh == nil {
		return buildQuotaTree(s)
	}
	key := treeKey{cq: s.ClusterQueue, nMembers: len(s.CohortClusterQueues), nCohorts: len(s.Cohorts), partial: cohortPartial(s)}
	if len(s.CohortClusterQueues) > 0 {
		key.members = &s.CohortClusterQueues[0]
	}
	if len(s.Cohorts) > 0 {
		key.cohorts = &s.Cohorts[0]
	}
	return load(&sh.trees, key, func() *quotaTree { return buildQuotaTree(s) })
}

// load returns m's value for key, made by build (once, unless two callers
// race: then one value wins and both get it).
func load[K comparable, V any](m *sync.Map, key K, build func() V) V {
	if v, ok := m.Load(key); ok {
		return v.(V)
	}
	v, _ := m.LoadOrStore(key, build())
	return v.(V)
}

// flavorKey is what newFlavorIndex reads of a Snapshot.
type flavorKey struct {
	cq  *kueue.ClusterQueue
	rf  *kueue.ResourceFlavor
	nRF int
}

// flavorIndex returns the ClusterQueue's flavor index, made once per
// Shared (every call makes it when sh is nil). Callers only read it.
func (sh *Shared) flavorIndex(s *Snapshot) *flavorIndex {
	if sh == nil {
		return newFlavorIndex(s)
	}
	key := flavorKey{cq: s.ClusterQueue, nRF: len(s.ResourceFlavors)}
	if len(s.ResourceFlavors) > 0 {
		key.rf = &s.ResourceFlavors[0]
	}
	return load(&sh.flavors, key, func() *flavorIndex { return newFlavorIndex(s) })
}

// requestsKey names what podRequests reads of a pod template: its
// container lists (a store interns them, so equal templates share them).
type requestsKey struct {
	containers, initContainers   *corev1.Container
	nContainers, nInitContainers int
}

// podRequests returns one pod's requests for the pod set's template (a
// copy the caller may change).
func (sh *Shared) podRequests(ps *kueue.PodSet) map[corev1.ResourceName]int64 {
	spec := &ps.Template.Spec
	if sh == nil || spec.Overhead != nil || spec.Resources != nil || len(spec.Containers) == 0 {
		return podRequests(spec)
	}
	key := requestsKey{containers: &spec.Containers[0], nContainers: len(spec.Containers), nInitContainers: len(spec.InitContainers)}
	if len(spec.InitContainers) > 0 {
		key.initContainers = &spec.InitContainers[0]
	}
	if r, ok := sh.requests.Load(key); ok {
		return maps.Clone(r.(map[corev1.ResourceName]int64))
	}
	r := podRequests(spec)
	sh.requests.Store(key, maps.Clone(r))
	return r
}

// quotaMessage returns ParseQuotaMessage(msg). The result's slices are
// shared: callers only read them.
func (sh *Shared) quotaMessage(msg string) ParsedMessage {
	if sh == nil {
		return ParseQuotaMessage(msg)
	}
	return load(&sh.messages, msg, func() ParsedMessage { return ParseQuotaMessage(msg) })
}
