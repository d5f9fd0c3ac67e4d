package diagnose

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
)

// fr is a (flavor, resource) pair.
type fr struct {
	flavor   string
	resource corev1.ResourceName
}

// value converts a quantity to Kueue's internal units: millicores for cpu,
// base units for everything else.
func value(r corev1.ResourceName, q resource.Quantity) int64 { return resources.ResourceValue(r, q) }

// quantity converts Kueue units back to a Quantity, formatted as Kueue
// formats it (binary for memory, ephemeral storage and hugepages).
func quantity(r corev1.ResourceName, v int64) resource.Quantity {
	return resources.ResourceQuantity(r, v)
}

func qptr(q resource.Quantity) *resource.Quantity { return &q }

// qnode is a ClusterQueue or Cohort in the quota tree
// (pkg/cache/scheduler/resource_node.go).
type qnode struct {
	name     string
	isCohort bool
	parent   *qnode
	children []*qnode
	nominal  map[fr]int64
	borrow   map[fr]int64 // absent = unlimited
	lend     map[fr]int64 // absent = no lending limit
	use      map[fr]int64 // CQ only: status.flavorsReservation
}

func newNode(name string, cohort bool) *qnode {
	return &qnode{name: name, isCohort: cohort, nominal: map[fr]int64{}, borrow: map[fr]int64{}, lend: map[fr]int64{}, use: map[fr]int64{}}
}

func (n *qnode) addGroups(groups []kueue.ResourceGroup) {
	for _, g := range groups {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				k := fr{string(f.Name), r.Name}
				n.nominal[k] = value(r.Name, r.NominalQuota)
				if r.BorrowingLimit != nil {
					n.borrow[k] = value(r.Name, *r.BorrowingLimit)
				}
				if r.LendingLimit != nil {
					n.lend[k] = value(r.Name, *r.LendingLimit)
				}
			}
		}
	}
}

// quotaView is a quota tree as one Workload's evaluation sees it. The tree
// is never changed once built, so the Snapshots of one store share it
// (Shared): what belongs to one evaluation is kept here instead. That is
// the Workload's own reservation, which is not counted against its
// ClusterQueue, and the limits limitsHolding and raised try as dropped or
// raised.
type quotaView struct {
	*quotaTree
	// self is what the Workload itself holds in the ClusterQueue.
	self map[fr]int64
	// tried replaces limits while they are being tried.
	tried []triedLimit
}

// triedLimit is a borrowingLimit or lendingLimit of one node for one
// flavor and resource, as tried: dropped (unlimited) or set to value.
type triedLimit struct {
	node    *qnode
	k       fr
	lending bool
	dropped bool
	value   int64
}

// limit returns n's borrowingLimit (lending false) or lendingLimit of k,
// and whether it has one.
func (v *quotaView) limit(n *qnode, k fr, lending bool) (int64, bool) {
	for _, t := range v.tried {
		if t.node == n && t.k == k && t.lending == lending {
			return t.value, !t.dropped
		}
	}
	m := n.borrow
	if lending {
		m = n.lend
	}
	l, ok := m[k]
	return l, ok
}

// used is what n's Workloads hold of k: for the ClusterQueue, without the
// Workload's own reservation.
func (v *quotaView) used(n *qnode, k fr) int64 {
	if n == v.cq {
		return max(0, n.use[k]-v.self[k])
	}
	return n.use[k]
}

func (v *quotaView) subtree(n *qnode, k fr) int64 {
	s := n.nominal[k]
	if !n.isCohort {
		return s
	}
	for _, c := range n.children {
		s += v.subtree(c, k) - v.local(c, k)
	}
	return s
}

func (v *quotaView) local(n *qnode, k fr) int64 {
	l, ok := v.limit(n, k, true)
	if !ok {
		return 0
	}
	return max(0, v.subtree(n, k)-l)
}

func (v *quotaView) usage(n *qnode, k fr) int64 {
	if !n.isCohort {
		return v.used(n, k)
	}
	var u int64
	for _, c := range n.children {
		u += max(0, v.usage(c, k)-v.local(c, k))
	}
	return u
}

// available is what node n may take now, within every borrowing and
// lending limit of the tree.
func (v *quotaView) available(n *qnode, k fr) int64 {
	if n.parent == nil {
		return v.subtree(n, k) - v.usage(n, k)
	}
	fromParent := v.available(n.parent, k)
	if b, ok := v.limit(n, k, false); ok {
		stored := v.subtree(n, k) - v.local(n, k)
		usedInParent := max(0, v.usage(n, k)-v.local(n, k))
		fromParent = min(fromParent, stored-usedInParent+b)
	}
	return max(0, v.local(n, k)-v.usage(n, k)) + fromParent
}

func (v *quotaView) potential(n *qnode, k fr) int64 {
	if n.parent == nil {
		return v.subtree(n, k)
	}
	p := v.local(n, k) + v.potential(n.parent, k)
	if b, ok := v.limit(n, k, false); ok {
		p = min(p, v.subtree(n, k)+b)
	}
	return p
}

// free is what the ClusterQueue may take of k now.
func (v *quotaView) free(k fr) int64 { return v.available(v.cq, k) }

// most is the most the ClusterQueue could ever hold of k.
func (v *quotaView) most(k fr) int64 { return v.potential(v.cq, k) }

// reserved is what the ClusterQueue's other Workloads hold of k.
func (v *quotaView) reserved(k fr) int64 { return v.used(v.cq, k) }

// quotaTree is the quota model of one ClusterQueue and its cohort tree.
type quotaTree struct {
	cq *qnode
	// nodes are every ClusterQueue and Cohort of the tree, the CQ first.
	nodes []*qnode
	// partial is set when cohort members could not be read, so borrowable
	// quota is unknown (figures are then the ClusterQueue's own).
	partial bool
	// cycle names the cohort where a parent cycle was found.
	cycle string
}

// buildQuotaTree builds the tree for s.ClusterQueue from the Snapshot's
// queue objects alone (nothing of the Workload), so that it can be shared.
func buildQuotaTree(s *Snapshot) *quotaTree {
	cq := s.ClusterQueue
	t := &quotaTree{}
	cqNodes := map[string]*qnode{}
	mk := func(c *kueue.ClusterQueue) *qnode {
		n := newNode(c.Name, false)
		n.addGroups(c.Spec.ResourceGroups)
		for _, f := range c.Status.FlavorsReservation {
			for _, r := range f.Resources {
				n.use[fr{string(f.Name), r.Name}] += value(r.Name, r.Total)
			}
		}
		return n
	}
	t.cq = mk(cq)
	t.nodes = append(t.nodes, t.cq)
	cqNodes[cq.Name] = t.cq
	cohortName := string(cq.Spec.CohortName)
	if cohortName == "" {
		return t
	}
	// Without the other members, or without the Cohort objects (their own
	// quota and limits), what may be borrowed is unknown, not zero.
	t.partial = cohortPartial(s)
	cohorts := map[string]*qnode{}
	cohortObj := map[string]*kueue.Cohort{}
	for i := range s.Cohorts {
		cohortObj[s.Cohorts[i].Name] = &s.Cohorts[i]
	}
	getCohort := func(name string) *qnode {
		if n, ok := cohorts[name]; ok {
			return n
		}
		n := newNode(name, true)
		cohorts[name] = n
		t.nodes = append(t.nodes, n)
		if o := cohortObj[name]; o != nil {
			n.addGroups(o.Spec.ResourceGroups)
		}
		return n
	}
	// Walk parents from the CQ's cohort, detecting cycles.
	seen := map[string]bool{}
	for name := cohortName; name != ""; {
		if seen[name] {
			t.cycle = name
			// Kueue treats the ClusterQueue as inactive; compute its own figures.
			t.cq.parent = nil
			return t
		}
		seen[name] = true
		getCohort(name)
		if o := cohortObj[name]; o != nil {
			name = string(o.Spec.ParentName)
		} else {
			name = ""
		}
	}
	// Attach every known cohort and ClusterQueue to its parent.
	names := make([]string, 0, len(cohortObj))
	for name := range cohortObj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		getCohort(name)
	}
	cohortNames := make([]string, 0, len(cohorts))
	for name := range cohorts {
		cohortNames = append(cohortNames, name)
	}
	sort.Strings(cohortNames)
	for _, name := range cohortNames {
		n := cohorts[name]
		if o := cohortObj[name]; o != nil && o.Spec.ParentName != "" {
			p := getCohort(string(o.Spec.ParentName))
			n.parent = p
			p.children = append(p.children, n)
		}
	}
	members := append([]kueue.ClusterQueue(nil), s.CohortClusterQueues...)
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	attach := func(n *qnode, cohort string) {
		if cohort == "" {
			return
		}
		p := getCohort(cohort)
		n.parent = p
		p.children = append(p.children, n)
	}
	attach(t.cq, cohortName)
	for i := range members {
		m := &members[i]
		if m.Name == cq.Name {
			continue
		}
		if _, dup := cqNodes[m.Name]; dup {
			continue
		}
		n := mk(m)
		cqNodes[m.Name] = n
		t.nodes = append(t.nodes, n)
		attach(n, string(m.Spec.CohortName))
	}
	return t
}

// cohortPartial reports whether the cohort's figures are incomplete: the
// other members, or the Cohort objects (their own quota and limits), could
// not be read, so what may be borrowed is unknown, not zero.
func cohortPartial(s *Snapshot) bool {
	return (len(s.CohortClusterQueues) == 0 && hasGap(s, "ClusterQueue", "")) || hasGap(s, "Cohort", "")
}

// hasGap reports whether a read of kind (and name, if non-empty) failed.
func hasGap(s *Snapshot, kind, name string) bool {
	for _, g := range s.Gaps {
		if g.Kind == kind && (name == "" || g.Name == name || g.Name == "") {
			return true
		}
	}
	return false
}

// quotaLimit is one borrowingLimit or lendingLimit of a ClusterQueue or
// Cohort for one flavor and resource.
type quotaLimit struct {
	node    *qnode
	lending bool
	value   int64
}

// limitsHolding returns the limits that keep capacity that lies idle in the
// cohort tree from the ClusterQueue, when without them need of k would be
// available: the CQ's and its ancestors' borrowingLimits, and the
// lendingLimits of everything else (what a lender keeps for itself). When
// one limit alone holds it back, only those that do are returned; else all
// that raise what is available. Nil means the capacity is really taken.
func (v *quotaView) limitsHolding(k fr, need int64) []quotaLimit {
	return v.limitsOn(k, need, v.free)
}

// limitsCapping is limitsHolding for the most the ClusterQueue could ever
// hold: the limits without which need of k would fit the cohort's
// capacity, e.g. the only lender's lendingLimit of 0.
func (v *quotaView) limitsCapping(k fr, need int64) []quotaLimit {
	return v.limitsOn(k, need, v.most)
}

// limitsOn finds the limits that keep need of k out of what measure (free
// now or most ever) gives.
func (v *quotaView) limitsOn(k fr, need int64, measure func(fr) int64) []quotaLimit {
	if v.cq.parent == nil || measure(k) >= need {
		return nil
	}
	var cands []quotaLimit
	onPath := map[*qnode]bool{}
	for n := v.cq; n != nil; n = n.parent {
		onPath[n] = true
		if b, ok := n.borrow[k]; ok && n.parent != nil {
			cands = append(cands, quotaLimit{node: n, value: b})
		}
	}
	for _, n := range v.nodes {
		if l, ok := n.lend[k]; ok && !onPath[n] {
			cands = append(cands, quotaLimit{node: n, lending: true, value: l})
		}
	}
	without := func(ls []quotaLimit) int64 {
		for _, l := range ls {
			v.tried = append(v.tried, triedLimit{node: l.node, k: k, lending: l.lending, dropped: true})
		}
		defer func() { v.tried = v.tried[:0] }()
		return measure(k)
	}
	if len(cands) == 0 || without(cands) < need {
		return nil
	}
	base := measure(k)
	var alone, raising []quotaLimit
	for _, c := range cands {
		switch got := without([]quotaLimit{c}); {
		case got >= need:
			alone = append(alone, c)
		case got > base:
			raising = append(raising, c)
		}
	}
	switch {
	case len(alone) > 0:
		return alone
	case len(raising) > 0:
		return raising
	}
	return cands
}

// raised returns how far the limit must rise for need of k to be
// available, with the other limits as they are; ok is false when raising it
// alone is not enough.
func (v *quotaView) raised(l quotaLimit, k fr, need int64) (int64, bool) {
	return v.raisedOn(l, k, need, v.free)
}

// raisedEver is raised for the most the ClusterQueue could ever hold.
func (v *quotaView) raisedEver(l quotaLimit, k fr, need int64) (int64, bool) {
	return v.raisedOn(l, k, need, v.most)
}

// uncapped is the most the ClusterQueue could hold of k without the
// limits ls.
func (v *quotaView) uncapped(k fr, ls []quotaLimit) int64 {
	for _, l := range ls {
		v.tried = append(v.tried, triedLimit{node: l.node, k: k, lending: l.lending, dropped: true})
	}
	defer func() { v.tried = v.tried[:0] }()
	return v.most(k)
}

func (v *quotaView) raisedOn(l quotaLimit, k fr, need int64, measure func(fr) int64) (int64, bool) {
	short := need - measure(k)
	if short <= 0 {
		return l.value, true
	}
	want := l.value + short
	v.tried = append(v.tried, triedLimit{node: l.node, k: k, lending: l.lending, value: want})
	defer func() { v.tried = v.tried[:0] }()
	if measure(k) >= need {
		return want, true
	}
	return 0, false
}

// holders lists the ClusterQueues of the tree that hold k now, the
// ClusterQueue itself first, then by what they hold.
func (v *quotaView) holders(k fr) []*qnode {
	var out []*qnode
	for _, n := range v.nodes {
		if !n.isCohort && v.used(n, k) > 0 {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i] == v.cq) != (out[j] == v.cq) {
			return out[i] == v.cq
		}
		return v.used(out[i], k) > v.used(out[j], k)
	})
	return out
}
