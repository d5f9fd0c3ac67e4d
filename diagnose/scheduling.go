package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// admitted handles a Workload Kueue has admitted: from here on,
// kube-scheduler and the kubelet decide.
func (a *analysis) admitted() bool {
	if !a.admittedNow() {
		return false
	}
	if a.evicting() {
		return true
	}
	cq := a.r.Queue.ClusterQueue
	if susp, ok := a.job.suspended(); ok && susp {
		a.remedyM("Wait", WhoYou, "", msg("diagnose.sched.suspended.remedy"))
		return a.setM(CodeStarting, CauseJobSuspended, msg("diagnose.sched.suspended.headline", a.jobArg(), cqArg(cq)),
			msg("diagnose.sched.suspended.detail"))
	}
	partial, partialWhy, isPartial := a.partialAdmission()
	if isPartial {
		a.findingM("PartialAdmission", SeverityInfo, msg("diagnose.partial.finding", partial, partialWhy))
	}
	pods := activePods(a.s.Pods)
	if len(pods) == 0 && a.operatorSilent() {
		return true
	}
	if len(pods) == 0 {
		head := msg("diagnose.sched.noPods.headline", a.jobArg())
		detail := []i18n.Message{msg("diagnose.sched.noPods.detail")}
		since, sinceOK := a.admittedFor()
		switch ev := a.eventWith("FailedCreate"); {
		case ev != "":
			detail = append(detail, msg("diagnose.sched.controllerReports", i18n.Verbatim(ev)))
			if r := parseCreateRefusal(ev, a.ns).withObjects(a.s); r != nil {
				head = msg("diagnose.sched.refused.headline", a.jobArg(), r.what)
				detail = append(detail, r.status)
				a.remedyM("FixCreate", r.who, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), r.remedy)
			} else {
				a.remedyM("FixCreate", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), msg("diagnose.sched.fixCreate.remedy"))
			}
		case a.r.Target.Kind == "Job" && sinceOK && since >= operatorIdle && !hasGap(a.s, "Pod", "") && !hasGap(a.s, "Event", ""):
			ago := i18n.Verbatim(duration.HumanDuration(since))
			head = msg("diagnose.sched.controllerIdle.headline", a.jobArg(), ago)
			detail = []i18n.Message{msg("diagnose.sched.controllerIdle.detail", ago)}
			a.remedyM("AskController", WhoPlatform, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()),
				msg("diagnose.sched.controllerIdle.remedy", i18n.Name(a.ns+"/"+a.r.Target.Name)))
		default:
			a.remedyM("Wait", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), msg("diagnose.sched.noPods.remedy"))
		}
		return a.setM(CodeStarting, CausePodsNotCreated, head, i18n.Join(detail...))
	}
	var unsched, gated, imagePull, config, creating, crash, running []*corev1.Pod
	unschedMsg := map[string]string{}
	containerMsg := map[string]string{}
	for _, p := range pods {
		if c := podCond(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse {
			if c.Reason == corev1.PodReasonSchedulingGated {
				gated = append(gated, p)
				continue
			}
			unsched = append(unsched, p)
			unschedMsg[p.Name] = c.Message
			continue
		}
		if p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending {
			unsched = append(unsched, p)
			continue
		}
		reason, msg := waitingReason(p)
		switch reason {
		case "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull":
			imagePull = append(imagePull, p)
			containerMsg[p.Name] = reason + ": " + msg
		case "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
			config = append(config, p)
			containerMsg[p.Name] = reason + ": " + msg
		case "CrashLoopBackOff":
			crash = append(crash, p)
			containerMsg[p.Name] = reason + ": " + msg
		default:
			if p.Status.Phase == corev1.PodRunning {
				running = append(running, p)
			} else {
				creating = append(creating, p)
			}
		}
	}
	total := len(pods)
	switch {
	case len(unsched) > 0:
		schedMsg := unschedMsg[unsched[0].Name]
		if schedMsg == "" {
			schedMsg = a.eventWith("FailedScheduling")
		}
		schedMsg = cleanSchedulerMessage(schedMsg)
		cause := classifyScheduling(schedMsg)
		head := msg("diagnose.sched.unsched.headline", a.jobArg(), i18n.Num(len(unsched)))
		detail := []i18n.Message{msg("diagnose.sched.unsched.detail", i18n.Num(len(unsched)), i18n.Num(total))}
		if what := a.schedulingRemedies(cause, schedMsg, unsched); !what.IsZero() {
			head = msg("diagnose.sched.unsched.what", a.jobArg(), i18n.Num(len(unsched)), what)
		}
		if schedMsg != "" {
			detail = append(detail, msg("diagnose.sched.scheduler", i18n.Verbatim(schedMsg)))
		}
		return a.setM(CodePodsUnschedulable, cause, head, i18n.Join(detail...))
	case len(gated) > 0:
		gates := map[string]bool{}
		for _, p := range gated {
			for _, g := range p.Spec.SchedulingGates {
				gates[g.Name] = true
			}
		}
		a.remedyM("Wait", WhoYou, "", msg("diagnose.sched.gated.remedy"))
		return a.setM(CodePodsUnschedulable, CauseSchedulingGated, msg("diagnose.sched.gated.headline", a.jobArg(), i18n.Num(len(gated))),
			msg("diagnose.sched.gates", nameList(sortedKeys(gates)...)))
	case len(imagePull) > 0:
		a.remedyM("FixImage", WhoYou, fmt.Sprintf("kubectl describe pod %s %s", imagePull[0].Name, a.nsFlag()), msg("diagnose.sched.image.remedy"))
		head := msg("diagnose.sched.image.headline", a.jobArg(), i18n.Num(len(imagePull)))
		if img := waitingImage(imagePull[0], containerMsg[imagePull[0].Name]); img != "" {
			head = msg("diagnose.sched.image.named", a.jobArg(), i18n.Num(len(imagePull)), i18n.Verbatim(img))
		}
		return a.setM(CodePodsNotStarting, CauseImagePull, head, quotedOpt(containerMsg[imagePull[0].Name]))
	case len(config) > 0:
		a.remedyM("FixConfig", WhoYou, fmt.Sprintf("kubectl describe pod %s %s", config[0].Name, a.nsFlag()), msg("diagnose.sched.config.remedy"))
		head := msg("diagnose.sched.config.headline", a.jobArg(), i18n.Num(len(config)))
		if m := reMissingRef.FindStringSubmatch(containerMsg[config[0].Name]); m != nil {
			kind := map[string]string{"secret": "Secret", "configmap": "ConfigMap"}[strings.ToLower(m[1])]
			head = msg("diagnose.sched.config.missing", a.jobArg(), i18n.Num(len(config)), i18n.Name(kind), i18n.Name(m[2]), nsArg(a.ns))
		}
		return a.setM(CodePodsNotStarting, CauseContainerConfig, head, quotedOpt(containerMsg[config[0].Name]))
	case len(creating) > 0 && len(running) == 0 && len(crash) == 0:
		a.remedyM("Wait", WhoYou, fmt.Sprintf("kubectl describe pod %s %s", creating[0].Name, a.nsFlag()), msg("diagnose.sched.creating.remedy"))
		return a.setM(CodePodsNotStarting, CauseContainerCreating, msg("diagnose.sched.creating.headline", a.jobArg()),
			msg("diagnose.sched.creating.detail", i18n.Num(len(creating)), i18n.Num(total)))
	case len(crash) > 0:
		a.remedyM("ReadLogs", WhoYou, fmt.Sprintf("kubectl logs %s %s --previous", crash[0].Name, a.nsFlag()), msg("diagnose.sched.crash.remedy"))
		return a.setM(CodeRunning, CauseCrashLooping, msg("diagnose.sched.crash.headline", a.jobArg(), i18n.Num(len(crash))),
			msg("diagnose.concat", quotedOpt(containerMsg[crash[0].Name]), lastTermination(crash[0])))
	}
	detail := msg("diagnose.sched.running.detail", i18n.Num(len(running)), i18n.Num(total))
	if isPartial {
		return a.setM(CodeRunning, CauseHealthy, msg("diagnose.sched.running.partial", a.jobArg(), msg("diagnose.partial.short", partial)), detail)
	}
	return a.setM(CodeRunning, CauseHealthy, msg("diagnose.sched.running", a.jobArg()), detail)
}

// admittedFor is how long ago the Workload was admitted (its Admitted
// condition's last transition).
func (a *analysis) admittedFor() (time.Duration, bool) {
	c := a.cond(kueue.WorkloadAdmitted)
	if c == nil || c.Status != metav1.ConditionTrue || c.LastTransitionTime.IsZero() {
		return 0, false
	}
	return a.s.Now.Sub(c.LastTransitionTime.Time), true
}

// partialAdmission says how many pods Kueue admitted when it admitted
// fewer than the job asked for (partial admission: the pod set's minCount,
// from kueue.x-k8s.io/job-min-parallelism for a batch Job); "" when every
// pod set got its full count.
func (a *analysis) partialAdmission() (i18n.List, i18n.Message, bool) {
	if a.wl == nil || a.wl.Status.Admission == nil {
		return i18n.List{}, i18n.Message{}, false
	}
	var parts []i18n.Arg
	for i := range a.wl.Spec.PodSets {
		ps := &a.wl.Spec.PodSets[i]
		as := findAssignment(a.wl, ps.Name)
		if as == nil || as.Count == nil || *as.Count >= ps.Count {
			continue
		}
		s := msg("diagnose.partial.pods", i18n.Num(*as.Count), i18n.Num(ps.Count))
		if len(a.wl.Spec.PodSets) > 1 {
			s = msg("diagnose.partial.podsOf", i18n.Num(*as.Count), i18n.Num(ps.Count), i18n.Name(string(ps.Name)))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return i18n.List{}, i18n.Message{}, false
	}
	why := msg("diagnose.partial.why")
	if v := a.job.annotation(JobMinParallelismAnnotation); v != "" {
		why = msg("diagnose.partial.whyAnn", i18n.Name(JobMinParallelismAnnotation), i18n.Verbatim(v))
	}
	return i18n.And(parts...), why, true
}

// schedulingRemedies suggests how to get the pods scheduled and returns
// what blocks them, naming the object (claim, taint, resource) when the
// pods and kube-scheduler's message say which; "" when they do not.
func (a *analysis) schedulingRemedies(cause Cause, schedMsg string, pods []*corev1.Pod) i18n.Message {
	switch cause {
	case CauseInsufficientRes:
		a.remedyM("SmallerPods", WhoYou, "", msg("diagnose.sched.smaller.remedy"))
		a.remedyM("AddNodes", WhoPlatform, "", msg("diagnose.sched.addNodes.remedy"))
		if res := schedulerInsufficient(schedMsg); len(res) > 0 {
			return msg("diagnose.sched.insufficient", nameList(res...), a.podAsks(pods, res))
		}
	case CauseUntoleratedTaint:
		taints := schedulerTaints(schedMsg)
		if fromNodes := nodeTaints(a.s.Nodes, pods); len(fromNodes) > 0 {
			taints = fromNodes // key=value:effect, from the Nodes themselves
		}
		if len(taints) == 0 {
			a.remedyM("AddToleration", WhoYou, "", msg("diagnose.sched.taintUnknown.remedy"))
			return i18n.Message{}
		}
		list := i18n.Commas(verbatims(taints)...)
		where := msg("diagnose.sched.where.flavor")
		if flavors := a.admittedFlavors(); len(flavors) > 0 {
			where = msg("diagnose.sched.where.named", nameList(flavors...))
		}
		a.remedyM("AddToleration", WhoYou, "", msg("diagnose.sched.toleration.remedy", list))
		a.remedyM("FlavorToleration", WhoPlatform, "", msg("diagnose.sched.flavorToleration.remedy", where))
		return msg("diagnose.sched.taint.what", list)
	case CauseNodeAffinityMismatch:
		a.remedyM("FixNodeSelector", WhoPlatform, "", msg("diagnose.sched.nodeLabels.remedy"))
		if what := a.flavorNodes(); !what.IsZero() {
			return what
		}
	case CauseUnboundVolume:
		claims, missing := podClaims(pods, schedMsg)
		if len(claims) == 0 {
			a.remedyM("FixVolume", WhoYou, fmt.Sprintf("kubectl get pvc %s", a.nsFlag()), msg("diagnose.sched.pvc.remedy"))
			return i18n.Message{}
		}
		a.remedyM("FixVolume", WhoYou, fmt.Sprintf("kubectl describe pvc %s %s", claims[0], a.nsFlag()), msg("diagnose.sched.pvcEvents.remedy", a.claimList(claims)))
		if state := a.claimStates(claims); !state.IsZero() {
			return state
		}
		if missing {
			return msg("diagnose.sched.pvc.missing", a.claimList(claims))
		}
		return msg("diagnose.sched.pvc.unbound", a.claimList(claims))
	default:
		a.remedyM("Describe", WhoYou, fmt.Sprintf("kubectl describe pods %s", a.nsFlag()), msg("diagnose.sched.describe.remedy"))
	}
	return i18n.Message{}
}

// verbatims converts strings to Verbatim arguments.
func verbatims(ss []string) []i18n.Arg {
	out := make([]i18n.Arg, len(ss))
	for i, s := range ss {
		out[i] = i18n.Verbatim(s)
	}
	return out
}

// reInsufficient is kube-scheduler's "Insufficient <resource>".
var reInsufficient = regexp.MustCompile(`Insufficient (\S+?)[,.]?(?:\s|$)`)

// schedulerInsufficient returns the resources the scheduler's message says
// the nodes lack, in order.
func schedulerInsufficient(msg string) []string {
	if i := strings.Index(msg, "preemption:"); i >= 0 {
		msg = msg[:i]
	}
	var out []string
	for _, m := range reInsufficient.FindAllStringSubmatch(msg, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// podAsks is what the first pod requests of res, e.g. "each asks 4 cpu".
func (a *analysis) podAsks(pods []*corev1.Pod, res []string) i18n.Message {
	if len(pods) == 0 {
		return msg("diagnose.sched.seeRequests")
	}
	per := podRequests(&pods[0].Spec)
	var parts []i18n.Arg
	for _, r := range res {
		if v, ok := per[corev1.ResourceName(r)]; ok {
			parts = append(parts, msg("diagnose.qtyRes", i18n.Qty(fmtQ(corev1.ResourceName(r), v)), i18n.Name(r)))
		}
	}
	if len(parts) == 0 {
		return msg("diagnose.sched.seeRequests")
	}
	return msg("diagnose.sched.eachAsks", i18n.Commas(parts...))
}

var reSchedPart = regexp.MustCompile(`^(\d+) (.*)$`)

// reMissingRef is the kubelet's CreateContainerConfigError for a missing
// Secret or ConfigMap.
var reMissingRef = regexp.MustCompile(`(?i)(secret|configmap) "([^"]+)" not found`)

// reImage is the image a kubelet pull message names.
var reImage = regexp.MustCompile(`image "([^"]+)"`)

// waitingImage names the image a pod cannot pull: from the message, else
// the image of the container that waits.
func waitingImage(p *corev1.Pod, msg string) string {
	if m := reImage.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			if cs.State.Waiting != nil && cs.Image != "" {
				return cs.Image
			}
		}
	}
	return ""
}

// reSchedTaint is kube-scheduler's "untolerated taint {key: value}".
var reSchedTaint = regexp.MustCompile(`untolerated taint \{([^:{}]+): ([^{}]*)\}`)

// schedulerTaints returns the taints the scheduler's message names, as
// key=value (key alone when the value is empty).
func schedulerTaints(msg string) []string {
	var out []string
	for _, m := range reSchedTaint.FindAllStringSubmatch(msg, -1) {
		t := m[1]
		if v := strings.TrimSpace(m[2]); v != "" {
			t += "=" + v
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// admittedFlavors names the flavors Kueue assigned the Workload, sorted.
func (a *analysis) admittedFlavors() []string {
	if a.wl == nil || a.wl.Status.Admission == nil {
		return nil
	}
	var out []string
	for _, ps := range a.wl.Status.Admission.PodSetAssignments {
		for _, f := range ps.Flavors {
			if !slices.Contains(out, string(f)) {
				out = append(out, string(f))
			}
		}
	}
	slices.Sort(out)
	return out
}

// reMissingClaim is kube-scheduler's word for a claim that does not exist.
var reMissingClaim = regexp.MustCompile(`persistentvolumeclaim "([^"]+)" not found`)

// cleanSchedulerMessage drops the bare "not found" sentence that
// kube-scheduler appends to some messages (it names nothing).
func cleanSchedulerMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	if t, ok := strings.CutSuffix(msg, ". not found"); ok {
		return t + "."
	}
	return msg
}

// podClaims names the PersistentVolumeClaims the pods use: those the
// scheduler's message says do not exist (missing true), else every claim
// of the pods' volumes (a generic ephemeral volume's claim is named
// <pod>-<volume>).
func podClaims(pods []*corev1.Pod, msg string) ([]string, bool) {
	var out []string
	for _, m := range reMissingClaim.FindAllStringSubmatch(msg, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	if len(out) > 0 {
		return out, true
	}
	for _, p := range pods {
		out = AppendClaimNames(out, p)
	}
	return out, false
}

// AppendClaimNames appends, once each, the PersistentVolumeClaims pod
// uses: its volumes' claims and its generic ephemeral volumes' (named
// <pod>-<volume>, as the ephemeral volume controller names them).
func AppendClaimNames(out []string, pod *corev1.Pod) []string {
	for _, v := range pod.Spec.Volumes {
		name := ""
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			name = pod.Name + "-" + v.Name
		}
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// claimList is "PersistentVolumeClaim a" or "PersistentVolumeClaims a, b"
// (at most three named).
func (a *analysis) claimList(claims []string) i18n.Message {
	if len(claims) == 1 {
		return msg("diagnose.pvc.one", a.pvcArg(claims[0]))
	}
	shown := claims
	var more i18n.Message
	if len(shown) > 3 {
		shown, more = shown[:3], msg("diagnose.pvc.more", i18n.Num(len(claims)-3))
	}
	return msg("diagnose.pvc.many", nameList(shown...), more)
}

// pvcArg names a PersistentVolumeClaim of the job's namespace.
func (a *analysis) pvcArg(name string) i18n.Object {
	return i18n.Obj("PersistentVolumeClaim", a.ns, name)
}

// classifyScheduling reads a kube-scheduler FailedScheduling message such as
// "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated
// taint {spot: true}. preemption: ..." and returns the dominant cause.
func classifyScheduling(msg string) Cause {
	if msg == "" {
		return CauseOther
	}
	body := msg
	if i := strings.Index(body, "available: "); i >= 0 {
		body = body[i+len("available: "):]
	}
	if i := strings.Index(body, ". preemption:"); i >= 0 {
		body = body[:i]
	}
	body = strings.TrimSuffix(body, ".")
	count := map[Cause]int{}
	for _, part := range strings.Split(body, ", ") {
		n := 1
		text := part
		if m := reSchedPart.FindStringSubmatch(part); m != nil {
			n, _ = strconv.Atoi(m[1])
			text = m[2]
		}
		count[schedCause(text)] += n
	}
	order := []Cause{CauseInsufficientRes, CauseUntoleratedTaint, CauseNodeAffinityMismatch, CauseUnboundVolume, CauseOther}
	best := CauseOther
	for _, c := range order {
		if count[c] > count[best] || (count[c] == count[best] && count[c] > 0 && best == CauseOther) {
			best = c
		}
	}
	return best
}

func schedCause(text string) Cause {
	t := strings.ToLower(text)
	switch {
	case strings.Contains(t, "insufficient"), strings.Contains(t, "too many pods"):
		return CauseInsufficientRes
	case strings.Contains(t, "untolerated taint"):
		return CauseUntoleratedTaint
	case strings.Contains(t, "node affinity"), strings.Contains(t, "node selector"), strings.Contains(t, "affinity/selector"):
		return CauseNodeAffinityMismatch
	case strings.Contains(t, "persistentvolumeclaim"), strings.Contains(t, "volume node affinity"), strings.Contains(t, "unbound"):
		return CauseUnboundVolume
	}
	return CauseOther
}

func activePods(pods []corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func podCond(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func waitingReason(p *corev1.Pod) (string, string) {
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
				return w.Reason, w.Message
			}
		}
	}
	return "", ""
}

func lastTermination(p *corev1.Pod) i18n.Message {
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.LastTerminationState.Terminated; t != nil {
			return msg("diagnose.sched.lastExit", i18n.Name(t.Reason), i18n.Num(t.ExitCode))
		}
	}
	return i18n.Message{}
}

// eventWith returns the newest message of an event with the given reason.
func (a *analysis) eventWith(reason string) string {
	var best *corev1.Event
	for i := range a.s.Events {
		e := &a.s.Events[i]
		if e.Reason != reason {
			continue
		}
		if best == nil || EventTime(e).After(EventTime(best)) {
			best = e
		}
	}
	if best == nil {
		return ""
	}
	return best.Message
}

// nodeTaints lists, as key=value:effect, the NoSchedule and NoExecute
// taints of the Nodes the Snapshot holds that the pods do not tolerate
// (the first pod's tolerations: a job's pods share a template), sorted,
// once each; nil without Nodes.
func nodeTaints(nodes []corev1.Node, pods []*corev1.Pod) []string {
	if len(nodes) == 0 {
		return nil
	}
	var tolerations []corev1.Toleration
	if len(pods) > 0 {
		tolerations = pods[0].Spec.Tolerations
	}
	var out []string
	for i := range nodes {
		for _, t := range nodes[i].Spec.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule || corev1helpers.TolerationsTolerateTaint(logr.Discard(), tolerations, &t, false) {
				continue
			}
			if s := taintString(t); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// claimStates says, from the claims the Snapshot holds, why the named
// claims do not bind, e.g. "PersistentVolumeClaim data is Pending
// (storageClassName fast-ssd, 10Gi ReadWriteOnce)", or that one does not
// exist; "" when the claims were not read.
func (a *analysis) claimStates(claims []string) i18n.Message {
	s := a.s
	if s.PersistentVolumeClaims == nil {
		return i18n.Message{}
	}
	var parts []i18n.Arg
	for _, n := range claims {
		var pvc *corev1.PersistentVolumeClaim
		for i := range s.PersistentVolumeClaims {
			if s.PersistentVolumeClaims[i].Name == n {
				pvc = &s.PersistentVolumeClaims[i]
			}
		}
		if pvc == nil {
			parts = append(parts, msg("diagnose.pvc.notExist", a.pvcArg(n)))
			continue
		}
		var detail []i18n.Arg
		if sc := pvc.Spec.StorageClassName; sc != nil {
			if *sc == "" {
				detail = append(detail, msg("diagnose.pvc.scEmpty"))
			} else {
				detail = append(detail, msg("diagnose.pvc.sc", i18n.Name(*sc)))
			}
		} else {
			detail = append(detail, msg("diagnose.pvc.noSC"))
		}
		if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
			d := q.String()
			for _, m := range pvc.Spec.AccessModes {
				d += " " + string(m)
			}
			detail = append(detail, i18n.Verbatim(d))
		}
		phase := string(pvc.Status.Phase)
		if phase == "" {
			phase = string(corev1.ClaimPending)
		}
		parts = append(parts, msg("diagnose.pvc.state", a.pvcArg(n), i18n.Name(phase), i18n.Commas(detail...)))
	}
	return msg("diagnose.concat", i18n.Message{}, msg("i18n.join", i18n.List{Items: parts, Semicolons: true}))
}

// flavorNodes says, when the Nodes were read for the one flavor the
// Workload was assigned and that flavor has nodeLabels, how many Nodes
// carry them, e.g. "no Node has the nodeLabels instance-type=gpu of
// ResourceFlavor gpu"; "" otherwise.
func (a *analysis) flavorNodes() i18n.Message {
	flavors := a.admittedFlavors()
	if a.s.Nodes == nil || len(flavors) != 1 {
		return i18n.Message{}
	}
	for i := range a.s.ResourceFlavors {
		rf := &a.s.ResourceFlavors[i]
		if rf.Name != flavors[0] || len(rf.Spec.NodeLabels) == 0 {
			continue
		}
		keys := make([]string, 0, len(rf.Spec.NodeLabels))
		for k, v := range rf.Spec.NodeLabels {
			keys = append(keys, k+"="+v)
		}
		slices.Sort(keys)
		n := 0
		for j := range a.s.Nodes {
			match := true
			for k, v := range rf.Spec.NodeLabels {
				match = match && a.s.Nodes[j].Labels[k] == v
			}
			if match {
				n++
			}
		}
		rfArg := i18n.Obj("ResourceFlavor", "", rf.Name)
		if n == 0 {
			return msg("diagnose.flavorNodes.none", i18n.Verbatim(strings.Join(keys, ",")), rfArg)
		}
		return msg("diagnose.flavorNodes.some", i18n.Num(n), i18n.Verbatim(strings.Join(keys, ",")), rfArg)
	}
	return i18n.Message{}
}
