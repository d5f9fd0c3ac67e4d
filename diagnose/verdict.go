package diagnose

import "github.com/kueuebot/kueuebot/i18n"

// Stage is the phase of a job's life the verdict is about. The rule that
// drives every diagnosis: not admitted -> look at Kueue (StageAdmission);
// admitted but Pods pending -> look at the scheduler (StageScheduling).
type Stage string

const (
	// StageResolve: the job or its Workload could not be found or is not
	// managed by Kueue.
	StageResolve Stage = "Resolve"
	// StageAdmission: Kueue has not admitted the Workload yet.
	StageAdmission Stage = "Admission"
	// StageScheduling: Kueue admitted the Workload; Pods are missing or pending.
	StageScheduling Stage = "Scheduling"
	// StageRunning: the job's Pods run.
	StageRunning Stage = "Running"
	// StageFinished: the job finished.
	StageFinished Stage = "Finished"
)

// Code is the stable, machine-readable verdict. Codes follow Kueue's own
// structured pending reasons (KEP-10852) where one exists. Codes never change
// meaning; new ones may be added.
type Code string

const (
	// CodeNotFound: no such job, or the caller may not see it. Both give the
	// same answer so that nothing leaks. Stage Resolve.
	CodeNotFound Code = "NotFound"
	// CodeNotManagedByKueue: the job has no kueue.x-k8s.io/queue-name label.
	// Cause NoQueueName. Stage Resolve.
	CodeNotManagedByKueue Code = "NotManagedByKueue"
	// CodeWorkloadMissing: the job has a queue name but Kueue created no
	// Workload (Kueue down, integration disabled, namespace not managed).
	// Stage Resolve.
	CodeWorkloadMissing Code = "WorkloadMissing"

	// CodeMisconfigured: a queue object is missing or wrong, so the Workload
	// can never be admitted as things stand. Causes LocalQueueNotFound,
	// ClusterQueueNotFound, ClusterQueueInactive, NamespaceNotSelected,
	// ResourceNotCovered, FlavorNotFound, InvalidResources.
	CodeMisconfigured Code = "Misconfigured"
	// CodeOnHold: an administrator stopped the LocalQueue or ClusterQueue.
	// Causes LocalQueueStopped, ClusterQueueStopped.
	CodeOnHold Code = "OnHold"
	// CodeDeactivated: the Workload has spec.active=false. Causes Manual,
	// RequeuingLimitExceeded, MaximumExecutionTimeExceeded,
	// AdmissionCheckRejected.
	CodeDeactivated Code = "Deactivated"
	// CodeNoMatchingFlavor: no ResourceFlavor of the ClusterQueue can take
	// the pods' placement constraints. Causes UntoleratedTaint,
	// NodeAffinityMismatch, TopologyMismatch.
	CodeNoMatchingFlavor Code = "NoMatchingFlavor"
	// CodeExceedsMaxQuota: the request can never fit: it is above nominal
	// quota plus everything the ClusterQueue may borrow, in every flavor.
	CodeExceedsMaxQuota Code = "ExceedsMaxQuota"
	// CodeWaitingForQuota: the request fits the maximum capacity but not what
	// is free now. Causes QuotaInUse, BorrowingLimited, PendingPreemption.
	CodeWaitingForQuota Code = "WaitingForQuota"
	// CodePendingEvaluation: Kueue has not (yet) evaluated the Workload.
	// Causes StrictFIFOBlocked, NotYetEvaluated.
	CodePendingEvaluation Code = "PendingEvaluation"
	// CodeWaitingForAdmissionChecks: quota is reserved; admission checks are
	// not all Ready. Causes CheckPending, CheckRetry.
	CodeWaitingForAdmissionChecks Code = "WaitingForAdmissionChecks"
	// CodeRequeuing: the Workload was evicted and waits to be queued again.
	// Causes Preempted, PodsReadyTimeout, NodeFailures, Backoff,
	// StaleJobStatus.
	CodeRequeuing Code = "Requeuing"
	// CodeAdmissionGated: the kueue.x-k8s.io/admission-gated-by annotation
	// holds the Workload back.
	CodeAdmissionGated Code = "AdmissionGated"
	// CodeWaitingForPodsReady: waitForPodsReady.blockAdmission holds every
	// admission until the admitted Workloads have ready Pods.
	CodeWaitingForPodsReady Code = "WaitingForPodsReady"

	// CodeStarting: admitted; the job controller has not created Pods yet.
	// Causes JobSuspended, PodsNotCreated.
	CodeStarting Code = "Starting"
	// CodePodsUnschedulable: admitted; kube-scheduler cannot place Pods.
	// Causes InsufficientResources, UntoleratedTaint, NodeAffinityMismatch,
	// UnboundVolume, SchedulingGated, Other.
	CodePodsUnschedulable Code = "PodsUnschedulable"
	// CodePodsNotStarting: Pods are bound to nodes but containers do not
	// start. Causes ImagePull, ContainerConfig, ContainerCreating.
	CodePodsNotStarting Code = "PodsNotStarting"

	// CodeRunning: the job runs. Causes Healthy, CrashLooping.
	CodeRunning Code = "Running"
	// CodeFinished: the job finished. Causes Succeeded, Failed.
	CodeFinished Code = "Finished"
)

// Cause refines a Code. The empty cause is valid where the table in the
// README lists none.
type Cause string

// Causes, grouped by the code they refine.
const (
	CauseNone Cause = ""

	// NotManagedByKueue
	CauseNoQueueName Cause = "NoQueueName"

	// Misconfigured
	CauseLocalQueueNotFound   Cause = "LocalQueueNotFound"
	CauseClusterQueueNotFound Cause = "ClusterQueueNotFound"
	CauseClusterQueueInactive Cause = "ClusterQueueInactive"
	CauseNamespaceNotSelected Cause = "NamespaceNotSelected"
	CauseResourceNotCovered   Cause = "ResourceNotCovered"
	CauseFlavorNotFound       Cause = "FlavorNotFound"
	CauseInvalidResources     Cause = "InvalidResources"

	// OnHold
	CauseLocalQueueStopped   Cause = "LocalQueueStopped"
	CauseClusterQueueStopped Cause = "ClusterQueueStopped"

	// Deactivated
	CauseManual                       Cause = "Manual"
	CauseRequeuingLimitExceeded       Cause = "RequeuingLimitExceeded"
	CauseMaximumExecutionTimeExceeded Cause = "MaximumExecutionTimeExceeded"
	CauseAdmissionCheckRejected       Cause = "AdmissionCheckRejected"

	// NoMatchingFlavor (UntoleratedTaint and NodeAffinityMismatch are shared
	// with PodsUnschedulable)
	CauseUntoleratedTaint     Cause = "UntoleratedTaint"
	CauseNodeAffinityMismatch Cause = "NodeAffinityMismatch"
	CauseTopologyMismatch     Cause = "TopologyMismatch"

	// WaitingForQuota
	CauseQuotaInUse        Cause = "QuotaInUse"
	CauseBorrowingLimited  Cause = "BorrowingLimited"
	CausePendingPreemption Cause = "PendingPreemption"
	CauseStrictFIFOBlocked Cause = "StrictFIFOBlocked"
	CauseNotYetEvaluated   Cause = "NotYetEvaluated"
	CauseCheckPending      Cause = "CheckPending"
	CauseCheckRetry        Cause = "CheckRetry"
	CausePreempted         Cause = "Preempted"
	CausePodsReadyTimeout  Cause = "PodsReadyTimeout"
	CauseNodeFailures      Cause = "NodeFailures"
	CauseBackoff           Cause = "Backoff"
	// CauseStaleJobStatus: the eviction cannot finish: the job's status,
	// copied from a MultiKueue worker whose copy is gone, still counts
	// active pods, so Kueue keeps waiting for it to stop.
	CauseStaleJobStatus Cause = "StaleJobStatus"
	CauseJobSuspended   Cause = "JobSuspended"
	CausePodsNotCreated Cause = "PodsNotCreated"
	// CauseOnWorkerCluster: MultiKueue dispatched the admitted Workload to
	// a worker cluster (status.clusterName); its pods are there and not
	// running yet. The worker's own diagnosis says why.
	CauseOnWorkerCluster   Cause = "OnWorkerCluster"
	CauseInsufficientRes   Cause = "InsufficientResources"
	CauseUnboundVolume     Cause = "UnboundVolume"
	CauseSchedulingGated   Cause = "SchedulingGated"
	CauseOther             Cause = "Other"
	CauseImagePull         Cause = "ImagePull"
	CauseContainerConfig   Cause = "ContainerConfig"
	CauseContainerCreating Cause = "ContainerCreating"
	CauseHealthy           Cause = "Healthy"
	CauseCrashLooping      Cause = "CrashLooping"
	CauseSucceeded         Cause = "Succeeded"
	CauseFailed            Cause = "Failed"
)

// Verdict is the one answer every Report carries.
type Verdict struct {
	Stage Stage `json:"stage"`
	Code  Code  `json:"code"`
	Cause Cause `json:"cause"`
	// Headline is one sentence a stressed user can read first.
	Headline string `json:"headline"`
	// Detail explains the headline with the numbers and names behind it.
	Detail string `json:"detail"`
	// HeadlineMsg and DetailMsg are Headline and Detail as catalog
	// messages, for rendering in the asker's language (HeadlineIn,
	// DetailIn); Headline and Detail are their English.
	HeadlineMsg i18n.Message `json:"-"`
	DetailMsg   i18n.Message `json:"-"`
}

// stageOf maps each code to its stage; every Code has exactly one stage.
var stageOf = map[Code]Stage{
	CodeNotFound:                  StageResolve,
	CodeNotManagedByKueue:         StageResolve,
	CodeWorkloadMissing:           StageResolve,
	CodeMisconfigured:             StageAdmission,
	CodeOnHold:                    StageAdmission,
	CodeDeactivated:               StageAdmission,
	CodeNoMatchingFlavor:          StageAdmission,
	CodeExceedsMaxQuota:           StageAdmission,
	CodeWaitingForQuota:           StageAdmission,
	CodePendingEvaluation:         StageAdmission,
	CodeWaitingForAdmissionChecks: StageAdmission,
	CodeRequeuing:                 StageAdmission,
	CodeAdmissionGated:            StageAdmission,
	CodeWaitingForPodsReady:       StageAdmission,
	CodeStarting:                  StageScheduling,
	CodePodsUnschedulable:         StageScheduling,
	CodePodsNotStarting:           StageScheduling,
	CodeRunning:                   StageRunning,
	CodeFinished:                  StageFinished,
}

// StageOf returns the stage a code belongs to.
func StageOf(c Code) Stage { return stageOf[c] }

// AllCodes lists every verdict code in contract order.
func AllCodes() []Code {
	return []Code{
		CodeNotFound, CodeNotManagedByKueue, CodeWorkloadMissing,
		CodeMisconfigured, CodeOnHold, CodeDeactivated, CodeNoMatchingFlavor,
		CodeExceedsMaxQuota, CodeWaitingForQuota, CodePendingEvaluation,
		CodeWaitingForAdmissionChecks, CodeRequeuing, CodeAdmissionGated,
		CodeWaitingForPodsReady, CodeStarting, CodePodsUnschedulable,
		CodePodsNotStarting, CodeRunning, CodeFinished,
	}
}

// causesOf is the contract table: the causes each code may carry.
var causesOf = map[Code][]Cause{
	CodeNotFound:                  {CauseNone},
	CodeNotManagedByKueue:         {CauseNoQueueName},
	CodeWorkloadMissing:           {CauseNone},
	CodeMisconfigured:             {CauseLocalQueueNotFound, CauseClusterQueueNotFound, CauseClusterQueueInactive, CauseNamespaceNotSelected, CauseResourceNotCovered, CauseFlavorNotFound, CauseInvalidResources},
	CodeOnHold:                    {CauseLocalQueueStopped, CauseClusterQueueStopped},
	CodeDeactivated:               {CauseManual, CauseRequeuingLimitExceeded, CauseMaximumExecutionTimeExceeded, CauseAdmissionCheckRejected},
	CodeNoMatchingFlavor:          {CauseUntoleratedTaint, CauseNodeAffinityMismatch, CauseTopologyMismatch},
	CodeExceedsMaxQuota:           {CauseNone},
	CodeWaitingForQuota:           {CauseQuotaInUse, CauseBorrowingLimited, CausePendingPreemption},
	CodePendingEvaluation:         {CauseStrictFIFOBlocked, CauseNotYetEvaluated},
	CodeWaitingForAdmissionChecks: {CauseCheckPending, CauseCheckRetry},
	CodeRequeuing:                 {CausePreempted, CausePodsReadyTimeout, CauseNodeFailures, CauseBackoff, CauseStaleJobStatus},
	CodeAdmissionGated:            {CauseNone},
	CodeWaitingForPodsReady:       {CauseNone},
	CodeStarting:                  {CauseJobSuspended, CausePodsNotCreated, CauseOnWorkerCluster},
	CodePodsUnschedulable:         {CauseInsufficientRes, CauseUntoleratedTaint, CauseNodeAffinityMismatch, CauseUnboundVolume, CauseSchedulingGated, CauseOther},
	CodePodsNotStarting:           {CauseImagePull, CauseContainerConfig, CauseContainerCreating},
	CodeRunning:                   {CauseHealthy, CauseCrashLooping},
	CodeFinished:                  {CauseSucceeded, CauseFailed},
}

// CausesOf returns the causes a code may carry, in contract order.
func CausesOf(c Code) []Cause { return append([]Cause(nil), causesOf[c]...) }
