package diagnose_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kueuebot/kueuebot/diagnose"
)

func remedyOf(r diagnose.Report, code string) (diagnose.Remedy, bool) {
	for _, m := range r.Remedies {
		if m.Code == code {
			return m, true
		}
	}
	return diagnose.Remedy{}, false
}

// TestShrinkRespectsKueue: the "run it smaller" patch is one Kueue's and
// Kubernetes' validation accept, or there is none.
func TestShrinkRespectsKueue(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *diagnose.Snapshot)
		// want is the command; "" means advice without a command.
		want     string
		summary  string
		noRemedy bool
	}{
		{name: "plain", want: `kubectl patch job/sample-job -n team-a --type=merge -p '{"spec":{"parallelism":2}}'`},
		{
			name: "partial admission with a minimum above what fits: the minimum goes in the same patch",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetAnnotations(map[string]string{diagnose.JobMinParallelismAnnotation: "3"})
			},
			want: `kubectl patch job/sample-job -n team-a --type=merge -p '{"metadata":{"annotations":{"kueue.x-k8s.io/job-min-parallelism":null}},"spec":{"parallelism":2}}'`,
		},
		{
			name: "partial admission down to what fits: Kueue shrinks it itself",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetAnnotations(map[string]string{diagnose.JobMinParallelismAnnotation: "2"})
				s.Workload.Spec.PodSets[0].MinCount = ptr.To[int32](2)
			},
			summary: "with partial admission Kueue admits pod set main with as few as 2 pods",
		},
		{
			name: "completions kept equal to parallelism",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetAnnotations(map[string]string{diagnose.JobCompletionsEqualParallelismAnnotation: "true"})
			},
			want: `kubectl patch job/sample-job -n team-a --type=merge -p '{"spec":{"parallelism":2,"completions":2}}'`,
		},
		{
			name: "not suspended: Kueue refuses the change with partial admission, so no command",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
			},
			summary: "Run it smaller: 2 pods of pod set main fit",
		},
		{
			name: "being stopped counts as not suspended",
			edit: func(s *diagnose.Snapshot) {
				s.Job.SetAnnotations(map[string]string{diagnose.StoppingAnnotation: "true"})
			},
			summary: "Run it smaller: 2 pods of pod set main fit",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := loadCase(t, "testdata/cases/exceeds-max-quota.txtar")
			if tc.edit != nil {
				tc.edit(s)
			}
			r := diagnose.Analyze(s)
			m, ok := remedyOf(r, "Shrink")
			if !ok {
				t.Fatalf("no Shrink remedy: %+v", r.Remedies)
			}
			if m.Command != tc.want {
				t.Errorf("command\n got %q\nwant %q", m.Command, tc.want)
			}
			if !strings.Contains(m.Summary, tc.summary) {
				t.Errorf("summary %q lacks %q", m.Summary, tc.summary)
			}
		})
	}
}

// TestAddTolerationRespectsKubernetes: the pod template's tolerations may
// change only on a suspended Job that never started, and the list is
// atomic: the patch appends instead of replacing it.
func TestAddTolerationRespectsKubernetes(t *testing.T) {
	tol := `{"key":"spot","operator":"Equal","value":"true","effect":"NoSchedule"}`
	tests := []struct {
		name string
		edit func(s *diagnose.Snapshot)
		want string
	}{
		{name: "no tolerations yet", want: `kubectl patch job/sample-job -n team-a --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[` + tol + `]}]'`},
		{
			name: "existing tolerations are kept",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedSlice(s.Job.Object, []any{map[string]any{"key": "other", "operator": "Exists"}}, "spec", "template", "spec", "tolerations")
			},
			want: `kubectl patch job/sample-job -n team-a --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations/-","value":` + tol + `}]'`,
		},
		{
			name: "started once: the template is immutable",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedField(s.Job.Object, "2026-11-29T11:00:00Z", "status", "startTime")
			},
		},
		{
			name: "not suspended",
			edit: func(s *diagnose.Snapshot) {
				_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := loadCase(t, "testdata/cases/untolerated-taint.txtar")
			if tc.edit != nil {
				tc.edit(s)
			}
			r := diagnose.Analyze(s)
			m, ok := remedyOf(r, "AddToleration")
			if !ok {
				t.Fatalf("no AddToleration remedy: %+v", r.Remedies)
			}
			if m.Command != tc.want {
				t.Errorf("command\n got %q\nwant %q", m.Command, tc.want)
			}
		})
	}
}

// TestRelabelOnlyWhileSuspended: Kueue refuses a new queue name on a job
// that is not suspended.
func TestRelabelOnlyWhileSuspended(t *testing.T) {
	_, s := loadCase(t, "testdata/cases/lq-not-found-typo.txtar")
	if m, _ := remedyOf(diagnose.Analyze(s), "FixQueueName"); m.Command == "" {
		t.Fatal("a suspended job gets no relabel command")
	}
	_ = unstructured.SetNestedField(s.Job.Object, false, "spec", "suspend")
	if m, _ := remedyOf(diagnose.Analyze(s), "FixQueueName"); m.Command != "" {
		t.Errorf("a running job gets %q", m.Command)
	}
}

// TestTiedPosition: when the objects do not decide Kueue's order, the
// report states no definite position and the text gives the range.
func TestTiedPosition(t *testing.T) {
	_, s := loadCase(t, "testdata/cases/quota-in-use.txtar")
	s.Position = &diagnose.Position{InLocalQueue: 0, InClusterQueue: 1, Tied: 2}
	r := diagnose.Analyze(s)
	if r.Queue.PositionInClusterQueue != nil || r.Queue.PositionInLocalQueue != nil {
		t.Errorf("positions %v/%v stated for a tie", r.Queue.PositionInLocalQueue, r.Queue.PositionInClusterQueue)
	}
	if m, _ := remedyOf(r, "Wait"); !strings.Contains(m.Summary, "number 2 to 4 in ClusterQueue") {
		t.Errorf("Wait remedy %q does not give the range", m.Summary)
	}
}
