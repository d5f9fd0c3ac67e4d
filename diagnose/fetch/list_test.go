package fetch

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// paginate makes the fake answer Workload LISTs page by page, honouring
// limit and continue as the API server does (the fakes ignore both).
func paginate(cs *kueuefake.Clientset, all func(ns string) []kueue.Workload) {
	cs.PrependReactor("list", "workloads", func(a k8stesting.Action) (bool, runtime.Object, error) {
		la := a.(k8stesting.ListActionImpl)
		items := all(la.GetNamespace())
		start := 0
		if c := la.ListOptions.Continue; c != "" {
			start, _ = strconv.Atoi(c)
		}
		end := len(items)
		if l := int(la.ListOptions.Limit); l > 0 && start+l < end {
			end = start + l
		}
		list := &kueue.WorkloadList{Items: items[start:end]}
		if end < len(items) {
			list.Continue = strconv.Itoa(end)
		}
		return true, list, nil
	})
}

func TestListIntoPaginatesWithAFixedNumberOfRequests(t *testing.T) {
	for _, n := range []int{250, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := gencluster.Generate(gencluster.Spec{Workloads: n, Namespaces: 2, ClusterQueues: 1, Now: testNow})
			e := clusterEnv(c)
			paginate(e.kueue, func(ns string) []kueue.Workload {
				var out []kueue.Workload
				for _, w := range c.Workloads {
					if w.Namespace == ns {
						out = append(out, *w)
					}
				}
				return out
			})
			st := NewStore()
			stats, err := st.ListInto(t.Context(), e.clients(), ListOptions{
				Namespaces: []string{gencluster.Namespace(0), gencluster.Namespace(1)}, PageSize: 100,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(st.Workloads()); got != n {
				t.Errorf("%d Workloads in the store, want %d", got, n)
			}
			pages := 2 * ((n/2 + 99) / 100)
			// discovery + per namespace (Workload pages, LocalQueues)
			// + ClusterQueues, ResourceFlavors, Cohorts, AdmissionChecks
			// (no WorkloadPriorityClasses: no job names one).
			want := 1 + pages + 2 + 4
			if stats.Requests != want {
				t.Errorf("%d requests, want %d (%d pages of Workloads)", stats.Requests, want, pages)
			}
			reqs, _ := e.requests()
			for _, r := range reqs {
				if r.Verb != "list" {
					t.Errorf("request %+v is not a LIST", r)
				}
			}
			if len(stats.Failed) != 0 {
				t.Errorf("failed LISTs: %v", stats.Failed)
			}
		})
	}
}

func TestListIntoRecordsFailuresAsGaps(t *testing.T) {
	c := smallCluster()
	e := clusterEnv(c)
	ns := gencluster.Namespace(1)
	e.kueue.PrependReactor("list", "localqueues", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == ns {
			return true, nil, forbidden("localqueues", "")
		}
		return false, nil, nil
	})
	e.kueue.PrependReactor("list", "cohorts", fail("list", "cohorts", forbidden("cohorts", "")))
	st := NewStore()
	stats, err := st.ListInto(t.Context(), e.clients(), ListOptions{Namespaces: []string{gencluster.Namespace(0), ns}, Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range stats.Failed {
		failed = append(failed, f.Resource+"/"+f.Namespace)
	}
	want := []string{"cohorts/", "localqueues/" + ns}
	if diff := cmp.Diff(want, failed); diff != "" {
		t.Errorf("failed LISTs (-want +got):\n%s", diff)
	}

	gaps := func(target diagnose.Target) []string {
		t.Helper()
		s, err := st.Snapshot(target, testNow)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range s.Gaps {
			out = append(out, g.Kind+":"+string(g.Reason))
		}
		return out
	}
	var inNS, elsewhere, admitted *kueue.Workload
	for _, w := range st.Workloads() {
		switch {
		case w.Namespace == ns && inNS == nil && gencluster.StateOf(index(w)) == gencluster.StateQueued:
			inNS = w
		case w.Namespace != ns && elsewhere == nil && gencluster.StateOf(index(w)) == gencluster.StateQueued:
			elsewhere = w
		case w.Namespace != ns && admitted == nil && gencluster.StateOf(index(w)) == gencluster.StateAdmitted:
			admitted = w
		}
	}
	if got := gaps(TargetOf(inNS, st)); !slices.Contains(got, "LocalQueue:Forbidden") {
		t.Errorf("gaps of a job whose LocalQueue LIST was refused = %v, want LocalQueue:Forbidden", got)
	}
	if got := gaps(TargetOf(elsewhere, st)); !slices.Contains(got, "Cohort:Forbidden") || slices.Contains(got, "LocalQueue:Forbidden") {
		t.Errorf("gaps of a job in cohort = %v, want Cohort:Forbidden only", got)
	}
	if got := gaps(TargetOf(admitted, st)); !slices.Contains(got, "Pod:Unavailable") {
		t.Errorf("gaps of an admitted job without Pods listed = %v, want Pod:Unavailable", got)
	}
}

// index recovers a generated Workload's index from its Job's name.
func index(w *kueue.Workload) int {
	var i int
	fmt.Sscanf(w.OwnerReferences[0].Name, "job-%d", &i) //nolint:errcheck // generated names always match
	return i
}

func TestListIntoV1beta1(t *testing.T) {
	old := &kueuev1beta1.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cq"}, Spec: kueuev1beta1.ClusterQueueSpec{Cohort: "legacy"}}
	oldWL := &kueuev1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "wl", Namespace: testNS},
		Spec:       kueuev1beta1.WorkloadSpec{QueueName: "lq", PriorityClassName: "high", PriorityClassSource: kueuev1beta1.WorkloadPriorityClassSource},
	}
	e := newEnv(nil, []runtime.Object{old, oldWL}, nil, &metav1.APIResourceList{GroupVersion: "kueue.x-k8s.io/v1beta1"})
	st := NewStore()
	stats, err := st.ListInto(t.Context(), e.clients(), ListOptions{Namespaces: []string{testNS}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Requests != 2+2+4 {
		t.Errorf("%d requests, want 8 (two discovery, two namespaced LISTs, four cluster-scoped)", stats.Requests)
	}
	cqs := st.ClusterQueues()
	if len(cqs) != 1 || cqs[0].Spec.CohortName != "legacy" {
		t.Errorf("ClusterQueues = %+v, want cq converted with cohortName legacy", cqs)
	}
	wls := st.Workloads()
	if len(wls) != 1 || wls[0].Spec.PriorityClassRef == nil || wls[0].Spec.PriorityClassRef.Name != "high" {
		t.Errorf("Workloads = %+v, want wl converted with priorityClassRef high", wls)
	}
}

func TestListIntoKueueNotServed(t *testing.T) {
	e := newEnv(nil, nil, nil, &metav1.APIResourceList{GroupVersion: "v1"})
	st := NewStore()
	stats, err := st.ListInto(t.Context(), e.clients(), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Failed) != 6 {
		t.Errorf("failed = %v, want the six Kueue kinds", stats.Failed)
	}
	s, err := st.Snapshot(diagnose.Target{Kind: KindWorkload, Namespace: testNS, Name: "wl"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Gaps) != 1 || s.Gaps[0].Reason != diagnose.GapNotFound || !strings.Contains(s.Gaps[0].Message, "does not serve Kueue") {
		t.Errorf("gaps = %+v, want the Workload NotFound because Kueue is not served (as a live read says)", s.Gaps)
	}
}

func TestListIntoFatalErrors(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name  string
		react k8stesting.ReactionFunc
		want  error
	}{
		{
			name: "unreachable",
			react: func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, refused
			},
			want: errListUnreachable,
		},
		{
			name: "impersonation refused",
			react: func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, forbidden("users", "alice: cannot impersonate")
			},
			want: ErrImpersonation,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(nil, nil, nil)
			e.kube.Discovery().(interface {
				PrependReactor(string, string, k8stesting.ReactionFunc)
			}).PrependReactor("*", "*", tc.react)
			_, err := NewStore().ListInto(t.Context(), e.clients(), ListOptions{})
			if !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestListIntoNamespaces(t *testing.T) {
	cq := testCQ("", "a")
	cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS, Labels: map[string]string{"team": "a"}}}
	t.Run("listed when a selector tests labels", func(t *testing.T) {
		e := newEnv([]runtime.Object{ns}, []runtime.Object{cq}, nil)
		st := NewStore()
		if _, err := st.ListInto(t.Context(), e.clients(), ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if get[corev1.Namespace](st, gkNamespace, "", testNS) == nil {
			t.Error("namespace not in the store")
		}
	})
	t.Run("read one by one when the LIST is refused", func(t *testing.T) {
		e := newEnv([]runtime.Object{ns}, []runtime.Object{cq}, nil)
		e.kube.PrependReactor("list", "namespaces", fail("list", "namespaces", forbidden("namespaces", "")))
		st := NewStore()
		stats, err := st.ListInto(t.Context(), e.clients(), ListOptions{Namespaces: []string{testNS, "other"}})
		if err != nil {
			t.Fatal(err)
		}
		if get[corev1.Namespace](st, gkNamespace, "", testNS) == nil {
			t.Error("namespace not in the store")
		}
		if len(stats.Failed) != 1 || stats.Failed[0].Namespace != "other" {
			t.Errorf("failed = %v, want the GET of namespace other", stats.Failed)
		}
	})
}
