package diagnose

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/i18n"
)

// Report is the answer to "why is my job not running?". Its JSON form is a
// contract that others script against; fields are only ever added.
type Report struct {
	Verdict  Verdict    `json:"verdict"`
	Target   TargetInfo `json:"target"`
	Queue    QueueInfo  `json:"queue"`
	Quota    []QuotaRow `json:"quota"`
	Findings []Finding  `json:"findings"`
	Remedies []Remedy   `json:"remedies"`
	Gaps     []Gap      `json:"gaps"`
	Evidence []Evidence `json:"evidence"`
	// Estimate is when a Workload waiting for admission is expected to be
	// admitted, or why there is no estimate; nil for a job that is not
	// waiting for admission, and when no forecast was asked for (the join,
	// package explain, sets it: Analyze alone never does).
	Estimate *Estimate `json:"estimate,omitempty"`
	// ClusterScopedByBot is true when quota figures were read with the
	// bot's identity on the caller's behalf (clusterScopedReads: bot).
	ClusterScopedByBot bool `json:"clusterScopedByBot,omitempty"`
	// MultiKueue says where MultiKueue sent the Workload (see
	// multikueue.go); nil without a MultiKueue admission check.
	MultiKueue *MultiKueueInfo `json:"multiKueue,omitempty"`
	// Workers are the job's own diagnoses on the worker clusters it was
	// sent to, read there as the caller (package explain sets them when it
	// can read those clusters: Analyze alone never does).
	Workers []WorkerReport `json:"workers,omitempty"`
	// Cluster names the configured cluster the job was read in when the
	// bot reads several (package explain sets it); empty with one cluster.
	Cluster string `json:"cluster,omitempty"`
	// Clusters are, when the job was looked for in several clusters, each
	// cluster looked in and what happened there; empty otherwise.
	Clusters []ClusterLook `json:"clusters,omitempty"`
}

// TargetInfo identifies the job and its Workload.
type TargetInfo struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Workload  string `json:"workload"`
}

// QueueInfo names the queues and the Workload's 0-based positions in them
// (nil when unknown).
type QueueInfo struct {
	LocalQueue   string `json:"localQueue"`
	ClusterQueue string `json:"clusterQueue"`
	// Cohort is the ClusterQueue's cohort; empty when it has none (then
	// it cannot borrow).
	Cohort                 string `json:"cohort"`
	PositionInLocalQueue   *int32 `json:"positionInLocalQueue"`
	PositionInClusterQueue *int32 `json:"positionInClusterQueue"`
}

// QuotaRow compares one pod set's request for one resource with one flavor's
// quota in the ClusterQueue. Quantities are totals for the pod set.
type QuotaRow struct {
	PodSet   string `json:"podSet"`
	Flavor   string `json:"flavor"`
	Resource string `json:"resource"`
	// Requested is the pod set's total request (per-pod x count).
	Requested resource.Quantity `json:"requested"`
	// Nominal is the flavor's nominal quota in the ClusterQueue.
	Nominal resource.Quantity `json:"nominal"`
	// BorrowingLimit is nil when unlimited (or when there is no cohort).
	BorrowingLimit *resource.Quantity `json:"borrowingLimit"`
	// LendingLimit is nil when everything unused may be lent.
	LendingLimit *resource.Quantity `json:"lendingLimit"`
	// Reserved is what the ClusterQueue's Workloads hold now
	// (status.flavorsReservation), excluding this Workload.
	Reserved resource.Quantity `json:"reserved"`
	// Available is what this Workload could take now, borrowing included.
	Available resource.Quantity `json:"available"`
	// MaxCapacity is the most the ClusterQueue could ever hold of it.
	MaxCapacity resource.Quantity `json:"maxCapacity"`
	// FitsNow is Requested <= Available.
	FitsNow bool `json:"fitsNow"`
	// FitsEver is Requested <= MaxCapacity.
	FitsEver bool `json:"fitsEver"`
	// ShortBy is Requested - Available when it does not fit now.
	ShortBy *resource.Quantity `json:"shortBy"`
	// Eligible is false when the flavor cannot take the pod set at all
	// (taints, node labels); Ineligible says why.
	Eligible   bool   `json:"eligible"`
	Ineligible string `json:"ineligible,omitempty"`
	// IneligibleMsg is Ineligible as a catalog message, for answers in
	// other languages.
	IneligibleMsg i18n.Message `json:"-"`
	// Partial is true when cohort figures could not all be read, so
	// Available and MaxCapacity are lower bounds.
	Partial bool `json:"partial,omitempty"`
}

// Severity ranks a Finding.
type Severity string

// Severities.
const (
	SeverityInfo    Severity = "Info"
	SeverityWarning Severity = "Warning"
	SeverityBlocker Severity = "Blocker"
)

// Finding is one fact the analyzers established.
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Msg is Message as a catalog message (MessageIn); Message is its
	// English.
	Msg i18n.Message `json:"-"`
}

// Who says who can carry out a remedy.
type Who string

// Who can act.
const (
	WhoYou      Who = "you"
	WhoPlatform Who = "platform team"
)

// Remedy is one concrete thing to do.
type Remedy struct {
	Code    string `json:"code"`
	Summary string `json:"summary"`
	Who     Who    `json:"who"`
	// Command is a copy-pasteable command, when one exists.
	Command string `json:"command,omitempty"`
	// SummaryMsg is Summary as a catalog message (SummaryIn); Summary is
	// its English.
	SummaryMsg i18n.Message `json:"-"`
}

// Evidence is one observation shown to back the verdict: a condition, an
// event (folded), a message.
type Evidence struct {
	// Source is the object the evidence comes from, e.g. "Workload/job-x-1a2b3".
	Source string `json:"source"`
	// Kind is "Condition", "Event" or "Status".
	Kind string `json:"kind"`
	// Reason is the condition or event reason.
	Reason string `json:"reason,omitempty"`
	// Message is the text as Kueue or Kubernetes wrote it.
	Message string `json:"message"`
	// Count and Span describe folded events: "x5 over 10m".
	Count int32  `json:"count,omitempty"`
	Span  string `json:"span,omitempty"`
	// Age is how long ago it was last seen, relative to Snapshot.Now.
	Age string `json:"age,omitempty"`
}
