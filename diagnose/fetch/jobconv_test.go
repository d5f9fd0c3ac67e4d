package fetch

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// TestBatchJobConversion holds batchJobToUnstructured to the reflective
// converter over randomly filled Jobs, slimmed as the store slims them
// (every field of the Job, its metadata and status set at random), and
// over a generated cluster's Jobs.
func TestBatchJobConversion(t *testing.T) {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(20261202), serializer.NewCodecFactory(scheme))
	f.NilChance(0.3).NumElements(0, 3)
	var jobs []*batchv1.Job
	for range 300 {
		j := &batchv1.Job{}
		f.Fill(j)
		jobs = append(jobs, j)
	}
	c := gencluster.Generate(gencluster.Spec{Workloads: 20, Namespaces: 4, ClusterQueues: 2, CohortSize: 2, Jobs: true, Now: testNow})
	jobs = append(jobs, c.Jobs...)
	for i, j := range jobs {
		j = j.DeepCopy()
		j.ManagedFields = nil
		j.Spec.Template.ManagedFields = nil
		slimPodSpec(&j.Spec.Template.Spec)
		want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(j)
		if err != nil {
			t.Fatal(err)
		}
		got, err := batchJobToUnstructured(j)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Object); diff != "" {
			t.Fatalf("job %d: differs from the reflective converter (-want +got):\n%s", i, diff)
		}
	}
}

func BenchmarkBatchJobConversion(b *testing.B) {
	c := gencluster.Generate(gencluster.Spec{Workloads: 1, Namespaces: 1, ClusterQueues: 1, CohortSize: 1, Jobs: true, Now: testNow})
	j := c.Jobs[0].DeepCopy()
	slimPodSpec(&j.Spec.Template.Spec)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := batchJobToUnstructured(j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflective", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(j); err != nil {
				b.Fatal(err)
			}
		}
	})
}
