package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	visibility "sigs.k8s.io/kueue/apis/visibility/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/kueuebot/kueuebot/diagnose"
)

const (
	testNS  = "team-a"
	jobName = "train"
	jobUID  = types.UID("11111111-2222-3333-4444-555555555555")
)

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

var jobGVK = batchv1.SchemeGroupVersion.WithKind("Job")

func testJob() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: jobName, Namespace: testNS, UID: jobUID,
			Labels: map[string]string{QueueNameLabel: "lq"},
		},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true)},
	}
}

func testWorkload(name string, conds ...metav1.Condition) *kueue.Workload {
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: testNS, UID: types.UID("wl-" + name),
			Labels:            map[string]string{JobUIDLabel: string(jobUID)},
			CreationTimestamp: metav1.NewTime(testNow.Add(-time.Hour)),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: jobUID, Controller: ptr.To(true),
			}},
		},
		Spec:   kueue.WorkloadSpec{QueueName: "lq"},
		Status: kueue.WorkloadStatus{Conditions: conds},
	}
}

func testLQ() *kueue.LocalQueue {
	return &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "lq", Namespace: testNS},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: "cq"},
	}
}

func testCQ(cohort string, flavors ...string) *kueue.ClusterQueue {
	var fq []kueue.FlavorQuotas
	for _, f := range flavors {
		fq = append(fq, kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(f), Resources: []kueue.ResourceQuota{
			{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("4")},
		}})
	}
	return &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "cq"},
		Spec: kueue.ClusterQueueSpec{
			CohortName:        kueue.CohortReference(cohort),
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors:          fq,
			}},
		},
	}
}

func testRF(name string) *kueue.ResourceFlavor {
	return &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func otherCQ(name, cohort string) *kueue.ClusterQueue {
	return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{CohortName: kueue.CohortReference(cohort)}}
}

func testCohort(name, parent string) *kueue.Cohort {
	return &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.CohortSpec{ParentName: kueue.CohortReference(parent)}}
}

var (
	condPending = metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", Message: "couldn't assign flavors"}
	condQuota   = metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue, Reason: "QuotaReserved"}
	condAdmit   = metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted"}
	condDone    = metav1.Condition{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue, Reason: "Succeeded"}
)

// env is one fake cluster.
type env struct {
	kube  *kubefake.Clientset
	kueue *kueuefake.Clientset
	bot   *kueuefake.Clientset
	dyn   *dynamicfake.FakeDynamicClient
}

// kueueV1beta2Resources is what discovery reports for Kueue v0.17.
var kueueV1beta2Resources = &metav1.APIResourceList{GroupVersion: "kueue.x-k8s.io/v1beta2", APIResources: []metav1.APIResource{
	{Name: "workloads"}, {Name: "localqueues"}, {Name: "clusterqueues"}, {Name: "cohorts"}, {Name: "resourceflavors"},
}}

func newEnv(kubeObjs, kueueObjs, dynObjs []runtime.Object, discovery ...*metav1.APIResourceList) *env {
	e := &env{
		kube:  kubefake.NewSimpleClientset(kubeObjs...),
		kueue: kueuefake.NewSimpleClientset(kueueObjs...),
		bot:   kueuefake.NewSimpleClientset(kueueObjs...),
	}
	if discovery == nil {
		discovery = []*metav1.APIResourceList{kueueV1beta2Resources}
	}
	e.kube.Discovery().(*fakediscovery.FakeDiscovery).Resources = discovery
	scheme := runtime.NewScheme()
	e.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}: "JobSetList",
	}, dynObjs...)
	return e
}

func (e *env) fetcher() *Fetcher {
	return &Fetcher{Kube: e.kube, Kueue: e.kueue, Dynamic: e.dyn, Timeout: time.Second, Now: func() time.Time { return testNow }}
}

// request is one API request as the fakes record it.
type request struct {
	Client, Verb, Resource, Sub, Name string
}

func describe(client string, a k8stesting.Action) request {
	r := request{Client: client, Verb: a.GetVerb(), Resource: a.GetResource().Resource, Sub: a.GetSubresource()}
	if g, ok := a.(k8stesting.GetAction); ok {
		r.Name = g.GetName()
	}
	return r
}

// requests lists the API requests made, discovery apart.
func (e *env) requests() (api []request, discovery int) {
	add := func(client string, acts []k8stesting.Action) {
		for _, a := range acts {
			if a.GetResource().Resource == "resource" {
				discovery++
				continue
			}
			api = append(api, describe(client, a))
		}
	}
	add("kube", e.kube.Actions())
	add("kueue", e.kueue.Actions())
	add("bot", e.bot.Actions())
	add("dynamic", e.dyn.Actions())
	return api, discovery
}

// pendingSummary makes the visibility reactor answer with items.
func pendingSummary(cs *kueuefake.Clientset, items ...visibility.PendingWorkload) {
	cs.PrependReactor("get", "localqueues", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "pendingworkloads" {
			return false, nil, nil
		}
		return true, &visibility.PendingWorkloadsSummary{Items: items}, nil
	})
}

func pw(name string, prio, inCQ, inLQ int32) visibility.PendingWorkload {
	return visibility.PendingWorkload{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS},
		Priority:   prio, LocalQueueName: "lq", PositionInClusterQueue: inCQ, PositionInLocalQueue: inLQ,
	}
}

func fail(verb, resource string, err error) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == verb && a.GetResource().Resource == resource && a.GetSubresource() == "" {
			return true, nil, err
		}
		return false, nil, nil
	}
}

func forbidden(resource, name string) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: resource}, name, errors.New("RBAC: access denied for user alice"))
}

func unstructuredJob(t *testing.T, j *batchv1.Job) *unstructured.Unstructured {
	t.Helper()
	u, err := toUnstructured(j)
	if err != nil {
		t.Fatal(err)
	}
	u.SetGroupVersionKind(jobGVK)
	return u
}

var wlName = WorkloadName(jobName, jobUID, jobGVK)

func TestFetchPendingJob(t *testing.T) {
	wl := testWorkload(wlName, condPending)
	e := newEnv(
		[]runtime.Object{testJob()},
		[]runtime.Object{wl, testLQ(), testCQ("co", "on-demand", "spot"), testRF("on-demand"), testRF("spot"), testRF("unused"),
			otherCQ("cq-b", "co"), otherCQ("cq-c", "child"), otherCQ("cq-x", "elsewhere"),
			testCohort("co", ""), testCohort("child", "co"), testCohort("elsewhere", "")},
		nil)
	pendingSummary(e.kueue, pw("ahead-1", 10, 0, 0), pw("ahead-2", 5, 1, 1), pw(wlName, 0, 3, 2), pw("behind", 0, 4, 3))

	got, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	want := &diagnose.Snapshot{
		Now:                 testNow,
		Target:              diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName},
		Job:                 unstructuredJob(t, testJob()),
		Workload:            wl,
		LocalQueue:          testLQ(),
		ClusterQueue:        testCQ("co", "on-demand", "spot"),
		CohortClusterQueues: []kueue.ClusterQueue{*otherCQ("cq-b", "co"), *otherCQ("cq-c", "child")},
		Cohorts:             []kueue.Cohort{*testCohort("child", "co"), *testCohort("co", "")},
		ResourceFlavors:     []kueue.ResourceFlavor{*testRF("on-demand"), *testRF("spot")},
		Position:            &diagnose.Position{InLocalQueue: 2, InClusterQueue: 3},
		QueueAhead: []diagnose.QueuedWorkload{
			{Namespace: testNS, Name: "ahead-1", LocalQueue: "lq", Priority: 10, PositionInClusterQueue: 0},
			{Namespace: testNS, Name: "ahead-2", LocalQueue: "lq", Priority: 5, PositionInClusterQueue: 1},
		},
	}
	if diff := cmp.Diff(want, got, snapshotOpts...); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	reqs, disc := e.requests()
	wantReqs := []request{
		{Client: "kube", Verb: "get", Resource: "jobs", Name: jobName},
		{Client: "kueue", Verb: "get", Resource: "workloads", Name: wlName},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Name: "lq"},
		{Client: "kueue", Verb: "get", Resource: "clusterqueues", Name: "cq"},
		{Client: "kueue", Verb: "list", Resource: "resourceflavors"},
		{Client: "kueue", Verb: "list", Resource: "clusterqueues"},
		{Client: "kueue", Verb: "list", Resource: "cohorts"},
		{Client: "kueue", Verb: "get", Resource: "localqueues", Sub: "pendingworkloads", Name: "lq"},
	}
	if diff := cmp.Diff(wantReqs, reqs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if len(reqs) > 8 {
		t.Errorf("%d requests for a pending Job, want at most 8", len(reqs))
	}
	if disc != 1 {
		t.Errorf("discovery requests = %d, want 1", disc)
	}
}

// snapshotOpts ignore the TypeMeta the fakes fill or not.
var snapshotOpts = []cmp.Option{
	cmpopts.IgnoreTypes(metav1.TypeMeta{}),
	cmpopts.EquateEmpty(),
}

func TestFetchTargetMissingOrForbiddenLookTheSame(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	tests := []struct {
		name  string
		setup func(e *env)
	}{
		{name: "missing", setup: func(*env) {}},
		{name: "forbidden", setup: func(e *env) {
			e.kube.PrependReactor("get", "jobs", fail("get", "jobs", forbidden("jobs", jobName)))
		}},
	}
	want := &diagnose.Snapshot{
		Now: testNow, Target: target,
		Gaps: []diagnose.Gap{{Kind: "Job", Name: jobName, Reason: diagnose.GapNotFound}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(nil, nil, nil)
			tc.setup(e)
			got, err := e.fetcher().Fetch(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, snapshotOpts...); diff != "" {
				t.Errorf("snapshot (-want +got):\n%s", diff)
			}
			if reqs, _ := e.requests(); len(reqs) != 1 {
				t.Errorf("requests = %v, want only the job GET", reqs)
			}
		})
	}
}

// A 401 says nothing about the job (it comes before authorization, so it
// leaks nothing either): the credentials were refused, and the fetch says so.
func TestFetchTargetUnauthorized(t *testing.T) {
	e := newEnv(nil, nil, nil)
	e.kube.PrependReactor("get", "jobs", fail("get", "jobs", apierrors.NewUnauthorized("token expired for alice")))
	_, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	var re *ReadError
	if !errors.As(err, &re) || re.Class != FaultUnauthorized {
		t.Fatalf("Fetch error = %v, want a ReadError of class Unauthorized", err)
	}
}

func TestFetchGaps(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	timeout := fmt.Errorf("Get \"https://api/...\": %w", context.DeadlineExceeded)
	tests := []struct {
		name     string
		kueue    []runtime.Object
		setup    func(e *env)
		bot      bool
		wantGaps []diagnose.Gap
		wantBot  bool
		check    func(t *testing.T, s *diagnose.Snapshot, e *env)
	}{
		{
			name:  "clusterqueue forbidden",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("", "f")},
			setup: func(e *env) {
				e.kueue.PrependReactor("get", "clusterqueues", fail("get", "clusterqueues", forbidden("clusterqueues", "cq")))
				pendingSummary(e.kueue)
			},
			wantGaps: []diagnose.Gap{{Kind: "ClusterQueue", Name: "cq", Reason: diagnose.GapForbidden,
				Message: `clusterqueues "cq" is forbidden: RBAC: access denied for user alice`}},
		},
		{
			name:  "clusterqueue read by the bot",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("", "f"), testRF("f")},
			setup: func(e *env) {
				e.kueue.PrependReactor("*", "clusterqueues", fail("get", "clusterqueues", forbidden("clusterqueues", "cq")))
				e.kueue.PrependReactor("*", "resourceflavors", fail("get", "resourceflavors", forbidden("resourceflavors", "f")))
				pendingSummary(e.kueue)
			},
			bot:     true,
			wantBot: true,
			check: func(t *testing.T, s *diagnose.Snapshot, e *env) {
				if s.ClusterQueue == nil || len(s.ResourceFlavors) != 1 {
					t.Errorf("ClusterQueue = %v, flavors = %v; want both read by the bot", s.ClusterQueue, s.ResourceFlavors)
				}
			},
		},
		{
			name:  "bot not used when the caller cannot read the LocalQueue",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("", "f")},
			setup: func(e *env) {
				e.kueue.PrependReactor("get", "localqueues", fail("get", "localqueues", forbidden("localqueues", "lq")))
			},
			bot: true,
			wantGaps: []diagnose.Gap{{Kind: "LocalQueue", Name: "lq", Reason: diagnose.GapForbidden,
				Message: `localqueues "lq" is forbidden: RBAC: access denied for user alice`}},
			check: func(t *testing.T, s *diagnose.Snapshot, e *env) {
				if n := len(e.bot.Actions()); n != 0 {
					t.Errorf("bot made %d requests, want 0", n)
				}
			},
		},
		{
			name:  "clusterqueue read times out: the rest is not tried",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("", "f")},
			setup: func(e *env) {
				e.kueue.PrependReactor("get", "clusterqueues", fail("get", "clusterqueues", timeout))
			},
			wantGaps: []diagnose.Gap{
				{Kind: "ClusterQueue", Name: "cq", Reason: diagnose.GapTimeout, Message: "the request timed out"},
				{Kind: "PendingWorkloads", Name: "lq", Reason: diagnose.GapUnavailable, Message: "not read: the cluster had stopped answering (did not answer in 1s)"},
			},
			check: func(t *testing.T, s *diagnose.Snapshot, e *env) {
				// job, workload, localqueue, clusterqueue; nothing after.
				if reqs, _ := e.requests(); len(reqs) != 4 {
					t.Errorf("requests = %v, want 4", reqs)
				}
			},
		},
		{
			name:  "connection refused after the first request",
			kueue: []runtime.Object{testWorkload(wlName, condPending)},
			setup: func(e *env) {
				e.kueue.PrependReactor("get", "localqueues", fail("get", "localqueues", refused))
			},
			wantGaps: []diagnose.Gap{{Kind: "LocalQueue", Name: "lq", Reason: diagnose.GapUnavailable, Message: "could not be reached: dial tcp: connect: connection refused"}},
		},
		{
			name:  "a 500 on the localqueue: later reads go on",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ()},
			setup: func(e *env) {
				e.kueue.PrependReactor("get", "localqueues", fail("get", "localqueues", apierrors.NewInternalError(errors.New("boom"))))
				e.kueue.PrependReactor("list", "localqueues", fail("list", "localqueues", forbidden("localqueues", "")))
			},
			wantGaps: []diagnose.Gap{{Kind: "LocalQueue", Name: "lq", Reason: diagnose.GapUnavailable,
				Message: "answered with a server error (HTTP 500 Internal Server Error): Internal error occurred: boom"}},
		},
		{
			name: "no workload",
			wantGaps: []diagnose.Gap{
				{Kind: "Workload", Name: wlName, Reason: diagnose.GapNotFound, Message: `workloads.kueue.x-k8s.io "` + wlName + `" not found`},
				{Kind: "LocalQueue", Name: "lq", Reason: diagnose.GapNotFound, Message: `localqueues.kueue.x-k8s.io "lq" not found`},
			},
			check: func(t *testing.T, s *diagnose.Snapshot, e *env) {
				reqs, _ := e.requests()
				// job, workload GET, workload LIST by job-uid, the job's
				// events (Kueue's ErrWorkloadCompose), localqueue GET, and the
				// namespace's LocalQueues to suggest the right name.
				if len(reqs) != 6 {
					t.Errorf("requests = %v, want 6", reqs)
				}
			},
		},
		{
			name: "workload found by job-uid label when the name misses",
			kueue: []runtime.Object{testWorkload("job-train-elastic", condDone),
				func() *kueue.Workload {
					w := testWorkload("not-mine", condPending)
					w.OwnerReferences[0].UID = "other"
					return w
				}()},
			check: func(t *testing.T, s *diagnose.Snapshot, e *env) {
				if s.Workload == nil || s.Workload.Name != "job-train-elastic" {
					t.Errorf("Workload = %v, want job-train-elastic", s.Workload)
				}
			},
		},
		{
			name: "namespace forbidden when the selector needs its labels",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), func() *kueue.ClusterQueue {
				cq := testCQ("")
				cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
				return cq
			}()},
			setup: func(e *env) {
				e.kube.PrependReactor("get", "namespaces", fail("get", "namespaces", forbidden("namespaces", testNS)))
				pendingSummary(e.kueue)
			},
			wantGaps: []diagnose.Gap{{Kind: "Namespace", Name: testNS, Reason: diagnose.GapForbidden,
				Message: `namespaces "team-a" is forbidden: RBAC: access denied for user alice`}},
		},
		{
			name:  "visibility API not served",
			kueue: []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("")},
			wantGaps: []diagnose.Gap{{Kind: "PendingWorkloads", Name: "lq", Reason: diagnose.GapUnavailable,
				Message: `localqueues.visibility.kueue.x-k8s.io "lq" not found`}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv([]runtime.Object{testJob()}, tc.kueue, nil)
			if tc.setup != nil {
				tc.setup(e)
			}
			f := e.fetcher()
			if tc.bot {
				f.ClusterScoped = e.bot
			}
			got, err := f.Fetch(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantGaps, got.Gaps, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if got.ClusterScopedByBot != tc.wantBot {
				t.Errorf("ClusterScopedByBot = %v, want %v", got.ClusterScopedByBot, tc.wantBot)
			}
			if tc.check != nil {
				tc.check(t, got, e)
			}
		})
	}
}

func TestFetchBadTarget(t *testing.T) {
	for _, target := range []diagnose.Target{
		{Kind: "Job", Name: jobName},
		{Kind: "Job", Namespace: testNS},
		{Kind: "DaemonSet", Namespace: testNS, Name: "d"},
	} {
		e := newEnv(nil, nil, nil)
		if _, err := e.fetcher().Fetch(t.Context(), target); !errors.Is(err, ErrBadTarget) {
			t.Errorf("Fetch(%+v) error = %v, want ErrBadTarget", target, err)
		}
		if reqs, _ := e.requests(); len(reqs) != 0 {
			t.Errorf("Fetch(%+v) made requests %v", target, reqs)
		}
	}
}

func TestFetchTargetUnavailable(t *testing.T) {
	e := newEnv(nil, nil, nil)
	e.kube.PrependReactor("get", "jobs", fail("get", "jobs", apierrors.NewServiceUnavailable("etcd is down")))
	_, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	var re *ReadError
	if !errors.As(err, &re) || re.Kind != "Job" || re.Name != jobName || re.Class != FaultServerError || re.Status != 503 {
		t.Fatalf("Fetch error = %#v, want a ReadError of the Job, ServerError 503", err)
	}
}

func TestFetchUnreachable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	e := newEnv(nil, nil, nil)
	e.kube.PrependReactor("*", "*", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, refused })
	_, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	var re *ReadError
	if !errors.As(err, &re) || re.Class != FaultUnreachable || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Fetch error = %v, want a ReadError (Unreachable, connection refused)", err)
	}
}

func TestFetchCanceledContext(t *testing.T) {
	e := newEnv([]runtime.Object{testJob()}, nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	e.kube.PrependReactor("get", "jobs", fail("get", "jobs", context.Canceled))
	if _, err := e.fetcher().Fetch(ctx, diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch error = %v, want context.Canceled", err)
	}
}

func TestFetchStates(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	runningJob := testJob()
	runningJob.Spec.Suspend = ptr.To(false)
	admittedWL := testWorkload(wlName, condQuota, condAdmit)
	admittedWL.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: "main", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f"},
	}}}
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("pod-" + name),
				Labels: map[string]string{JobControllerUIDLabel: string(jobUID)}},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	event := func(name, kind, obj string, uid types.UID, at time.Time) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("ev-" + name)},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Name: obj, Namespace: testNS, UID: uid},
			Reason:         "R", LastTimestamp: metav1.NewTime(at),
		}
	}
	checkCQ := testCQ("co", "f")
	checkCQ.Spec.AdmissionChecksStrategy = &kueue.AdmissionChecksStrategy{AdmissionChecks: []kueue.AdmissionCheckStrategyRule{{Name: "prov"}}}
	tests := []struct {
		name       string
		kube       []runtime.Object
		kueue      []runtime.Object
		wantCounts map[string]int
		maxReqs    int
		check      func(t *testing.T, s *diagnose.Snapshot)
	}{
		{
			name: "admitted with pods and events",
			kube: []runtime.Object{runningJob,
				pod("p1", corev1.PodRunning), pod("p2", corev1.PodPending), pod("p3", corev1.PodPending),
				pod("p4", corev1.PodPending), pod("p5", corev1.PodPending),
				event("e-job", "Job", jobName, jobUID, testNow.Add(-3*time.Minute)),
				event("e-wl", "Workload", wlName, "wl-"+types.UID(wlName), testNow.Add(-2*time.Minute)),
				event("e-p2", "Pod", "p2", "pod-p2", testNow.Add(-time.Minute)),
				event("e-other", "Pod", "other", "pod-other", testNow),
			},
			kueue:   []runtime.Object{admittedWL, testLQ(), testCQ("co", "f"), testRF("f")},
			maxReqs: 10,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				var names []string
				for _, e := range s.Events {
					names = append(names, e.Name)
				}
				if diff := cmp.Diff([]string{"e-job", "e-wl", "e-p2"}, names); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if len(s.Pods) != 5 {
					t.Errorf("pods = %d, want 5", len(s.Pods))
				}
				if s.Position != nil || len(s.CohortClusterQueues) != 0 {
					t.Errorf("admitted: want no position and no cohort reads")
				}
			},
		},
		{
			name:    "quota reserved, waiting for admission checks",
			kube:    []runtime.Object{testJob()},
			kueue:   []runtime.Object{testWorkload(wlName, condQuota), testLQ(), checkCQ, testRF("f"), &kueue.AdmissionCheck{ObjectMeta: metav1.ObjectMeta{Name: "prov"}}},
			maxReqs: 6,
			check: func(t *testing.T, s *diagnose.Snapshot) {
				if len(s.AdmissionChecks) != 1 {
					t.Errorf("admission checks = %v, want prov", s.AdmissionChecks)
				}
			},
		},
		{
			name:    "finished",
			kube:    []runtime.Object{testJob()},
			kueue:   []runtime.Object{testWorkload(wlName, condQuota, condAdmit, condDone), testLQ(), testCQ("", "f")},
			maxReqs: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(tc.kube, tc.kueue, nil)
			got, err := e.fetcher().Fetch(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Gaps) != 0 {
				t.Errorf("gaps = %v, want none", got.Gaps)
			}
			reqs, _ := e.requests()
			if len(reqs) > tc.maxReqs {
				t.Errorf("%d requests, want at most %d: %v", len(reqs), tc.maxReqs, reqs)
			}
			t.Logf("%d requests: %v", len(reqs), reqs)
			for _, a := range e.kube.Actions() {
				if l, ok := a.(k8stesting.ListAction); ok && a.GetResource().Resource == "events" {
					if fs := l.GetListRestrictions().Fields.String(); !strings.Contains(fs, "involvedObject.uid=") {
						t.Errorf("events listed without an involvedObject field selector: %q", fs)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

func TestFetchOtherKinds(t *testing.T) {
	js := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": "js", "namespace": testNS, "uid": "js-uid",
			"labels": map[string]any{QueueNameLabel: "lq"}},
		"spec": map[string]any{"suspend": true},
	}}
	jsWLName := WorkloadName("js", "js-uid", schema.GroupVersionKind{Group: "jobset.x-k8s.io", Kind: "JobSet"})
	jsWL := testWorkload(jsWLName, condPending)
	jsWL.OwnerReferences[0] = metav1.OwnerReference{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet", Name: "js", UID: "js-uid", Controller: ptr.To(true)}

	groupPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "g-0", Namespace: testNS, UID: "g0",
		Labels: map[string]string{PodGroupNameLabel: "grp", QueueNameLabel: "lq"}}}
	grpWL := testWorkload("grp", condPending)
	grpWL.OwnerReferences = nil

	jobsetDiscovery := &metav1.APIResourceList{GroupVersion: "jobset.x-k8s.io/v1alpha2", APIResources: []metav1.APIResource{{Name: "jobsets"}}}
	tests := []struct {
		name      string
		target    diagnose.Target
		discovery []*metav1.APIResourceList
		wantWL    string
		wantGaps  []diagnose.Gap
	}{
		{
			name:      "jobset through the dynamic client",
			target:    diagnose.Target{Kind: "JobSet", Namespace: testNS, Name: "js"},
			discovery: []*metav1.APIResourceList{kueueV1beta2Resources, jobsetDiscovery},
			wantWL:    jsWLName,
		},
		{
			name:     "kind not served is skipped quietly",
			target:   diagnose.Target{Kind: "RayJob", Namespace: testNS, Name: "rj"},
			wantGaps: []diagnose.Gap{{Kind: "RayJob", Name: "rj", Reason: diagnose.GapNotFound}},
		},
		{
			name:   "pod group: the workload is named after the group",
			target: diagnose.Target{Kind: "Pod", Namespace: testNS, Name: "g-0"},
			wantWL: "grp",
		},
		{
			name:   "workload named directly",
			target: diagnose.Target{Kind: "Workload", Namespace: testNS, Name: "grp"},
			wantWL: "grp",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv([]runtime.Object{groupPod}, []runtime.Object{jsWL, grpWL, testLQ(), testCQ("")}, []runtime.Object{js}, tc.discovery...)
			pendingSummary(e.kueue)
			got, err := e.fetcher().Fetch(t.Context(), tc.target)
			if err != nil {
				t.Fatal(err)
			}
			gotWL := ""
			if got.Workload != nil {
				gotWL = got.Workload.Name
			}
			if gotWL != tc.wantWL {
				t.Errorf("Workload = %q, want %q", gotWL, tc.wantWL)
			}
			if diff := cmp.Diff(tc.wantGaps, got.Gaps, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
			if tc.target.Kind == "Workload" && got.Job != nil {
				t.Errorf("Job = %v, want nil for a Workload target", got.Job)
			}
		})
	}
}

func TestFetchKueueV1beta1(t *testing.T) {
	old := []runtime.Object{
		&kueuev1beta1.Workload{
			ObjectMeta: testWorkload(wlName).ObjectMeta,
			Spec:       kueuev1beta1.WorkloadSpec{QueueName: "lq", PriorityClassName: "high", PriorityClassSource: "kueue.x-k8s.io/workloadpriorityclass", Priority: ptr.To[int32](100)},
		},
		&kueuev1beta1.LocalQueue{ObjectMeta: testLQ().ObjectMeta, Spec: kueuev1beta1.LocalQueueSpec{ClusterQueue: "cq"},
			Status: kueuev1beta1.LocalQueueStatus{FlavorUsage: []kueuev1beta1.LocalQueueFlavorUsage{{Name: "f"}}}},
		&kueuev1beta1.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cq"}, Spec: kueuev1beta1.ClusterQueueSpec{
			Cohort: "co", AdmissionChecks: []kueuev1beta1.AdmissionCheckReference{"prov"},
			ResourceGroups: []kueuev1beta1.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu"},
				Flavors: []kueuev1beta1.FlavorQuotas{{Name: "f", Resources: []kueuev1beta1.ResourceQuota{{Name: "cpu", NominalQuota: resource.MustParse("1")}}}}}},
		}},
		&kueuev1beta1.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "peer"}, Spec: kueuev1beta1.ClusterQueueSpec{Cohort: "co"}},
		&kueuev1beta1.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}},
	}
	v1beta1Discovery := &metav1.APIResourceList{GroupVersion: "kueue.x-k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "workloads"}}}
	e := newEnv([]runtime.Object{testJob()}, old, nil, v1beta1Discovery)
	e.kueue.PrependReactor("get", "localqueues", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "pendingworkloads" {
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "localqueues"}, "lq")
		}
		return false, nil, nil
	})
	got, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload == nil || got.ClusterQueue == nil || got.LocalQueue == nil {
		t.Fatalf("want Workload, LocalQueue and ClusterQueue; gaps: %v", got.Gaps)
	}
	if diff := cmp.Diff(&kueue.PriorityClassRef{Group: "kueue.x-k8s.io", Kind: "WorkloadPriorityClass", Name: "high"}, got.Workload.Spec.PriorityClassRef); diff != "" {
		t.Errorf("priorityClassRef (-want +got):\n%s", diff)
	}
	if got.ClusterQueue.Spec.CohortName != "co" {
		t.Errorf("cohortName = %q, want co", got.ClusterQueue.Spec.CohortName)
	}
	if diff := cmp.Diff([]string{"prov"}, diagnose.ClusterQueueChecks(got.ClusterQueue)); diff != "" {
		t.Errorf("admission checks (-want +got):\n%s", diff)
	}
	if len(got.LocalQueue.Status.FlavorsUsage) != 1 {
		t.Errorf("flavorsUsage = %v, want 1 entry", got.LocalQueue.Status.FlavorsUsage)
	}
	if len(got.CohortClusterQueues) != 1 || got.CohortClusterQueues[0].Name != "peer" {
		t.Errorf("cohort members = %v, want peer", got.CohortClusterQueues)
	}
	for _, a := range e.kueue.Actions() {
		if v := a.GetResource().Version; v != "v1beta1" {
			t.Errorf("request %s %s used version %s, want v1beta1", a.GetVerb(), a.GetResource().Resource, v)
		}
	}
}

// TestFetchImpersonationRefused: when the API server refuses the
// impersonation itself (the bot's RBAC is wrong), Fetch fails loudly
// instead of telling the user their job does not exist.
func TestFetchImpersonationRefused(t *testing.T) {
	e := newEnv(nil, nil, nil)
	refused := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: `users "alice" is forbidden: User "kueuebot" cannot impersonate resource "users" in API group "" at the cluster scope`,
	}}
	e.kube.PrependReactor("get", "jobs", fail("get", "jobs", refused))
	_, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if !errors.Is(err, ErrImpersonation) {
		t.Fatalf("Fetch error = %v, want ErrImpersonation", err)
	}
}

// TestFetchAlternativeQueues: a pending Workload that does not fit a
// ClusterQueue without a cohort gets the namespace's other queues, still
// within 8 requests.
func TestFetchAlternativeQueues(t *testing.T) {
	wlName := WorkloadName(jobName, jobUID, jobGVK)
	noFit := metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending",
		Message: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 1 more needed"}
	big := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: testNS}, Spec: kueue.LocalQueueSpec{ClusterQueue: "big-cq"}}
	bigCQ := testCQ("", "f")
	bigCQ.Name = "big-cq"
	e := newEnv([]runtime.Object{testJob()}, []runtime.Object{testWorkload(wlName, noFit), testLQ(), big, testCQ("", "f"), bigCQ, testRF("f")}, nil)
	s, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.AlternativeQueues) != 1 || s.AlternativeQueues[0].LocalQueue.Name != "big" || s.AlternativeQueues[0].ClusterQueue.Name != "big-cq" {
		t.Errorf("alternatives = %+v, want LocalQueue big -> big-cq", s.AlternativeQueues)
	}
	if reqs, _ := e.requests(); len(reqs) > 8 {
		t.Errorf("%d requests, want at most 8: %v", len(reqs), reqs)
	}
}
