package fetch

import (
	"hash/maphash"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unique"
	"unsafe"
	"weak"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// slimWorkload drops from a stored Workload's pod templates what no part of
// the diagnosis reads and what makes real Workloads large: volumes, and the
// containers' environment, commands, mounts, ports, probes and security
// settings. Kept: everything placement and quota depend on (each
// container's name, image, resources and restart policy; the pod's node
// selector, affinity, tolerations, topology spread, overhead, pod-level
// resources, priority, scheduling gates, resource claims) and the
// template's metadata. A store holds thousands of Workloads for digests, so
// this halves its memory on real clusters; TestSlimmingKeepsVerdicts holds
// every fixture's verdict to the unslimmed one.
func slimWorkload(wl *kueue.Workload) {
	for i := range wl.Spec.PodSets {
		slimPodSpec(&wl.Spec.PodSets[i].Template.Spec)
	}
}

func slimPodSpec(spec *corev1.PodSpec) {
	*spec = corev1.PodSpec{
		Containers:                slimContainers(spec.Containers),
		InitContainers:            slimContainers(spec.InitContainers),
		NodeSelector:              spec.NodeSelector,
		NodeName:                  spec.NodeName,
		Affinity:                  spec.Affinity,
		Tolerations:               spec.Tolerations,
		TopologySpreadConstraints: spec.TopologySpreadConstraints,
		Overhead:                  spec.Overhead,
		Resources:                 spec.Resources,
		PriorityClassName:         spec.PriorityClassName,
		Priority:                  spec.Priority,
		SchedulerName:             spec.SchedulerName,
		SchedulingGates:           spec.SchedulingGates,
		ResourceClaims:            spec.ResourceClaims,
		RuntimeClassName:          spec.RuntimeClassName,
		RestartPolicy:             spec.RestartPolicy,
	}
}

func slimContainers(cs []corev1.Container) []corev1.Container {
	if cs == nil {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = corev1.Container{
			Name:          cs[i].Name,
			Image:         cs[i].Image,
			Resources:     cs[i].Resources,
			RestartPolicy: cs[i].RestartPolicy,
		}
	}
	return out
}

// interner shares equal parts of stored Workloads: most Workloads come from
// a few job templates, so their pod sets, admissions, resource lists,
// flavor assignments, condition messages and metadata strings repeat.
// Stored objects are never modified (Snapshots deep-copy them, or only
// read them), so sharing is safe.
//
// Slices and pointers are shared through weakly held tables (a Workload
// deleted from the store does not keep its pod sets alive); maps, which
// cannot be held weakly, through tables emptied when they reach
// maxInterned entries, so that neither kind grows without bound in a store
// that informers keep current for weeks.
type interner struct {
	mu         sync.Mutex
	seed       maphash.Seed
	lists      boundedTable[string, corev1.ResourceList]
	flavors    boundedTable[string, map[corev1.ResourceName]kueue.ResourceFlavorReference]
	stringMaps boundedTable[string, map[string]string]
	containers weakTable[corev1.Container]
	podSets    weakTable[kueue.PodSet]
	admissions weakTable[kueue.Admission]
	requests   weakTable[kueue.PodSetRequest]
	finalizers weakTable[string]
	jobSpecs   weakTable[batchv1.JobSpec]
	int32s     boundedTable[int32, *int32]
	// bools are the shared false and true.
	bools [2]*bool
}

func newInterner() *interner {
	f, t := false, true
	return &interner{seed: maphash.MakeSeed(), bools: [2]*bool{&f, &t}}
}

// maxInterned bounds a map-valued table: when full it starts over (what
// was shared stays shared).
const maxInterned = 4096

// boundedTable shares values by a key that tells them apart.
type boundedTable[K comparable, V any] struct {
	m map[K]V
}

func (t *boundedTable[K, V]) intern(key K, v V) V {
	if shared, ok := t.m[key]; ok {
		return shared
	}
	if t.m == nil || len(t.m) >= maxInterned {
		t.m = make(map[K]V)
	}
	t.m[key] = v
	return v
}

// weakTable shares equal slices by a hash of their content. Two slices are
// shared only when reflect.DeepEqual holds, so the hash decides how often
// equal slices are found, never whether unequal ones are merged. The table
// holds its slices weakly: an entry whose slice was collected is dropped.
type weakTable[T any] struct {
	m map[uint64][]weakSlice[T]
	// n counts entries, live or not; sweepAt is when to drop dead ones.
	n, sweepAt int
}

type weakSlice[T any] struct {
	p weak.Pointer[T]
	n int
}

// maxBucket bounds how many different slices one hash keeps, so that
// slices that differ only where the hash does not look cost a bounded
// number of comparisons.
const maxBucket = 8

// intern returns a slice equal to s (reflect.DeepEqual) shared with
// earlier ones, or s itself, which later ones will share.
func (t *weakTable[T]) intern(h uint64, s []T) []T {
	if len(s) == 0 {
		return s
	}
	bucket := t.m[h]
	dead := false
	for _, c := range bucket {
		p := c.p.Value()
		if p == nil {
			dead = true
			continue
		}
		if c.n == len(s) {
			if shared := unsafe.Slice(p, c.n); reflect.DeepEqual(shared, s) {
				return shared
			}
		}
	}
	if dead {
		bucket = slices.DeleteFunc(bucket, func(c weakSlice[T]) bool { return c.p.Value() == nil })
		t.n -= len(t.m[h]) - len(bucket)
	}
	if len(bucket) < maxBucket {
		if t.m == nil {
			t.m = map[uint64][]weakSlice[T]{}
		}
		s = s[:len(s):len(s)]
		t.m[h] = append(bucket, weakSlice[T]{p: weak.Make(&s[0]), n: len(s)})
		t.n++
	} else {
		t.m[h] = bucket
	}
	if t.n > t.sweepAt {
		t.sweep()
	}
	return s
}

// sweep drops the entries whose slices were collected.
func (t *weakTable[T]) sweep() {
	t.n = 0
	for h, bucket := range t.m {
		bucket = slices.DeleteFunc(bucket, func(c weakSlice[T]) bool { return c.p.Value() == nil })
		if len(bucket) == 0 {
			delete(t.m, h)
			continue
		}
		t.m[h] = bucket
		t.n += len(bucket)
	}
	t.sweepAt = max(2*t.n, 1024)
}

// internPtr shares *p like a one-element slice.
func internPtr[T any](t *weakTable[T], h uint64, p *T) *T {
	if p == nil {
		return nil
	}
	return &t.intern(h, unsafe.Slice(p, 1))[0]
}

// str interns a string (unique keeps one copy of each, and drops it when
// no longer used).
func str[S ~string](s S) S {
	if s == "" {
		return s
	}
	return S(unique.Make(string(s)).Value())
}

// workload shares wl's parts with earlier Workloads and copies its own
// small parts into a (see arena).
func (in *interner) workload(wl *kueue.Workload, a *arena) {
	in.mu.Lock()
	defer in.mu.Unlock()
	dropOwnerLabel(wl)
	a.ownStrings(&wl.ObjectMeta)
	wl.OwnerReferences = slice(&a.refs, wl.OwnerReferences)
	wl.Status.Conditions = slice(&a.conds, wl.Status.Conditions)
	in.objectMeta(&wl.ObjectMeta)
	wl.Spec.QueueName = str(wl.Spec.QueueName)
	wl.Spec.Priority = in.int32Ptr(wl.Spec.Priority)
	wl.Spec.Active = in.boolPtr(wl.Spec.Active)
	for i := range wl.Spec.PodSets {
		ps := &wl.Spec.PodSets[i]
		ps.Name = str(ps.Name)
		ps.MinCount = in.int32Ptr(ps.MinCount)
		in.podTemplate(&ps.Template)
	}
	wl.Spec.PodSets = in.podSets.intern(in.podSetsHash(wl.Spec.PodSets), wl.Spec.PodSets)
	for i := range wl.Status.ResourceRequests {
		r := &wl.Status.ResourceRequests[i]
		r.Name = str(r.Name)
		r.Resources = in.list(r.Resources)
	}
	wl.Status.ResourceRequests = in.requests.intern(in.requestsHash(wl.Status.ResourceRequests), wl.Status.ResourceRequests)
	if a := wl.Status.Admission; a != nil {
		a.ClusterQueue = str(a.ClusterQueue)
		for i := range a.PodSetAssignments {
			psa := &a.PodSetAssignments[i]
			psa.Name = str(psa.Name)
			psa.ResourceUsage = in.list(psa.ResourceUsage)
			psa.Flavors = in.flavorMap(psa.Flavors)
			psa.Count = in.int32Ptr(psa.Count)
		}
		wl.Status.Admission = internPtr(&in.admissions, in.admissionHash(a), a)
	}
	for i := range wl.Status.Conditions {
		c := &wl.Status.Conditions[i]
		c.Type, c.Status, c.Reason, c.Message = str(c.Type), str(c.Status), str(c.Reason), str(c.Message)
	}
}

// job makes the store's record of a batch Job (after slimPodSpec): its
// labels (the queue name), metadata strings and conditions are interned,
// and its spec, once the labels derived from its name and UID are out of
// it, is shared with every equal one (jobRecord).
func (in *interner) job(j *batchv1.Job, a *arena, r *jobRecord) {
	in.mu.Lock()
	defer in.mu.Unlock()
	a.ownStrings(&j.ObjectMeta)
	j.OwnerReferences = slice(&a.refs, j.OwnerReferences)
	in.objectMeta(&j.ObjectMeta)
	j.Labels = in.stringMap(j.Labels)
	j.Annotations = in.stringMap(j.Annotations)
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		c.Type, c.Status, c.Reason, c.Message = batchv1.JobConditionType(str(string(c.Type))), corev1.ConditionStatus(str(string(c.Status))), str(c.Reason), str(c.Message)
	}
	r.fill(j)
	spec := r.spec
	in.podTemplate(&spec.Template)
	if sel := spec.Selector; sel != nil {
		sel.MatchLabels = in.stringMap(sel.MatchLabels)
	}
	spec.Parallelism = in.int32Ptr(spec.Parallelism)
	spec.Completions = in.int32Ptr(spec.Completions)
	spec.BackoffLimit = in.int32Ptr(spec.BackoffLimit)
	spec.Suspend = in.boolPtr(spec.Suspend)
	spec.ManualSelector = in.boolPtr(spec.ManualSelector)
	r.spec = internPtr(&in.jobSpecs, in.specHash(spec), spec)
}

// podTemplate shares a slimmed pod template's repeated parts: its labels
// and annotations, node selector, containers and strings.
func (in *interner) podTemplate(t *corev1.PodTemplateSpec) {
	in.objectMeta(&t.ObjectMeta)
	t.Labels = in.stringMap(t.Labels)
	t.Annotations = in.stringMap(t.Annotations)
	spec := &t.Spec
	spec.NodeSelector = in.stringMap(spec.NodeSelector)
	spec.Containers = in.containerList(spec.Containers)
	spec.InitContainers = in.containerList(spec.InitContainers)
	spec.PriorityClassName = str(spec.PriorityClassName)
	spec.SchedulerName = str(spec.SchedulerName)
	spec.RestartPolicy = str(spec.RestartPolicy)
	spec.Overhead = in.list(spec.Overhead)
}

// objectMeta interns the strings that repeat across objects: namespace,
// owners' API versions and kinds, and finalizers. Names and UIDs are each
// object's own.
func (in *interner) objectMeta(m *metav1.ObjectMeta) {
	m.Namespace = str(m.Namespace)
	m.GenerateName = str(m.GenerateName)
	for i := range m.OwnerReferences {
		ref := &m.OwnerReferences[i]
		ref.APIVersion, ref.Kind = str(ref.APIVersion), str(ref.Kind)
		ref.Controller, ref.BlockOwnerDeletion = in.boolPtr(ref.Controller), in.boolPtr(ref.BlockOwnerDeletion)
	}
	if len(m.Finalizers) > 0 {
		h := in.hash()
		for i, f := range m.Finalizers {
			m.Finalizers[i] = str(f)
			h.WriteString(f)
			h.WriteByte(0)
		}
		m.Finalizers = in.finalizers.intern(h.Sum64(), m.Finalizers)
	}
}

// dropOwnerLabel drops a Workload's labels when all they hold is the
// job-uid label and it repeats the UID of one of its ownerReferences, as
// Kueue's own Workloads do: the owner index finds the Workload by that UID
// all the same, and nothing else reads a Workload's labels. A Go map costs
// over 300 bytes, a fifth of a stored Workload, and allocated per Workload
// among the short-lived maps of decoding and slimming it keeps a page of
// the heap in use for each.
func dropOwnerLabel(wl *kueue.Workload) {
	uid, ok := wl.Labels[JobUIDLabel]
	if !ok || len(wl.Labels) != 1 {
		return
	}
	for _, ref := range wl.OwnerReferences {
		if string(ref.UID) == uid {
			wl.Labels = nil
			return
		}
	}
}

// arena holds, for one batch of Workloads added together, the arrays their
// own strings, conditions and ownerReferences are copied into. Decoding a
// Workload, or copying a caller's, leaves these small values scattered
// among the short-lived allocations of decoding and slimming, and each of
// them would keep a page of the heap in use once those are freed; copied
// into a few arrays they fill their pages. The arrays live as long as any
// Workload of the batch (as a LIST page's items do): a batch is what one
// LIST, one set of files or one AddObjects call added, and an informer's
// update is a batch of one.
type arena struct {
	str   strings.Builder
	conds []metav1.Condition
	refs  []metav1.OwnerReference
}

// newArena sizes an arena for the Workloads and Jobs of these metadata,
// and the Workloads' conds conditions.
func newArena(metas []*metav1.ObjectMeta, conds int) *arena {
	var strs, refs int
	for _, m := range metas {
		strs += ownStringsLen(m)
		refs += len(m.OwnerReferences)
	}
	a := &arena{conds: make([]metav1.Condition, 0, conds), refs: make([]metav1.OwnerReference, 0, refs)}
	a.str.Grow(strs)
	return a
}

func ownStringsLen(m *metav1.ObjectMeta) int {
	n := len(m.Name) + len(m.UID) + len(m.ResourceVersion)
	for _, v := range m.Labels {
		n += len(v)
	}
	for _, v := range m.Annotations {
		n += len(v)
	}
	for i := range m.OwnerReferences {
		n += len(m.OwnerReferences[i].Name) + len(m.OwnerReferences[i].UID)
	}
	return n
}

// string copies s into the arena. The Builder never modifies what it
// wrote (when it grows, it copies into a new array), so every string
// taken from it stays valid.
func (a *arena) string(s string) string {
	start := a.str.Len()
	a.str.WriteString(s)
	return a.str.String()[start:]
}

// ownStrings copies a Workload's own strings (name, UID, resource version,
// label and annotation values, owners' names and UIDs) into the arena.
func (a *arena) ownStrings(m *metav1.ObjectMeta) {
	m.Name, m.UID, m.ResourceVersion = a.string(m.Name), types.UID(a.string(string(m.UID))), a.string(m.ResourceVersion)
	for k, v := range m.Labels {
		m.Labels[k] = a.string(v)
	}
	for k, v := range m.Annotations {
		m.Annotations[k] = a.string(v)
	}
	for i := range m.OwnerReferences {
		ref := &m.OwnerReferences[i]
		ref.Name, ref.UID = a.string(ref.Name), types.UID(a.string(string(ref.UID)))
	}
}

// slice copies s to the end of *arr and returns the copy, capped so that
// appending to it cannot reach the next one.
func slice[T any](arr *[]T, s []T) []T {
	if len(s) == 0 {
		return s
	}
	start := len(*arr)
	*arr = append(*arr, s...)
	return (*arr)[start:len(*arr):len(*arr)]
}

func (in *interner) hash() *maphash.Hash {
	var h maphash.Hash
	h.SetSeed(in.seed)
	return &h
}

func (in *interner) boolPtr(b *bool) *bool {
	switch {
	case b == nil:
		return nil
	case *b:
		return in.bools[1]
	default:
		return in.bools[0]
	}
}

func (in *interner) int32Ptr(p *int32) *int32 {
	if p == nil {
		return nil
	}
	return in.int32s.intern(*p, p)
}

// stringMap shares labels, annotations and node selectors.
func (in *interner) stringMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return in.stringMaps.intern(b.String(), m)
}

// identity is the address behind a map or slice, for hashing values that
// are interned already (equal ones have one address).
func identity(v any) uint64 {
	rv := reflect.ValueOf(v)
	if rv.IsNil() {
		return 0
	}
	return uint64(uintptr(rv.UnsafePointer()))
}

// podSetsHash hashes what most often tells pod sets apart; weakTable
// compares everything else.
func (in *interner) podSetsHash(pss []kueue.PodSet) uint64 {
	h := in.hash()
	for i := range pss {
		ps := &pss[i]
		h.WriteString(string(ps.Name))
		writeInt(h, int64(ps.Count))
		if ps.MinCount != nil {
			writeInt(h, int64(*ps.MinCount))
		}
		// Maps and container lists are interned first: equal ones are
		// one map or slice.
		spec := &ps.Template.Spec
		for _, v := range []any{ps.Template.Labels, ps.Template.Annotations, spec.NodeSelector, spec.Containers, spec.InitContainers} {
			writeUint(h, identity(v))
		}
		h.WriteString(spec.PriorityClassName)
		writeInt(h, int64(len(spec.Tolerations)))
		h.WriteByte(boolByte(spec.Affinity != nil))
		h.WriteByte(boolByte(ps.TopologyRequest != nil))
	}
	return h.Sum64()
}

func (in *interner) requestsHash(rs []kueue.PodSetRequest) uint64 {
	h := in.hash()
	for i := range rs {
		h.WriteString(string(rs[i].Name))
		writeUint(h, identity(rs[i].Resources))
	}
	return h.Sum64()
}

func (in *interner) admissionHash(a *kueue.Admission) uint64 {
	h := in.hash()
	h.WriteString(string(a.ClusterQueue))
	for i := range a.PodSetAssignments {
		psa := &a.PodSetAssignments[i]
		h.WriteString(string(psa.Name))
		if psa.Count != nil {
			writeInt(h, int64(*psa.Count))
		}
		writeUint(h, identity(psa.ResourceUsage))
		writeUint(h, identity(psa.Flavors))
		h.WriteByte(boolByte(psa.TopologyAssignment != nil))
	}
	return h.Sum64()
}

func writeInt(h *maphash.Hash, v int64) { writeUint(h, uint64(v)) }

func writeUint(h *maphash.Hash, v uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	h.Write(b[:])
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func resourceListKey(rl corev1.ResourceList) string {
	var b strings.Builder
	var buf [8]corev1.ResourceName
	names := buf[:0]
	for name := range rl {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := rl[name]
		b.WriteString(string(name))
		b.WriteByte('=')
		b.WriteString(q.String())
		b.WriteByte(',')
	}
	return b.String()
}

func (in *interner) list(rl corev1.ResourceList) corev1.ResourceList {
	if len(rl) == 0 {
		return rl
	}
	return in.lists.intern(resourceListKey(rl), rl)
}

func (in *interner) flavorMap(m map[corev1.ResourceName]kueue.ResourceFlavorReference) map[corev1.ResourceName]kueue.ResourceFlavorReference {
	if len(m) == 0 {
		return m
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(string(name) + "=" + string(m[name]) + ",")
	}
	return in.flavors.intern(b.String(), m)
}

// containerList shares slimmed container lists (name, image, resources and
// restart policy are all that is left of them).
func (in *interner) containerList(cs []corev1.Container) []corev1.Container {
	if len(cs) == 0 {
		return cs
	}
	h := in.hash()
	for i := range cs {
		c := &cs[i]
		c.Name, c.Image = str(c.Name), str(c.Image)
		c.Resources.Requests, c.Resources.Limits = in.list(c.Resources.Requests), in.list(c.Resources.Limits)
		h.WriteString(c.Name)
		h.WriteByte(0)
		h.WriteString(c.Image)
		h.WriteByte(0)
		writeUint(h, identity(c.Resources.Requests))
		writeUint(h, identity(c.Resources.Limits))
	}
	return in.containers.intern(h.Sum64(), cs)
}
