package fetch

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// The objects Kueue v0.17's statefulset and deployment integrations make,
// as the sandbox's real Kueue made them (deploy/examples/scenarios/
// statefulset-*, deployment-*): the StatefulSet's Workload is named after
// it and owned by it without being controlled; each Deployment Pod's
// Workload is named after the Pod and controlled by it.

const (
	stsUID = types.UID("5e7f0000-0000-0000-0000-000000000001")
	depUID = types.UID("de900000-0000-0000-0000-000000000001")
)

var stsGVK = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

func testSTS() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: testNS, UID: stsUID,
			Labels: map[string]string{QueueNameLabel: "lq"}},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
				Labels:      map[string]string{"app": "web"},
				Annotations: map[string]string{kinds.SuspendingParentAnnotation: "statefulset"},
			}},
		},
	}
}

func stsWorkload(conds ...metav1.Condition) *kueue.Workload {
	wl := testWorkload(WorkloadName("web", stsUID, stsGVK), conds...)
	wl.Labels = map[string]string{JobUIDLabel: string(stsUID)}
	wl.OwnerReferences = []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: stsUID},
		{APIVersion: "v1", Kind: "Pod", Name: "web-0", UID: "web-0"},
	}
	return wl
}

func gatedPod(name string, uid types.UID, owner metav1.OwnerReference, created time.Time, gated bool) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: uid,
			CreationTimestamp: metav1.NewTime(created),
			Labels:            map[string]string{"app": "web", QueueNameLabel: "lq"},
			OwnerReferences:   []metav1.OwnerReference{owner}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if gated {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: kinds.PodAdmissionGate}}
	}
	return p
}

func testDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: testNS, UID: depUID,
			Labels: map[string]string{QueueNameLabel: "lq"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
				Labels:      map[string]string{"app": "web", QueueNameLabel: "lq"},
				Annotations: map[string]string{kinds.SuspendingParentAnnotation: "deployment"},
			}},
		},
	}
}

// deploymentPods: web-7c9-a and web-7c9-b admitted, web-7c9-c and
// web-7c9-d gated (c older), and a Pod of deployment web-api that the
// selector also matches.
func deploymentPods() []*corev1.Pod {
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7c9", UID: "rs-1", Controller: ptr.To(true)}
	other := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-api-7c9", UID: "rs-2", Controller: ptr.To(true)}
	t0 := testNow.Add(-time.Hour)
	pods := []*corev1.Pod{
		gatedPod("web-7c9-a", "pa", rs, t0, false),
		gatedPod("web-7c9-b", "pb", rs, t0, false),
		gatedPod("web-7c9-d", "pd", rs, t0.Add(2*time.Second), true),
		gatedPod("web-7c9-c", "pc", rs, t0.Add(time.Second), true),
		gatedPod("web-api-7c9-x", "px", other, t0.Add(-time.Minute), true),
	}
	for _, p := range pods {
		p.Labels[kinds.PodTemplateHashLabel] = "7c9"
	}
	return pods
}

func podWorkload(p *corev1.Pod, conds ...metav1.Condition) *kueue.Workload {
	wl := testWorkload(WorkloadName(p.Name, p.UID, corev1.SchemeGroupVersion.WithKind("Pod")), conds...)
	wl.Labels = map[string]string{JobUIDLabel: string(p.UID)}
	wl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}
	return wl
}

func TestFetchStatefulSet(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: stsUID, Controller: ptr.To(true)}
	pod0 := gatedPod("web-0", "web-0", owner, testNow.Add(-time.Hour), true)
	wl := stsWorkload(condPending)
	e := newEnv([]runtime.Object{testSTS(), pod0}, []runtime.Object{wl, testLQ(), testCQ("", "on-demand"), testRF("on-demand")}, nil)
	pendingSummary(e.kueue)
	target := diagnose.Target{Kind: kinds.StatefulSet, Namespace: testNS, Name: "web"}
	got, err := e.fetcher().Fetch(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload == nil || got.Workload.Name != wl.Name {
		t.Fatalf("Workload = %v, want %s (named after the StatefulSet, owned but not controlled by it)", got.Workload, wl.Name)
	}
	if got.Job == nil || got.Job.GetKind() != "StatefulSet" {
		t.Errorf("Job = %v", got.Job)
	}
	reqs, disc := e.requests()
	want := []request{
		{Client: "kube", Verb: "get", Resource: "statefulsets", Name: "web"},
		{Client: "kueue", Verb: "get", Resource: "workloads", Name: wl.Name},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Name: "lq"},
		{Client: "kueue", Verb: "get", Resource: "clusterqueues", Name: "cq"},
		{Client: "kueue", Verb: "get", Resource: "resourceflavors", Name: "on-demand"},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Sub: "pendingworkloads", Name: "lq"},
	}
	if diff := cmp.Diff(want, reqs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if disc != 1 {
		t.Errorf("discovery = %d, want 1 (Kueue's version; apps/v1 is built in)", disc)
	}

	// Admitted: its Pods are read by its selector, kept to those it controls.
	wl = stsWorkload(condQuota, condAdmit)
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq"}
	stray := gatedPod("web-x", "web-x", metav1.OwnerReference{Kind: "StatefulSet", Name: "other", UID: "other", Controller: ptr.To(true)}, testNow, false)
	e = newEnv([]runtime.Object{testSTS(), pod0, stray}, []runtime.Object{wl, testLQ(), testCQ("", "on-demand"), testRF("on-demand")}, nil)
	got, err = e.fetcher().Fetch(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pods) != 1 || got.Pods[0].Name != "web-0" {
		t.Errorf("Pods = %v, want web-0 only", podNames(got.Pods))
	}
}

func TestFetchDeployment(t *testing.T) {
	pods := deploymentPods()
	var kubeObjs []runtime.Object
	kubeObjs = append(kubeObjs, testDeployment())
	for _, p := range pods {
		kubeObjs = append(kubeObjs, p)
	}
	// pods[3] is web-7c9-c, the oldest gated Pod of the Deployment.
	wantWL := podWorkload(pods[3], condPending)
	kueueObjs := []runtime.Object{podWorkload(pods[0], condQuota, condAdmit), podWorkload(pods[1], condQuota, condAdmit), podWorkload(pods[2], condPending), wantWL,
		testLQ(), testCQ("", "on-demand"), testRF("on-demand")}
	e := newEnv(kubeObjs, kueueObjs, nil)
	pendingSummary(e.kueue)
	target := diagnose.Target{Kind: kinds.Deployment, Namespace: testNS, Name: "web"}
	got, err := e.fetcher().Fetch(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	wantCount := &diagnose.PerPodCount{Replicas: 3, Pods: 4, Admitted: 2, Pod: "web-7c9-c", Waiting: []string{"web-7c9-d"}}
	if diff := cmp.Diff(wantCount, got.PerPod); diff != "" {
		t.Errorf("PerPod (-want +got):\n%s", diff)
	}
	if got.Workload == nil || got.Workload.Name != wantWL.Name {
		t.Errorf("Workload = %v, want %s (the oldest gated Pod's)", got.Workload, wantWL.Name)
	}
	if len(got.Pods) != 1 || got.Pods[0].Name != "web-7c9-c" {
		t.Errorf("Pods = %v, want the one Pod whose Workload this is", podNames(got.Pods))
	}
	reqs, _ := e.requests()
	want := []request{
		{Client: "kube", Verb: "get", Resource: "deployments", Name: "web"},
		{Client: "kube", Verb: "list", Resource: "pods"},
		{Client: "kueue", Verb: "get", Resource: "workloads", Name: wantWL.Name},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Name: "lq"},
		{Client: "kueue", Verb: "get", Resource: "clusterqueues", Name: "cq"},
		{Client: "kueue", Verb: "get", Resource: "resourceflavors", Name: "on-demand"},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Sub: "pendingworkloads", Name: "lq"},
	}
	if diff := cmp.Diff(want, reqs); diff != "" {
		t.Errorf("requests (-want +got), a fixed number whatever the number of Pods:\n%s", diff)
	}

	// The same from files.
	st := NewStore()
	var objs []runtime.Object
	objs = append(objs, kubeObjs...)
	objs = append(objs, kueueObjs...)
	if err := st.AddObjects(objs...); err != nil {
		t.Fatal(err)
	}
	fromFiles, err := st.Snapshot(target, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantCount, fromFiles.PerPod); diff != "" {
		t.Errorf("from files, PerPod (-want +got):\n%s", diff)
	}
	if fromFiles.Workload == nil || fromFiles.Workload.Name != wantWL.Name {
		t.Errorf("from files, Workload = %v, want %s", fromFiles.Workload, wantWL.Name)
	}
	// In a list, the Deployment is one subject, with the Workload its
	// diagnosis reads; its other Pods' Workloads are subjects by name; the
	// Pod of another Deployment stays a Pod (its Deployment is not here).
	var subjects []string
	for _, s := range st.Subjects() {
		wl := "<none>"
		if s.Workload != nil {
			wl = s.Workload.Name
		}
		subjects = append(subjects, s.Target.Kind+"/"+s.Target.Name+"="+wl)
	}
	wantSubjects := []string{
		"Deployment/web=" + wantWL.Name,
		"Workload/" + podWorkload(pods[0]).Name + "=" + podWorkload(pods[0]).Name,
		"Workload/" + podWorkload(pods[1]).Name + "=" + podWorkload(pods[1]).Name,
		"Workload/" + podWorkload(pods[2]).Name + "=" + podWorkload(pods[2]).Name,
	}
	slices.Sort(wantSubjects[1:])
	wantSubjects = append(wantSubjects[:1], append([]string{"Pod/web-api-7c9-x=<none>"}, wantSubjects[1:]...)...)
	if diff := cmp.Diff(wantSubjects, subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}

	// What the answer says.
	r := diagnose.Analyze(got)
	if !strings.HasPrefix(r.Verdict.Headline, "2 of 4 pods of deployment/web are admitted") || !strings.Contains(r.Verdict.Detail, "web-7c9-d") {
		t.Errorf("verdict %+v", r.Verdict)
	}
}

func TestFetchDeploymentWithoutPods(t *testing.T) {
	d := testDeployment()
	e := newEnv([]runtime.Object{d}, []runtime.Object{testLQ(), testCQ("", "on-demand"), testRF("on-demand")}, nil)
	got, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: kinds.Deployment, Namespace: testNS, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload != nil || got.PerPod == nil || got.PerPod.Pods != 0 {
		t.Fatalf("Workload %v, PerPod %+v", got.Workload, got.PerPod)
	}
	for _, g := range got.Gaps {
		if g.Kind == KindWorkload {
			t.Errorf("gap %+v: a Deployment without Pods has no Workload to miss", g)
		}
	}
	r := diagnose.Analyze(got)
	if r.Verdict.Code != diagnose.CodeWorkloadMissing || !strings.Contains(r.Verdict.Headline, "has no pods yet") {
		t.Errorf("verdict %+v", r.Verdict)
	}
}

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
