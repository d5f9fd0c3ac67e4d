package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// Store holds the objects many diagnoses share: filled from dump files
// (AddFiles, AddFS), from paginated LISTs made as one identity
// (ListInto) or from objects in hand (AddObjects). Whatever fills it, every object goes through
// one decoder (the package's runtime.Scheme: core, batch, Kueue v1beta2,
// and Kueue v1beta1 converted by Kueue's own conversion functions; the other
// job kinds of the kind registry as unstructured objects) into one client-go
// cache.Indexer per kind, indexed by namespace, by owner (the
// kueue.x-k8s.io/job-uid label and ownerReferences), by queue and by
// involved object.
//
// Snapshot then builds the diagnose.Snapshot of one target from the store
// alone, with no I/O, by the same selection rules as a live Fetch, so a
// caller classifies thousands of workloads with a few LISTs in all:
//
//	st := fetch.NewStore()
//	// One LIST per kind and namespace, paginated, as the caller.
//	if _, err := st.ListInto(ctx, fetch.Clients{Kube: kube, Kueue: kq, Dynamic: dyn},
//		fetch.ListOptions{Namespaces: namespaces, Jobs: true, Pods: true}); err != nil {
//		return err // the cluster could not be reached
//	}
//	now := time.Now()
//	var notRunning []diagnose.Report
//	for _, wl := range st.Workloads() {
//		s, err := st.Snapshot(fetch.TargetOf(wl, st), now) // the owning job, else the Workload
//		if err != nil {
//			return err
//		}
//		if r := diagnose.Analyze(s); r.Verdict.Stage != diagnose.StageRunning && r.Verdict.Stage != diagnose.StageFinished {
//			notRunning = append(notRunning, r)
//		}
//	}
//
// A LIST that failed (Forbidden, timed out, ...) is remembered, and a
// Snapshot that needs what it would have returned carries the same Gap a
// live read would. A Store is safe for concurrent use.
type Store struct {
	mu       sync.RWMutex
	indexers map[schema.GroupKind]*kindStore
	// listed records, per resource and namespace ("" for cluster-wide),
	// the error of a LIST that failed or a kind that was not read.
	listed map[listKey]error
	// interned shares equal parts of Workloads (slim.go).
	interned *interner
	// kueueNotServed is set when ListInto found that the cluster does not
	// serve Kueue's API: Snapshots then say so, as a live read does.
	kueueNotServed bool
	// clusterScopedByBot is set when ListInto listed the cluster-scoped
	// Kueue kinds as the bot (clusterScopedReads: bot).
	clusterScopedByBot bool
	// kueueConfig is Kueue's own Configuration, when the bot read it
	// (SetKueueConfig): Snapshots of jobs without a Workload use it, as a
	// live read does.
	kueueConfig *diagnose.KueueConfig
	// gen counts writes; derived is rebuilt when it changes.
	gen     uint64
	derived *derived
	// workloads and subjects cache Workloads and Subjects: a digest asks
	// for them each run, and sorting tens of thousands is its largest
	// serial cost.
	workloads perGeneration[*kueue.Workload]
	subjects  perGeneration[Subject]
}

// perGeneration is a list computed from the store, kept for the store
// generation it was computed at.
type perGeneration[T any] struct {
	items []T
	gen   uint64
	set   bool
}

// once returns a copy of c's list, computing it by compute once per store
// generation.
func once[T any](s *Store, c *perGeneration[T], compute func() []T) []T {
	s.mu.RLock()
	items, ok := c.items, c.set && c.gen == s.gen
	gen := s.gen
	s.mu.RUnlock()
	if !ok {
		items = compute()
		s.mu.Lock()
		if s.gen == gen {
			*c = perGeneration[T]{items: items, gen: gen, set: true}
		}
		s.mu.Unlock()
	}
	return slices.Clone(items)
}

// SetKueueConfig gives the store Kueue's Configuration (read as the bot,
// Fetcher.KueueConfig), so that a job without a Workload is classified from
// a store as a live diagnosis classifies it: whether Kueue manages its
// namespace and its framework.
func (s *Store) SetKueueConfig(kc *diagnose.KueueConfig) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kueueConfig = kc
	s.gen++
}

// listKey names one LIST: a resource (e.g. "workloads") in a namespace.
type listKey struct {
	resource  string
	namespace string
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{indexers: map[schema.GroupKind]*kindStore{}, listed: map[listKey]error{}, interned: newInterner()}
}

// Index names of the store's indexers.
const (
	// indexOwner maps a Workload to its job-uid label and the UIDs of its
	// ownerReferences, and a Pod to its controller's UID and its Job
	// controller-uid label (ownerIndex).
	indexOwner = "owner"
	// indexInvolved maps an Event to "namespace/kind/name" of its
	// involved object.
	indexInvolved = "involved"
)

// indexersFor returns the client-go indexes kept for a kind, and the owner
// UIDs of its objects for kinds indexed by owner (nil for other kinds).
func indexersFor(gk schema.GroupKind) (cache.Indexers, func(obj any) []string) {
	idx := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	switch gk {
	case gkWorkload:
		return idx, func(obj any) []string {
			wl := obj.(*kueue.Workload)
			var keys []string
			if uid := wl.Labels[JobUIDLabel]; uid != "" {
				keys = append(keys, uid)
			}
			for _, ref := range wl.OwnerReferences {
				if !slices.Contains(keys, string(ref.UID)) {
					keys = append(keys, string(ref.UID))
				}
			}
			return keys
		}
	case gkPod:
		return idx, func(obj any) []string {
			p := obj.(*corev1.Pod)
			var keys []string
			for _, ref := range p.OwnerReferences {
				if ref.Controller != nil && *ref.Controller {
					keys = append(keys, string(ref.UID))
				}
			}
			if uid := p.Labels[JobControllerUIDLabel]; uid != "" && !slices.Contains(keys, uid) {
				keys = append(keys, uid)
			}
			return keys
		}
	case gkEvent:
		idx[indexInvolved] = func(obj any) ([]string, error) {
			e := obj.(*corev1.Event)
			return []string{e.Namespace + "/" + e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name}, nil
		}
	}
	return idx, nil
}

// indexer returns the kind's objects, creating their store on first use.
func (s *Store) indexer(gk schema.GroupKind) *kindStore {
	s.mu.RLock()
	idx := s.indexers[gk]
	s.mu.RUnlock()
	if idx != nil {
		return idx
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if idx = s.indexers[gk]; idx == nil {
		idx = newKindStore(indexersFor(gk))
		s.indexers[gk] = idx
	}
	return idx
}

// lookup returns the kind's objects, or nil when nothing of that kind was
// added.
func (s *Store) lookup(gk schema.GroupKind) *kindStore {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.indexers[gk]
}

func (s *Store) touch() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// addEntries adds decoded objects in order.
func (s *Store) addEntries(entries []entry) {
	if len(entries) == 0 {
		return
	}
	if slimming {
		s.slim(entries)
	}
	for _, e := range entries {
		// The key function cannot fail on objects with metadata.
		_ = s.indexer(e.gk).Update(e.obj)
	}
	s.touch()
}

// slim shares the repeated parts of the entries' Workloads and batch Jobs
// with the store's (slim.go) and turns the Jobs into records (jobs.go).
func (s *Store) slim(entries []entry) {
	var metas []*metav1.ObjectMeta
	nJobs, conds := 0, 0
	for _, e := range entries {
		switch o := e.obj.(type) {
		case *kueue.Workload:
			metas = append(metas, &o.ObjectMeta)
			conds += len(o.Status.Conditions)
		case *batchv1.Job:
			metas = append(metas, &o.ObjectMeta)
			nJobs++
		}
	}
	a := newArena(metas, conds)
	// A batch's Job records share one array, as its Workloads do.
	records := make([]jobRecord, nJobs)
	for i := range entries {
		switch o := entries[i].obj.(type) {
		case *kueue.Workload:
			s.interned.workload(o, a)
		case *batchv1.Job:
			r := &records[0]
			records = records[1:]
			s.interned.job(o, a, r)
			entries[i].obj = r
		}
	}
}

// AddObjects adds objects in hand (typed, from a typed or dynamic client,
// or unstructured). They are normalized as files are (Kueue v1beta1
// converted, managedFields dropped) and copied first, so the caller may
// keep using them; kinds the diagnosis does not read are ignored.
func (s *Store) AddObjects(objs ...runtime.Object) error {
	entries := make([]entry, 0, len(objs))
	// Workloads are copied into one array, as a LIST's page holds them:
	// copied one by one, each would sit among the short-lived allocations
	// of its slimming and keep them from being returned to the heap.
	n := 0
	for _, o := range objs {
		if _, ok := o.(*kueue.Workload); ok {
			n++
		}
	}
	slab := make([]kueue.Workload, n)
	for _, o := range objs {
		var c runtime.Object
		if wl, ok := o.(*kueue.Workload); ok {
			wl.DeepCopyInto(&slab[0])
			c, slab = &slab[0], slab[1:]
		} else {
			c = o.DeepCopyObject()
		}
		e, keep, err := entryFor(c)
		if err != nil {
			return err
		}
		if keep {
			entries = append(entries, e)
		}
	}
	s.addEntries(entries)
	return nil
}

// entryFor normalizes one object.
func entryFor(obj runtime.Object) (entry, bool, error) {
	out, gk, keep, err := normalize(obj)
	if err != nil {
		name := "(unnamed)"
		if m, merr := meta.Accessor(obj); merr == nil {
			name = m.GetName()
			if m.GetNamespace() != "" {
				name = m.GetNamespace() + "/" + name
			}
		}
		return entry{}, false, fmt.Errorf("%s: %w", name, err)
	}
	return entry{obj: out, gk: gk}, keep, nil
}

// Len returns how many objects the store holds.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, idx := range s.indexers {
		n += len(idx.ListKeys())
	}
	return n
}

// byName sorts objects by namespace, then name.
func byName[T interface {
	GetNamespace() string
	GetName() string
}](a, b T) int {
	if c := cmp.Compare(a.GetNamespace(), b.GetNamespace()); c != 0 {
		return c
	}
	return cmp.Compare(a.GetName(), b.GetName())
}

// all returns every object of a kind, sorted by namespace and name. The
// objects are the store's own: callers must not modify them.
func all[T any, PT interface {
	*T
	GetNamespace() string
	GetName() string
}](s *Store, gk schema.GroupKind) []PT {
	idx := s.lookup(gk)
	if idx == nil {
		return nil
	}
	items := idx.List()
	out := make([]PT, 0, len(items))
	for _, it := range items {
		out = append(out, it.(PT))
	}
	slices.SortFunc(out, byName[PT])
	return out
}

// inNamespace returns the objects of a kind in ns, sorted by name.
func inNamespace[T any, PT interface {
	*T
	GetNamespace() string
	GetName() string
}](s *Store, gk schema.GroupKind, ns string) []PT {
	return byIndex[T, PT](s, gk, cache.NamespaceIndex, ns)
}

// byIndex returns the objects of a kind under one index value, sorted.
func byIndex[T any, PT interface {
	*T
	GetNamespace() string
	GetName() string
}](s *Store, gk schema.GroupKind, index, value string) []PT {
	idx := s.lookup(gk)
	if idx == nil {
		return nil
	}
	items, err := idx.ByIndex(index, value)
	if err != nil {
		return nil
	}
	out := make([]PT, 0, len(items))
	for _, it := range items {
		out = append(out, it.(PT))
	}
	slices.SortFunc(out, byName[PT])
	return out
}

// get returns one object by namespace and name.
func get[T any](s *Store, gk schema.GroupKind, ns, name string) *T {
	idx := s.lookup(gk)
	if idx == nil {
		return nil
	}
	key := name
	if ns != "" {
		key = ns + "/" + name
	}
	obj, ok, err := idx.GetByKey(key)
	if err != nil || !ok {
		return nil
	}
	t, _ := obj.(*T)
	return t
}

// Workloads returns every Workload, sorted by namespace and name. They are
// the store's own objects, whose parts equal Workloads share: read them, do
// not modify them. A Workload whose only label was the job-uid label
// naming one of its owners is kept without labels (docs/decisions.md 22).
func (s *Store) Workloads() []*kueue.Workload {
	return once(s, &s.workloads, func() []*kueue.Workload { return all[kueue.Workload](s, gkWorkload) })
}

// WorkloadsIn returns the Workloads of one namespace, sorted by name.
func (s *Store) WorkloadsIn(namespace string) []*kueue.Workload {
	return inNamespace[kueue.Workload](s, gkWorkload, namespace)
}

// LocalQueues returns every LocalQueue, sorted by namespace and name.
func (s *Store) LocalQueues() []*kueue.LocalQueue {
	return all[kueue.LocalQueue](s, gkLocalQueue)
}

// ClusterQueues returns every ClusterQueue, sorted by name.
func (s *Store) ClusterQueues() []*kueue.ClusterQueue {
	return all[kueue.ClusterQueue](s, gkClusterQueue)
}

// ResourceFlavors returns every ResourceFlavor, sorted by name.
func (s *Store) ResourceFlavors() []*kueue.ResourceFlavor {
	return all[kueue.ResourceFlavor](s, gkFlavor)
}

// Cohorts returns every Cohort object, sorted by name.
func (s *Store) Cohorts() []*kueue.Cohort {
	return all[kueue.Cohort](s, gkCohort)
}

// Objects returns the queue objects and Workloads of the store as the pure
// core's per-queue summaries read them (diagnose.QueueSummaries).
func (s *Store) Objects() diagnose.Objects {
	return diagnose.Objects{
		Workloads:       s.Workloads(),
		LocalQueues:     s.LocalQueues(),
		ClusterQueues:   s.ClusterQueues(),
		ResourceFlavors: s.ResourceFlavors(),
		Cohorts:         s.Cohorts(),
	}
}

// Snapshot builds the Snapshot of t from the store alone (no I/O), by the
// same selection rules as Fetch. Since the store has no
// visibility API, Position and QueueAhead are derived from the pending
// Workloads of the store in the same ClusterQueue, in Kueue's queue order
// (exact when the store holds every namespace of that ClusterQueue).
func (s *Store) Snapshot(t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	return collect(context.Background(), &storeSource{st: s}, t, now)
}

// TargetOf returns what a Workload's owner would ask about: its controlling
// job when that is a supported kind the store holds, else the Workload
// itself.
func TargetOf(wl *kueue.Workload, s *Store) diagnose.Target {
	ref := controllerRef(wl)
	if ref == nil {
		ref = jobOwner(wl)
	}
	if ref != nil {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil {
			if k, ok := kinds.ByGroupKind(gv.WithKind(ref.Kind).GroupKind()); ok && k.Kind != KindWorkload {
				gk := schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}
				if s == nil || s.hasObject(gk, wl.Namespace, ref.Name) {
					return diagnose.Target{Kind: k.Kind, Namespace: wl.Namespace, Name: ref.Name}
				}
			}
		}
	}
	return diagnose.Target{Kind: KindWorkload, Namespace: wl.Namespace, Name: wl.Name}
}

// jobOwner returns the first owner of a Workload that has no controller
// and is a supported job kind other than Pod: LeaderWorkerSet owns its
// groups' Workloads without controlling them. (A pod group's Workload is
// owned by each of its Pods: its target stays the Workload.)
func jobOwner(wl *kueue.Workload) *metav1.OwnerReference {
	for i := range wl.OwnerReferences {
		ref := &wl.OwnerReferences[i]
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil {
			if k, ok := kinds.ByGroupKind(gv.WithKind(ref.Kind).GroupKind()); ok && k.Kind != kinds.Workload && k.Kind != kinds.Pod {
				return ref
			}
		}
	}
	return nil
}

func (s *Store) hasObject(gk schema.GroupKind, ns, name string) bool {
	idx := s.lookup(gk)
	if idx == nil {
		return false
	}
	_, ok, err := idx.GetByKey(ns + "/" + name)
	return err == nil && ok
}

// errNotRead is recorded for a kind the store was asked not to list.
var errNotRead = errors.New("not read for this summary")

// listError returns the recorded error of the LIST that would have held
// resource in ns: the namespace's own, else the cluster-wide one.
func (s *Store) listError(resource, ns string) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err, ok := s.listed[listKey{resource, ns}]; ok && err != nil {
		return err
	}
	if ns != "" {
		if err, ok := s.listed[listKey{resource, ""}]; ok && err != nil {
			return err
		}
	}
	return nil
}

// wasListed reports whether a LIST of resource in ns (or cluster-wide)
// succeeded, so that an object it did not return does not exist.
func (s *Store) wasListed(resource, ns string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err, ok := s.listed[listKey{resource, ns}]; ok && err == nil {
		return true
	}
	err, ok := s.listed[listKey{resource, ""}]
	return ok && err == nil
}

// recordList remembers the outcome of a LIST (nil: it succeeded).
func (s *Store) recordList(resource, ns string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listed[listKey{resource, ns}] = err
}

// derived holds what Snapshots compute from many objects, built once per
// store generation: the ClusterQueues and Cohorts as sorted values, and the
// pending Workloads of each ClusterQueue in Kueue's order.
type derived struct {
	gen           uint64
	clusterQueues []kueue.ClusterQueue
	cohorts       []kueue.Cohort
	order         map[string]*ranking
	// trees holds each ClusterQueue's cohort tree (cohortTree).
	trees map[string]cohortMembers
	// localQueues holds each namespace's LocalQueues, sorted by name.
	localQueues map[string][]kueue.LocalQueue
	// flavors caches, by the names asked for (joined by ","), the
	// flavors found: many Snapshots ask for the same ClusterQueue's.
	flavors sync.Map
}

// cohortMembers is one ClusterQueue's cohort tree, as cohortTree gives it.
type cohortMembers struct {
	cohort  kueue.CohortReference
	members []kueue.ClusterQueue
	cohorts []kueue.Cohort
}

// ranking is one ClusterQueue's pending Workloads in Kueue's order.
type ranking struct {
	items []queued
	// at maps "namespace/name" to an index in items.
	at map[string]int
	// perLQ lists each LocalQueue's ("namespace/name") Workloads, head
	// first.
	perLQ map[string][]diagnose.QueuedWorkload
}

func newRanking(wls []*kueue.Workload) *ranking {
	r := &ranking{items: rankPending(wls), at: map[string]int{}, perLQ: map[string][]diagnose.QueuedWorkload{}}
	for i, it := range r.items {
		r.at[it.Namespace+"/"+it.Name] = i
		key := it.Namespace + "/" + it.LocalQueue
		r.perLQ[key] = append(r.perLQ[key], it.QueuedWorkload)
	}
	return r
}

// position is positionIn over a ranking, in constant time per Workload.
// The Workloads ahead are the ranking's own (read-only) unless clone is set.
func (r *ranking) position(wl *kueue.Workload, clone bool) (*diagnose.Position, []diagnose.QueuedWorkload) {
	i, ok := r.at[wl.Namespace+"/"+wl.Name]
	if !ok {
		return nil, nil
	}
	it := r.items[i]
	pos := &diagnose.Position{InLocalQueue: it.inLocalQueue, InClusterQueue: it.PositionInClusterQueue}
	var ahead []diagnose.QueuedWorkload
	if it.LocalQueue == string(wl.Spec.QueueName) {
		lq := r.perLQ[wl.Namespace+"/"+it.LocalQueue]
		n := min(int(it.inLocalQueue), maxQueueAhead, len(lq))
		if ahead = lq[:n:n]; clone {
			ahead = slices.Clone(ahead)
		}
	}
	return pos, ahead
}

func (s *Store) view() *derived {
	s.mu.RLock()
	d, gen := s.derived, s.gen
	s.mu.RUnlock()
	if d != nil && d.gen == gen {
		return d
	}
	d = &derived{gen: gen, order: map[string]*ranking{}, trees: map[string]cohortMembers{}, localQueues: map[string][]kueue.LocalQueue{}}
	for _, lq := range s.LocalQueues() {
		d.localQueues[lq.Namespace] = append(d.localQueues[lq.Namespace], *lq)
	}
	for _, cq := range s.ClusterQueues() {
		d.clusterQueues = append(d.clusterQueues, *cq)
	}
	for _, co := range s.Cohorts() {
		d.cohorts = append(d.cohorts, *co)
	}
	for i := range d.clusterQueues {
		cq := &d.clusterQueues[i]
		if cq.Spec.CohortName != "" {
			members, tree := cohortTree(cq, d.clusterQueues, d.cohorts)
			d.trees[cq.Name] = cohortMembers{cohort: cq.Spec.CohortName, members: members, cohorts: tree}
		}
	}
	byCQ := map[string][]*kueue.Workload{}
	for _, wl := range s.Workloads() {
		if !isPending(wl) {
			continue
		}
		if lq := get[kueue.LocalQueue](s, gkLocalQueue, wl.Namespace, string(wl.Spec.QueueName)); lq != nil && lq.Spec.ClusterQueue != "" {
			cq := string(lq.Spec.ClusterQueue)
			byCQ[cq] = append(byCQ[cq], wl)
		}
	}
	for cq, wls := range byCQ {
		d.order[cq] = newRanking(wls)
	}
	s.mu.Lock()
	if s.gen == gen {
		s.derived = d
	}
	s.mu.Unlock()
	return d
}
