package fetch

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestParseKueueConfiguration(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       *diagnose.KueueConfig
	}{
		{name: "Kueue's defaults", yaml: "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n",
			want: &diagnose.KueueConfig{Frameworks: []string{"batch/job"}, ManagedJobsNamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kueue-system"}}}}}},
		{name: "as configured", yaml: `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue
managedJobsNamespaceSelector:
  matchLabels: {kueue-managed: "true"}
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset]
`, want: &diagnose.KueueConfig{Frameworks: []string{"batch/job", "jobset.x-k8s.io/jobset"},
			ManagedJobsNamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kueue-managed": "true"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKueueConfiguration([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseKueueConfiguration([]byte("kind: Deployment\n")); err == nil {
		t.Error("a Deployment was taken for Kueue's Configuration")
	}
}

// TestFetchKueueConfig: for a job without a Workload, Kueue's Configuration
// is read (once, cached) and the verdict says the namespace is not managed.
func TestFetchKueueConfig(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kueue-manager-config", Namespace: "kueue-system"},
		Data: map[string]string{"controller_manager_config.yaml": "kind: Configuration\nmanagedJobsNamespaceSelector:\n  matchLabels: {kueue-managed: \"true\"}\n"}}
	botCS := kubefake.NewSimpleClientset(cm)
	read := KueueConfigMap(botCS, "kueue-system", "kueue-manager-config", "controller_manager_config.yaml", time.Minute)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS, Labels: map[string]string{corev1.LabelMetadataName: testNS}}}
	for range 2 {
		e := newEnv([]runtime.Object{testJob(), ns}, []runtime.Object{testLQ()}, nil)
		f := e.fetcher()
		f.KueueConfig = read
		s, err := f.Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
		if err != nil {
			t.Fatal(err)
		}
		r := diagnose.Analyze(s)
		if want := "Kueue does not manage jobs in namespace team-a."; r.Verdict.Headline != want {
			t.Errorf("headline %q, want %q", r.Verdict.Headline, want)
		}
	}
	if n := len(botCS.Actions()); n != 1 {
		t.Errorf("the bot read the ConfigMap %d times, want 1 (cached)", n)
	}
}

// TestFetchKueueConfigPodsReady: for a Workload evicted because its Pods
// were not ready in time, Kueue's Configuration is read too, and the
// answer gives its timeout and requeue limit.
func TestFetchKueueConfigPodsReady(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kueue-manager-config", Namespace: "kueue-system"},
		Data: map[string]string{"controller_manager_config.yaml": "kind: Configuration\nwaitForPodsReady:\n  timeout: 10m\n  requeuingStrategy: {backoffLimitCount: 3}\n"}}
	msg := "Exceeded the PodsReady timeout team-a/" + wlName
	wl := testWorkload(wlName,
		metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", Message: msg},
		metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPodsReadyTimeout, Message: msg},
		metav1.Condition{Type: kueue.WorkloadRequeued, Status: metav1.ConditionFalse, Reason: kueue.WorkloadEvictedByPodsReadyTimeout, Message: msg})
	wl.Status.RequeueState = &kueue.RequeueState{Count: ptr.To[int32](1), RequeueAt: &metav1.Time{Time: testNow.Add(time.Minute)}}
	e := newEnv([]runtime.Object{testJob()}, []runtime.Object{wl, testLQ(), testCQ("", "f"), testRF("f")}, nil)
	pendingSummary(e.kueue)
	f := e.fetcher()
	f.KueueConfig = KueueConfigMap(kubefake.NewSimpleClientset(cm), "kueue-system", "kueue-manager-config", "controller_manager_config.yaml", time.Minute)
	s, err := f.Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	r := diagnose.Analyze(s)
	if r.Verdict.Cause != diagnose.CausePodsReadyTimeout {
		t.Fatalf("verdict %s/%s, want Requeuing/PodsReadyTimeout", r.Verdict.Code, r.Verdict.Cause)
	}
	for _, want := range []string{"waitForPodsReady timeout of 10m0s", "1 (status.requeueState.count) of at most 3", "After 2 more such eviction(s)"} {
		if !strings.Contains(r.Verdict.Detail, want) {
			t.Errorf("detail %q, want %q in it", r.Verdict.Detail, want)
		}
	}
	if len(s.Gaps) != 0 {
		t.Errorf("gaps %v, want none", s.Gaps)
	}
}
