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

func (n *qnode) subtree(k fr) int64 {
	if !n.isCohort {
		return n.nominal[k]
	}
	s := n.nominal[k]
	for _, c := range n.children {
		s += c.subtree(k) - c.local(k)
	}
	return s
}

func (n *qnode) local(k fr) int64 {
	l, ok := n.lend[k]
	if !ok {
		return 0
	}
	return max(0, n.subtree(k)-l)
}

func (n *qnode) usage(k fr) int64 {
	if !n.isCohort {
		return n.use[k]
	}
	var u int64
	for _, c := range n.children {
		u += max(0, c.usage(k)-c.local(k))
	}
	return u
}

// available is what node n may take now, within every borrowing and
// lending limit of the tree.
func (n *qnode) available(k fr) int64 {
	if n.parent == nil {
		return n.subtree(k) - n.usage(k)
	}
	fromParent := n.parent.available(k)
	if b, ok := n.borrow[k]; ok {
		stored := n.subtree(k) - n.local(k)
		usedInParent := max(0, n.usage(k)-n.local(k))
		fromParent = min(fromParent, stored-usedInParent+b)
	}
	return max(0, n.local(k)-n.usage(k)) + fromParent
}

func (n *qnode) potential(k fr) int64 {
	if n.parent == nil {
		return n.subtree(k)
	}
	p := n.local(k) + n.parent.potential(k)
	if b, ok := n.borrow[k]; ok {
		p = min(p, n.subtree(k)+b)
	}
	return p
}

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

// buildQuotaTree builds the tree for s.ClusterQueue. self, when non-nil, is
// subtracted from the ClusterQueue's usage (the Workload's own reservation).
func buildQuotaTree(s *Snapshot, self map[fr]int64) *quotaTree {
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
	for k, v := range self {
		t.cq.use[k] = max(0, t.cq.use[k]-v)
	}
	cqNodes[cq.Name] = t.cq
	cohortName := string(cq.Spec.CohortName)
	if cohortName == "" {
		return t
	}
	// Without the other members, or without the Cohort objects (their own
	// quota and limits), what may be borrowed is unknown, not zero.
	if (len(s.CohortClusterQueues) == 0 && hasGap(s, "ClusterQueue", "")) || hasGap(s, "Cohort", "") {
		t.partial = true
	}
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
func (t *quotaTree) limitsHolding(k fr, need int64) []quotaLimit {
	if t.cq.parent == nil || t.cq.available(k) >= need {
		return nil
	}
	var cands []quotaLimit
	onPath := map[*qnode]bool{}
	for n := t.cq; n != nil; n = n.parent {
		onPath[n] = true
		if b, ok := n.borrow[k]; ok && n.parent != nil {
			cands = append(cands, quotaLimit{node: n, value: b})
		}
	}
	for _, n := range t.nodes {
		if l, ok := n.lend[k]; ok && !onPath[n] {
			cands = append(cands, quotaLimit{node: n, lending: true, value: l})
		}
	}
	without := func(ls []quotaLimit) int64 {
		for _, l := range ls {
			l.drop(k)
		}
		defer func() {
			for _, l := range ls {
				l.restore(k)
			}
		}()
		return t.cq.available(k)
	}
	if len(cands) == 0 || without(cands) < need {
		return nil
	}
	base := t.cq.available(k)
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

func (l quotaLimit) drop(k fr) {
	if l.lending {
		delete(l.node.lend, k)
	} else {
		delete(l.node.borrow, k)
	}
}

func (l quotaLimit) restore(k fr) {
	if l.lending {
		l.node.lend[k] = l.value
	} else {
		l.node.borrow[k] = l.value
	}
}

// raised returns how far the limit must rise for need of k to be
// available, with the other limits as they are; ok is false when raising it
// alone is not enough.
func (t *quotaTree) raised(l quotaLimit, k fr, need int64) (int64, bool) {
	short := need - t.cq.available(k)
	if short <= 0 {
		return l.value, true
	}
	defer l.restore(k)
	for _, v := range []int64{l.value + short} {
		m := l.node.borrow
		if l.lending {
			m = l.node.lend
		}
		m[k] = v
		if t.cq.available(k) >= need {
			return v, true
		}
	}
	return 0, false
}

// holders lists the ClusterQueues of the tree that hold k now, the
// ClusterQueue itself first, then by what they hold.
func (t *quotaTree) holders(k fr) []*qnode {
	var out []*qnode
	for _, n := range t.nodes {
		if !n.isCohort && n.use[k] > 0 {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i] == t.cq) != (out[j] == t.cq) {
			return out[i] == t.cq
		}
		return out[i].use[k] > out[j].use[k]
	})
	return out
}
