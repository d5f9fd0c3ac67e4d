package fetch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func TestWorkloadName(t *testing.T) {
	job := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	long := "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-validation-checked-approved-by-legal-and-ops-dept"
	tests := []struct {
		name  string
		owner string
		uid   types.UID
		gvk   schema.GroupVersionKind
		want  string
	}{
		// Examples from Kueue v0.17.0's own tests and documentation.
		{name: "kueue reference example", owner: "my-job", uid: "11111111-2222-3333-4444-555555555555", gvk: job, want: "job-my-job-80d69"},
		{name: "workload_names_test short name", owner: "name", uid: "uid", gvk: job, want: "job-name-ef3a1"},
		{name: "reconciler_test test-job", owner: "test-job", uid: "test-job", gvk: job, want: "job-test-job-ce737"},
		{
			name: "workload_names_test long name truncated to 253", owner: long, uid: "uid", gvk: job,
			want: "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-validation-checked-approved-by-l-218b8",
		},
		{name: "version is not hashed", owner: "my-job", uid: "11111111-2222-3333-4444-555555555555", gvk: schema.GroupVersionKind{Group: "batch", Version: "v2", Kind: "Job"}, want: "job-my-job-80d69"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WorkloadName(tc.owner, tc.uid, tc.gvk)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WorkloadName (-want +got):\n%s", diff)
			}
			if len(got) > 253 { // Kueue's limit without ShortWorkloadNames
				t.Errorf("len = %d, want <= 253", len(got))
			}
		})
	}
}
