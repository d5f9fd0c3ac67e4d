package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

func names[T any](items []T, name func(*T) string) []string {
	var out []string
	for i := range items {
		out = append(out, name(&items[i]))
	}
	return out
}

func TestFromFilesDump(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	s, err := fromFiles([]string{"testdata/dump"}, target, testNow)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Job, Workload, LocalQueue, ClusterQueue, Namespace string
		Members, Cohorts, Flavors, Checks, Events          []string
		Position                                           *diagnose.Position
		Ahead                                              []diagnose.QueuedWorkload
		Gaps                                               []diagnose.Gap
	}
	got := summary{
		Members:  names(s.CohortClusterQueues, func(o *kueueClusterQueue) string { return o.Name }),
		Cohorts:  names(s.Cohorts, func(o *kueueCohort) string { return o.Name }),
		Flavors:  names(s.ResourceFlavors, func(o *kueueResourceFlavor) string { return o.Name }),
		Checks:   names(s.AdmissionChecks, func(o *kueueAdmissionCheck) string { return o.Name }),
		Events:   names(s.Events, func(o *coreEvent) string { return o.Name + ":" + o.Reason }),
		Position: s.Position, Ahead: s.QueueAhead, Gaps: s.Gaps,
	}
	if s.Job != nil {
		got.Job = s.Job.GetName()
	}
	if s.Workload != nil {
		got.Workload = s.Workload.Name
	}
	if s.LocalQueue != nil {
		got.LocalQueue = s.LocalQueue.Name
	}
	if s.ClusterQueue != nil {
		got.ClusterQueue = s.ClusterQueue.Name
	}
	if s.Namespace != nil {
		got.Namespace = s.Namespace.Name + " team=" + s.Namespace.Labels["team"]
	}
	want := summary{
		Job: jobName, Workload: wlName, LocalQueue: "lq", ClusterQueue: "cq", Namespace: "team-a team=a",
		Members:  []string{"peer"},
		Cohorts:  []string{"child"},
		Flavors:  []string{"a"},
		Checks:   []string{"prov"},
		Events:   []string{"train.1:Suspended", "wl.2:Pending"},
		Position: &diagnose.Position{InLocalQueue: 1, InClusterQueue: 2},
		Ahead:    []diagnose.QueuedWorkload{{Namespace: testNS, Name: "high", LocalQueue: "lq", Priority: 10, PositionInClusterQueue: 0}},
		Gaps:     []diagnose.Gap{{Kind: "ResourceFlavor", Name: "b", Reason: diagnose.GapNotFound}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	if s.Events[1].Count != 4 || s.Events[1].Message != "couldn't assign flavors" {
		t.Errorf("events.k8s.io event converted to %+v", s.Events[1])
	}
	if !s.Now.Equal(testNow) {
		t.Errorf("Now = %v, want %v", s.Now, testNow)
	}
}

func TestFromFilesTargets(t *testing.T) {
	tests := []struct {
		name     string
		paths    []string
		target   diagnose.Target
		wantWL   string
		wantJob  bool
		wantGaps []diagnose.Gap
	}{
		{
			name:    "files listed one by one",
			paths:   []string{"testdata/dump/kueue.yaml", "testdata/dump/jobs.yaml"},
			target:  diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName},
			wantWL:  wlName,
			wantJob: true,
			wantGaps: []diagnose.Gap{
				{Kind: "ResourceFlavor", Name: "b", Reason: diagnose.GapNotFound},
			},
		},
		{
			name:     "missing job",
			paths:    []string{"testdata/dump"},
			target:   diagnose.Target{Kind: "Job", Namespace: testNS, Name: "nope"},
			wantGaps: []diagnose.Gap{{Kind: "Job", Name: "nope", Reason: diagnose.GapNotFound}},
		},
		{
			name:    "lookups stay in the job's namespace",
			paths:   []string{"testdata/dump"},
			target:  diagnose.Target{Kind: "Job", Namespace: "team-b", Name: "other"},
			wantJob: true,
			wantGaps: []diagnose.Gap{
				{Kind: "Workload", Name: "job-other-d9d68", Reason: diagnose.GapNotFound, Message: `workloads.kueue.x-k8s.io "job-other-d9d68" not found`},
				{Kind: "LocalQueue", Name: "lq", Reason: diagnose.GapNotFound, Message: `localqueues.kueue.x-k8s.io "lq" not found`},
			},
		},
		{
			name:   "workload named directly",
			paths:  []string{"testdata/dump"},
			target: diagnose.Target{Kind: "Workload", Namespace: testNS, Name: "high"},
			wantWL: "high",
			wantGaps: []diagnose.Gap{
				{Kind: "ResourceFlavor", Name: "b", Reason: diagnose.GapNotFound},
			},
		},
		{
			name:     "unknown kinds and wrong groups are ignored",
			paths:    []string{"testdata/unknown.yaml"},
			target:   diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName},
			wantGaps: []diagnose.Gap{{Kind: "Job", Name: jobName, Reason: diagnose.GapNotFound}},
		},
		{
			name:   "v1beta1 objects are converted",
			paths:  []string{"testdata/v1beta1.yaml"},
			target: diagnose.Target{Kind: "Workload", Namespace: testNS, Name: "wl"},
			wantWL: "wl",
			wantGaps: []diagnose.Gap{
				{Kind: "AdmissionCheck", Name: "prov", Reason: diagnose.GapNotFound},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fromFiles(tc.paths, tc.target, testNow)
			if err != nil {
				t.Fatal(err)
			}
			gotWL := ""
			if s.Workload != nil {
				gotWL = s.Workload.Name
			}
			if gotWL != tc.wantWL {
				t.Errorf("Workload = %q, want %q", gotWL, tc.wantWL)
			}
			if (s.Job != nil) != tc.wantJob {
				t.Errorf("Job = %v, want present=%v", s.Job, tc.wantJob)
			}
			if diff := cmp.Diff(tc.wantGaps, s.Gaps, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromFilesV1beta1Conversion(t *testing.T) {
	s, err := fromFiles([]string{"testdata/v1beta1.yaml"}, diagnose.Target{Kind: "Workload", Namespace: testNS, Name: "wl"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if s.ClusterQueue == nil || s.Workload == nil || s.Workload.Spec.PriorityClassRef == nil || s.LocalQueue == nil ||
		len(s.LocalQueue.Status.FlavorsUsage) != 1 || len(s.ResourceFlavors) != 1 {
		t.Fatalf("incomplete snapshot: %+v", s)
	}
	type got struct {
		Cohort, PriorityClass, Checks, FlavorsUsage, FlavorLabel string
	}
	g := got{
		Cohort:        string(s.ClusterQueue.Spec.CohortName),
		PriorityClass: string(s.Workload.Spec.PriorityClassRef.Kind) + "/" + s.Workload.Spec.PriorityClassRef.Name,
		Checks:        strings.Join(diagnose.ClusterQueueChecks(s.ClusterQueue), ","),
		FlavorsUsage:  string(s.LocalQueue.Status.FlavorsUsage[0].Name),
		FlavorLabel:   s.ResourceFlavors[0].Spec.NodeLabels["pool"],
	}
	want := got{Cohort: "legacy", PriorityClass: "WorkloadPriorityClass/high", Checks: "prov", FlavorsUsage: "a", FlavorLabel: "a"}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("converted (-want +got):\n%s", diff)
	}
}

func TestFromFilesErrors(t *testing.T) {
	target := diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}
	tests := []struct {
		path string
		want []string // substrings of the error
	}{
		{path: "testdata/bad/malformed.yaml", want: []string{"testdata/bad/malformed.yaml: document 3: invalid YAML"}},
		{path: "testdata/bad/wrongshape.yaml", want: []string{"testdata/bad/wrongshape.yaml: document 2: Workload team-a/wl:", "cannot unmarshal string"}},
		{path: "testdata/bad/quantity.yaml", want: []string{"testdata/bad/quantity.yaml: document 1: ClusterQueue cq:", "quantities must match"}},
		{path: "testdata/bad/scalar.yaml", want: []string{"testdata/bad/scalar.yaml: document 1: not a Kubernetes object"}},
		{path: "testdata/bad/nokind.yaml", want: []string{"testdata/bad/nokind.yaml: document 1: missing kind"}},
		{path: "testdata/does-not-exist.yaml", want: []string{"testdata/does-not-exist.yaml", "no such file"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, err := fromFiles([]string{tc.path}, target, testNow)
			if err == nil {
				t.Fatal("FromFiles succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestFromFilesListItemError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "list.yaml")
	data := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: ok}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: 3}\n"
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := fromFiles([]string{dir}, diagnose.Target{Name: "x", Namespace: "y"}, time.Time{})
	if err == nil || !strings.Contains(err.Error(), "list.yaml: document 1: item 2: Pod p:") {
		t.Errorf("error = %v, want it to name document 1, item 2", err)
	}
}

// Short aliases for the name accessors above.
type (
	kueueClusterQueue   = kueue.ClusterQueue
	kueueCohort         = kueue.Cohort
	kueueResourceFlavor = kueue.ResourceFlavor
	kueueAdmissionCheck = kueue.AdmissionCheck
	coreEvent           = corev1.Event
)

// TestStorePriorityClass: a store returns the WorkloadPriorityClasses it
// holds; one it does not hold is "not read", never "does not exist" (no
// store lists every class), so the answer stays a likely cause.
func TestStorePriorityClass(t *testing.T) {
	st := NewStore()
	if err := st.AddFiles("../../deploy/examples/scenarios/preempted.yaml"); err != nil {
		t.Fatal(err)
	}
	src := &storeSource{st: st}
	if w, err := src.getPriorityClass(t.Context(), "sc-preempted-high"); err != nil || w == nil || w.Value <= 0 {
		t.Errorf("held class: %+v, %v", w, err)
	}
	w, err := src.getPriorityClass(t.Context(), "nope")
	if w != nil || err == nil || apierrors.IsNotFound(err) || !isAnswer(err) {
		t.Errorf("class not held: %+v, %v; want a not-read answer", w, err)
	}
}
