package fetch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/kinds"
)

// scheme knows every typed kind the store keeps: core (Pod, Event,
// Namespace, and Node, PersistentVolumeClaim, ResourceQuota, LimitRange),
// node.k8s.io RuntimeClass, batch Job, events.k8s.io Event, and Kueue v1beta2 and v1beta1.
// Kueue's v1beta1 package registers Kueue's own conversion functions (the
// ones its conversion webhook runs), so a v1beta1 object converts to
// v1beta2 with scheme.ConvertToVersion.
var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(corev1.AddToScheme(scheme))
	utilruntime.Must(batchv1.AddToScheme(scheme))
	utilruntime.Must(eventsv1.AddToScheme(scheme))
	utilruntime.Must(nodev1.AddToScheme(scheme))
	utilruntime.Must(kueue.AddToScheme(scheme))
	utilruntime.Must(kueuev1beta1.AddToScheme(scheme))
}

// Group kinds the store indexes.
var (
	gkWorkload       = kueue.GroupVersion.WithKind("Workload").GroupKind()
	gkLocalQueue     = kueue.GroupVersion.WithKind("LocalQueue").GroupKind()
	gkClusterQueue   = kueue.GroupVersion.WithKind("ClusterQueue").GroupKind()
	gkCohort         = kueue.GroupVersion.WithKind("Cohort").GroupKind()
	gkFlavor         = kueue.GroupVersion.WithKind("ResourceFlavor").GroupKind()
	gkAdmissionCheck = kueue.GroupVersion.WithKind("AdmissionCheck").GroupKind()
	gkPriorityClass  = kueue.GroupVersion.WithKind("WorkloadPriorityClass").GroupKind()
	gkPod            = schema.GroupKind{Kind: "Pod"}
	gkEvent          = schema.GroupKind{Kind: "Event"}
	gkNamespace      = schema.GroupKind{Kind: "Namespace"}
	gkBatchJob       = schema.GroupKind{Group: "batch", Kind: "Job"}

	// What names the object that blocks (objects.go).
	gkNode              = schema.GroupKind{Kind: "Node"}
	gkClaim             = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	gkResourceQuota     = schema.GroupKind{Kind: "ResourceQuota"}
	gkLimitRange        = schema.GroupKind{Kind: "LimitRange"}
	gkRuntimeClass      = schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"}
	gkTopology          = kueue.GroupVersion.WithKind("Topology").GroupKind()
	gkMultiKueueConfig  = kueue.GroupVersion.WithKind("MultiKueueConfig").GroupKind()
	gkMultiKueueCluster = kueue.GroupVersion.WithKind("MultiKueueCluster").GroupKind()
)

// kueueKinds are the Kueue kinds the store keeps, in both versions.
var kueueKinds = []string{"Workload", "LocalQueue", "ClusterQueue", "Cohort", "ResourceFlavor", "AdmissionCheck", "WorkloadPriorityClass",
	"Topology", "MultiKueueConfig", "MultiKueueCluster"}

// typedKinds are the kinds decoded into typed objects. Any other kind is
// either a job kind of the registry (kept unstructured) or ignored, so that
// a dump may hold Deployments, ConfigMaps or CRDs the diagnosis never reads,
// whatever their content.
var typedKinds = func() map[schema.GroupVersionKind]bool {
	m := map[schema.GroupVersionKind]bool{
		corev1.SchemeGroupVersion.WithKind("Pod"):       true,
		corev1.SchemeGroupVersion.WithKind("Event"):     true,
		corev1.SchemeGroupVersion.WithKind("Namespace"): true,
		eventsv1.SchemeGroupVersion.WithKind("Event"):   true,
		batchv1.SchemeGroupVersion.WithKind("Job"):      true,
		// What names the object that blocks (objects.go).
		corev1.SchemeGroupVersion.WithKind("Node"):                  true,
		corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"): true,
		corev1.SchemeGroupVersion.WithKind("ResourceQuota"):         true,
		corev1.SchemeGroupVersion.WithKind("LimitRange"):            true,
		nodev1.SchemeGroupVersion.WithKind("RuntimeClass"):          true,
	}
	for _, k := range kueueKinds {
		m[kueue.GroupVersion.WithKind(k)] = true
		m[kueuev1beta1.GroupVersion.WithKind(k)] = true
	}
	return m
}()

// isJobKind reports whether gvk is a job kind of the registry kept as an
// unstructured object (every kind but batch Job, Pod and Workload, which
// are typed).
func isJobKind(gvk schema.GroupVersionKind) bool {
	k, ok := kinds.ByGroupKind(gvk.GroupKind())
	return ok && k.Kind != KindWorkload && k.Kind != "Pod" && gvk.GroupKind() != gkBatchJob
}

// normalize turns a decoded object into the form the store keeps: Kueue
// v1beta1 converted to v1beta2 by Kueue's conversion functions,
// events.k8s.io Events mapped onto core Events, unstructured objects of a
// typed kind made typed, and managedFields dropped (the diagnosis never
// reads them, and they are often half of an object's size). It returns the
// kept object's group kind, or ok=false for a kind the store does not keep.
func normalize(obj runtime.Object) (out runtime.Object, gk schema.GroupKind, ok bool, err error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		// Typed objects from a typed client's LIST carry no TypeMeta.
		kinds, _, err := scheme.ObjectKinds(obj)
		if err != nil || len(kinds) == 0 {
			return nil, gk, false, nil
		}
		gvk = kinds[0]
	}
	if u, isU := obj.(*unstructured.Unstructured); isU && typedKinds[gvk] {
		typed, err := scheme.New(gvk)
		if err != nil {
			return nil, gk, false, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			return nil, gk, false, err
		}
		obj = typed
	}
	switch {
	case gvk.Group == kueuev1beta1.GroupVersion.Group && gvk.Version == kueuev1beta1.GroupVersion.Version && typedKinds[gvk]:
		converted, err := scheme.ConvertToVersion(obj, kueue.GroupVersion)
		if err != nil {
			return nil, gk, false, fmt.Errorf("converting %s from v1beta1: %w", gvk.Kind, err)
		}
		obj = converted
		gvk = kueue.GroupVersion.WithKind(gvk.Kind)
	case gvk == eventsv1.SchemeGroupVersion.WithKind("Event"):
		e, isE := obj.(*eventsv1.Event)
		if !isE {
			return nil, gk, false, nil
		}
		obj = eventFromEventsV1(e)
		gvk = corev1.SchemeGroupVersion.WithKind("Event")
	case typedKinds[gvk]:
	case isJobKind(gvk):
		if _, isU := obj.(*unstructured.Unstructured); !isU {
			// A built-in kind in hand (a typed StatefulSet or
			// Deployment): kept unstructured like the other job kinds.
			if gvk.Group != "apps" {
				return nil, gk, false, nil
			}
			u, err := toUnstructured(obj)
			if err != nil {
				return nil, gk, false, err
			}
			obj = u
		}
	default:
		return nil, gk, false, nil
	}
	if m, mErr := metaOf(obj); mErr == nil {
		m.SetManagedFields(nil)
	}
	if wl, isWL := obj.(*kueue.Workload); isWL && slimming {
		slimWorkload(wl)
	}
	if n, isNode := obj.(*corev1.Node); isNode {
		obj = slimNode(n)
	}
	if job, isJob := obj.(*batchv1.Job); isJob && slimming {
		slimPodSpec(&job.Spec.Template.Spec)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, gvk.GroupKind(), true, nil
}

// slimming turns slimWorkload (and the same for batch Jobs' pod templates)
// on; tests turn it off to compare.
var slimming = true

// metaOf returns obj's metadata accessor.
func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	return m, nil
}

// eventFromEventsV1 maps an events.k8s.io/v1 Event onto the core v1 shape.
func eventFromEventsV1(e *eventsv1.Event) *corev1.Event {
	out := &corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Type:                e.Type,
		Source:              corev1.EventSource{Component: e.DeprecatedSource.Component, Host: e.DeprecatedSource.Host},
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	out.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
		if out.Count < e.Series.Count {
			out.Count = e.Series.Count
		}
	}
	return out
}
