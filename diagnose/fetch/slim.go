package fetch

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"unique"

	corev1 "k8s.io/api/core/v1"
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
// a few job templates, so their containers, resource lists, flavor
// assignments and condition messages repeat. Stored objects are never
// modified (Snapshots copy them, or only read them), so sharing is safe.
type interner struct {
	mu         sync.Mutex
	lists      map[string]corev1.ResourceList
	flavors    map[string]map[corev1.ResourceName]kueue.ResourceFlavorReference
	containers map[string][]corev1.Container
}

func newInterner() *interner {
	return &interner{
		lists:      map[string]corev1.ResourceList{},
		flavors:    map[string]map[corev1.ResourceName]kueue.ResourceFlavorReference{},
		containers: map[string][]corev1.Container{},
	}
}

func (in *interner) workload(wl *kueue.Workload) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range wl.Spec.PodSets {
		spec := &wl.Spec.PodSets[i].Template.Spec
		spec.Containers = in.containerList(spec.Containers)
		spec.InitContainers = in.containerList(spec.InitContainers)
	}
	for i := range wl.Status.ResourceRequests {
		wl.Status.ResourceRequests[i].Resources = in.list(wl.Status.ResourceRequests[i].Resources)
	}
	if a := wl.Status.Admission; a != nil {
		for i := range a.PodSetAssignments {
			psa := &a.PodSetAssignments[i]
			psa.ResourceUsage = in.list(psa.ResourceUsage)
			psa.Flavors = in.flavorMap(psa.Flavors)
		}
	}
	for i := range wl.Status.Conditions {
		c := &wl.Status.Conditions[i]
		c.Message, c.Reason = unique.Make(c.Message).Value(), unique.Make(c.Reason).Value()
	}
}

func resourceListKey(rl corev1.ResourceList) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(rl)) {
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
	key := resourceListKey(rl)
	if shared, ok := in.lists[key]; ok {
		return shared
	}
	in.lists[key] = rl
	return rl
}

func (in *interner) flavorMap(m map[corev1.ResourceName]kueue.ResourceFlavorReference) map[corev1.ResourceName]kueue.ResourceFlavorReference {
	if len(m) == 0 {
		return m
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(string(name) + "=" + string(m[name]) + ",")
	}
	key := b.String()
	if shared, ok := in.flavors[key]; ok {
		return shared
	}
	in.flavors[key] = m
	return m
}

// containerList shares slimmed container lists (name, image, resources and
// restart policy are all that is left of them).
func (in *interner) containerList(cs []corev1.Container) []corev1.Container {
	if len(cs) == 0 {
		return cs
	}
	var b strings.Builder
	for i := range cs {
		c := &cs[i]
		c.Resources.Requests, c.Resources.Limits = in.list(c.Resources.Requests), in.list(c.Resources.Limits)
		b.WriteString(c.Name + "\x00" + c.Image + "\x00" + resourceListKey(c.Resources.Requests) + "\x00" + resourceListKey(c.Resources.Limits) + "\x00")
		if c.RestartPolicy != nil {
			b.WriteString(string(*c.RestartPolicy))
		}
		if len(c.Resources.Claims) > 0 {
			return cs // rare: not shared
		}
		b.WriteByte('\x01')
	}
	key := b.String()
	if shared, ok := in.containers[key]; ok {
		return shared
	}
	in.containers[key] = cs
	return cs
}
