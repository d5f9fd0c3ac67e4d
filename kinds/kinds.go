// Package kinds is the one registry of the kinds of object a user can ask
// kueuebot about: every job kind Kueue integrates with that kueuebot
// reads, a plain Pod, and the Workload itself.
//
// Each entry says how the kind is read (GroupVersionResource and Kind), the
// words users type for it, the operator that runs it and Kueue's framework
// name for it, how Kueue holds it back (a suspend field, or the admission
// scheduling gate on its Pods), how its Pods and Workload(s) are found and
// the RBAC rule that reads it. Everything that needs a list of kinds reads it from
// here: the fetcher (diagnose/fetch), the diagnosis (an operator that does
// not act, an integration that is not enabled), the reader ClusterRole
// (rbac), the parser and help (bot), diagnose's --help and the README (a
// test holds it to the registry), and the chart (a test holds its reader
// role to rbac's). Adding a kind is one entry in All plus its sandbox
// scenario (kinds_test.go checks both).
//
// It is a leaf: it imports only API and apimachinery packages.
package kinds

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

// Kinds of the registry other packages name.
const (
	// Job is batch/v1 Job, the default kind.
	Job = "Job"
	// Pod is a plain Pod (or a group of them) Kueue manages.
	Pod = "Pod"
	// Workload is Kueue's Workload, which can also be asked about.
	Workload = "Workload"
	// StatefulSet is apps/v1 StatefulSet: Kueue's "statefulset"
	// integration makes its Pods one pod group, one Workload.
	StatefulSet = "StatefulSet"
	// Deployment is apps/v1 Deployment: Kueue's "deployment" integration
	// makes each of its Pods a Workload of its own.
	Deployment = "Deployment"
)

// Label keys and values the registry's Pod selectors and suspension use.
const (
	// JobControllerUIDLabel is set by the Job controller on its Pods.
	JobControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// PodGroupNameLabel groups plain Pods into one Workload of that name.
	PodGroupNameLabel = podconstants.GroupNameLabel
	// PodAdmissionGate is the scheduling gate Kueue holds on plain Pods
	// until admission.
	PodAdmissionGate = podconstants.SchedulingGateName
	// SuspendingParentAnnotation is what Kueue's StatefulSet and
	// Deployment webhooks put on the pod template (value: the framework,
	// "statefulset" or "deployment"): Kueue's Pod webhook then gates every
	// Pod made from it.
	SuspendingParentAnnotation = podconstants.SuspendedByParentAnnotation
	// PodTemplateHashLabel is the label a Deployment's ReplicaSets and
	// Pods carry; a ReplicaSet is named <deployment>-<hash>.
	PodTemplateHashLabel = appsv1.DefaultDeploymentUniqueLabelKey
)

// ReadVerbs are the verbs a reader needs on a kind: get (one job by name)
// and list (the jobs of a namespace, and a job's candidates by name).
var ReadVerbs = []string{"get", "list"}

// Kind describes one kind of object a user can ask about.
type Kind struct {
	// Kind is the Kubernetes kind, e.g. "PyTorchJob".
	Kind string
	// Resource is the group, version and resource the kind is read as.
	Resource schema.GroupVersionResource
	// Names are the lower-case words a user may type for the kind:
	// singular first, then plural and short names.
	Names []string
	// Operator is the controller that turns an admitted job of the kind
	// into Pods (the KubeRay operator); zero when Kueue or Kubernetes
	// itself does (Job, Pod, Workload).
	Operator Operator
	// Framework is Kueue's integration name for the kind
	// (integrations.frameworks in Kueue's Configuration); "" for the
	// Workload, which is Kueue's own.
	Framework string

	// SuspendPath is where the kind's "suspended" field lives; nil when it
	// has none (Pod, StatefulSet, Deployment, LeaderWorkerSet, Workload).
	// A Pod is held back by Kueue's scheduling gate instead
	// (SuspendedByGate), and so are the Pods of a StatefulSet or a
	// Deployment (PodsGated).
	SuspendPath []string
	// SuspendedByGate is true for a plain Pod: Kueue holds it with its
	// admission scheduling gate (PodAdmissionGate).
	SuspendedByGate bool
	// PodsGated is true for a kind Kueue never suspends but whose Pods it
	// holds with the admission scheduling gate until their Workload is
	// admitted (StatefulSet, Deployment: Kueue's webhook marks the pod
	// template with SuspendingParentAnnotation).
	PodsGated bool
	// WorkloadPerPod is true for a kind each of whose Pods is a Workload
	// of its own (Deployment: Kueue's "deployment" integration hands each
	// Pod to its Pod integration, which names the Workload after the Pod).
	// Otherwise the object has one Workload, named after it.
	WorkloadPerPod bool
	// PodSelector returns the label selector of an object's Pods, or ""
	// when it is unknown; nil for the Workload. Selectors follow each
	// Kueue integration's PodLabelSelector
	// (sigs.k8s.io/kueue/pkg/controller/jobs/...), except batch Jobs,
	// whose Pods are selected by controller UID, and StatefulSets and
	// Deployments, whose Pods are what their spec.selector selects (the
	// Pods of a Deployment are further those its ReplicaSets control:
	// OwnsPod).
	PodSelector func(obj *unstructured.Unstructured) string
	// WorkloadNameSuffix is appended to the owner's name before hashing
	// the Workload's name (LeaderWorkerSet names one Workload per group;
	// group 0 is read).
	WorkloadNameSuffix string
}

// GroupVersionKind returns the kind's GVK.
func (k *Kind) GroupVersionKind() schema.GroupVersionKind {
	return k.Resource.GroupVersion().WithKind(k.Kind)
}

// GroupKind returns the kind's group and kind.
func (k *Kind) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}
}

// ReadRule is the RBAC rule that lets a person read objects of the kind:
// get and list on its resource.
func (k *Kind) ReadRule() rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{k.Resource.Group}, Resources: []string{k.Resource.Resource}, Verbs: append([]string(nil), ReadVerbs...)}
}

// Suspended reports whether the object is held back (suspended, or for a
// plain Pod gated by Kueue's admission gate). known is false when the kind
// has no such notion (a StatefulSet or Deployment: their Pods are gated,
// see PodGated).
func (k *Kind) Suspended(obj *unstructured.Unstructured) (suspended, known bool) {
	if obj == nil {
		return false, false
	}
	if k.SuspendedByGate {
		gates, _, _ := unstructured.NestedSlice(obj.Object, "spec", "schedulingGates")
		for _, g := range gates {
			if m, ok := g.(map[string]any); ok && m["name"] == PodAdmissionGate {
				return true, true
			}
		}
		return false, true
	}
	if k.SuspendPath == nil {
		return false, false
	}
	v, found, err := unstructured.NestedBool(obj.Object, k.SuspendPath...)
	if err != nil {
		return false, false
	}
	return found && v, true
}

// all is the registry, batch Job first (the default), Workload last.
var all = []Kind{
	{
		Kind:        Job,
		Resource:    schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
		Names:       []string{"job", "jobs"},
		Framework:   "batch/job",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: func(obj *unstructured.Unstructured) string {
			return JobControllerUIDLabel + "=" + string(obj.GetUID())
		},
	},
	{
		Kind:        "JobSet",
		Resource:    schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"},
		Names:       []string{"jobset", "jobsets"},
		Operator:    Operator{Name: "JobSet", Noun: Controller, Runs: "jobset-controller-manager"},
		Framework:   "jobset.x-k8s.io/jobset",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: labelSelector("jobset.sigs.k8s.io/jobset-name"),
	},
	{
		Kind:        "RayJob",
		Resource:    schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"},
		Names:       []string{"rayjob", "rayjobs"},
		Operator:    Operator{Name: "KubeRay", Noun: OperatorNoun},
		Framework:   "ray.io/rayjob",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: rayJobSelector,
	},
	{
		Kind:        "RayCluster",
		Resource:    schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"},
		Names:       []string{"raycluster", "rayclusters"},
		Operator:    Operator{Name: "KubeRay", Noun: OperatorNoun},
		Framework:   "ray.io/raycluster",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: labelSelector("ray.io/cluster"),
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
		Operator:    Operator{Name: "MPI", Noun: OperatorNoun},
		Framework:   "kubeflow.org/mpijob",
		SuspendPath: []string{"spec", "runPolicy", "suspend"},
		PodSelector: kubeflowSelector("mpi-operator"),
	},
	{
		Kind:        "TrainJob",
		Resource:    schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"},
		Names:       []string{"trainjob", "trainjobs"},
		Operator:    Operator{Name: "Kubeflow Trainer", Noun: Controller},
		Framework:   "trainer.kubeflow.org/trainjob",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: labelSelector("jobset.sigs.k8s.io/jobset-name"),
	},
	{
		Kind:               "LeaderWorkerSet",
		Resource:           schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"},
		Names:              []string{"leaderworkerset", "leaderworkersets", "lws"},
		Operator:           Operator{Name: "LeaderWorkerSet", Noun: Controller, Runs: "lws-controller-manager"},
		Framework:          "leaderworkerset.x-k8s.io/leaderworkerset",
		PodSelector:        labelSelector("leaderworkerset.sigs.k8s.io/name"),
		WorkloadNameSuffix: "-0",
	},
	{
		Kind:        "AppWrapper",
		Resource:    schema.GroupVersionResource{Group: "workload.codeflare.dev", Version: "v1beta2", Resource: "appwrappers"},
		Names:       []string{"appwrapper", "appwrappers", "aw"},
		Operator:    Operator{Name: "AppWrapper", Noun: Controller},
		Framework:   "workload.codeflare.dev/appwrapper",
		SuspendPath: []string{"spec", "suspend"},
		PodSelector: labelSelector("workload.codeflare.dev/appwrapper"),
	},
	{
		Kind:        StatefulSet,
		Resource:    appsv1.SchemeGroupVersion.WithResource("statefulsets"),
		Names:       []string{"statefulset", "statefulsets", "sts"},
		Operator:    Operator{Name: "StatefulSet", Noun: Controller, Runs: "kube-controller-manager"},
		Framework:   "statefulset",
		PodsGated:   true,
		PodSelector: specSelector,
	},
	{
		Kind:           Deployment,
		Resource:       appsv1.SchemeGroupVersion.WithResource("deployments"),
		Names:          []string{"deployment", "deployments", "deploy"},
		Operator:       Operator{Name: "Deployment", Noun: Controller, Runs: "kube-controller-manager"},
		Framework:      "deployment",
		PodsGated:      true,
		WorkloadPerPod: true,
		PodSelector:    specSelector,
	},
	{
		Kind:            Pod,
		Resource:        corev1.SchemeGroupVersion.WithResource("pods"),
		Names:           []string{"pod", "pods", "po"},
		Framework:       "pod",
		SuspendedByGate: true,
		PodSelector: func(obj *unstructured.Unstructured) string {
			if g := labelOf(obj, PodGroupNameLabel); g != "" {
				return PodGroupNameLabel + "=" + g
			}
			return ""
		},
	},
	{
		Kind:     Workload,
		Resource: schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"},
		Names:    []string{"workload", "workloads", "wl", "kwl", "kueueworkload", "kueueworkloads"},
	},
}

func kubeflowV1(kind, resource string) Kind {
	lower := strings.ToLower(kind)
	return Kind{
		Kind:        kind,
		Resource:    schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: resource},
		Names:       []string{lower, resource},
		Operator:    Operator{Name: "Kubeflow training", Noun: OperatorNoun},
		Framework:   "kubeflow.org/" + lower,
		SuspendPath: []string{"spec", "runPolicy", "suspend"},
		PodSelector: kubeflowSelector(lower + "-controller"),
	}
}

func labelSelector(key string) func(*unstructured.Unstructured) string {
	return func(obj *unstructured.Unstructured) string { return key + "=" + obj.GetName() }
}

func kubeflowSelector(operator string) func(*unstructured.Unstructured) string {
	return func(obj *unstructured.Unstructured) string {
		return "training.kubeflow.org/job-name=" + obj.GetName() + ",training.kubeflow.org/operator-name=" + operator
	}
}

// specSelector is the object's spec.selector (StatefulSet, Deployment) as
// a label selector string; "" when it has none or it cannot be read (an
// empty selector would select every Pod of the namespace).
func specSelector(obj *unstructured.Unstructured) string {
	m, found, err := unstructured.NestedMap(obj.Object, "spec", "selector")
	if !found || err != nil {
		return ""
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err != nil {
		return ""
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil || sel.Empty() {
		return ""
	}
	return sel.String()
}

// PodGated reports whether Kueue's admission scheduling gate still holds
// a Pod (it is removed when the Pod's Workload is admitted).
func PodGated(pod *corev1.Pod) bool {
	for _, g := range pod.Spec.SchedulingGates {
		if g.Name == PodAdmissionGate {
			return true
		}
	}
	return false
}

// OwnsPod reports whether a Pod matched by the kind's PodSelector belongs
// to obj: for a Deployment, its controller is a ReplicaSet named
// <deployment>-<pod-template-hash> (the name the Deployment controller
// gives the ReplicaSets it creates), so no ReplicaSet is read; for a
// StatefulSet, its controller is the StatefulSet; for the other kinds,
// every Pod the selector matches.
func (k *Kind) OwnsPod(obj *unstructured.Unstructured, pod *corev1.Pod) bool {
	switch k.Kind {
	case Deployment:
		ref := metav1.GetControllerOfNoCopy(pod)
		h := pod.Labels[PodTemplateHashLabel]
		return ref != nil && ref.Kind == "ReplicaSet" && h != "" && ref.Name == obj.GetName()+"-"+h
	case StatefulSet:
		ref := metav1.GetControllerOfNoCopy(pod)
		return ref != nil && ref.Kind == StatefulSet && ref.UID == obj.GetUID()
	}
	return true
}

func rayJobSelector(obj *unstructured.Unstructured) string {
	if c, _, _ := unstructured.NestedString(obj.Object, "status", "rayClusterName"); c != "" {
		return "ray.io/cluster=" + c
	}
	return ""
}

// All returns the registry, batch Job first and Workload last. The entries
// are copies: changing them changes nothing here.
func All() []Kind {
	out := make([]Kind, len(all))
	for i, k := range all {
		k.Names = slices.Clone(k.Names)
		k.SuspendPath = slices.Clone(k.SuspendPath)
		out[i] = k
	}
	return out
}

// Lookup finds a kind by what a user typed (case-insensitive): its Kind,
// plural or short name, optionally qualified by its group as kubectl allows
// ("jobs.batch", "pytorchjob.kubeflow.org"). An empty name means Job.
func Lookup(name string) (*Kind, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		name = "job"
	}
	word, group, qualified := strings.Cut(name, ".")
	for i := range all {
		k := &all[i]
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

// ByGroupKind finds the entry for an object's group and kind.
func ByGroupKind(gk schema.GroupKind) (*Kind, bool) {
	for i := range all {
		if all[i].Kind == gk.Kind && all[i].Resource.Group == gk.Group {
			return &all[i], true
		}
	}
	return nil, false
}

// ByKind finds the entry of a Kubernetes kind ("PyTorchJob").
func ByKind(kind string) (*Kind, bool) {
	for i := range all {
		if all[i].Kind == kind {
			return &all[i], true
		}
	}
	return nil, false
}

// Words lists the word users type first for each kind, in registry order:
// "job, jobset, rayjob, ...".
func Words() string {
	words := make([]string, 0, len(all))
	for _, k := range all {
		words = append(words, k.Names[0])
	}
	return strings.Join(words, ", ")
}

// Sentence names the kinds for people, as help and the README do:
// "Job (default), JobSet, ..., Pod, or Workload".
func Sentence() string {
	names := make([]string, 0, len(all))
	for i, k := range all {
		switch {
		case i == 0:
			names = append(names, k.Kind+" (default)")
		case i == len(all)-1:
			names = append(names, "or "+k.Kind)
		default:
			names = append(names, k.Kind)
		}
	}
	return strings.Join(names, ", ")
}

// labelOf is obj.GetLabels()[key] without copying the labels.
func labelOf(obj *unstructured.Unstructured, key string) string {
	md, _ := obj.Object["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	v, _ := labels[key].(string)
	return v
}

// Operator is a controller people know by name: the KubeRay operator, the
// JobSet controller (jobset-controller-manager).
type Operator struct {
	// Name is its proper name: "KubeRay", "JobSet".
	Name string
	// Noun is what it is called: Controller or OperatorNoun.
	Noun Noun
	// Runs is the Deployment it runs as, when people know it by that
	// ("jobset-controller-manager"); empty otherwise.
	Runs string
}

// Noun is what a project calls its controller.
type Noun string

// The nouns of Operator.Noun.
const (
	// Controller: "the JobSet controller".
	Controller Noun = "controller"
	// OperatorNoun: "the KubeRay operator".
	OperatorNoun Noun = "operator"
)

// IsZero reports whether o names no operator.
func (o Operator) IsZero() bool { return o.Name == "" }

// String is o in English: "the JobSet controller (jobset-controller-manager)".
func (o Operator) String() string {
	if o.IsZero() {
		return ""
	}
	s := "the " + o.Name + " " + string(o.Noun)
	if o.Runs != "" {
		s += " (" + o.Runs + ")"
	}
	return s
}
