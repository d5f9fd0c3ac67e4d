package diagnose

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// fr is a (flavor, resource) pair.
type fr struct {
	flavor   string
	resource corev1.ResourceName
}

// value converts a quantity to Kueue's internal units: millicores for cpu,
// base units for everything else (pkg/resources/requests.go ResourceValue).
func value(r corev1.ResourceName, q resource.Quantity) int64 {
	if r == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// quantity converts Kueue units back to a Quantity in the usual format.
func quantity(r corev1.ResourceName, v int64) resource.Quantity {
	if r == corev1.ResourceCPU {
		q := resource.NewMilliQuantity(v, resource.DecimalSI)
		return *q
	}
	name := string(r)
	if strings.Contains(name, "memory") || strings.Contains(name, "storage") || strings.HasPrefix(name, "hugepages-") {
		q := resource.NewQuantity(v, resource.BinarySI)
		return *q
	}
	q := resource.NewQuantity(v, resource.DecimalSI)
	return *q
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

// available is what node n may take now; noBorrowLimit ignores n's own
// borrowing limit (to tell "borrowing limited" from "in use").
func (n *qnode) available(k fr, noBorrowLimit bool) int64 {
	if n.parent == nil {
		return n.subtree(k) - n.usage(k)
	}
	fromParent := n.parent.available(k, false)
	if b, ok := n.borrow[k]; ok && !noBorrowLimit {
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
