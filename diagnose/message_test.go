package diagnose

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseQuotaMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want ParsedMessage
	}{
		{
			name: "unused quota in two flavors (Kueue's own test message)",
			msg:  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 50 more needed, insufficient unused quota for cpu in flavor spot, 1 more needed",
			want: ParsedMessage{Reasons: []FlavorReason{
				{Kind: ReasonUnusedQuota, PodSet: "main", Resource: "cpu", Flavor: "on-demand", Needed: "50", Raw: "insufficient unused quota for cpu in flavor on-demand, 50 more needed"},
				{Kind: ReasonUnusedQuota, PodSet: "main", Resource: "cpu", Flavor: "spot", Needed: "1", Raw: "insufficient unused quota for cpu in flavor spot, 1 more needed"},
			}},
		},
		{
			name: "maximum capacity, v0.17 form",
			msg:  "couldn't assign flavors to pod set one: insufficient quota for cpu_credits in flavor credits, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)",
			want: ParsedMessage{Reasons: []FlavorReason{{Kind: ReasonMaxCapacity, PodSet: "one", Resource: "cpu_credits", Flavor: "credits", Assumed: "0", Request: "2", Max: "1",
				Raw: "insufficient quota for cpu_credits in flavor credits, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)"}}},
		},
		{
			name: "maximum capacity, older form",
			msg:  "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, request > maximum capacity (3 > 2)",
			want: ParsedMessage{Reasons: []FlavorReason{{Kind: ReasonMaxCapacity, PodSet: "main", Resource: "cpu", Flavor: "default", Request: "3", Max: "2",
				Raw: "insufficient quota for cpu in flavor default, request > maximum capacity (3 > 2)"}}},
		},
		{
			name: "uncovered resource",
			msg:  "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
			want: ParsedMessage{Reasons: []FlavorReason{{Kind: ReasonResourceUnavailable, PodSet: "main", Resource: "example.com/gpu", Raw: "resource example.com/gpu unavailable in ClusterQueue"}}},
		},
		{
			name: "taint and affinity across two pod sets, with preemption suffix",
			msg:  "couldn't assign flavors to pod set driver: untolerated taint {instance spot NoSchedule <nil>} in flavor spot; couldn't assign flavors to pod set workers: flavor on-demand doesn't match node affinity. Pending the preemption of 2 workload(s)",
			want: ParsedMessage{PendingPreemptions: 2, Reasons: []FlavorReason{
				{Kind: ReasonUntoleratedTaint, PodSet: "driver", Flavor: "spot", Taint: "{instance spot NoSchedule <nil>}", Raw: "untolerated taint {instance spot NoSchedule <nil>} in flavor spot"},
				{Kind: ReasonNodeAffinity, PodSet: "workers", Flavor: "on-demand", Raw: "flavor on-demand doesn't match node affinity"},
			}},
		},
		{name: "failed admission checks", msg: "The workload has failed admission checks", want: ParsedMessage{FailedAdmissionChecks: true}},
		{name: "namespace", msg: "Workload namespace doesn't match ClusterQueue selector", want: ParsedMessage{NamespaceMismatch: true}},
		{name: "limitrange", msg: `resources didn't satisfy LimitRange constraints: spec.podSets[0]: Invalid value: ["cpu"]: requests must not be above the limitRange max`, want: ParsedMessage{InvalidResources: true}},
		{name: "transient", msg: "Workload no longer fits after processing another workload", want: ParsedMessage{Transient: true}},
		{name: "preemption failed", msg: "couldn't assign flavors to pod set main: flavor x not found. Preempting 1 workload(s) failed, will retry.",
			want: ParsedMessage{PreemptionFailed: true, Reasons: []FlavorReason{{Kind: ReasonFlavorNotFound, PodSet: "main", Flavor: "x", Raw: "flavor x not found"}}}},
		{name: "empty", msg: "", want: ParsedMessage{}},
		{name: "unrelated", msg: "something new Kueue says", want: ParsedMessage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParseQuotaMessage(tt.msg)); diff != "" {
				t.Errorf("ParseQuotaMessage (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseQuotaMessage: no input may panic.
func FuzzParseQuotaMessage(f *testing.F) {
	for _, s := range []string{
		"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 50 more needed",
		"couldn't assign flavors to pod set main: insufficient quota for cpu in flavor f, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1). Pending the preemption of 1 workload(s)",
		"failed to assign flavors to pod set main: no TAS flavor assigned",
		"; ; , ,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := ParseQuotaMessage(s)
		for _, r := range p.Reasons {
			if r.Kind == "" {
				t.Fatalf("reason without kind: %+v", r)
			}
		}
	})
}

func TestClassifyScheduling(t *testing.T) {
	tests := map[string]Cause{
		"0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.": CauseInsufficientRes,
		"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.":                                 CauseNodeAffinityMismatch,
		"0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}.":                                                        CauseUntoleratedTaint,
		"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.":                                                        CauseUnboundVolume,
		"0/1 nodes are available: 1 Too many pods.":                                                                                         CauseInsufficientRes,
		"0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.":                                                          CauseOther,
		"": CauseOther,
	}
	for msg, want := range tests {
		if got := classifyScheduling(msg); got != want {
			t.Errorf("classifyScheduling(%q) = %s, want %s", msg, got, want)
		}
	}
}

// TestEventTime: a repeated events.k8s.io event was last seen at its
// series' last observation, not at its first eventTime; fetch sorts and
// the evidence folds by the same instant.
func TestEventTime(t *testing.T) {
	first := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	last := first.Add(10 * time.Minute)
	tests := map[string]struct {
		e    corev1.Event
		want time.Time
	}{
		"core lastTimestamp": {corev1.Event{LastTimestamp: metav1.NewTime(last), EventTime: metav1.NewMicroTime(first)}, last},
		"series":             {corev1.Event{EventTime: metav1.NewMicroTime(first), Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(last)}}, last},
		"single eventTime":   {corev1.Event{EventTime: metav1.NewMicroTime(first)}, first},
		"creation only":      {corev1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(first)}}, first},
	}
	for name, tt := range tests {
		if got := EventTime(&tt.e); !got.Equal(tt.want) {
			t.Errorf("%s: EventTime = %s, want %s", name, got, tt.want)
		}
	}
}
