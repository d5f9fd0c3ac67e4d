package diagnose

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcehelpers "k8s.io/component-helpers/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"

	"github.com/kueuebot/kueuebot/i18n"
)

// podSetRequest is one pod set's request in Kueue units.
type podSetRequest struct {
	name  string
	count int32
	// total is the pod set's total request per resource (per-pod x count).
	total map[corev1.ResourceName]int64
	// perPod is the request of one pod; used to compute how many pods fit.
	perPod map[corev1.ResourceName]int64
	// fromKueue is true when the totals are Kueue's own (status.admission
	// or status.resourceRequests) rather than computed from the template.
	fromKueue bool
	spec      *kueue.PodSet
	// defaulted names, per resource that no container of the template
	// asks for, the LimitRange default that makes up what Kueue counts,
	// e.g. "defaultRequest of LimitRange limits"; set by
	// withLimitRangeDefaults.
	defaulted map[corev1.ResourceName]limitDefault
}

// limitDefault is the field of a LimitRange ("defaultRequest", "default")
// that makes up a resource no container asks for.
type limitDefault struct{ field, limitRange string }

func (p podSetRequest) resources() []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(p.total))
	for r := range p.total {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// workloadRequests returns the Workload's requests per pod set, preferring
// Kueue's own figures: status.admission (reserved), status.resourceRequests
// (pending), and only then the pod templates. sh may be nil.
func workloadRequests(wl *kueue.Workload, sh *Shared) []podSetRequest {
	reclaim := map[kueue.PodSetReference]int32{}
	for _, rp := range wl.Status.ReclaimablePods {
		reclaim[rp.Name] = rp.Count
	}
	out := make([]podSetRequest, 0, len(wl.Spec.PodSets))
	for i := range wl.Spec.PodSets {
		ps := &wl.Spec.PodSets[i]
		count := max(0, ps.Count-reclaim[ps.Name])
		req := podSetRequest{name: string(ps.Name), count: count, spec: ps, perPod: sh.podRequests(ps)}
		assignment, requested := findAssignment(wl, ps.Name), findResourceRequest(wl, ps.Name)
		switch {
		case assignment != nil:
			if assignment.Count != nil {
				req.count = *assignment.Count
			}
			req.total = toValues(assignment.ResourceUsage)
			req.fromKueue = true
		case requested != nil:
			req.total = toValues(requested.Resources)
			req.fromKueue = true
		default:
			req.total = map[corev1.ResourceName]int64{}
			for r, v := range req.perPod {
				req.total[r] = v * int64(count)
			}
		}
		// Per-pod figures from Kueue's totals are more exact than the
		// template (LimitRange defaults, overhead) when they divide evenly.
		if req.count > 0 && req.fromKueue {
			for r, v := range req.total {
				if r == corev1.ResourcePods {
					continue
				}
				req.perPod[r] = v / int64(req.count)
			}
		}
		delete(req.total, corev1.ResourcePods)
		delete(req.perPod, corev1.ResourcePods)
		out = append(out, req)
	}
	return out
}

func findAssignment(wl *kueue.Workload, name kueue.PodSetReference) *kueue.PodSetAssignment {
	if wl.Status.Admission == nil {
		return nil
	}
	for i := range wl.Status.Admission.PodSetAssignments {
		if wl.Status.Admission.PodSetAssignments[i].Name == name {
			return &wl.Status.Admission.PodSetAssignments[i]
		}
	}
	return nil
}

func findResourceRequest(wl *kueue.Workload, name kueue.PodSetReference) *kueue.PodSetRequest {
	for i := range wl.Status.ResourceRequests {
		if wl.Status.ResourceRequests[i].Name == name {
			return &wl.Status.ResourceRequests[i]
		}
	}
	return nil
}

func toValues(rl corev1.ResourceList) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for r, q := range rl {
		if v := value(r, q); v != 0 {
			out[r] = v
		}
	}
	return out
}

// podRequests computes one pod's requests as Kueue does: limits stand in
// for missing requests (pkg/workload UseLimitsAsMissingRequestsInPod), then
// Kubernetes' own PodRequests: pod-level resources when set, else the
// larger of the app containers plus sidecars and the largest init
// container plus the sidecars before it, plus overhead.
func podRequests(spec *corev1.PodSpec) map[corev1.ResourceName]int64 {
	s := spec
	if limitsMissRequests(spec) {
		// Copy only when there is something to fill in: specs are often
		// shared read-only (a store's).
		s = spec.DeepCopy()
		for i := range s.InitContainers {
			limitsAsMissingRequests(&s.InitContainers[i].Resources)
		}
		for i := range s.Containers {
			limitsAsMissingRequests(&s.Containers[i].Resources)
		}
		if s.Resources != nil {
			limitsAsMissingRequests(s.Resources)
		}
	}
	out := map[corev1.ResourceName]int64(resources.NewRequests(resourcehelpers.PodRequests(&corev1.Pod{Spec: *s}, resourcehelpers.PodResourcesOptions{})))
	for r, v := range out {
		if v == 0 {
			delete(out, r)
		}
	}
	return out
}

// limitsMissRequests reports whether a limit of the spec has no request
// (limitsAsMissingRequests would change it).
func limitsMissRequests(spec *corev1.PodSpec) bool {
	miss := func(rr *corev1.ResourceRequirements) bool {
		for r := range rr.Limits {
			if _, ok := rr.Requests[r]; !ok {
				return true
			}
		}
		return false
	}
	for i := range spec.InitContainers {
		if miss(&spec.InitContainers[i].Resources) {
			return true
		}
	}
	for i := range spec.Containers {
		if miss(&spec.Containers[i].Resources) {
			return true
		}
	}
	return spec.Resources != nil && miss(spec.Resources)
}

// limitsAsMissingRequests copies each limit that has no request into the
// requests, as the API server defaults them.
func limitsAsMissingRequests(rr *corev1.ResourceRequirements) {
	for r, q := range rr.Limits {
		if _, ok := rr.Requests[r]; ok {
			continue
		}
		if rr.Requests == nil {
			rr.Requests = corev1.ResourceList{}
		}
		rr.Requests[r] = q
	}
}

// podShare explains one pod's request of r when more than the main
// containers make it up, as Kueue counts it: the largest init container
// when it asks more than the main containers, and the pod overhead a
// RuntimeClass adds. Both are "" when the main containers alone make up
// per, or when the template does not add up to per (LimitRange defaults,
// pod-level resources).
//
// perPod is what one pod asks with the overhead as a sum, e.g. "(2 cpu +
// 500m overhead of RuntimeClass kata)"; why says that an init container
// sets it, e.g. "init container setup asks 6 cpu, more than the main
// containers (2 cpu)".
func podShare(spec *corev1.PodSpec, r corev1.ResourceName, per int64) (perPod, why i18n.Message) {
	if spec == nil || spec.Resources != nil || per <= 0 {
		return i18n.Message{}, i18n.Message{}
	}
	noOverhead := *spec
	noOverhead.Overhead = nil
	withInit := podRequests(&noOverhead)[r]
	mainOnly := noOverhead
	mainOnly.InitContainers = nil
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			mainOnly.InitContainers = append(mainOnly.InitContainers, c) // a sidecar runs with the main containers
		}
	}
	main := podRequests(&mainOnly)[r]
	var overhead int64
	if q, ok := spec.Overhead[r]; ok {
		overhead = value(r, q)
	}
	if withInit+overhead != per || (withInit == main && overhead == 0) {
		return i18n.Message{}, i18n.Message{}
	}
	rn := i18n.Name(string(r))
	if withInit > main {
		init, asks := "", int64(0)
		for _, c := range spec.InitContainers {
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				continue
			}
			one := podRequests(&corev1.PodSpec{Containers: []corev1.Container{c}})[r]
			if one > asks {
				init, asks = c.Name, one
			}
		}
		if init != "" {
			why = msg("diagnose.arith.init", i18n.Name(init), i18n.Qty(fmtQ(r, asks)), rn, i18n.Qty(fmtQ(r, main)))
		}
	}
	if overhead > 0 {
		perPod = msg("diagnose.arith.overhead", i18n.Qty(fmtQ(r, withInit)), rn, i18n.Qty(fmtQ(r, overhead)))
		if spec.RuntimeClassName != nil && *spec.RuntimeClassName != "" {
			perPod = msg("diagnose.arith.overheadRC", i18n.Qty(fmtQ(r, withInit)), rn, i18n.Qty(fmtQ(r, overhead)), i18n.Obj("RuntimeClass", "", *spec.RuntimeClassName))
		}
	}
	return perPod, why
}

// perPodArithmetic is " (N pods × X r)" with what makes up X (podShare)
// when the pod set's template says, and where N comes from (origin, e.g.
// "replicas 3 × numOfHosts 2 of worker group w") when not zero; zero for a
// single pod without either.
func perPodArithmetic(p podSetRequest, r corev1.ResourceName, origin i18n.Message) i18n.Message {
	per := p.perPod[r]
	if per <= 0 {
		return i18n.Message{}
	}
	var spec *corev1.PodSpec
	if p.spec != nil {
		spec = &p.spec.Template.Spec
	}
	sum, why := podShare(spec, r, per)
	if d, ok := p.defaulted[r]; ok && why.IsZero() {
		why = msg("diagnose.arith.defaulted", i18n.Name(d.field), i18n.Obj("LimitRange", "", d.limitRange), i18n.Name(string(r)))
	}
	each := msg("diagnose.qtyRes", i18n.Qty(fmtQ(r, per)), i18n.Name(string(r)))
	if !sum.IsZero() {
		each = sum
	}
	n := i18n.Num(p.count)
	switch {
	case p.count > 1 && !why.IsZero() && !origin.IsZero():
		return msg("diagnose.arith.podsWhyOrigin", n, each, why, origin)
	case p.count > 1 && !origin.IsZero():
		return msg("diagnose.arith.podsOrigin", n, each, origin)
	case p.count > 1 && !why.IsZero():
		return msg("diagnose.arith.podsWhy", n, each, why)
	case p.count > 1:
		return msg("diagnose.arith.pods", n, each)
	case !sum.IsZero() && !why.IsZero():
		return msg("diagnose.arith.sumWhy", sum, why)
	case !sum.IsZero():
		return msg("diagnose.arith.sum", sum)
	case !why.IsZero():
		return msg("diagnose.arith.why", why)
	}
	return i18n.Message{}
}

// withRuntimeOverhead gives each pod set whose template names a
// RuntimeClass the Snapshot holds, and sets no overhead itself, that
// class's overhead.podFixed: Kueue adds it to what it counts
// (pkg/workload handlePodOverhead) but does not store it in the
// Workload's template, so the per-pod arithmetic can name it. The pod sets
// are copied, never changed in place.
func withRuntimeOverhead(reqs []podSetRequest, classes []nodev1.RuntimeClass) []podSetRequest {
	if len(classes) == 0 {
		return reqs
	}
	for i := range reqs {
		ps := reqs[i].spec
		if ps == nil || ps.Template.Spec.RuntimeClassName == nil || len(ps.Template.Spec.Overhead) > 0 {
			continue
		}
		for _, rc := range classes {
			if rc.Name == *ps.Template.Spec.RuntimeClassName && rc.Overhead != nil && len(rc.Overhead.PodFixed) > 0 {
				cp := *ps
				cp.Template.Spec.Overhead = rc.Overhead.PodFixed
				reqs[i].spec = &cp
			}
		}
	}
	return reqs
}

// withLimitRangeDefaults notes, for each pod set of which no container
// asks for a resource (requests or limits), the Container default of a
// LimitRange of the namespace that the API server (and Kueue, when it
// counts) fills in: defaultRequest, else default (a limit, which then
// stands for the request).
func withLimitRangeDefaults(reqs []podSetRequest, lrs []corev1.LimitRange) []podSetRequest {
	if len(lrs) == 0 {
		return reqs
	}
	for i := range reqs {
		ps := reqs[i].spec
		if ps == nil || ps.Template.Spec.Resources != nil {
			continue
		}
		for r := range reqs[i].perPod {
			asked := false
			for _, c := range ps.Template.Spec.Containers {
				_, req := c.Resources.Requests[r]
				_, lim := c.Resources.Limits[r]
				asked = asked || req || lim
			}
			if asked {
				continue
			}
			for _, lr := range lrs {
				for _, item := range lr.Spec.Limits {
					if item.Type != corev1.LimitTypeContainer {
						continue
					}
					field := ""
					if _, ok := item.DefaultRequest[r]; ok {
						field = "defaultRequest"
					} else if _, ok := item.Default[r]; ok {
						field = "default"
					}
					if _, done := reqs[i].defaulted[r]; field != "" && !done {
						if reqs[i].defaulted == nil {
							reqs[i].defaulted = map[corev1.ResourceName]limitDefault{}
						}
						reqs[i].defaulted[r] = limitDefault{field, lr.Name}
					}
				}
			}
		}
	}
	return reqs
}
