package diagnose

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Target names what the user asked about. Kind is a Kubernetes kind such as
// "Job", "JobSet", "RayJob" or "Workload"; empty means "Job".
type Target struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Snapshot is every object the diagnosis looks at, as read by (or on behalf
// of) the caller at one moment. A nil pointer means "not found or not read";
// Gaps says which of the two and why.
type Snapshot struct {
	// Now is the moment the snapshot was taken; the core never reads a clock.
	Now time.Time
	// Target is what the user asked about.
	Target Target

	// Job is the top-level job object of any supported kind (batch Job,
	// JobSet, RayJob, ..., or a plain Pod). Nil when the target is a
	// Workload named directly or the job was not found.
	Job *unstructured.Unstructured
	// Workload is Kueue's Workload for the job.
	Workload *kueue.Workload
	// LocalQueue is the queue named by the Workload's spec.queueName (or the
	// job's queue-name label when there is no Workload).
	LocalQueue *kueue.LocalQueue
	// ClusterQueue is the one the LocalQueue points to, or the one that
	// holds the Workload's admission.
	ClusterQueue *kueue.ClusterQueue
	// CohortClusterQueues are the other ClusterQueues in the same cohort
	// tree, needed to compute what may be borrowed. May be empty when the
	// caller cannot list them (then Gaps says so).
	CohortClusterQueues []kueue.ClusterQueue
	// Cohorts are the Cohort objects of the ClusterQueue's cohort tree.
	Cohorts []kueue.Cohort
	// ResourceFlavors are the flavors the ClusterQueue references (those
	// that exist).
	ResourceFlavors []kueue.ResourceFlavor
	// AdmissionChecks are the AdmissionCheck objects the ClusterQueue uses.
	AdmissionChecks []kueue.AdmissionCheck
	// Position is the Workload's place in its queues from the visibility
	// API; nil when unknown.
	Position *Position
	// QueueAhead lists pending Workloads ahead of this one in its
	// LocalQueue (from the visibility API), head first. May be truncated.
	QueueAhead []QueuedWorkload
	// NamespaceLocalQueues are the LocalQueues in the job's namespace that
	// the caller may list: used to suggest a queue-name fix and a queue
	// with room. May be empty.
	NamespaceLocalQueues []kueue.LocalQueue
	// AlternativeQueues are the namespace's other LocalQueues with their
	// ClusterQueues, read (when the caller may) for a Workload that does not
	// fit, to suggest a queue with room.
	AlternativeQueues []AlternativeQueue
	// PriorityClass is the WorkloadPriorityClass named by the job's
	// kueue.x-k8s.io/priority-class label, read only for a job without a
	// Workload (a missing one keeps Kueue from creating it).
	PriorityClass *kueue.WorkloadPriorityClass
	// Preemptor is the Workload that preempted this one (PreemptorOf),
	// when the caller can read it.
	Preemptor *kueue.Workload
	// Namespace is the job's namespace object, when readable (its labels
	// decide the ClusterQueue's namespaceSelector).
	Namespace *corev1.Namespace
	// Pods are the job's Pods (read once admitted), or the Pods of a plain
	// Pod's group when it has no Workload.
	Pods []corev1.Pod
	// Events are the events about the job, its Workload and its Pods (once
	// admitted), or about the job when it has no Workload.
	Events []corev1.Event
	// PerPod is set for a target each of whose Pods is a Workload of its
	// own (a Deployment, kinds.Kind.WorkloadPerPod): how many Pods it has,
	// how many Kueue admitted, and which Pod's Workload is Workload. Pods
	// then holds that one Pod.
	PerPod *PerPodCount

	// Nodes are the Nodes the job's pods may run on, read (when the
	// caller may) only when they name what blocks: a pod kube-scheduler
	// refuses for a taint or a node selector, or a flavor with a
	// topologyName whose pods Kueue cannot place. Only their names,
	// labels, taints, unschedulable flag, Ready condition and allocatable
	// are kept. Nil when not read.
	Nodes []corev1.Node
	// PersistentVolumeClaims are the claims the job's pods name, read
	// when a pod is not scheduled. Nil when not read.
	PersistentVolumeClaims []corev1.PersistentVolumeClaim
	// ResourceQuotas and LimitRanges are the namespace's, read when the
	// job controller reports that the API server refused its pods, or,
	// for LimitRanges, when a container of a pending pod set asks for
	// nothing (a LimitRange default then makes up its request). Nil when
	// not read.
	ResourceQuotas []corev1.ResourceQuota
	LimitRanges    []corev1.LimitRange
	// RuntimeClasses are the ones the pod sets name, read when a pod set
	// names one (its overhead.podFixed is part of what Kueue counts).
	RuntimeClasses []nodev1.RuntimeClass
	// Topologies are the ones the ResourceFlavors name (topologyName),
	// read when the Workload is pending.
	Topologies []kueue.Topology
	// MultiKueueConfigs and MultiKueueClusters are those of the
	// ClusterQueue's MultiKueue AdmissionChecks (and the clusters their
	// configs list), read when the checks are read.
	MultiKueueConfigs  []kueue.MultiKueueConfig
	MultiKueueClusters []kueue.MultiKueueCluster

	// KueueConfig is what Kueue's own Configuration says about which jobs
	// it manages and how long it waits for their Pods, when the bot may
	// read it (kube.kueueConfig); nil when not read. Read only for a job
	// without a Workload, or whose Workload Kueue evicted for its
	// waitForPodsReady timeout.
	KueueConfig *KueueConfig

	// ClusterScopedByBot is true when the ClusterQueue, flavors and cohort
	// were read with the bot's own identity on the caller's behalf.
	ClusterScopedByBot bool
	// Gaps are the reads that failed (forbidden, not found, timed out).
	Gaps []Gap

	// Planned is set when Job is a manifest that is not submitted yet
	// (kueuebot check) and Workload is the one Kueue would create for it:
	// remedies then edit the manifest before it is created instead of
	// patching a job in the cluster.
	Planned *Planned `json:"-"`

	// Shared, when set, lets Analyze reuse what it derived from the same
	// objects for other Snapshots (see Shared); nil derives everything.
	Shared *Shared `json:"-"`
}

// Planned describes a manifest checked before it is submitted.
type Planned struct {
	// File is the manifest's file name as commands name it ("job.yaml"
	// when it came from stdin or a message).
	File string
}

// KueueConfig is the part of Kueue's Configuration that decides whether
// Kueue manages a job at all, with Kueue's defaults applied.
type KueueConfig struct {
	// ManagedJobsNamespaceSelector selects the namespaces whose jobs Kueue
	// manages.
	ManagedJobsNamespaceSelector *metav1.LabelSelector `json:"managedJobsNamespaceSelector,omitempty"`
	// Frameworks are the enabled integrations, e.g. "batch/job".
	Frameworks []string `json:"frameworks"`
	// WaitForPodsReady is Kueue's waitForPodsReady with its defaults; nil
	// when it is not configured.
	WaitForPodsReady *WaitForPodsReady `json:"waitForPodsReady,omitempty"`
}

// PerPodCount counts the Pods of a target whose Pods are each a Workload
// (a Deployment), by what Kueue did with them. A Pod is admitted when
// Kueue removed its admission scheduling gate, which it does when the
// Pod's Workload is admitted; only Pods that are not terminating or
// finished are counted.
type PerPodCount struct {
	// Replicas is the target's spec.replicas (1 when unset).
	Replicas int64
	// Pods is how many active Pods it has; Admitted how many of them
	// Kueue let through.
	Pods, Admitted int
	// Pod is the Pod whose Workload the diagnosis is about: the oldest
	// one Kueue still holds, else the first that is not running, else
	// the first (by creation, then name); "" when it has no Pods.
	Pod string
	// Waiting names the other Pods Kueue still holds, oldest first (at
	// most a few).
	Waiting []string
}

// WaitForPodsReady is how long Kueue gives an admitted Workload's Pods to
// become ready before it evicts it, and how often it requeues it.
type WaitForPodsReady struct {
	// Timeout counts from admission (waitForPodsReady.timeout).
	Timeout time.Duration `json:"timeout"`
	// RecoveryTimeout counts from a pod failure after the start; nil when
	// not set (then Kueue does not time out a recovery).
	RecoveryTimeout *time.Duration `json:"recoveryTimeout,omitempty"`
	// BackoffLimitCount is requeuingStrategy.backoffLimitCount: after that
	// many requeues the next timeout deactivates the Workload; nil retries
	// forever.
	BackoffLimitCount *int32 `json:"backoffLimitCount,omitempty"`
}

// AlternativeQueue is another LocalQueue of the job's namespace.
type AlternativeQueue struct {
	LocalQueue   kueue.LocalQueue
	ClusterQueue kueue.ClusterQueue
	// ResourceFlavors are its ClusterQueue's flavors; nil when not read
	// (flavor eligibility is then unknown and assumed).
	ResourceFlavors []kueue.ResourceFlavor
}

// Position is a Workload's 0-based place in its queues, as Kueue's
// visibility API reports it.
type Position struct {
	InLocalQueue   int32 `json:"inLocalQueue"`
	InClusterQueue int32 `json:"inClusterQueue"`
	// Tied is how many other pending Workloads Kueue may order on either
	// side of this one because what the objects show does not decide it
	// (same priority, created in the same second). The position is then
	// not definite: the fields above are the earliest it may be. Always 0
	// from the visibility API, which reports Kueue's own order.
	Tied int32 `json:"tied,omitempty"`
}

// QueuedWorkload is one pending Workload ahead in the queue.
type QueuedWorkload struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	LocalQueue string `json:"localQueue"`
	Priority   int32  `json:"priority"`
	// PositionInClusterQueue is 0-based.
	PositionInClusterQueue int32 `json:"positionInClusterQueue"`
}

// Gap is a read that did not succeed. The report explains it instead of
// failing.
type Gap struct {
	// Kind of the object that could not be read, e.g. "ClusterQueue".
	Kind string `json:"kind"`
	// Name of the object, when known.
	Name string `json:"name"`
	// Reason is one of the GapReason values.
	Reason GapReason `json:"reason"`
	// Message is the detail (the API server's message, sanitized).
	Message string `json:"message,omitempty"`
}

// HasGap reports whether a read of kind failed for reason.
func (s *Snapshot) HasGap(kind string, reason GapReason) bool {
	for _, g := range s.Gaps {
		if g.Kind == kind && g.Reason == reason {
			return true
		}
	}
	return false
}

// GapReason classifies a failed read.
type GapReason string

const (
	// GapForbidden: RBAC refused the read.
	GapForbidden GapReason = "Forbidden"
	// GapNotFound: the object does not exist (or is invisible to the caller).
	GapNotFound GapReason = "NotFound"
	// GapUnavailable: the API (e.g. Kueue's visibility API) is not served
	// or did not answer.
	GapUnavailable GapReason = "Unavailable"
	// GapTimeout: the read timed out.
	GapTimeout GapReason = "Timeout"
	// GapInvalid: the object was read but could not be understood.
	GapInvalid GapReason = "Invalid"
)
