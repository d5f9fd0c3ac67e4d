package fetch

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Label keys and values Kueue and Kubernetes put on objects.
const (
	// QueueNameLabel names the LocalQueue on a job.
	QueueNameLabel = controllerconstants.QueueLabel
	// JobUIDLabel carries the owner job's UID on a Workload.
	JobUIDLabel = controllerconstants.JobUIDLabel
	// PrebuiltWorkloadLabel names a Workload created ahead of its job.
	PrebuiltWorkloadLabel = controllerconstants.PrebuiltWorkloadLabel
	// PodGroupNameLabel groups plain Pods into one Workload of that name.
	PodGroupNameLabel = podconstants.GroupNameLabel
	// PodAdmissionGate is the scheduling gate Kueue holds on plain Pods until
	// admission.
	PodAdmissionGate = podconstants.SchedulingGateName
	// JobControllerUIDLabel is set by the Job controller on its Pods.
	JobControllerUIDLabel = "batch.kubernetes.io/controller-uid"
)

// KindWorkload is the Kind of Kueue's Workload, which can also be a target.
const KindWorkload = "Workload"

// JobKind describes one kind of object a user can ask about: a job kind Kueue
// integrates with, a plain Pod, or the Workload itself.
type JobKind struct {
	// Kind is the Kubernetes kind, e.g. "PyTorchJob".
	Kind string
	// Resource is the group, version and resource the kind is read as.
	Resource schema.GroupVersionResource
	// Names are the lower-case words a user may type for the kind:
	// singular, plural and short names.
	Names []string

	// suspendPath is where "suspended" lives; nil when the kind has no
	// suspend field (Pod, LeaderWorkerSet, Workload).
	suspendPath []string
	// podSelector returns the label selector of the kind's Pods, or "" when
	// unknown.
	podSelector func(obj *unstructured.Unstructured) string
	// workloadNameSuffix is appended to the owner name before hashing
	// (LeaderWorkerSet names one Workload per group; group 0 is read).
	workloadNameSuffix string
}

// GroupVersionKind returns the kind's GVK.
func (k *JobKind) GroupVersionKind() schema.GroupVersionKind {
	return k.Resource.GroupVersion().WithKind(k.Kind)
}

// Suspended reports whether the object is held back (suspended, or for a
// plain Pod gated by Kueue's admission gate). known is false when the kind
// has no such notion.
func (k *JobKind) Suspended(obj *unstructured.Unstructured) (suspended, known bool) {
	if obj == nil {
		return false, false
	}
	if k.Kind == "Pod" {
		gates, _, _ := unstructured.NestedSlice(obj.Object, "spec", "schedulingGates")
		for _, g := range gates {
			if m, ok := g.(map[string]any); ok && m["name"] == PodAdmissionGate {
				return true, true
			}
		}
		return false, true
	}
	if k.suspendPath == nil {
		return false, false
	}
	v, found, err := unstructured.NestedBool(obj.Object, k.suspendPath...)
	if err != nil {
		return false, false
	}
	return found && v, true
}

// QueueName returns the kueue.x-k8s.io/queue-name label of a job.
func QueueName(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	return labelOf(obj, QueueNameLabel)
}

func labelSelector(key string) func(*unstructured.Unstructured) string {
	return func(obj *unstructured.Unstructured) string { return key + "=" + obj.GetName() }
}

func kubeflowSelector(operator string) func(*unstructured.Unstructured) string {
	return func(obj *unstructured.Unstructured) string {
		return "training.kubeflow.org/job-name=" + obj.GetName() + ",training.kubeflow.org/operator-name=" + operator
	}
}

func rayJobSelector(obj *unstructured.Unstructured) string {
	if c, _, _ := unstructured.NestedString(obj.Object, "status", "rayClusterName"); c != "" {
		return "ray.io/cluster=" + c
	}
	return ""
}

func kubeflowV1(kind, resource string) JobKind {
	lower := strings.ToLower(kind)
	return JobKind{
		Kind:        kind,
		Resource:    schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: resource},
		Names:       []string{lower, resource},
		suspendPath: []string{"spec", "runPolicy", "suspend"},
		podSelector: kubeflowSelector(lower + "-controller"),
	}
}

// kinds is the registry. Pod selectors follow each Kueue integration's
// PodLabelSelector (sigs.k8s.io/kueue/pkg/controller/jobs/...), except batch
// Jobs, whose Pods are selected by controller UID.
var kinds = []JobKind{
	{
		Kind:        "Job",
		Resource:    schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
		Names:       []string{"job", "jobs"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: func(obj *unstructured.Unstructured) string {
			return JobControllerUIDLabel + "=" + string(obj.GetUID())
		},
	},
	{
		Kind:        "JobSet",
		Resource:    schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"},
		Names:       []string{"jobset", "jobsets"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: labelSelector("jobset.sigs.k8s.io/jobset-name"),
	},
	{
		Kind:        "RayJob",
		Resource:    schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"},
		Names:       []string{"rayjob", "rayjobs"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: rayJobSelector,
	},
	{
		Kind:        "RayCluster",
		Resource:    schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"},
		Names:       []string{"raycluster", "rayclusters"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: labelSelector("ray.io/cluster"),
	},
	kubeflowV1("PyTorchJob", "pytorchjobs"),
	kubeflowV1("TFJob", "tfjobs"),
	kubeflowV1("XGBoostJob", "xgboostjobs"),
	kubeflowV1("PaddleJob", "paddlejobs"),
	kubeflowV1("JAXJob", "jaxjobs"),
	{
		Kind:        "MPIJob",
		Resource:    schema.GroupVersionResource{Group: "kubeflow.org", Version: "v2beta1", Resource: "mpijobs"},
		Names:       []string{"mpijob", "mpijobs"},
		suspendPath: []string{"spec", "runPolicy", "suspend"},
		podSelector: func(obj *unstructured.Unstructured) string {
			return "training.kubeflow.org/job-name=" + obj.GetName() + ",training.kubeflow.org/operator-name=mpi-operator"
		},
	},
	{
		Kind:        "TrainJob",
		Resource:    schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"},
		Names:       []string{"trainjob", "trainjobs"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: labelSelector("jobset.sigs.k8s.io/jobset-name"),
	},
	{
		Kind:               "LeaderWorkerSet",
		Resource:           schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"},
		Names:              []string{"leaderworkerset", "leaderworkersets", "lws"},
		podSelector:        labelSelector("leaderworkerset.sigs.k8s.io/name"),
		workloadNameSuffix: "-0",
	},
	{
		Kind:        "AppWrapper",
		Resource:    schema.GroupVersionResource{Group: "workload.codeflare.dev", Version: "v1beta2", Resource: "appwrappers"},
		Names:       []string{"appwrapper", "appwrappers", "aw"},
		suspendPath: []string{"spec", "suspend"},
		podSelector: labelSelector("workload.codeflare.dev/appwrapper"),
	},
	{
		Kind:     "Pod",
		Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Names:    []string{"pod", "pods", "po"},
		podSelector: func(obj *unstructured.Unstructured) string {
			if g := labelOf(obj, PodGroupNameLabel); g != "" {
				return PodGroupNameLabel + "=" + g
			}
			return ""
		},
	},
	{
		Kind:     KindWorkload,
		Resource: schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"},
		Names:    []string{"workload", "workloads", "wl", "kwl", "kueueworkload", "kueueworkloads"},
	},
}

// Kinds returns the supported kinds, batch Job first.
func Kinds() []JobKind {
	return append([]JobKind(nil), kinds...)
}

// LookupKind finds a kind by what a user typed (case-insensitive): its Kind,
// plural or short name, optionally qualified by its group as kubectl allows
// ("jobs.batch", "pytorchjob.kubeflow.org"). An empty name means Job.
func LookupKind(name string) (*JobKind, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		name = "job"
	}
	word, group, qualified := strings.Cut(name, ".")
	for i := range kinds {
		k := &kinds[i]
		if qualified && group != k.Resource.Group {
			continue
		}
		for _, n := range k.Names {
			if n == word {
				return k, true
			}
		}
	}
	return nil, false
}

// lookupGroupKind finds the registry entry for an object's group and kind.
func lookupGroupKind(gk schema.GroupKind) (*JobKind, bool) {
	for i := range kinds {
		if kinds[i].Kind == gk.Kind && kinds[i].Resource.Group == gk.Group {
			return &kinds[i], true
		}
	}
	return nil, false
}

// ErrBadTarget is returned by ParseTarget for input it cannot use.
var ErrBadTarget = errors.New("bad target")

// ParseTarget reads the user's "[KIND/]NAME" (e.g. "my-job", "jobs/my-job",
// "PyTorchJob/train", "wl/job-my-job-80d69") into a Target in namespace.
// The Kind of the result is the canonical one ("Job", "PyTorchJob", ...).
func ParseTarget(arg, namespace string) (diagnose.Target, error) {
	arg = strings.TrimSpace(arg)
	kindWord, name, hasKind := strings.Cut(arg, "/")
	if !hasKind {
		kindWord, name = "", arg
	}
	if name == "" || strings.Contains(name, "/") {
		return diagnose.Target{}, fmt.Errorf("%w %q: want [KIND/]NAME", ErrBadTarget, arg)
	}
	k, ok := LookupKind(kindWord)
	if !ok {
		return diagnose.Target{}, fmt.Errorf("%w %q: unknown kind %q (supported: %s)", ErrBadTarget, arg, kindWord, kindList())
	}
	return diagnose.Target{Kind: k.Kind, Namespace: namespace, Name: name}, nil
}

func kindList() string {
	names := make([]string, 0, len(kinds))
	for _, k := range kinds {
		names = append(names, k.Names[0])
	}
	return strings.Join(names, ", ")
}

// labelOf is obj.GetLabels()[key] without copying the labels (GetLabels
// makes a new map on every call, and a digest asks thousands of jobs).
func labelOf(obj *unstructured.Unstructured, key string) string {
	md, _ := obj.Object["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	v, _ := labels[key].(string)
	return v
}
