package fetch

import (
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// jobRecord is how a slimming store keeps a batch Job. A batchv1.Job holds
// its pod template inline and costs 1.4 KB before any of its maps; a
// digest's store holds a Job per Workload, which made the Jobs take twice
// the Workloads' memory. A record keeps the Job's own metadata and status,
// and shares its spec with every Job of the store whose spec is the same,
// which Jobs made from one template are once the labels the API server
// derives from each Job's name and UID are taken out of the spec. Those
// are put back, exactly, when the record is converted for a Snapshot
// (toUnstructured), so a Snapshot sees the Job as the API server served it
// (TestBatchJobConversion).
type jobRecord struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	// spec is shared with the store's other Jobs of the same spec: never
	// written.
	spec   *batchv1.JobSpec
	status batchv1.JobStatus
	// derived says which derived labels were taken out of the spec.
	derived derivedLabels
}

// derivedLabels are bits, one per label the API server sets on a Job's
// selector and pod template from its name or UID.
type derivedLabels uint8

const (
	derivedSelectorUID derivedLabels = 1 << iota
	derivedSelectorLegacyUID
	derivedTemplateUID
	derivedTemplateLegacyUID
	derivedTemplateName
	derivedTemplateLegacyName
)

// Labels the API server derives (pkg/registry/batch/job).
const (
	legacyControllerUIDLabel = "controller-uid"
	jobNameLabel             = "batch.kubernetes.io/job-name"
	legacyJobNameLabel       = "job-name"
)

var derivedKeys = []struct {
	bit      derivedLabels
	selector bool
	key      string
	uid      bool
}{
	{derivedSelectorUID, true, JobControllerUIDLabel, true},
	{derivedSelectorLegacyUID, true, legacyControllerUIDLabel, true},
	{derivedTemplateUID, false, JobControllerUIDLabel, true},
	{derivedTemplateLegacyUID, false, legacyControllerUIDLabel, true},
	{derivedTemplateName, false, jobNameLabel, false},
	{derivedTemplateLegacyName, false, legacyJobNameLabel, false},
}

// DeepCopyObject implements runtime.Object: a copy that shares nothing
// with the record, its spec included.
func (r *jobRecord) DeepCopyObject() runtime.Object {
	out := &jobRecord{TypeMeta: r.TypeMeta, spec: r.spec.DeepCopy(), derived: r.derived}
	r.DeepCopyInto(&out.ObjectMeta)
	r.status.DeepCopyInto(&out.status)
	return out
}

// fill makes r the record of j, taking j's derived labels out of its spec
// (j is the store's own, freshly decoded or copied, and is not used
// afterwards).
func (r *jobRecord) fill(j *batchv1.Job) {
	*r = jobRecord{TypeMeta: j.TypeMeta, ObjectMeta: j.ObjectMeta, status: j.Status}
	for _, d := range derivedKeys {
		want := j.Name
		if d.uid {
			want = string(j.UID)
		}
		var labels map[string]string
		if d.selector {
			if j.Spec.Selector == nil {
				continue
			}
			labels = j.Spec.Selector.MatchLabels
		} else {
			labels = j.Spec.Template.Labels
		}
		if v, ok := labels[d.key]; ok && v == want && want != "" {
			delete(labels, d.key)
			r.derived |= d.bit
		}
	}
	if sel := j.Spec.Selector; sel != nil && len(sel.MatchLabels) == 0 && r.derived&(derivedSelectorUID|derivedSelectorLegacyUID) != 0 {
		sel.MatchLabels = nil
	}
	if len(j.Spec.Template.Labels) == 0 && r.derived&(derivedTemplateUID|derivedTemplateLegacyUID|derivedTemplateName|derivedTemplateLegacyName) != 0 {
		j.Spec.Template.Labels = nil
	}
	spec := j.Spec
	r.spec = &spec
}

// labels returns the selector's and the template's labels, converted,
// with the derived ones back (nil when there are none).
func (r *jobRecord) labels() (selector, template obj) {
	if r.spec.Selector != nil {
		selector = r.labelsObj(r.spec.Selector.MatchLabels, true)
	}
	return selector, r.labelsObj(r.spec.Template.Labels, false)
}

func (r *jobRecord) labelsObj(base map[string]string, selector bool) obj {
	n := len(base)
	for _, d := range derivedKeys {
		if r.derived&d.bit != 0 && d.selector == selector {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make(obj, n)
	for k, v := range base {
		out[k] = v
	}
	for _, d := range derivedKeys {
		if r.derived&d.bit == 0 || d.selector != selector {
			continue
		}
		v := r.Name
		if d.uid {
			v = string(r.UID)
		}
		out[d.key] = v
	}
	return out
}

// toUnstructured converts the record to the Job it stands for, as the
// reflective converter would convert that Job (jobConverter). podSpecs,
// when not nil, keeps each shared spec's converted pod template spec for
// the other records that share it: the Snapshots of one classification
// only read their Jobs.
func (r *jobRecord) toUnstructured(podSpecs *sync.Map) (*unstructured.Unstructured, error) {
	c := &jobConverter{relabel: true}
	c.selectorLabels, c.templateLabels = r.labels()
	if podSpecs != nil {
		if ps, ok := podSpecs.Load(r.spec); ok {
			c.podSpec = ps.(obj)
		}
	}
	u := obj{}
	putStr(u, "apiVersion", r.APIVersion)
	putStr(u, "kind", r.Kind)
	u["metadata"] = c.meta(&r.ObjectMeta)
	u["spec"] = c.jobSpec(r.spec)
	u["status"] = c.jobStatus(&r.status)
	if c.err != nil {
		return nil, c.err
	}
	if podSpecs != nil && c.podSpec == nil {
		if ps, _, _ := unstructured.NestedFieldNoCopy(u, "spec", "template", "spec"); ps != nil {
			podSpecs.Store(r.spec, ps.(obj))
		}
	}
	return &unstructured.Unstructured{Object: u}, nil
}

// specHash hashes what most often tells Job specs apart; the interner
// compares the rest (reflect.DeepEqual).
func (in *interner) specHash(s *batchv1.JobSpec) uint64 {
	h := in.hash()
	for _, p := range []*int32{s.Parallelism, s.Completions, s.BackoffLimit} {
		if p != nil {
			writeInt(h, int64(*p))
		} else {
			writeInt(h, -1)
		}
	}
	h.WriteByte(boolByte(s.Suspend != nil && *s.Suspend))
	t := &s.Template
	for _, v := range []any{t.Labels, t.Annotations, t.Spec.NodeSelector, t.Spec.Containers, t.Spec.InitContainers} {
		writeUint(h, identity(v))
	}
	writeInt(h, int64(len(t.Spec.Tolerations)))
	return h.Sum64()
}
