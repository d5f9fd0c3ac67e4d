package fetch

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/utils/ptr"

	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// TestBatchJobConversion holds jobRecord.toUnstructured (jobConverter) to
// the reflective converter over randomly filled Jobs, slimmed as the store slims them
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
		got, err := recordOf(j).toUnstructured(nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Object); diff != "" {
			t.Fatalf("job %d: differs from the reflective converter (-want +got):\n%s", i, diff)
		}
		// The store's record, with the labels derived from the Job's
		// name and UID taken out of its (shared) spec, converts the same.
		rec := &jobRecord{}
		jj := derivedLabelsOn(j.DeepCopy(), i)
		NewStore().interned.job(jj, newArena([]*metav1.ObjectMeta{&jj.ObjectMeta}, 0), rec)
		withDerived, err := runtime.DefaultUnstructuredConverter.ToUnstructured(derivedLabelsOn(j.DeepCopy(), i))
		if err != nil {
			t.Fatal(err)
		}
		got, err = rec.toUnstructured(nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(withDerived, got.Object); diff != "" {
			t.Fatalf("job %d: its record converts differently (-want +got):\n%s", i, diff)
		}
	}
}

// recordOf is the record of a copy of j.
func recordOf(j *batchv1.Job) *jobRecord {
	r := &jobRecord{}
	r.fill(j.DeepCopy())
	return r
}

// derivedLabelsOn sets the labels the API server derives from a Job's name
// and UID on its selector and template, some of them (by i) with another
// value, which the record must keep as they are.
func derivedLabelsOn(j *batchv1.Job, i int) *batchv1.Job {
	if j.Spec.Selector == nil && i%3 != 0 {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	set := func(m *map[string]string, k, v string) {
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[k] = v
	}
	uid, name := string(j.UID), j.Name
	if i%5 == 1 {
		uid = "another-uid" // a hand-written label: not derived
	}
	if j.Spec.Selector != nil {
		set(&j.Spec.Selector.MatchLabels, JobControllerUIDLabel, uid)
		if i%2 == 0 {
			set(&j.Spec.Selector.MatchLabels, legacyControllerUIDLabel, uid)
		}
	}
	set(&j.Spec.Template.Labels, JobControllerUIDLabel, uid)
	set(&j.Spec.Template.Labels, jobNameLabel, name)
	if i%2 == 0 {
		set(&j.Spec.Template.Labels, legacyControllerUIDLabel, uid)
		set(&j.Spec.Template.Labels, legacyJobNameLabel, name)
	}
	return j
}

// TestEqualJobsShareTheirSpec: Jobs made from one template share one spec
// in the store; a Job whose spec differs gets its own.
func TestEqualJobsShareTheirSpec(t *testing.T) {
	st := NewStore()
	c := gencluster.Generate(gencluster.Spec{Workloads: 40, Namespaces: 4, ClusterQueues: 2, CohortSize: 2, Jobs: true, Now: testNow})
	for _, j := range c.Jobs {
		derivedLabelsOn(j, 0)
	}
	other := c.Jobs[0].DeepCopy()
	other.Name, other.UID = "other", "other-uid"
	other.Spec.Parallelism = ptr.To[int32](7)
	derivedLabelsOn(other, 0)
	if err := st.AddObjects(c.Objects()...); err != nil {
		t.Fatal(err)
	}
	if err := st.AddObjects(other); err != nil {
		t.Fatal(err)
	}
	specs := map[*batchv1.JobSpec]int{}
	for _, o := range st.lookup(gkBatchJob).List() {
		specs[o.(*jobRecord).spec]++
	}
	// Suspended and running Jobs of the two sizes, and "other".
	if len(specs) > 5 || len(specs) < 3 {
		t.Errorf("%d Jobs keep %d specs: %v", len(c.Jobs)+1, len(specs), specs)
	}
	r := get[jobRecord](st, gkBatchJob, other.Namespace, "other")
	if r == nil || *r.spec.Parallelism != 7 {
		t.Fatalf("other's record: %+v", r)
	}
	u, err := r.toUnstructured(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Object["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)[JobControllerUIDLabel]; got != "other-uid" {
		t.Errorf("other's template controller-uid label = %v", got)
	}
}

func BenchmarkBatchJobConversion(b *testing.B) {
	c := gencluster.Generate(gencluster.Spec{Workloads: 1, Namespaces: 1, ClusterQueues: 1, CohortSize: 1, Jobs: true, Now: testNow})
	j := c.Jobs[0].DeepCopy()
	slimPodSpec(&j.Spec.Template.Spec)
	rec := recordOf(j)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rec.toUnstructured(nil); err != nil {
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
