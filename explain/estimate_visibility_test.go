package explain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// TestVisibilityQueued: a live snapshot whose visibility read was served
// gives the replay Kueue's order (the job and those ahead of it in its
// LocalQueue, placed in its ClusterQueue); one without a Position (the
// API not served or refused) gives none, and the replay uses the objects'
// order.
func TestVisibilityQueued(t *testing.T) {
	s := &diagnose.Snapshot{
		Workload:     &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "job-me"}, Spec: kueue.WorkloadSpec{QueueName: "lq"}},
		ClusterQueue: &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cq"}},
		Position:     &diagnose.Position{InLocalQueue: 1, InClusterQueue: 4},
		QueueAhead:   []diagnose.QueuedWorkload{{Namespace: "team-a", Name: "job-head", LocalQueue: "lq", PositionInClusterQueue: 2}},
	}
	want := map[string][]diagnose.QueuedWorkload{"cq": {
		{Namespace: "team-a", Name: "job-head", LocalQueue: "lq", PositionInClusterQueue: 2},
		{Namespace: "team-a", Name: "job-me", LocalQueue: "lq", PositionInClusterQueue: 4},
	}}
	if diff := cmp.Diff(want, visibilityQueued(s)); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	s.Position = nil
	if got := visibilityQueued(s); got != nil {
		t.Errorf("not served: %v, want nil (the objects' order)", got)
	}
}
