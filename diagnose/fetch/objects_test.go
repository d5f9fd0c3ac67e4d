package fetch

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// TestFetchNamingObjects: the objects that name what blocks (Nodes,
// claims, ResourceQuotas, LimitRanges, RuntimeClasses, Topologies,
// MultiKueue) are read only in the states that need them, in a fixed
// number of requests, and a refused read is a Gap saying what could not
// be checked and who can.
func TestFetchNamingObjects(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	running := testJob()
	running.Spec.Suspend = ptr.To(false)
	admitted := func() *kueue.Workload {
		wl := testWorkload(wlName, condQuota, condAdmit)
		wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
			Name: "main", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f"},
		}}}
		return wl
	}
	gpuFlavor := testRF("f")
	gpuFlavor.Spec.NodeLabels = map[string]string{"pool": "gpu"}
	event := func(name, kind, obj string, uid types.UID, reason, msg string) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("ev-" + name)},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Name: obj, Namespace: testNS, UID: uid},
			Reason:         reason, Message: msg, LastTimestamp: metav1.NewTime(testNow),
		}
	}
	node := func(name, pool, rack string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool, "rack": rack},
				Annotations: map[string]string{"big": strings.Repeat("x", 1000)}},
			Spec: corev1.NodeSpec{Taints: taints, PodCIDR: "10.0.0.0/24"},
			Status: corev1.NodeStatus{
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")},
				Conditions: []corev1.NodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "long message"},
					{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
				},
				Images: []corev1.ContainerImage{{Names: []string{"a"}, SizeBytes: 1}},
			},
		}
	}
	unscheduled := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: testNS, UID: "pod-p1", Labels: map[string]string{JobControllerUIDLabel: string(jobUID)}},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/2 nodes are available: 2 node(s) had untolerated taint {gpu: true}.",
		}}},
	}
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: testNS}}
	otherClaim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: testNS}}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-cpu", Namespace: testNS}}
	limits := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: testNS}}

	tasFlavor := testRF("f")
	tasFlavor.Spec.NodeLabels = map[string]string{"pool": "tas"}
	tasFlavor.Spec.TopologyName = ptr.To(kueue.TopologyReference("racks"))
	tasPending := testWorkload(wlName, metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending",
		Message: `couldn't assign flavors to pod set main: topology "racks" allows to fit only 4 out of 5 pod(s)`})
	topology := &kueue.Topology{ObjectMeta: metav1.ObjectMeta{Name: "racks"}, Spec: kueue.TopologySpec{Levels: []kueue.TopologyLevel{{NodeLabel: "rack"}}}}

	kataPending := testWorkload(wlName, condPending)
	kataPending.Spec.PodSets = []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RuntimeClassName: ptr.To("kata"),
		Containers:       []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
	}}}}
	noRequests := testWorkload(wlName, condPending)
	noRequests.Spec.PodSets = []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c"}},
	}}}}
	kata := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}

	mkCQ := testCQ("", "f")
	mkCQ.Spec.AdmissionChecksStrategy = &kueue.AdmissionChecksStrategy{AdmissionChecks: []kueue.AdmissionCheckStrategyRule{{Name: "mk"}}}
	mkCQ.Status.Conditions = []metav1.Condition{{Type: kueue.ClusterQueueActive, Status: metav1.ConditionFalse, Reason: "AdmissionCheckInactive", Message: "Can't admit new workloads: references inactive AdmissionCheck(s): mk."}}
	mkCheck := &kueue.AdmissionCheck{ObjectMeta: metav1.ObjectMeta{Name: "mk"}, Spec: kueue.AdmissionCheckSpec{
		ControllerName: multiKueueController,
		Parameters:     &kueue.AdmissionCheckParametersReference{APIGroup: "kueue.x-k8s.io", Kind: "MultiKueueConfig", Name: "cfg"},
	}, Status: kueue.AdmissionCheckStatus{Conditions: []metav1.Condition{{Type: kueue.AdmissionCheckActive, Status: metav1.ConditionFalse, Reason: "NoUsableClusters", Message: "Inactive clusters: [w1]"}}}}
	mkConfig := &kueue.MultiKueueConfig{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Spec: kueue.MultiKueueConfigSpec{Clusters: []string{"w1"}}}
	worker := func(name string) *kueue.MultiKueueCluster {
		return &kueue.MultiKueueCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: kueue.MultiKueueClusterStatus{Conditions: []metav1.Condition{{
			Type: kueue.MultiKueueClusterActive, Status: metav1.ConditionFalse, Reason: "ClientConnectionFailed", Message: "connection refused"}}}}
	}

	tests := []struct {
		name    string
		kube    []runtime.Object
		kueue   []runtime.Object
		refuse  []string // kube resources whose LIST is Forbidden
		want    []request
		maxReqs int
		check   func(t *testing.T, s *diagnose.Snapshot)
	}{
		{
			name: "pods refused by the API server: the namespace's quotas and limits",
			kube: []runtime.Object{running, quota, limits,
				event("e-job", "Job", jobName, jobUID, "FailedCreate", `pods "train-x" is forbidden: exceeded quota: team-cpu, requested: requests.cpu=1, used: requests.cpu=0, limited: requests.cpu=500m`)},
			kueue:   []runtime.Object{admitted(), testLQ(), testCQ("", "f"), testRF("f")},
			want:    []request{{Client: "kube", Verb: "list", Resource: "resourcequotas"}, {Client: "kube", Verb: "list", Resource: "limitranges"}},
			maxReqs: 10,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.ResourceQuotas) != 1 || len(s.LimitRanges) != 1 || s.Nodes != nil || s.PersistentVolumeClaims != nil {
					t.Errorf("quotas %d, limit ranges %d, nodes %v, claims %v; want 1, 1, not read, not read", len(s.ResourceQuotas), len(s.LimitRanges), s.Nodes, s.PersistentVolumeClaims)
				}
			},
		},
		{
			name: "a pod refused for a taint, with a claim: the claim and the flavor's Nodes",
			kube: []runtime.Object{running, unscheduled, claim, otherClaim,
				node("n1", "gpu", "r1", corev1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}), node("n2", "cpu", "r1"),
				event("e-p1", "Pod", "p1", "pod-p1", "FailedScheduling", "0/2 nodes are available: 2 node(s) had untolerated taint {gpu: true}.")},
			kueue:   []runtime.Object{admitted(), testLQ(), testCQ("", "f"), gpuFlavor},
			want:    []request{{Client: "kube", Verb: "list", Resource: "persistentvolumeclaims"}, {Client: "kube", Verb: "list", Resource: "nodes"}},
			maxReqs: 11,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if got := names2(s.PersistentVolumeClaims, func(p *corev1.PersistentVolumeClaim) string { return p.Name }); !slices.Equal(got, []string{"data"}) {
					t.Errorf("claims = %v, want [data]", got)
				}
				if len(s.Nodes) != 1 || s.Nodes[0].Name != "n1" {
					t.Fatalf("nodes = %v, want n1 only (the flavor's nodeLabels pool=gpu)", s.Nodes)
				}
				n := s.Nodes[0]
				if n.Annotations != nil || n.Status.Images != nil || n.Spec.PodCIDR != "" || len(n.Status.Conditions) != 1 || n.Status.Conditions[0].Message != "" {
					t.Errorf("node not slimmed: %+v", n)
				}
				if len(n.Spec.Taints) != 1 || n.Status.Allocatable.Cpu().String() != "8" || n.Labels["rack"] != "r1" {
					t.Errorf("node lost what the diagnosis reads: %+v", n)
				}
			},
		},
		{
			name: "Nodes and claims forbidden: gaps that say who can check",
			kube: []runtime.Object{running, unscheduled, claim,
				event("e-p1", "Pod", "p1", "pod-p1", "FailedScheduling", "0/2 nodes are available: 2 node(s) had untolerated taint {gpu: true}.")},
			kueue:  []runtime.Object{admitted(), testLQ(), testCQ("", "f"), gpuFlavor},
			refuse: []string{"nodes", "persistentvolumeclaims"},
			want:   []request{{Client: "kube", Verb: "list", Resource: "persistentvolumeclaims"}, {Client: "kube", Verb: "list", Resource: "nodes"}},
			check: func(t *testing.T, s *diagnose.Snapshot) {
				want := []diagnose.Gap{
					{Kind: "PersistentVolumeClaim", Name: "data", Reason: diagnose.GapForbidden, Message: gapClaims},
					{Kind: "Node", Name: "pool=gpu", Reason: diagnose.GapForbidden, Message: gapNodes},
				}
				if diff := cmp.Diff(want, s.Gaps); diff != "" {
					t.Errorf("gaps (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:    "TAS refusal: the flavor's Topology and its Nodes",
			kube:    []runtime.Object{testJob(), node("t1", "tas", "r1"), node("t2", "tas", "r2"), node("n2", "cpu", "r1")},
			kueue:   []runtime.Object{tasPending, testLQ(), testCQ("", "f"), tasFlavor, topology},
			want:    []request{{Client: "kueue", Verb: "get", Resource: "topologies", Name: "racks"}, {Client: "kube", Verb: "list", Resource: "nodes"}},
			maxReqs: 8,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.Topologies) != 1 || len(s.Nodes) != 2 {
					t.Errorf("topologies %d, nodes %d; want 1 and the 2 nodes of pool=tas", len(s.Topologies), len(s.Nodes))
				}
			},
		},
		{
			name:    "a RuntimeClass named by the pod set",
			kube:    []runtime.Object{testJob(), kata},
			kueue:   []runtime.Object{kataPending, testLQ(), testCQ("", "f"), testRF("f")},
			want:    []request{{Client: "kube", Verb: "get", Resource: "runtimeclasses", Name: "kata"}},
			maxReqs: 8,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.RuntimeClasses) != 1 || s.LimitRanges != nil {
					t.Errorf("runtime classes %d, limit ranges %v; want 1, not read (every container asks)", len(s.RuntimeClasses), s.LimitRanges)
				}
			},
		},
		{
			name:    "a container that asks for nothing: the LimitRanges",
			kube:    []runtime.Object{testJob(), limits},
			kueue:   []runtime.Object{noRequests, testLQ(), testCQ("", "f"), testRF("f")},
			want:    []request{{Client: "kube", Verb: "list", Resource: "limitranges"}},
			maxReqs: 8,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.LimitRanges) != 1 {
					t.Errorf("limit ranges = %v, want defaults", s.LimitRanges)
				}
			},
		},
		{
			name:  "a MultiKueue check: its config and worker clusters",
			kube:  []runtime.Object{testJob()},
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), mkCQ, testRF("f"), mkCheck, mkConfig, worker("w1"), worker("other")},
			want: []request{{Client: "kueue", Verb: "get", Resource: "admissionchecks", Name: "mk"},
				{Client: "kueue", Verb: "get", Resource: "multikueueconfigs", Name: "cfg"}, {Client: "kueue", Verb: "list", Resource: "multikueueclusters"}},
			maxReqs: 10,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.MultiKueueConfigs) != 1 || len(s.MultiKueueClusters) != 1 || s.MultiKueueClusters[0].Name != "w1" {
					t.Errorf("configs %v, clusters %v; want cfg and w1 only", s.MultiKueueConfigs, s.MultiKueueClusters)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(tc.kube, tc.kueue, nil)
			for _, res := range tc.refuse {
				e.kube.PrependReactor("list", res, fail("list", res, forbidden(res, "")))
			}
			got, err := e.fetcher().Fetch(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			if gaps := slices.DeleteFunc(slices.Clone(got.Gaps), func(g diagnose.Gap) bool { return g.Kind == "PendingWorkloads" }); tc.refuse == nil && len(gaps) != 0 {
				t.Errorf("gaps = %v, want none (but the fakes' visibility API)", gaps)
			}
			reqs, _ := e.requests()
			for _, w := range tc.want {
				if !slices.Contains(reqs, w) {
					t.Errorf("no request %+v in %v", w, reqs)
				}
			}
			if tc.maxReqs > 0 && len(reqs) > tc.maxReqs {
				t.Errorf("%d requests, want at most %d: %v", len(reqs), tc.maxReqs, reqs)
			}
			for _, a := range e.kube.Actions() {
				if l, ok := a.(k8stesting.ListAction); ok && a.GetResource().Resource == "nodes" && tc.name != "TAS refusal: the flavor's Topology and its Nodes" {
					if sel := l.GetListRestrictions().Labels.String(); sel != "pool=gpu" {
						t.Errorf("nodes listed with selector %q, want the flavor's nodeLabels pool=gpu", sel)
					}
				}
			}
			t.Logf("%d requests: %v", len(reqs), reqs)
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// TestFetchNoNamingReads: a pending Job whose containers ask for cpu and
// memory, with no RuntimeClass, topology or MultiKueue check, costs no
// request for the naming objects.
func TestFetchNoNamingReads(t *testing.T) {
	wl := testWorkload(wlName, condPending)
	wl.Spec.PodSets = []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
	}}}}
	e := newEnv([]runtime.Object{testJob()}, []runtime.Object{wl, testLQ(), testCQ("", "f"), testRF("f")}, nil)
	if _, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}); err != nil {
		t.Fatal(err)
	}
	reqs, _ := e.requests()
	for _, r := range reqs {
		switch r.Resource {
		case "nodes", "persistentvolumeclaims", "resourcequotas", "limitranges", "runtimeclasses", "topologies", "multikueueconfigs", "multikueueclusters":
			t.Errorf("unneeded read %+v", r)
		}
	}
}
