package fetch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestCohortTree(t *testing.T) {
	tests := []struct {
		name        string
		cq          *kueue.ClusterQueue
		cqs         []kueue.ClusterQueue
		cohorts     []kueue.Cohort
		wantMembers []string
		wantCohorts []string
	}{
		{
			name:        "flat cohort without Cohort objects",
			cq:          otherCQ("cq", "co"),
			cqs:         []kueue.ClusterQueue{*otherCQ("cq", "co"), *otherCQ("b", "co"), *otherCQ("a", "co"), *otherCQ("x", "other"), *otherCQ("none", "")},
			wantMembers: []string{"a", "b"},
		},
		{
			name:        "hierarchy: siblings under the same root",
			cq:          otherCQ("cq", "left"),
			cqs:         []kueue.ClusterQueue{*otherCQ("cq", "left"), *otherCQ("r", "right"), *otherCQ("top", "root"), *otherCQ("x", "other")},
			cohorts:     []kueue.Cohort{*testCohort("left", "root"), *testCohort("right", "root"), *testCohort("root", ""), *testCohort("other", "")},
			wantMembers: []string{"r", "top"},
			wantCohorts: []string{"left", "right", "root"},
		},
		{
			name:        "cycle does not hang",
			cq:          otherCQ("cq", "a"),
			cqs:         []kueue.ClusterQueue{*otherCQ("cq", "a"), *otherCQ("p", "b")},
			cohorts:     []kueue.Cohort{*testCohort("a", "b"), *testCohort("b", "a")},
			wantMembers: nil,
			wantCohorts: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			members, cohorts := cohortTree(tc.cq, tc.cqs, tc.cohorts)
			gotM := names2(members, func(o *kueue.ClusterQueue) string { return o.Name })
			gotC := names2(cohorts, func(o *kueue.Cohort) string { return o.Name })
			if tc.name == "cycle does not hang" {
				return // any answer is fine, as long as it returns
			}
			if diff := cmp.Diff(tc.wantMembers, gotM, cmpEmpty); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCohorts, gotC, cmpEmpty); diff != "" {
				t.Errorf("cohorts (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmpty = cmp.Transformer("nilToEmpty", func(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
})

// A Job created by a JobSet belongs to the JobSet's Workload; the name comes
// from the ownerReference, with no extra request.
func TestFetchChildJobUsesParentWorkload(t *testing.T) {
	child := testJob()
	child.OwnerReferences = []metav1.OwnerReference{{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet", Name: "js", UID: "js-uid", Controller: ptr.To(true)}}
	parentWL := WorkloadName("js", "js-uid", schema.GroupVersionKind{Group: "jobset.x-k8s.io", Version: "v1alpha2", Kind: "JobSet"})
	wl := testWorkload(parentWL, condPending)
	wl.OwnerReferences[0] = child.OwnerReferences[0]
	e := newEnv([]runtime.Object{child}, []runtime.Object{wl}, nil)
	got, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload == nil || got.Workload.Name != parentWL {
		t.Errorf("Workload = %v, want %s (gaps %v)", got.Workload, parentWL, got.Gaps)
	}
}
