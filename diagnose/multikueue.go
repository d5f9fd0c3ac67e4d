package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// MultiKueue, seen from the manager cluster: a Workload whose ClusterQueue
// has a MultiKueue admission check is copied to worker clusters; the first
// worker that admits it runs it (Workload status.clusterName), the others'
// copies are deleted. Until then status.nominatedClusterNames lists the
// workers that hold a copy. The manager's job never gets pods: MultiKueue
// keeps it from running locally (spec.managedBy, or suspended) and copies
// the worker's job status back.

// MultiKueueManagedBy is the spec.managedBy value of a batch Job that
// MultiKueue dispatches.
const MultiKueueManagedBy = "kueue.x-k8s.io/multikueue"

// MultiKueueInfo says where MultiKueue sent a Workload: the check, its
// state and message, the worker that holds it or the workers that hold a
// copy, and the state of each MultiKueueCluster of the check's
// MultiKueueConfig (when the caller may read them).
type MultiKueueInfo struct {
	// Check is the MultiKueue AdmissionCheck's name; State and Message are
	// the Workload's admission check state for it.
	Check   string `json:"check"`
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	// Config is the check's MultiKueueConfig, when the AdmissionCheck was read.
	Config string `json:"config,omitempty"`
	// Cluster is the worker cluster (MultiKueueCluster name) that admitted
	// the Workload and runs it: the Workload's status.clusterName.
	Cluster string `json:"cluster,omitempty"`
	// Nominated are the worker clusters that hold a copy while none has
	// admitted it: status.nominatedClusterNames.
	Nominated []string `json:"nominated,omitempty"`
	// Workers are the MultiKueueClusters of Config, in its order, with
	// their Active condition; empty when they could not be read.
	Workers []WorkerCluster `json:"workers,omitempty"`
}

// WorkerCluster is one MultiKueueCluster and its Active condition
// (status "" when the object was not found or has no condition yet).
type WorkerCluster struct {
	Name    string `json:"name"`
	Active  string `json:"active"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// WorkerReport is the diagnosis of the job on one worker cluster, read
// there as the asking user (package explain follows a MultiKueue job into
// the workers it can read). Exactly one of Report and Error is set.
type WorkerReport struct {
	// Cluster is the MultiKueueCluster name of the worker.
	Cluster string `json:"cluster"`
	// Report is the worker's own diagnosis of the job (its Workload,
	// LocalQueue, ClusterQueue, pods).
	Report *Report `json:"report,omitempty"`
	// Error says why the worker's diagnosis is missing: the bot cannot
	// read that cluster (not configured), or the read failed.
	Error string `json:"error,omitempty"`
	// ErrorMsg is Error as a catalog message (ErrorIn renders it in the
	// asker's language); Error is its English.
	ErrorMsg i18n.Message `json:"-"`
}

// FollowClusters are the worker clusters whose own diagnosis completes the
// answer: the one that runs the Workload, else those that hold a copy.
func (m *MultiKueueInfo) FollowClusters() []string {
	if m == nil {
		return nil
	}
	if m.Cluster != "" {
		return []string{m.Cluster}
	}
	return slices.Clone(m.Nominated)
}

// multiKueueCheck returns the Workload's MultiKueue admission check state:
// the check whose AdmissionCheck object names MultiKueue's controller, or,
// when the objects were not read, the only check of a Workload that
// MultiKueue placed on a worker (status.clusterName or
// nominatedClusterNames are written by MultiKueue only).
func (a *analysis) multiKueueCheck() *kueue.AdmissionCheckState {
	if a.wl == nil {
		return nil
	}
	for i := range a.wl.Status.AdmissionChecks {
		acs := &a.wl.Status.AdmissionChecks[i]
		for _, ac := range a.s.AdmissionChecks {
			if ac.Name == string(acs.Name) && ac.Spec.ControllerName == multiKueueController {
				return acs
			}
		}
	}
	if (a.wl.Status.ClusterName != nil || len(a.wl.Status.NominatedClusterNames) > 0) && len(a.wl.Status.AdmissionChecks) == 1 {
		return &a.wl.Status.AdmissionChecks[0]
	}
	// A rejection only MultiKueue writes (pkg/controller/admissionchecks/
	// multikueue/workload.go), for callers who may not read AdmissionChecks.
	for i := range a.wl.Status.AdmissionChecks {
		acs := &a.wl.Status.AdmissionChecks[i]
		if acs.State == kueue.CheckStateRejected && (strings.HasPrefix(acs.Message, "The owner is not managed by Kueue: Expecting spec.managedBy to be \""+MultiKueueManagedBy) || strings.HasPrefix(acs.Message, "No multikueue adapter found")) {
			return acs
		}
	}
	return nil
}

// MultiKueueDispatched reports whether MultiKueue placed the Workload on
// worker clusters (status.clusterName or nominatedClusterNames set): the
// fetcher then reads the admission checks and MultiKueue objects even for
// an admitted Workload.
func MultiKueueDispatched(wl *kueue.Workload) bool {
	return wl != nil && (wl.Status.ClusterName != nil || len(wl.Status.NominatedClusterNames) > 0)
}

// multiKueue fills Report.MultiKueue for a Workload with a MultiKueue
// check and adds a finding that says where it went. It runs after the
// verdict; it never changes it.
func (a *analysis) multiKueue() {
	acs := a.multiKueueCheck()
	if acs == nil {
		return
	}
	info := &MultiKueueInfo{Check: string(acs.Name), State: string(acs.State), Message: acs.Message}
	if c := a.wl.Status.ClusterName; c != nil {
		info.Cluster = *c
	}
	info.Nominated = slices.Clone(a.wl.Status.NominatedClusterNames)
	var clusters []string
	for _, ac := range a.s.AdmissionChecks {
		if ac.Name == info.Check && ac.Spec.Parameters != nil && ac.Spec.Parameters.Kind == "MultiKueueConfig" {
			info.Config = ac.Spec.Parameters.Name
		}
	}
	for _, mc := range a.s.MultiKueueConfigs {
		if mc.Name == info.Config {
			clusters = mc.Spec.Clusters
		}
	}
	if a.s.MultiKueueClusters != nil {
		for _, n := range clusters {
			info.Workers = append(info.Workers, a.workerCluster(n))
		}
	}
	a.r.MultiKueue = info
	switch {
	case info.Cluster != "":
		a.findingM("MultiKueueWorker", SeverityInfo, msg("diagnose.mk.worker.finding",
			acArg(info.Check), a.wlArg(a.wl.Name), i18n.Name(info.Cluster), a.workerState(info, info.Cluster)))
	case len(info.Nominated) > 0:
		a.findingM("MultiKueueNominated", SeverityInfo, msg("diagnose.mk.nominated.finding",
			acArg(info.Check), a.wlArg(a.wl.Name), i18n.Num(len(info.Nominated)), nameList(info.Nominated...), a.otherWorkers(info)))
	case acs.State == kueue.CheckStatePending && a.qr != nil && a.qr.Status == metav1.ConditionTrue:
		a.findingM("MultiKueueNotDispatched", SeverityWarning, msg("diagnose.mk.notDispatched.finding", acArg(info.Check), a.wlArg(a.wl.Name), a.otherWorkers(info)))
	}
}

// workerCluster reads one MultiKueueCluster's Active condition from the
// Snapshot.
func (a *analysis) workerCluster(name string) WorkerCluster {
	w := WorkerCluster{Name: name}
	for i := range a.s.MultiKueueClusters {
		mc := &a.s.MultiKueueClusters[i]
		if mc.Name != name {
			continue
		}
		if c := apimeta.FindStatusCondition(mc.Status.Conditions, kueue.MultiKueueClusterActive); c != nil {
			w.Active, w.Reason, w.Message = string(c.Status), c.Reason, c.Message
		}
	}
	return w
}

// workerState is ", and MultiKueueCluster w1 is Active=True" when the
// cluster was read.
func (a *analysis) workerState(info *MultiKueueInfo, name string) i18n.Message {
	for _, w := range info.Workers {
		if w.Name == name && w.Active != "" {
			return msg("diagnose.mk.workerState", mkcArg(name), i18n.Verbatim(w.Active))
		}
	}
	return i18n.Message{}
}

// acArg and mkcArg name an AdmissionCheck and a MultiKueueCluster.
func acArg(name string) i18n.Object  { return i18n.Obj("AdmissionCheck", "", name) }
func mkcArg(name string) i18n.Object { return i18n.Obj("MultiKueueCluster", "", name) }

// otherWorkers names the worker clusters of the config that hold no copy
// and why (their Active condition), e.g. "; MultiKueueCluster w2 is
// Active=False (ClientConnectionFailed: ...)".
func (a *analysis) otherWorkers(info *MultiKueueInfo) i18n.Message {
	var parts []i18n.Arg
	for _, w := range info.Workers {
		if slices.Contains(info.Nominated, w.Name) || w.Active == string(metav1.ConditionTrue) {
			continue
		}
		switch w.Active {
		case "":
			parts = append(parts, msg("diagnose.mk.other.missing", mkcArg(w.Name)))
		default:
			text := w.Message
			if len(text) > maxWorkerMessage {
				text = text[:maxWorkerMessage] + "..."
			}
			parts = append(parts, msg("diagnose.mk.other.state", mkcArg(w.Name), i18n.Verbatim(w.Active), i18n.Name(w.Reason), i18n.Verbatim(text)))
		}
	}
	if len(parts) == 0 {
		return i18n.Message{}
	}
	return msg("diagnose.mk.others", i18n.List{Items: parts, Semicolons: true})
}

// maxWorkerMessage bounds a MultiKueueCluster's condition message in a
// sentence (connection errors can be long).
const maxWorkerMessage = 160

// dispatched handles a Workload admitted on the manager that MultiKueue
// placed on a worker cluster: the manager's job has no pods of its own, so
// the Scheduling analyzers (which would blame the Job controller) do not
// apply. The job's status is the worker's, copied back by MultiKueue.
func (a *analysis) dispatched() bool {
	if a.wl == nil || !a.admittedNow() || a.wl.Status.ClusterName == nil {
		return false
	}
	if a.evicting() {
		return true
	}
	worker := *a.wl.Status.ClusterName
	active, _ := a.job.statusInt("active")
	ready, _ := a.job.statusInt("ready")
	look := fmt.Sprintf("kubectl --context %s get pods -l batch.kubernetes.io/job-name=%s %s", worker, a.r.Target.Name, a.nsFlag())
	if a.r.Target.Kind != "" && a.r.Target.Kind != "Job" {
		look = fmt.Sprintf("kubectl --context %s describe %s %s", worker, a.jobRef(), a.nsFlag())
	}
	w := i18n.Name(worker)
	if active > 0 && ready >= active {
		a.remedyM("LookOnWorker", WhoYou, look, msg("diagnose.mk.running.remedy", w))
		return a.setM(CodeRunning, CauseHealthy,
			msg("diagnose.mk.running.headline", a.jobArg(), w, i18n.Num(ready)),
			msg("diagnose.mk.running.detail", a.wlArg(a.wl.Name), w, mkcArg(worker), i18n.Num(active), i18n.Num(ready)))
	}
	a.remedyM("LookOnWorker", WhoYou, look, msg("diagnose.mk.starting.remedy", w))
	detail := msg("diagnose.mk.starting.detailNone", a.wlArg(a.wl.Name), w, mkcArg(worker))
	if active > 0 {
		detail = msg("diagnose.mk.starting.detailActive", a.wlArg(a.wl.Name), w, mkcArg(worker), i18n.Num(active), i18n.Num(ready))
	}
	return a.setM(CodeStarting, CauseOnWorkerCluster, msg("diagnose.mk.starting.headline", a.jobArg(), w), detail)
}

// multiKueueWaiting handles a Workload that holds quota on the manager and
// waits for its MultiKueue check: the headline says which worker clusters
// hold a copy and which are not usable, since the check's own message is
// empty while the copies wait.
func (a *analysis) multiKueueWaiting() bool {
	if a.wl == nil || a.qr == nil || a.qr.Status != metav1.ConditionTrue || a.admittedNow() {
		return false
	}
	acs := a.multiKueueCheck()
	if acs == nil || acs.State != kueue.CheckStatePending {
		return false
	}
	for _, other := range a.wl.Status.AdmissionChecks {
		if other.Name != acs.Name && other.State != kueue.CheckStateReady {
			return false // another check waits too: the general answer names every one
		}
	}
	if a.evicting() {
		return true
	}
	nominated := a.wl.Status.NominatedClusterNames
	cq := a.r.Queue.ClusterQueue
	if len(nominated) == 0 {
		return false
	}
	head := msg("diagnose.mk.waiting.headline", a.jobArg(), cqArg(cq), acArg(string(acs.Name)), nameList(nominated...))
	detail := msg("diagnose.mk.waiting.detail", a.wlArg(a.wl.Name), i18n.Num(len(nominated)), nameList(nominated...))
	if acs.Message != "" {
		detail = i18n.Join(detail, msg("diagnose.mk.checkSays", i18n.Verbatim(acs.Message)))
	}
	a.remedyM("LookOnWorker", WhoYou, fmt.Sprintf("kubectl --context %s get workloads %s", nominated[0], a.nsFlag()),
		msg("diagnose.mk.waiting.remedy", nameList(nominated...)))
	return a.setM(CodeWaitingForAdmissionChecks, CauseCheckPending, head, detail)
}

// multiKueueRejected handles a MultiKueue check in state Rejected: Kueue
// v0.17 keeps such a Workload pending without quota and never dispatches
// it (it does not retry), e.g. a batch Job created before its queue used
// MultiKueue has no spec.managedBy, which is set only at creation.
func (a *analysis) multiKueueRejected() bool {
	acs := a.multiKueueCheck()
	if acs == nil || acs.State != kueue.CheckStateRejected {
		return false
	}
	a.remedyM("Recreate", WhoYou, "", msg("diagnose.mk.rejected.remedy"))
	return a.setM(CodeWaitingForAdmissionChecks, CauseCheckRetry,
		msg("diagnose.mk.rejected.headline", a.jobArg(), acArg(string(acs.Name)), i18n.Verbatim(strconv.Quote(strings.TrimSuffix(acs.Message, ".")))),
		msg("diagnose.mk.rejected.detail", a.wlArg(a.wl.Name)))
}
