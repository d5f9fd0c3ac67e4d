package fetch

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kueuebot/kueuebot/diagnose"
)

// pendingEnv is a cluster with one pending Job in a cohort and n other
// Workloads.
func pendingEnv(n int) *env {
	objs := []runtime.Object{testWorkload(wlName, condPending), testLQ(), testCQ("co", "a", "b"), testRF("a"), testRF("b"),
		otherCQ("peer", "co"), testCohort("co", "")}
	for i := range n {
		w := testWorkload(fmt.Sprintf("other-%d", i), condPending)
		w.Labels[JobUIDLabel] = fmt.Sprintf("uid-%d", i)
		w.OwnerReferences[0].UID = types.UID(fmt.Sprintf("uid-%d", i))
		objs = append(objs, w)
	}
	e := newEnv([]runtime.Object{testJob()}, objs, nil)
	pendingSummary(e.kueue, pw(wlName, 0, 0, 0))
	return e
}

func TestFetchRequestsDoNotGrowWithWorkloads(t *testing.T) {
	for _, n := range []int{0, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e := pendingEnv(n)
			if _, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}); err != nil {
				t.Fatal(err)
			}
			reqs, _ := e.requests()
			if len(reqs) != 8 {
				t.Errorf("%d requests with %d other Workloads, want 8: %v", len(reqs), n, reqs)
			}
			for _, r := range reqs {
				if r.Resource == "workloads" && r.Verb == "list" {
					t.Errorf("listed Workloads: %v", r)
				}
			}
		})
	}
}

// BenchmarkFetchRequests measures a pending Job's Fetch and reports the API
// requests it makes (requests/op) and the discovery requests, which the
// Fetcher caches (discovery/op).
func BenchmarkFetchRequests(b *testing.B) {
	e := pendingEnv(1000)
	f := e.fetcher()
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	var api, disc int
	for b.Loop() {
		e.kube.ClearActions()
		e.kueue.ClearActions()
		if _, err := f.Fetch(b.Context(), target); err != nil {
			b.Fatal(err)
		}
		r, d := e.requests()
		api += len(r)
		disc += d
	}
	b.ReportMetric(float64(api)/float64(b.N), "requests/op")
	b.ReportMetric(float64(disc)/float64(b.N), "discovery/op")
}
