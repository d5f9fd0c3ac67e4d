package explain

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// checkEnv is a fake cluster with two LocalQueues in team-a: small (2
// cpu) and big (8 cpu), a LimitRange that defaults each container's cpu
// request to 1, and the caller's default namespace team-a.
func checkEnv(t *testing.T) (*Explainer, *kubefake.Clientset, *kueuefake.Clientset) {
	t.Helper()
	cq := func(name, cpu string) *kueue.ClusterQueue {
		return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(cpu)}}}}}},
		}}
	}
	lq := func(name, cq string) *kueue.LocalQueue {
		return &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}}
	}
	kq := kueuefake.NewSimpleClientset(cq("small-cq", "2"), cq("big-cq", "8"), lq("small", "small-cq"), lq("big", "big-cq"),
		&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: "team-a"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}
	kube := kubefake.NewSimpleClientset([]runtime.Object{lr}...)
	kube.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{{GroupVersion: "kueue.x-k8s.io/v1beta2", APIResources: []metav1.APIResource{
		{Name: "workloads"}, {Name: "localqueues"}, {Name: "clusterqueues"}, {Name: "cohorts"}, {Name: "resourceflavors"},
	}}}
	f := &fetch.Fetcher{Kube: kube, Kueue: kq, Timeout: time.Second, Now: func() time.Time { return time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC) }}
	return &Explainer{Reader: &ClientReader{Fetcher: f, Default: "team-a"}}, kube, kq
}

// job is a batch Job of n pods without requests: the LimitRange gives
// each 1 cpu.
func job(n int, labels string) string {
	return `apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {` + labels + `}
spec:
  parallelism: ` + string(rune('0'+n)) + `
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
`
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name      string
		manifest  string
		ns        string
		want      map[string]diagnose.Fit
		wantError string
		note      string
	}{
		{name: "named queue fits", manifest: job(2, "kueue.x-k8s.io/queue-name: small"), want: map[string]diagnose.Fit{"small": diagnose.FitAdmittedNow}},
		{name: "named queue never", manifest: job(4, "kueue.x-k8s.io/queue-name: small"), want: map[string]diagnose.Fit{"small": diagnose.FitNever}},
		{name: "no queue label: every LocalQueue", manifest: job(4, ""), want: map[string]diagnose.Fit{"big": diagnose.FitAdmittedNow, "small": diagnose.FitNever},
			note: "no kueue.x-k8s.io/queue-name label"},
		{name: "LocalQueue that does not exist", manifest: job(1, "kueue.x-k8s.io/queue-name: smal"), want: map[string]diagnose.Fit{"smal": diagnose.FitNever}},
		{name: "namespace mismatch", manifest: strings.Replace(job(1, ""), "name: train", "name: train\n  namespace: team-b", 1), ns: "team-a", wantError: "says namespace team-b but you asked for team-a"},
		{name: "not YAML", manifest: "kind: [", wantError: "not YAML"},
		{name: "several documents", manifest: job(1, "") + "---\n" + job(2, ""), wantError: "2 YAML documents"},
		{name: "not a job kind", manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", wantError: "Kind ConfigMap (v1) is not a job kind"},
		{name: "unsupported kind", manifest: "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec: {}\n", wantError: "TrainingRuntime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, kube, kq := checkEnv(t)
			res, err := e.Check(t.Context(), rbac.Identity{}, CheckRequest{Manifest: []byte(tt.manifest), File: "train.yaml", Namespace: tt.ns})
			if tt.wantError != "" {
				var ue *Error
				if err == nil || !errors.As(err, &ue) || !strings.Contains(ue.UserMessage(), tt.wantError) {
					t.Fatalf("error = %v, want a user message containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]diagnose.Fit{}
			for _, q := range res.Report.Queues {
				got[q.LocalQueue] = q.Fit
			}
			if len(got) != len(tt.want) {
				t.Fatalf("queues %v, want %v", got, tt.want)
			}
			for lq, f := range tt.want {
				if got[lq] != f {
					t.Errorf("LocalQueue %s: %s, want %s (%+v)", lq, got[lq], f, res.Report.Queues)
				}
			}
			if tt.note != "" && (len(res.Report.Notes) == 0 || !strings.Contains(res.Report.Notes[0], tt.note)) {
				t.Errorf("notes %q, want %q", res.Report.Notes, tt.note)
			}
			if p := res.Report.PodSets; len(p) != 1 || p[0].PerPod.Cpu().MilliValue() != 1000 {
				t.Errorf("pod sets %+v: want the LimitRange's 1 cpu per pod", p)
			}
			for _, a := range append(kube.Actions(), kq.Actions()...) {
				if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
					t.Errorf("check wrote to the cluster: %s %s", v, a.GetResource().Resource)
				}
			}
		})
	}
}

func TestCheckNoQueueLabelAndNoListing(t *testing.T) {
	e, _, kq := checkEnv(t)
	kq.PrependReactor("list", "localqueues", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "localqueues"}, "", errors.New("no list"))
	})
	_, err := e.Check(t.Context(), rbac.Identity{}, CheckRequest{Manifest: []byte(job(1, ""))})
	var ue *Error
	if !errors.As(err, &ue) || !strings.Contains(ue.UserMessage(), "Add the label naming the LocalQueue") {
		t.Fatalf("error = %v, want the label to add", err)
	}
}

func TestManifestFromMessage(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"will this fit?\n```yaml\napiVersion: batch/v1\nkind: Job\n```", "apiVersion: batch/v1\nkind: Job\n", true},
		{"```apiVersion: v1\nkind: Pod```", "apiVersion: v1\nkind: Pod", true},
		{"apiVersion: batch/v1\nkind: Job", "apiVersion: batch/v1\nkind: Job", true},
		{"```\nvalue: a &gt; b\n```", "value: a > b\n", true},
		{"lunch at noon?", "", false},
	}
	for _, tt := range tests {
		got, ok := ManifestFromMessage(tt.in)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("ManifestFromMessage(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCheckWaitsWithEstimate: a manifest that fits its queue's quota but
// not now gets the estimate a submitted job would get: it joins the queue
// behind what is pending, and the running workload's limit
// (maximumExecutionTimeSeconds) says when its quota frees.
func TestCheckWaitsWithEstimate(t *testing.T) {
	e, _, kq := checkEnv(t)
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	ctx := t.Context()
	cq, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "small-cq", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	used := []kueue.FlavorUsage{{Name: "default", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU, Total: resource.MustParse("2")}}}}
	cq.Status.FlavorsReservation, cq.Status.FlavorsUsage = used, used
	cq.Status.ReservingWorkloads, cq.Status.AdmittedWorkloads = 1, 1
	if _, err := kq.KueueV1beta2().ClusterQueues().UpdateStatus(ctx, cq, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	started := metav1.NewTime(now.Add(-5 * time.Minute))
	limit := int32(600)
	running := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "job-other-1", Namespace: "team-a", CreationTimestamp: started},
		Spec: kueue.WorkloadSpec{QueueName: "small", MaximumExecutionTimeSeconds: &limit, PodSets: []kueue.PodSet{{Name: "main", Count: 2,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}}},
		Status: kueue.WorkloadStatus{
			Admission: &kueue.Admission{ClusterQueue: "small-cq", PodSetAssignments: []kueue.PodSetAssignment{{Name: "main",
				Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"}, ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}},
			Conditions: []metav1.Condition{
				{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue, Reason: "QuotaReserved", LastTransitionTime: started},
				{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted", LastTransitionTime: started},
			},
		},
	}
	if _, err := kq.KueueV1beta2().Workloads("team-a").Create(ctx, running, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Check(ctx, rbac.Identity{}, CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: small"))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.Queues) != 1 || res.Report.Queues[0].Fit != diagnose.FitWaits {
		t.Fatalf("queues %+v, want small: waits", res.Report.Queues)
	}
	est := res.Report.Queues[0].Estimate
	if !est.Known() {
		t.Fatalf("estimate %+v, want figures from the running workload's limit", est)
	}
	if want := now.Add(5 * time.Minute); !est.Likely.Equal(want) {
		t.Errorf("likely %v, want %v (the running workload's 600 s limit ends then)", est.Likely, want)
	}
	if !strings.Contains(est.Basis, "limit") {
		t.Errorf("basis %q, want it to say it rests on a limit", est.Basis)
	}
}
