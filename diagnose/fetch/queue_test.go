package fetch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	visibilityv1beta1 "sigs.k8s.io/kueue/apis/visibility/v1beta1"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestQueuedFromV1beta1(t *testing.T) {
	sum := &visibilityv1beta1.PendingWorkloadsSummary{Items: []visibilityv1beta1.PendingWorkload{{
		ObjectMeta: metav1.ObjectMeta{Name: "head", Namespace: "team-a"}, Priority: 7, LocalQueueName: "lq",
		PositionInClusterQueue: 3, PositionInLocalQueue: 1,
	}}}
	got, err := queuedFromV1beta1(sum)
	if err != nil {
		t.Fatal(err)
	}
	want := []queued{{QueuedWorkload: diagnose.QueuedWorkload{Namespace: "team-a", Name: "head", LocalQueue: "lq", Priority: 7, PositionInClusterQueue: 3}, inLocalQueue: 1}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(queued{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
