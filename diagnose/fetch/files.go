package fetch

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// FromFiles builds the Snapshot for t from objects saved with
// `kubectl get -o yaml` (or -o json). Each path is a file or a folder
// (searched recursively for *.yaml, *.yml and *.json, in sorted order);
// a file holds one object, several YAML documents, or a `kind: List`.
//
// Objects are selected by the same rules as Fetch. Unknown kinds are
// ignored. Since files have no visibility API, Position and QueueAhead are
// derived from the pending Workloads in the files that belong to the same
// ClusterQueue, in Kueue's queue order. An unreadable file or malformed
// content is an error naming the file and document ("dump.yaml: document 3:
// ...").
func FromFiles(paths []string, t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	st, err := loadPaths(paths)
	if err != nil {
		return nil, err
	}
	return collect(context.Background(), &storeSource{st: st}, t, now)
}

// storeSource answers collect's reads from loaded objects.
type storeSource struct {
	st *store
}

var _ source = (*storeSource)(nil)

// notFound is the error the API server would give for a missing object.
func notFound(resource, name string) error {
	gr := schema.GroupResource{Resource: resource}
	switch resource {
	case "workloads", "localqueues", "clusterqueues":
		gr = kueue.Resource(resource)
	}
	return apierrors.NewNotFound(gr, name)
}

// find returns a pointer to the first item matching ns/name.
func find[T any, PT interface {
	*T
	metav1.Object
}](items []T, ns, name string) *T {
	for i := range items {
		o := PT(&items[i])
		if o.GetNamespace() == ns && o.GetName() == name {
			return &items[i]
		}
	}
	return nil
}

func (s *storeSource) exhaustive() bool { return true }
func (s *storeSource) useBot() bool     { return false }

func (s *storeSource) served(context.Context, *JobKind) (bool, error) { return true, nil }
func (s *storeSource) kueueServed(context.Context) (bool, error)      { return true, nil }

func (s *storeSource) getObject(_ context.Context, k *JobKind, ns, name string) (*unstructured.Unstructured, error) {
	if k.Kind == "Pod" {
		p := find(s.st.pods, ns, name)
		if p == nil {
			return nil, notFound("pods", name)
		}
		return typedToUnstructured(p, k)
	}
	gk := schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}
	for _, u := range s.st.jobs {
		if u.GroupVersionKind().GroupKind() == gk && u.GetNamespace() == ns && u.GetName() == name {
			return u.DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(k.Resource.GroupResource(), name)
}

func (s *storeSource) getWorkload(_ context.Context, ns, name string) (*kueue.Workload, error) {
	if w := find(s.st.workloads, ns, name); w != nil {
		return w.DeepCopy(), nil
	}
	return nil, notFound("workloads", name)
}

// workloadsForOwner matches the job-uid label or an ownerReference.
func (s *storeSource) workloadsForOwner(_ context.Context, ns string, uid types.UID) ([]kueue.Workload, error) {
	var out []kueue.Workload
	for _, w := range s.st.workloads {
		if w.Namespace != ns {
			continue
		}
		match := w.Labels[JobUIDLabel] == string(uid)
		for _, ref := range w.OwnerReferences {
			match = match || ref.UID == uid
		}
		if match {
			out = append(out, *w.DeepCopy())
		}
	}
	return out, nil
}

func (s *storeSource) getLocalQueue(_ context.Context, ns, name string) (*kueue.LocalQueue, error) {
	if lq := find(s.st.localQueues, ns, name); lq != nil {
		return lq.DeepCopy(), nil
	}
	return nil, notFound("localqueues", name)
}

func (s *storeSource) listLocalQueues(_ context.Context, ns string) ([]kueue.LocalQueue, error) {
	var out []kueue.LocalQueue
	for i := range s.st.localQueues {
		if s.st.localQueues[i].Namespace == ns {
			out = append(out, *s.st.localQueues[i].DeepCopy())
		}
	}
	return out, nil
}

func (s *storeSource) getClusterQueue(_ context.Context, name string) (*kueue.ClusterQueue, error) {
	if cq := find(s.st.clusterQueues, "", name); cq != nil {
		return cq.DeepCopy(), nil
	}
	return nil, notFound("clusterqueues", name)
}

func (s *storeSource) listClusterQueues(context.Context) ([]kueue.ClusterQueue, error) {
	return append([]kueue.ClusterQueue(nil), s.st.clusterQueues...), nil
}

func (s *storeSource) listCohorts(context.Context) ([]kueue.Cohort, error) {
	return append([]kueue.Cohort(nil), s.st.cohorts...), nil
}

func (s *storeSource) getFlavors(_ context.Context, names []string) ([]kueue.ResourceFlavor, error) {
	return pick(s.st.flavors, func(rf *kueue.ResourceFlavor) string { return rf.Name }, names), nil
}

func (s *storeSource) getAdmissionChecks(_ context.Context, names []string) ([]kueue.AdmissionCheck, error) {
	return pick(s.st.checks, func(ac *kueue.AdmissionCheck) string { return ac.Name }, names), nil
}

// pending ranks the pending Workloads of the files that map to cq.
func (s *storeSource) pending(_ context.Context, wl *kueue.Workload, cq string) (*diagnose.Position, []diagnose.QueuedWorkload, error) {
	if cq == "" {
		return nil, nil, nil
	}
	cqOf := func(w *kueue.Workload) string {
		if lq := find(s.st.localQueues, w.Namespace, string(w.Spec.QueueName)); lq != nil {
			return string(lq.Spec.ClusterQueue)
		}
		return ""
	}
	pos, ahead := positionIn(clusterQueueOrder(s.st.workloads, cq, cqOf), wl)
	return pos, ahead, nil
}

// listPods matches the selector, a controller ownerReference to ownerUID, or
// the Job controller-uid label.
func (s *storeSource) listPods(_ context.Context, ns, selector string, ownerUID types.UID) ([]corev1.Pod, error) {
	var sel labels.Selector
	if selector != "" {
		var err error
		if sel, err = labels.Parse(selector); err != nil {
			return nil, err
		}
	}
	var out []corev1.Pod
	for _, p := range s.st.pods {
		if p.Namespace != ns {
			continue
		}
		match := sel != nil && sel.Matches(labels.Set(p.Labels))
		if ownerUID != "" {
			match = match || controlledBy(&p, ownerUID) || p.Labels[JobControllerUIDLabel] == string(ownerUID)
		}
		if match {
			out = append(out, *p.DeepCopy())
		}
	}
	return out, nil
}

func (s *storeSource) listEvents(_ context.Context, ns string, ref corev1.ObjectReference) ([]corev1.Event, error) {
	var out []corev1.Event
	for _, e := range s.st.events {
		if e.Namespace == ns && involves(&e, ref) {
			out = append(out, *e.DeepCopy())
		}
	}
	return out, nil
}

func (s *storeSource) getNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if n := find(s.st.namespaces, "", name); n != nil {
		return n.DeepCopy(), nil
	}
	return nil, notFound("namespaces", name)
}
