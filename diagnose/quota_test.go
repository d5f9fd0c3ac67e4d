package diagnose

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

type cqOpt func(*kueue.ClusterQueue)

func testCQ(name, cohort string, nominal, used string, opts ...cqOpt) kueue.ClusterQueue {
	cq := kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.ClusterQueueSpec{
			CohortName: kueue.CohortReference(cohort),
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{
					Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal),
				}}}},
			}},
		},
		Status: kueue.ClusterQueueStatus{FlavorsReservation: []kueue.FlavorUsage{{Name: "f", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU, Total: resource.MustParse(used)}}}}},
	}
	for _, o := range opts {
		o(&cq)
	}
	return cq
}

func ptrQ(q string) *resource.Quantity {
	x := resource.MustParse(q)
	return &x
}

func borrowing(q string) cqOpt {
	return func(cq *kueue.ClusterQueue) {
		x := resource.MustParse(q)
		cq.Spec.ResourceGroups[0].Flavors[0].Resources[0].BorrowingLimit = &x
	}
}

func lending(q string) cqOpt {
	return func(cq *kueue.ClusterQueue) {
		x := resource.MustParse(q)
		cq.Spec.ResourceGroups[0].Flavors[0].Resources[0].LendingLimit = &x
	}
}

// TestQuotaTree checks available and maximum capacity against the formulas
// of Kueue's resource_node.go (kueue-reference.md section 5.2).
func TestQuotaTree(t *testing.T) {
	k := fr{"f", corev1.ResourceCPU}
	tests := []struct {
		name      string
		cq        kueue.ClusterQueue
		members   []kueue.ClusterQueue
		cohorts   []kueue.Cohort
		wantAvail int64 // millicores
		wantMax   int64
		// need is asked of limitsHolding, which must name wantLimits.
		need       int64
		wantLimits []string
	}{
		{name: "no cohort", cq: testCQ("a", "", "2", "500m"), wantAvail: 1500, wantMax: 2000, need: 2000},
		{name: "flat cohort, unlimited borrowing", cq: testCQ("a", "c", "2", "2"), members: []kueue.ClusterQueue{testCQ("b", "c", "6", "1")},
			wantAvail: 5000, wantMax: 8000, need: 6000},
		{name: "borrowing limit caps", cq: testCQ("a", "c", "2", "2", borrowing("1")), members: []kueue.ClusterQueue{testCQ("b", "c", "6", "0")},
			wantAvail: 1000, wantMax: 3000, need: 2000, wantLimits: []string{"a borrowingLimit 1000"}},
		{name: "lending limit keeps part private", cq: testCQ("a", "c", "2", "2"), members: []kueue.ClusterQueue{testCQ("b", "c", "6", "1", lending("4"))},
			wantAvail: 4000, wantMax: 6000, need: 5000, wantLimits: []string{"b lendingLimit 4000"}},
		{name: "a cohort's own borrowing limit", cq: testCQ("a", "child", "2", "2"),
			members: []kueue.ClusterQueue{testCQ("b", "root", "4", "0")},
			cohorts: []kueue.Cohort{
				{ObjectMeta: metav1.ObjectMeta{Name: "child"}, Spec: kueue.CohortSpec{ParentName: "root", ResourceGroups: []kueue.ResourceGroup{{
					CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
					Flavors: []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{
						Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("0"), BorrowingLimit: ptrQ("1")}}}},
				}}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "root"}},
			},
			wantAvail: 1000, wantMax: 3000, need: 2000, wantLimits: []string{"child borrowingLimit 1000"}},
		{name: "hierarchy: cohort nominal adds a shared pool", cq: testCQ("a", "child", "2", "0"),
			members: []kueue.ClusterQueue{testCQ("b", "root", "4", "4")},
			cohorts: []kueue.Cohort{
				{ObjectMeta: metav1.ObjectMeta{Name: "child"}, Spec: kueue.CohortSpec{ParentName: "root"}},
				{ObjectMeta: metav1.ObjectMeta{Name: "root"}, Spec: kueue.CohortSpec{ResourceGroups: []kueue.ResourceGroup{{
					CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
					Flavors:          []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("3")}}}},
				}}}},
			},
			wantAvail: 5000, wantMax: 9000, need: 6000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Snapshot{ClusterQueue: &tt.cq, CohortClusterQueues: tt.members, Cohorts: tt.cohorts}
			tree := &quotaView{quotaTree: buildQuotaTree(s)}
			if got := tree.free(k); got != tt.wantAvail {
				t.Errorf("available = %d, want %d", got, tt.wantAvail)
			}
			if got := tree.most(k); got != tt.wantMax {
				t.Errorf("potential = %d, want %d", got, tt.wantMax)
			}
			var got []string
			for _, l := range tree.limitsHolding(k, tt.need) {
				kind := "borrowingLimit"
				if l.lending {
					kind = "lendingLimit"
				}
				got = append(got, fmt.Sprintf("%s %s %d", l.node.name, kind, l.value))
			}
			if !slices.Equal(got, tt.wantLimits) {
				t.Errorf("limits holding %d = %v, want %v", tt.need, got, tt.wantLimits)
			}
			if got := tree.free(k); got != tt.wantAvail {
				t.Errorf("limitsHolding changed the tree: available = %d, want %d", got, tt.wantAvail)
			}
			for _, l := range tree.limitsHolding(k, tt.need) {
				tree.raised(l, k, tt.need)
			}
			if fresh := buildQuotaTree(s); !reflect.DeepEqual(tree.quotaTree, fresh) || len(tree.tried) != 0 {
				t.Errorf("trying limits changed the shared tree")
			}
		})
	}
}

func TestCohortCycle(t *testing.T) {
	cq := testCQ("a", "x", "2", "0")
	s := &Snapshot{ClusterQueue: &cq, Cohorts: []kueue.Cohort{
		{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: kueue.CohortSpec{ParentName: "y"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "y"}, Spec: kueue.CohortSpec{ParentName: "x"}},
	}}
	if tree := buildQuotaTree(s); tree.cycle == "" {
		t.Fatal("cycle not detected")
	}
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{
			{Name: "sidecar", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}},
			{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}},
		},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}},
		},
	}
	got := podRequests(spec)
	// cpu: max(1 + 0.5 + 0.1 sidecar, 3 init + 0.1 sidecar) = 3.1; memory from limits.
	if got[corev1.ResourceCPU] != 3100 || got[corev1.ResourceMemory] != 1<<30 {
		t.Errorf("podRequests = %v", got)
	}
}
