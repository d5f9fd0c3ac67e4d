package diagnose_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// TestWorkloadMissingCauses: when Kueue made no Workload, the answer says
// why whenever the objects show it.
func TestWorkloadMissingCauses(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(s *diagnose.Snapshot)
		headline string
		detail   string
	}{
		{
			name: "missing WorkloadPriorityClass",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetLabels(map[string]string{diagnose.QueueNameLabel: "user-queue", diagnose.WorkloadPriorityClassLabel: "urgent"})
				s.Gaps = append(s.Gaps, diagnose.Gap{Kind: "WorkloadPriorityClass", Name: "urgent", Reason: diagnose.GapNotFound})
			},
			headline: "WorkloadPriorityClass urgent does not exist",
		},
		{
			name: "unreadable WorkloadPriorityClass is the likely cause, not a certain one",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetLabels(map[string]string{diagnose.QueueNameLabel: "user-queue", diagnose.WorkloadPriorityClassLabel: "urgent"})
				s.Gaps = append(s.Gaps, diagnose.Gap{Kind: "WorkloadPriorityClass", Name: "urgent", Reason: diagnose.GapForbidden})
			},
			headline: "probably because WorkloadPriorityClass urgent does not exist",
			detail:   "which I could not read",
		},
		{
			name: "unreadable WorkloadPriorityClass of a job Kueue never suspended",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetLabels(map[string]string{diagnose.QueueNameLabel: "user-queue", diagnose.WorkloadPriorityClassLabel: "urgent"})
				_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
				s.Gaps = append(s.Gaps, diagnose.Gap{Kind: "WorkloadPriorityClass", Name: "urgent", Reason: diagnose.GapForbidden})
			},
			headline: "Kueue does not manage job/sample-job: it never suspended it.",
		},
		{
			name: "integration not enabled in Kueue's Configuration",
			edit: func(s *diagnose.Snapshot) {
				s.KueueConfig = &diagnose.KueueConfig{Frameworks: []string{"pod", "jobset.x-k8s.io/jobset"}}
			},
			headline: "Kueue does not manage job/sample-job: its batch/job integration is not enabled.",
		},
		{
			name: "namespace outside managedJobsNamespaceSelector",
			edit: func(s *diagnose.Snapshot) {
				s.KueueConfig = &diagnose.KueueConfig{Frameworks: []string{"batch/job"}, ManagedJobsNamespaceSelector: &metav1.LabelSelector{
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"team-a"}}}}}
			},
			headline: "Kueue does not manage jobs in namespace team-a.",
			detail:   "kubernetes.io/metadata.name notin (team-a)",
		},
		{
			name: "a managed namespace and an enabled integration say nothing more",
			edit: func(s *diagnose.Snapshot) {
				s.KueueConfig = &diagnose.KueueConfig{Frameworks: []string{"batch/job"}, ManagedJobsNamespaceSelector: &metav1.LabelSelector{}}
			},
			headline: "Kueue suspended job/sample-job but has not created its Workload.",
			detail:   "manages namespace team-a, so Kueue's controller is down or fails on the job",
		},
		{
			name:     "suspended, no Workload, Kueue's Configuration unknown: the namespace or the controller",
			edit:     func(s *diagnose.Snapshot) {},
			headline: "Kueue suspended job/sample-job but has not created its Workload.",
			detail:   "outside Kueue's managedJobsNamespaceSelector (the webhook still suspends such a job",
		},
		{
			name: "Kueue's composition event",
			edit: func(s *diagnose.Snapshot) {
				s.Events = []corev1.Event{{Reason: "ErrWorkloadCompose", Message: "invalid pod set: too many pods", Type: corev1.EventTypeWarning}}
			},
			headline: "Kueue cannot create a Workload for job/sample-job.",
			detail:   "invalid pod set: too many pods",
		},
		{
			name: "never suspended: not Kueue's",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
			},
			headline: "Kueue does not manage job/sample-job: it never suspended it.",
			detail:   "the Job integration is not enabled, or the webhook did not see the job",
		},
		{
			name: "unsuspended with active pods: Kueue waits for them",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
				_ = unstructured.SetNestedField(s.Job.Object, int64(2), "status", "active")
			},
			headline: "Kueue has not picked up job/sample-job yet.",
			detail:   "still has active pods",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := loadCase(t, "testdata/cases/workload-missing.txtar")
			tc.edit(s)
			r := diagnose.Analyze(s)
			if r.Verdict.Code != diagnose.CodeWorkloadMissing || !strings.Contains(r.Verdict.Headline, tc.headline) || !strings.Contains(r.Verdict.Detail, tc.detail) {
				t.Errorf("verdict %s: %q / %q; want %q / %q", r.Verdict.Code, r.Verdict.Headline, r.Verdict.Detail, tc.headline, tc.detail)
			}
		})
	}
}

func TestIncompletePodGroup(t *testing.T) {
	pod := func(name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{
			"name": name, "namespace": "team-a", "uid": "uid-" + name,
			"labels":      map[string]any{diagnose.QueueNameLabel: "user-queue", diagnose.PodGroupNameLabel: "g"},
			"annotations": map[string]any{diagnose.PodGroupTotalCountAnnotation: "3"},
		}}
	}
	s := &diagnose.Snapshot{
		Now:    time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Target: diagnose.Target{Kind: "Pod", Namespace: "team-a", Name: "g-0"},
		Job:    &unstructured.Unstructured{Object: pod("g-0")},
		Pods:   []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "g-0"}}, {ObjectMeta: metav1.ObjectMeta{Name: "g-1"}}},
		Events: []corev1.Event{{Reason: "ErrWorkloadCompose", Message: "'g' group has fewer runnable pods than expected"}},
		Gaps:   []diagnose.Gap{{Kind: "Workload", Name: "g", Reason: diagnose.GapNotFound}},
	}
	r := diagnose.Analyze(s)
	if want := "Pod group g is incomplete: 2 of 3 pods"; r.Verdict.Code != diagnose.CodeWorkloadMissing || !strings.Contains(r.Verdict.Headline, want) ||
		!strings.Contains(r.Verdict.Detail, "fewer runnable pods than expected") {
		t.Errorf("verdict %s: %q / %q; want %q and Kueue's event", r.Verdict.Code, r.Verdict.Headline, r.Verdict.Detail, want)
	}
}

// TestOperatorSilent: an admitted JobSet without pods minutes later points
// at the JobSet operator, not at Kueue; seconds later it is only starting.
func TestOperatorSilent(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	snap := func(admittedAgo time.Duration) *diagnose.Snapshot {
		return &diagnose.Snapshot{
			Now:    now,
			Target: diagnose.Target{Kind: "JobSet", Namespace: "team-a", Name: "train"},
			Job: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
				"metadata": map[string]any{"name": "train", "namespace": "team-a", "labels": map[string]any{diagnose.QueueNameLabel: "lq"}},
				"spec":     map[string]any{"suspend": false}}},
			Workload: &kueue.Workload{
				ObjectMeta: metav1.ObjectMeta{Name: "jobset-train-1", Namespace: "team-a"},
				Spec:       kueue.WorkloadSpec{QueueName: "lq"},
				Status: kueue.WorkloadStatus{
					Admission: &kueue.Admission{ClusterQueue: "cq"},
					Conditions: []metav1.Condition{
						{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-admittedAgo))},
						{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-admittedAgo))},
					},
				},
			},
		}
	}
	r := diagnose.Analyze(snap(5 * time.Minute))
	if !strings.Contains(r.Verdict.Headline, "the JobSet controller (jobset-controller-manager) does not seem to act on it") || r.Verdict.Code != diagnose.CodeStarting {
		t.Errorf("5 min after admission: %s %q", r.Verdict.Code, r.Verdict.Headline)
	}
	if m, ok := remedyOf(r, "AskOperator"); !ok || m.Who != diagnose.WhoPlatform {
		t.Errorf("no AskOperator remedy for the platform team: %+v", r.Remedies)
	}
	if r := diagnose.Analyze(snap(10 * time.Second)); strings.Contains(r.Verdict.Headline, "does not seem to act") {
		t.Errorf("10 s after admission the operator is blamed: %q", r.Verdict.Headline)
	}
}
