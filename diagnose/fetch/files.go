package fetch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// storeSource answers collect's reads from a Store. A read that misses
// returns the error recorded for the LIST that would have held the object
// (Forbidden, ...), else NotFound, so both become the Gaps a live read
// would give.
type storeSource struct {
	st *Store
	// shared hands out the store's own objects instead of copies, for
	// Snapshots that only Analyze reads and that do not outlive the call
	// (Store.Classify): copying every Workload would double a digest's
	// memory traffic.
	shared bool
	// podSpecs keeps converted pod template specs of shared Job specs
	// (jobRecord.toUnstructured), when shared.
	podSpecs sync.Map
}

// own returns o, or a deep copy of it unless the source is shared.
func own[T any, PT interface {
	*T
	DeepCopy() PT
}](s *storeSource, o PT) PT {
	if s.shared {
		return o
	}
	return o.DeepCopy()
}

var _ source = (*storeSource)(nil)

// Resources as the API server names them, for errors and list records.
const (
	resWorkloads       = "workloads"
	resLocalQueues     = "localqueues"
	resClusterQueues   = "clusterqueues"
	resCohorts         = "cohorts"
	resFlavors         = "resourceflavors"
	resAdmissionChecks = "admissionchecks"
	resPriorityClasses = "workloadpriorityclasses"
	resPods            = "pods"
	resEvents          = "events"
	resNamespaces      = "namespaces"
)

// notFound is the error the API server would give for a missing object.
func notFound(resource, name string) error {
	gr := schema.GroupResource{Resource: resource}
	switch resource {
	case resWorkloads, resLocalQueues, resClusterQueues, resCohorts, resFlavors, resAdmissionChecks, resPriorityClasses:
		gr = kueue.Resource(resource)
	}
	return apierrors.NewNotFound(gr, name)
}

// missing is the error for an object the store does not hold.
func (s *storeSource) missing(resource, ns, name string) error {
	if err := s.st.listError(resource, ns); err != nil {
		return err
	}
	return notFound(resource, name)
}

// kueueConfig implements kueueConfigReader with the Configuration given to
// the store (Store.SetKueueConfig), if any.
func (s *storeSource) kueueConfig(context.Context) (*diagnose.KueueConfig, error) {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	return s.st.kueueConfig, nil
}

func (s *storeSource) exhaustive() bool { return true }

// useBot reports whether the store's cluster-scoped objects were listed
// as the bot (Clients.ClusterScoped): the Snapshot then reads only its own
// LocalQueue's ClusterQueue, as a live question in that mode does.
func (s *storeSource) useBot() bool {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	return s.st.clusterScopedByBot
}

func (s *storeSource) served(context.Context, *kinds.Kind) (bool, error) { return true, nil }
func (s *storeSource) kueueServed(context.Context) (bool, error) {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	return !s.st.kueueNotServed, nil
}

// jobResource is the list record name of a job kind.
func jobResource(k *kinds.Kind) string {
	return k.Resource.Resource + "." + k.Resource.Group
}

func (s *storeSource) getObject(_ context.Context, k *kinds.Kind, ns, name string) (*unstructured.Unstructured, error) {
	switch {
	case k.Kind == "Pod":
		if p := get[corev1.Pod](s.st, gkPod, ns, name); p != nil {
			return typedToUnstructured(p, k)
		}
		return nil, s.missing(resPods, ns, name)
	case k.Kind == "Job" && k.Resource.Group == "batch":
		if r := get[jobRecord](s.st, gkBatchJob, ns, name); r != nil {
			var podSpecs *sync.Map
			if s.shared {
				podSpecs = &s.podSpecs
			}
			u, err := r.toUnstructured(podSpecs)
			if err != nil {
				return nil, err
			}
			u.SetGroupVersionKind(k.GroupVersionKind())
			return u, nil
		}
		if j := get[batchv1.Job](s.st, gkBatchJob, ns, name); j != nil {
			return typedToUnstructured(j, k) // not slimmed
		}
	default:
		if u := get[unstructured.Unstructured](s.st, schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}, ns, name); u != nil {
			return own(s, u), nil
		}
	}
	if err := s.st.listError(jobResource(k), ns); err != nil {
		return nil, err
	}
	return nil, apierrors.NewNotFound(k.Resource.GroupResource(), name)
}

func (s *storeSource) getWorkload(_ context.Context, ns, name string) (*kueue.Workload, error) {
	if w := get[kueue.Workload](s.st, gkWorkload, ns, name); w != nil {
		return own(s, w), nil
	}
	return nil, s.missing(resWorkloads, ns, name)
}

// workloadsForOwner matches the job-uid label or an ownerReference; ns ""
// is every namespace.
func (s *storeSource) workloadsForOwner(_ context.Context, ns string, uid types.UID) ([]kueue.Workload, error) {
	var out []kueue.Workload
	for _, w := range byIndex[kueue.Workload](s.st, gkWorkload, indexOwner, string(uid)) {
		if ns == "" || w.Namespace == ns {
			out = append(out, *own(s, w))
		}
	}
	if len(out) == 0 {
		if err := s.st.listError(resWorkloads, ns); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *storeSource) getLocalQueue(_ context.Context, ns, name string) (*kueue.LocalQueue, error) {
	if lq := get[kueue.LocalQueue](s.st, gkLocalQueue, ns, name); lq != nil {
		return own(s, lq), nil
	}
	return nil, s.missing(resLocalQueues, ns, name)
}

func (s *storeSource) listLocalQueues(_ context.Context, ns string) ([]kueue.LocalQueue, error) {
	if err := s.st.listError(resLocalQueues, ns); err != nil {
		return nil, err
	}
	lqs := s.st.view().localQueues[ns]
	if s.shared {
		return lqs[:len(lqs):len(lqs)], nil
	}
	out := make([]kueue.LocalQueue, 0, len(lqs))
	for i := range lqs {
		out = append(out, *lqs[i].DeepCopy())
	}
	return out, nil
}

// getPriorityClass returns the class when the store holds it. When the
// store's WorkloadPriorityClass LIST succeeded (ListInto makes one), a class
// it did not return does not exist, as a GET would say; when that LIST
// failed, its error is the answer. A store filled otherwise (a dump holds
// only the classes its author chose) does not know the class is missing,
// so the answer may say "probably", never "does not exist".
func (s *storeSource) getPriorityClass(_ context.Context, name string) (*kueue.WorkloadPriorityClass, error) {
	if wpc := get[kueue.WorkloadPriorityClass](s.st, gkPriorityClass, "", name); wpc != nil {
		return own(s, wpc), nil
	}
	if err := s.st.listError(resPriorityClasses, ""); err != nil {
		return nil, err
	}
	if s.st.wasListed(resPriorityClasses, "") {
		return nil, notFound(resPriorityClasses, name)
	}
	return nil, fmt.Errorf("the objects read hold no WorkloadPriorityClass %s: %w", name, errNotRead)
}

func (s *storeSource) getClusterQueue(_ context.Context, name string) (*kueue.ClusterQueue, error) {
	if cq := get[kueue.ClusterQueue](s.st, gkClusterQueue, "", name); cq != nil {
		return own(s, cq), nil
	}
	return nil, s.missing(resClusterQueues, "", name)
}

// listClusterQueues returns the store's shared, sorted view: collect only
// reads it (copying the few it keeps), which keeps a Snapshot's cost
// independent of the number of ClusterQueues.
func (s *storeSource) listClusterQueues(context.Context) ([]kueue.ClusterQueue, error) {
	if err := s.st.listError(resClusterQueues, ""); err != nil {
		return nil, err
	}
	cqs := s.st.view().clusterQueues
	return cqs[:len(cqs):len(cqs)], nil
}

// cohortTree answers from the store's precomputed trees (the store's shared
// slices when shared, else copies of them).
func (s *storeSource) cohortTree(cq *kueue.ClusterQueue) ([]kueue.ClusterQueue, []kueue.Cohort, bool) {
	if s.st.listError(resClusterQueues, "") != nil || s.st.listError(resCohorts, "") != nil {
		return nil, nil, false
	}
	t, ok := s.st.view().trees[cq.Name]
	if !ok || t.cohort != cq.Spec.CohortName {
		return nil, nil, false // a ClusterQueue not (or no longer) as the store has it
	}
	if s.shared {
		return t.members, t.cohorts, true
	}
	return slices.Clone(t.members), slices.Clone(t.cohorts), true
}

func (s *storeSource) listCohorts(context.Context) ([]kueue.Cohort, error) {
	if err := s.st.listError(resCohorts, ""); err != nil {
		return nil, err
	}
	cos := s.st.view().cohorts
	return cos[:len(cos):len(cos)], nil
}

// pickNamed returns the named cluster-scoped objects the store holds, in the
// order of names.
func pickNamed[T any, PT interface {
	*T
	DeepCopy() PT
}](s *storeSource, gk schema.GroupKind, names []string) []T {
	var out []T
	for _, n := range names {
		if o := get[T](s.st, gk, "", n); o != nil {
			out = append(out, *own(s, PT(o)))
		}
	}
	return out
}

func (s *storeSource) getFlavors(_ context.Context, names []string) ([]kueue.ResourceFlavor, error) {
	var out []kueue.ResourceFlavor
	if s.shared {
		d := s.st.view()
		key := strings.Join(names, ",")
		if cached, ok := d.flavors.Load(key); ok {
			out = cached.([]kueue.ResourceFlavor)
		} else {
			out = pickNamed[kueue.ResourceFlavor](s, gkFlavor, names)
			d.flavors.Store(key, out)
		}
		out = out[:len(out):len(out)]
	} else {
		out = pickNamed[kueue.ResourceFlavor](s, gkFlavor, names)
	}
	if len(out) < len(names) {
		if err := s.st.listError(resFlavors, ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *storeSource) getAdmissionChecks(_ context.Context, names []string) ([]kueue.AdmissionCheck, error) {
	out := pickNamed[kueue.AdmissionCheck](s, gkAdmissionCheck, names)
	if len(out) < len(names) {
		if err := s.st.listError(resAdmissionChecks, ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pending ranks the pending Workloads of the store that map to cq.
func (s *storeSource) pending(_ context.Context, wl *kueue.Workload, cq string) (*diagnose.Position, []diagnose.QueuedWorkload, error) {
	if cq == "" {
		return nil, nil, nil
	}
	r := s.st.view().order[cq]
	if r == nil {
		return nil, nil, nil
	}
	pos, ahead := r.position(wl, !s.shared)
	return pos, ahead, nil
}

// listPods matches the selector, a controller ownerReference to ownerUID, or
// the Job controller-uid label.
func (s *storeSource) listPods(_ context.Context, ns, selector string, ownerUID types.UID) ([]corev1.Pod, error) {
	if err := s.st.listError(resPods, ns); err != nil {
		return nil, err
	}
	var sel labels.Selector
	var candidates []*corev1.Pod
	switch {
	case selector != "":
		// Parsed only when there is a Pod to match: a digest asks for
		// the Pods of every pending job, and most have none.
		if candidates = inNamespace[corev1.Pod](s.st, gkPod, ns); len(candidates) == 0 {
			return nil, nil
		}
		var err error
		if sel, err = labels.Parse(selector); err != nil {
			return nil, err
		}
	case ownerUID == "":
		return nil, nil
	default:
		candidates = byIndex[corev1.Pod](s.st, gkPod, indexOwner, string(ownerUID))
	}
	var out []corev1.Pod
	for _, p := range candidates {
		if p.Namespace != ns {
			continue
		}
		match := sel != nil && sel.Matches(labels.Set(p.Labels))
		if ownerUID != "" {
			match = match || controlledBy(p, ownerUID) || p.Labels[JobControllerUIDLabel] == string(ownerUID)
		}
		if match {
			out = append(out, *own(s, p))
		}
	}
	return out, nil
}

func (s *storeSource) listEvents(_ context.Context, ns string, ref corev1.ObjectReference) ([]corev1.Event, error) {
	if err := s.st.listError(resEvents, ns); err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range byIndex[corev1.Event](s.st, gkEvent, indexInvolved, ns+"/"+ref.Kind+"/"+ref.Name) {
		if involves(e, ref) {
			out = append(out, *own(s, e))
		}
	}
	return out, nil
}

func (s *storeSource) getNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if n := get[corev1.Namespace](s.st, gkNamespace, "", name); n != nil {
		return own(s, n), nil
	}
	if err := s.st.listError(resNamespaces, name); err != nil {
		return nil, err
	}
	return nil, s.missing(resNamespaces, "", name)
}

// controllerRef returns the object's controlling ownerReference.
func controllerRef(obj metav1.Object) *metav1.OwnerReference {
	return metav1.GetControllerOfNoCopy(obj)
}
