package diagnose

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// fitLevel orders how well a pod set fits a flavor.
type fitLevel int

const (
	fitIneligible fitLevel = iota // the flavor cannot take the pod set at all
	fitNever                      // above maximum capacity
	fitLater                      // within maximum capacity, not free now
	fitNow                        // free now
)

// flavorFit is the evaluation of one pod set in one flavor of one resource
// group.
type flavorFit struct {
	flavor string
	level  fitLevel
	inel   *ineligibility
	// borrowOnly: it does not fit now only because borrowing or lending
	// limits keep idle capacity of the cohort out; limits names them per
	// resource.
	borrowOnly bool
	limits     map[corev1.ResourceName][]quotaLimit
	// maxNow and maxEver are how many pods of the pod set would fit now and
	// ever in this flavor (-1 when unbounded), with the rest of the
	// Workload as it is (sizes).
	maxNow, maxEver int64
	// avail and maxCap are, per resource, what the flavor has free now and
	// can ever hold for the Workload.
	avail, maxCap map[corev1.ResourceName]int64
	// short is, per resource, how much is missing now / ever.
	shortNow, shortEver map[corev1.ResourceName]int64
	// needNow is, per resource short now, what must be available (the
	// pod set plus what earlier pod sets were assumed to take).
	needNow map[corev1.ResourceName]int64
	// prior is, per resource, what earlier pod sets of the Workload take in
	// this flavor (Kueue counts them first), and priorBy names them.
	prior   map[corev1.ResourceName]int64
	priorBy map[corev1.ResourceName][]string
}

func (f flavorFit) neededNow(r corev1.ResourceName) int64 { return f.needNow[r] }

// podSetFit is the evaluation of one pod set.
type podSetFit struct {
	req        podSetRequest
	notCovered []corev1.ResourceName
	// groups holds, per resource group requested, every flavor's fit in CQ
	// order and the index of the flavor Kueue would pick.
	groups []groupFit
	level  fitLevel
}

type groupFit struct {
	flavors []flavorFit
	chosen  int
}

// quotaOutcome is the whole quota evaluation of a Workload in its
// ClusterQueue.
type quotaOutcome struct {
	tree    *quotaView
	podSets []podSetFit
	rows    []QuotaRow
	level   fitLevel
	// missingFlavors are flavors the ClusterQueue references that do not
	// exist (only when flavors were readable).
	missingFlavors []string
}

func (o *quotaOutcome) notCovered() []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, p := range o.podSets {
		out = append(out, p.notCovered...)
	}
	return out
}

// evaluateQuota compares the Workload's requests with every flavor of its
// ClusterQueue, as Kueue's flavor assigner would, but over all flavors.
// It is split as the assigner is: per pod set (podSet), per resource group
// (group: every flavor's fit, then the choice), per flavor (flavor: its
// eligibility and one QuotaRow per resource).
func evaluateQuota(s *Snapshot, wl *kueue.Workload) *quotaOutcome {
	cq := s.ClusterQueue
	e := &quotaEval{
		cq:              cq,
		flavorIndex:     s.Shared.flavorIndex(s),
		flavorsReadable: !hasGap(s, "ResourceFlavor", ""),
		brief:           s.Shared.brief(),
		missing:         map[string]bool{},
		assumed:         map[fr]int64{},
		assumedBy:       map[fr][]string{},
	}
	e.out = &quotaOutcome{tree: &quotaView{quotaTree: s.Shared.quotaTree(s), self: ownUsage(cq, wl)}, level: fitNow}
	reqs := withLimitRangeDefaults(withRuntimeOverhead(workloadRequests(wl, s.Shared), s.RuntimeClasses), s.LimitRanges)
	nRows := 0
	for _, req := range reqs {
		for r := range req.total {
			if gi := groupOf(cq, r); gi >= 0 {
				nRows += len(cq.Spec.ResourceGroups[gi].Flavors)
			}
		}
	}
	if !e.brief {
		e.out.rows = make([]QuotaRow, 0, nRows)
	}
	for i, req := range reqs {
		e.last = i == len(reqs)-1
		pf := e.podSet(req)
		e.out.level = min(e.out.level, pf.level)
		e.out.podSets = append(e.out.podSets, pf)
	}
	e.out.missingFlavors = sortedKeys(e.missing)
	e.out.sizes()
	return e.out
}

// sizes sets, for every pod set and flavor, how many of its pods would fit
// now and ever with the other pod sets of the Workload as they are: those
// that Kueue would place in the same flavor take their share first, before
// or after this one. Pod sets that cannot fit at all are left out, as they
// must change anyway.
func (o *quotaOutcome) sizes() {
	others := func(i int, k fr) int64 {
		var n int64
		for j, q := range o.podSets {
			if j == i || q.level < fitLater {
				continue
			}
			for _, f := range q.chosen() {
				if f.flavor == k.flavor {
					if _, ok := f.avail[k.resource]; ok {
						n += q.req.total[k.resource]
					}
				}
			}
		}
		return n
	}
	for i := range o.podSets {
		p := &o.podSets[i]
		for gi := range p.groups {
			for fi := range p.groups[gi].flavors {
				f := &p.groups[gi].flavors[fi]
				f.maxNow, f.maxEver = -1, -1
				for _, r := range sortedRes(f.avail) {
					per := p.req.perPod[r]
					if per <= 0 {
						continue
					}
					n := others(i, fr{f.flavor, r})
					f.maxNow = minPods(f.maxNow, (f.avail[r]-n)/per)
					f.maxEver = minPods(f.maxEver, (f.maxCap[r]-n)/per)
				}
			}
		}
	}
}

// ownUsage is what the Workload's own admission to cq holds, which its
// evaluation must not count against it.
func ownUsage(cq *kueue.ClusterQueue, wl *kueue.Workload) map[fr]int64 {
	self := map[fr]int64{}
	if wl.Status.Admission == nil || wl.Status.Admission.ClusterQueue != kueue.ClusterQueueReference(cq.Name) {
		return self
	}
	for _, a := range wl.Status.Admission.PodSetAssignments {
		for r, q := range a.ResourceUsage {
			if f, ok := a.Flavors[r]; ok {
				self[fr{string(f), r}] += value(r, q)
			}
		}
	}
	return self
}

// flavorIndex is what evaluateQuota looks up in a ClusterQueue and its
// flavors, the same for all its Workloads (Shared keeps one per
// ClusterQueue).
type flavorIndex struct {
	// rfs are the Snapshot's flavors by name.
	rfs map[string]*kueue.ResourceFlavor
	// labelKeys are, per resource group, the node label keys its flavors
	// use: the assigner matches the pods' node selector and affinity on
	// these only.
	labelKeys []map[string]bool
	// coversPods: some resource group covers the "pods" resource.
	coversPods bool
}

func newFlavorIndex(s *Snapshot) *flavorIndex {
	cq := s.ClusterQueue
	x := &flavorIndex{rfs: make(map[string]*kueue.ResourceFlavor, len(s.ResourceFlavors)), labelKeys: make([]map[string]bool, len(cq.Spec.ResourceGroups))}
	for i := range s.ResourceFlavors {
		x.rfs[s.ResourceFlavors[i].Name] = &s.ResourceFlavors[i]
	}
	for gi, g := range cq.Spec.ResourceGroups {
		if slices.Contains(g.CoveredResources, corev1.ResourcePods) {
			x.coversPods = true
		}
		keys := map[string]bool{}
		for _, f := range g.Flavors {
			if rf := x.rfs[string(f.Name)]; rf != nil {
				for k := range rf.Spec.NodeLabels {
					keys[k] = true
				}
			}
		}
		x.labelKeys[gi] = keys
	}
	return x
}

// quotaEval is one evaluateQuota in progress.
type quotaEval struct {
	cq *kueue.ClusterQueue
	*flavorIndex
	flavorsReadable bool
	out             *quotaOutcome
	// missing collects flavors the ClusterQueue names that do not exist.
	missing map[string]bool
	// assumed is what earlier pod sets took in the flavors chosen for them,
	// assumedBy which pod sets.
	assumed   map[fr]int64
	assumedBy map[fr][]string
	// last is set while the last pod set is evaluated.
	last bool
	// brief leaves the quota rows out (Shared.Brief).
	brief bool
}

// podSet evaluates one pod set: its resources by resource group, a flavor
// chosen in each group, and what that choice takes from later pod sets.
func (e *quotaEval) podSet(req podSetRequest) podSetFit {
	if e.coversPods && req.count > 0 {
		req.total[corev1.ResourcePods] = int64(req.count)
		req.perPod[corev1.ResourcePods] = 1
	}
	pf := podSetFit{req: req, level: fitNow}
	byGroup := make([][]corev1.ResourceName, len(e.cq.Spec.ResourceGroups))
	for _, r := range req.resources() {
		gi := groupOf(e.cq, r)
		if gi < 0 {
			pf.notCovered = append(pf.notCovered, r)
			continue
		}
		byGroup[gi] = append(byGroup[gi], r)
	}
	for gi, res := range byGroup {
		if len(res) == 0 {
			continue
		}
		gf := e.group(gi, req, res)
		if gf.chosen < 0 {
			pf.level = fitIneligible
		} else {
			chosen := gf.flavors[gf.chosen]
			pf.level = min(pf.level, chosen.level)
			if chosen.level < fitLater {
				// Kueue stops at a pod set that cannot fit (NoFit): what
				// it would take is not counted against later pod sets.
				pf.groups = append(pf.groups, gf)
				continue
			}
			for _, r := range res {
				if e.last {
					break // no later pod set to take it from
				}
				k := fr{chosen.flavor, r}
				e.assumed[k] += req.total[r]
				if req.total[r] > 0 {
					e.assumedBy[k] = append(e.assumedBy[k], req.name)
				}
			}
		}
		pf.groups = append(pf.groups, gf)
	}
	return pf
}

// group evaluates every flavor of one resource group for the pod set's
// resources in it, then makes Kueue's choice.
func (e *quotaEval) group(gi int, req podSetRequest, res []corev1.ResourceName) groupFit {
	g := &e.cq.Spec.ResourceGroups[gi]
	keys := e.labelKeys[gi]
	gf := groupFit{chosen: -1, flavors: make([]flavorFit, 0, len(g.Flavors))}
	for _, f := range g.Flavors {
		gf.flavors = append(gf.flavors, e.flavor(string(f.Name), req, res, keys))
	}
	gf.chosen = choose(gf.flavors)
	return gf
}

// choose is Kueue's pick: the first flavor that fits now; otherwise the
// best level, first in order; -1 when there is no flavor.
func choose(flavors []flavorFit) int {
	best := -1
	for i, ff := range flavors {
		if best < 0 || ff.level > flavors[best].level {
			best = i
		}
	}
	return best
}

// flavor evaluates one flavor for the pod set's resources of its group:
// whether the flavor can take the pods at all, and per resource how many
// pods fit now and ever and what is short; it adds one quota row per
// resource to the outcome.
func (e *quotaEval) flavor(name string, req podSetRequest, res []corev1.ResourceName, keys map[string]bool) flavorFit {
	t := e.out.tree
	rf := e.rfs[name]
	var inel *ineligibility
	switch {
	case rf == nil && e.flavorsReadable:
		e.missing[name] = true
		inel = newInel(CauseFlavorNotFound, msg("diagnose.inel.missingNamed", i18n.Obj("ResourceFlavor", "", name)))
	case rf != nil:
		inel = flavorEligibility(req.spec, rf, keys)
	}
	// The maps that stay empty when the pod set fits are made on first
	// use (put): most flavors of most Workloads fit.
	ff := flavorFit{flavor: name, inel: inel, level: fitNow, maxNow: -1, maxEver: -1,
		avail: make(map[corev1.ResourceName]int64, len(res)), maxCap: make(map[corev1.ResourceName]int64, len(res))}
	if inel != nil {
		ff.level = fitIneligible
	}
	limitedOnly := true
	for _, r := range res {
		k := fr{name, r}
		val := e.assumed[k] + req.total[r]
		if e.assumed[k] > 0 {
			put(&ff.prior, r, e.assumed[k])
			put(&ff.priorBy, r, e.assumedBy[k])
		}
		avail := max(0, t.free(k))
		maxCap := t.most(k)
		fitsNow, fitsEver := val <= avail, val <= maxCap
		if !fitsNow {
			put(&ff.shortNow, r, val-avail)
			put(&ff.needNow, r, val)
		}
		if !fitsEver {
			put(&ff.shortEver, r, val-maxCap)
		}
		if !e.brief {
			e.out.rows = append(e.out.rows, e.row(req, name, r, val, avail, maxCap, inel))
		}
		ff.avail[r], ff.maxCap[r] = avail, maxCap
		if inel != nil {
			continue
		}
		switch {
		case !fitsEver:
			ff.level = min(ff.level, fitNever)
		case !fitsNow:
			ff.level = min(ff.level, fitLater)
			if ls := t.limitsHolding(k, val); len(ls) > 0 {
				put(&ff.limits, r, ls)
			} else {
				limitedOnly = false
			}
		}
	}
	ff.borrowOnly = ff.level == fitLater && limitedOnly && len(ff.limits) > 0
	return ff
}

// row is the quota row of one resource of the pod set in one flavor.
func (e *quotaEval) row(req podSetRequest, flavor string, r corev1.ResourceName, val, avail, maxCap int64, inel *ineligibility) QuotaRow {
	t := e.out.tree
	k := fr{flavor, r}
	row := QuotaRow{
		PodSet: req.name, Flavor: flavor, Resource: string(r),
		Requested:   quantity(r, req.total[r]),
		Nominal:     quantity(r, t.cq.nominal[k]),
		Reserved:    quantity(r, t.reserved(k)),
		Available:   quantity(r, avail),
		MaxCapacity: quantity(r, maxCap),
		FitsNow:     val <= avail,
		FitsEver:    val <= maxCap,
		Eligible:    inel == nil,
		Partial:     t.partial,
	}
	if b, ok := t.cq.borrow[k]; ok {
		row.BorrowingLimit = qptr(quantity(r, b))
	}
	if l, ok := t.cq.lend[k]; ok {
		row.LendingLimit = qptr(quantity(r, l))
	}
	if inel != nil {
		row.Ineligible, row.IneligibleMsg = inel.reason, inel.msg
	}
	if !row.FitsNow {
		row.ShortBy = qptr(quantity(r, val-avail))
	}
	return row
}

// put sets (*m)[r], making the map first if needed.
func put[V any](m *map[corev1.ResourceName]V, r corev1.ResourceName, v V) {
	if *m == nil {
		*m = map[corev1.ResourceName]V{}
	}
	(*m)[r] = v
}

func minPods(cur, n int64) int64 {
	n = max(0, n)
	if cur < 0 {
		return n
	}
	return min(cur, n)
}

func groupOf(cq *kueue.ClusterQueue, r corev1.ResourceName) int {
	for i, g := range cq.Spec.ResourceGroups {
		for _, c := range g.CoveredResources {
			if c == r {
				return i
			}
		}
	}
	return -1
}

// chosenFlavors returns, per pod set, the flavor fit Kueue would use in each
// resource group.
func (p podSetFit) chosen() []flavorFit {
	var out []flavorFit
	for _, g := range p.groups {
		if g.chosen >= 0 {
			out = append(out, g.flavors[g.chosen])
		}
	}
	return out
}

// blockedPodSet is a pod set that no flavor of one of its resource groups
// can take at all.
type blockedPodSet struct {
	name string
	// cause is what keeps it out: UntoleratedTaint when some flavor is
	// ruled out only by its taint (a toleration opens it), else
	// NodeAffinityMismatch when the pods select none of the flavors, else
	// FlavorNotFound.
	cause Cause
	// reasons are "flavor f: why", one per flavor of the group.
	reasons []string
	// reasonMsgs are reasons as catalog messages.
	reasonMsgs []i18n.Arg
	// open is the first flavor in the ClusterQueue's order that only an
	// untolerated taint rules out; nil when there is none.
	open *flavorFit
}

// blockedPodSets returns, in the Workload's order, the pod sets that have
// a resource group without an eligible flavor. Kueue's own message names
// only one pod set, and not always this one: after a failed attempt it
// resumes the flavor search where it stopped, so a pod set that fits in
// its first flavor can be reported as not fitting the next one.
func (o *quotaOutcome) blockedPodSets() []blockedPodSet {
	var out []blockedPodSet
	for _, p := range o.podSets {
		for _, g := range p.groups {
			if slices.ContainsFunc(g.flavors, func(f flavorFit) bool { return f.inel == nil }) {
				continue
			}
			b := blockedPodSet{name: p.req.name, cause: CauseFlavorNotFound}
			for i, f := range g.flavors {
				rm := msg("diagnose.inel.flavor", i18n.Name(f.flavor), f.inel.msg)
				b.reasons = append(b.reasons, rm.String())
				b.reasonMsgs = append(b.reasonMsgs, rm)
				switch {
				case f.inel.taintOnly():
					if b.open == nil {
						b.open = &g.flavors[i]
					}
				case f.inel.cause == CauseNodeAffinityMismatch || f.inel.affinityToo:
					if b.cause == CauseFlavorNotFound {
						b.cause = CauseNodeAffinityMismatch
					}
				}
			}
			if b.open != nil {
				b.cause = CauseUntoleratedTaint
			}
			out = append(out, b)
			break // one blocked group is enough to keep the pod set out
		}
	}
	return out
}

// podSetsAt returns the names of the pod sets that fit at level l, in
// the Workload's order.
func (o *quotaOutcome) podSetsAt(l fitLevel) []string {
	var out []string
	for _, p := range o.podSets {
		if p.level == l {
			out = append(out, p.req.name)
		}
	}
	return out
}

// podSetsNotCovered returns the names of the pod sets that request a
// resource no resource group of the ClusterQueue covers.
func (o *quotaOutcome) podSetsNotCovered() []string {
	var out []string
	for _, p := range o.podSets {
		if len(p.notCovered) > 0 {
			out = append(out, p.req.name)
		}
	}
	return out
}
