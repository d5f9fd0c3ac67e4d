package fetch

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// TestFetchPreemptor: a preempted Workload's preemptor is read with one
// LIST by the job-uid Kueue's message names, and the verdict names its job
// and priority, never a UID.
func TestFetchPreemptor(t *testing.T) {
	msg := "Preempted to accommodate a workload (UID: wl-high, JobUID: job-high) due to prioritization in the ClusterQueue; preemptor path: /cq; preemptee path: /cq"
	wl := testWorkload(wlName,
		metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPreemption, Message: msg},
		metav1.Condition{Type: kueue.WorkloadPreempted, Status: metav1.ConditionTrue, Reason: kueue.InClusterQueueReason, Message: msg},
		condPending)
	wl.Spec.Priority = ptr.To[int32](100)
	high := testWorkload("job-high-1", condQuota, condAdmit)
	high.UID = "wl-high"
	high.Labels[JobUIDLabel] = "job-high"
	high.OwnerReferences[0].Name, high.OwnerReferences[0].UID = "high", "job-high"
	high.Spec.Priority = ptr.To[int32](1000)
	e := newEnv([]runtime.Object{testJob()}, []runtime.Object{wl, high, testLQ(), testCQ("", "f"), testRF("f")}, nil)
	pendingSummary(e.kueue)
	s, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	if s.Preemptor == nil || s.Preemptor.Name != "job-high-1" {
		t.Fatalf("Preemptor = %v, want job-high-1", s.Preemptor)
	}
	r := diagnose.Analyze(s)
	if want := "It was preempted by Job team-a/high, priority 1000 against yours 100."; r.Verdict.Code != diagnose.CodeRequeuing || !contains(r.Verdict.Detail, want) {
		t.Errorf("verdict %s: %q, want %q in it", r.Verdict.Code, r.Verdict.Detail, want)
	}
	if contains(r.Verdict.Detail, "wl-high") || contains(r.Verdict.Headline, "wl-high") {
		t.Errorf("the verdict shows a UID: %+v", r.Verdict)
	}
}

// TestFetchPreemptorOtherNamespace: with fair sharing or cohort
// reclamation the preemptor is often another team's. It is named when the
// caller may list Workloads in every namespace, and the answer falls back
// to its ClusterQueue (no gap, no UID) when the caller may not.
func TestFetchPreemptorOtherNamespace(t *testing.T) {
	msg := "Preempted to accommodate a workload (UID: wl-fair, JobUID: job-fair) due to Fair Sharing within the cohort; preemptor path: /co/cq-b; preemptee path: /co/cq"
	for _, allowed := range []bool{true, false} {
		wl := testWorkload(wlName,
			metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPreemption, Message: msg},
			metav1.Condition{Type: kueue.WorkloadPreempted, Status: metav1.ConditionTrue, Reason: kueue.InCohortFairSharingReason, Message: msg},
			condPending)
		fair := testWorkload("job-fair-1", condQuota, condAdmit)
		fair.Namespace = "team-b"
		fair.UID = "wl-fair"
		fair.Labels[JobUIDLabel] = "job-fair"
		fair.OwnerReferences[0].Name, fair.OwnerReferences[0].UID = "fair", "job-fair"
		fair.Status.Admission = &kueue.Admission{ClusterQueue: "cq-b"}
		e := newEnv([]runtime.Object{testJob()}, []runtime.Object{wl, fair, testLQ(), testCQ("", "f"), testRF("f")}, nil)
		pendingSummary(e.kueue)
		if !allowed {
			e.kueue.PrependReactor("list", "workloads", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetNamespace() == metav1.NamespaceAll {
					return true, nil, forbidden("workloads", "")
				}
				return false, nil, nil
			})
		}
		s, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
		if err != nil {
			t.Fatal(err)
		}
		r := diagnose.Analyze(s)
		want := "It was preempted by Job team-b/fair of ClusterQueue cq-b, priority 0 against yours 0."
		if !allowed {
			want = "The preemptor is a workload of ClusterQueue cq-b that I could not read."
			if s.Preemptor != nil || len(s.Gaps) != 0 {
				t.Errorf("cluster-wide LIST refused: Preemptor %v, gaps %v, want neither", s.Preemptor, s.Gaps)
			}
		}
		if !contains(r.Verdict.Detail, want) {
			t.Errorf("allowed=%t: detail %q, want %q in it", allowed, r.Verdict.Detail, want)
		}
		if contains(r.Verdict.Detail, "wl-fair") || contains(r.Verdict.Headline, "wl-fair") {
			t.Errorf("the verdict shows a UID: %+v", r.Verdict)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestFetchNoWorkloadReads: a job without a Workload gets the reads that can
// tell why: its WorkloadPriorityClass and its events.
func TestFetchNoWorkloadReads(t *testing.T) {
	job := testJob()
	job.Labels[diagnose.WorkloadPriorityClassLabel] = "urgent"
	e := newEnv([]runtime.Object{job}, []runtime.Object{testLQ()}, nil)
	s, err := e.fetcher().Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasGap("WorkloadPriorityClass", diagnose.GapNotFound) {
		t.Errorf("gaps %v, want WorkloadPriorityClass urgent NotFound", s.Gaps)
	}
	r := diagnose.Analyze(s)
	if !strings.Contains(r.Verdict.Headline, "WorkloadPriorityClass urgent does not exist") {
		t.Errorf("headline %q", r.Verdict.Headline)
	}
	reqs, _ := e.requests()
	var kinds []string
	for _, q := range reqs {
		kinds = append(kinds, q.Verb+" "+q.Resource)
	}
	for _, want := range []string{"get workloadpriorityclasses", "list events"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("requests %v, want %s among them", kinds, want)
		}
	}
}

// TestFetchNoWorkloadPriorityClassByBot: with clusterScopedReads=bot, the
// WorkloadPriorityClass a job without a Workload names is read with the
// bot's identity (the caller may not read cluster-scoped classes), once
// the caller's own LocalQueue was read; without the bot it stays the
// caller's read, and a refusal stays a Forbidden gap.
func TestFetchNoWorkloadPriorityClassByBot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bot     bool
		wantGap diagnose.GapReason
	}{
		{"bot reads it", true, diagnose.GapNotFound},
		{"caller is refused", false, diagnose.GapForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := testJob()
			job.Labels[diagnose.WorkloadPriorityClassLabel] = "urgent"
			e := newEnv([]runtime.Object{job}, []runtime.Object{testLQ()}, nil)
			e.kueue.PrependReactor("get", "workloadpriorityclasses", fail("get", "workloadpriorityclasses", forbidden("workloadpriorityclasses", "urgent")))
			f := e.fetcher()
			if tc.bot {
				f.ClusterScoped = e.bot
			}
			s, err := f.Fetch(t.Context(), diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName})
			if err != nil {
				t.Fatal(err)
			}
			if !s.HasGap("WorkloadPriorityClass", tc.wantGap) {
				t.Errorf("gaps %v, want WorkloadPriorityClass urgent %s", s.Gaps, tc.wantGap)
			}
			var botGets int
			for _, a := range e.bot.Actions() {
				if a.GetVerb() == "get" && a.GetResource().Resource == "workloadpriorityclasses" {
					botGets++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.bot]; botGets != want {
				t.Errorf("bot read the class %d times, want %d", botGets, want)
			}
		})
	}
}

// TestListNoWorkloadPriorityClass: a list says what a single question says
// of a job whose WorkloadPriorityClass does not exist (ListInto lists the
// classes); with clusterScopedReads=bot the quota kinds and the classes are
// listed as the bot and the caller lists only namespaced kinds (and
// AdmissionChecks, which a question reads as the caller too); a refused
// class LIST is the Forbidden gap a refused GET gives.
func TestListNoWorkloadPriorityClass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bot     bool
		refused bool
		wantGap diagnose.GapReason
	}{
		{"caller lists it", false, false, diagnose.GapNotFound},
		{"bot lists it", true, true, diagnose.GapNotFound},
		{"caller is refused", false, true, diagnose.GapForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := testJob()
			job.Labels[diagnose.WorkloadPriorityClassLabel] = "urgent"
			other := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 1}
			e := newEnv([]runtime.Object{job}, []runtime.Object{testLQ(), testCQ("", "a"), other}, nil)
			if tc.refused {
				e.kueue.PrependReactor("list", "workloadpriorityclasses", fail("list", "workloadpriorityclasses", forbidden("workloadpriorityclasses", "")))
			}
			c := e.clients()
			if tc.bot {
				c.ClusterScoped = e.bot
			}
			st := NewStore()
			if _, err := st.ListInto(t.Context(), c, ListOptions{Namespaces: []string{testNS}, Jobs: true, Events: true}); err != nil {
				t.Fatal(err)
			}
			s, err := st.Snapshot(diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if !s.HasGap("WorkloadPriorityClass", tc.wantGap) {
				t.Errorf("gaps %v, want WorkloadPriorityClass urgent %s", s.Gaps, tc.wantGap)
			}
			if r := diagnose.Analyze(s); tc.wantGap == diagnose.GapNotFound && !strings.Contains(r.Verdict.Headline, "WorkloadPriorityClass urgent does not exist") {
				t.Errorf("headline %q, want the class named as missing", r.Verdict.Headline)
			}
			if s.ClusterScopedByBot != tc.bot {
				t.Errorf("ClusterScopedByBot = %t, want %t", s.ClusterScopedByBot, tc.bot)
			}
			reqs, _ := e.requests()
			byClient := map[string][]string{}
			for _, q := range reqs {
				byClient[q.Client] = append(byClient[q.Client], q.Resource)
			}
			quota := []string{"clusterqueues", "cohorts", "resourceflavors", "workloadpriorityclasses"}
			for _, r := range quota {
				if got := slices.Contains(byClient["bot"], r); got != tc.bot {
					t.Errorf("bot listed %s: %t, want %t (requests %v)", r, got, tc.bot, byClient)
				}
				if got := slices.Contains(byClient["kueue"], r); got == tc.bot {
					t.Errorf("caller listed %s: %t, want %t (requests %v)", r, got, !tc.bot, byClient)
				}
			}
			if !slices.Contains(byClient["kueue"], "admissionchecks") {
				t.Errorf("the caller did not list admissionchecks (requests %v)", byClient)
			}
		})
	}
}
