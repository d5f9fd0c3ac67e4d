package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// Bounds that keep a snapshot small whatever the cluster holds.
const (
	// maxQueueAhead caps Snapshot.QueueAhead.
	maxQueueAhead = 50
	// maxEventsPerObject caps the events read per involved object.
	maxEventsPerObject = 50
	// maxEvents caps Snapshot.Events.
	maxEvents = 200
	// maxPods caps the Pods read for a job.
	maxPods = 500
	// maxPodEventReads is how many Pods (those not running) get an events read.
	maxPodEventReads = 2
	// maxCohortDepth bounds the walk up a cohort tree.
	maxCohortDepth = 16
)

// source is where collect reads objects: the API server as the caller
// (liveSource) or objects loaded from files (storeSource). Methods return
// Kubernetes API errors (NotFound, Forbidden, ...) so that both map to Gaps
// the same way.
type source interface {
	// exhaustive is true when reads cost nothing (files): collect then
	// reads everything that belongs to the target, not only what the
	// state needs.
	exhaustive() bool
	// served reports whether the cluster serves the kind.
	served(ctx context.Context, k *kinds.Kind) (bool, error)
	// kueueServed reports whether Kueue's API is served at all.
	kueueServed(ctx context.Context) (bool, error)
	// useBot switches cluster-scoped reads (ClusterQueue, flavors, cohort)
	// to the bot's identity when configured, reporting whether it did.
	useBot() bool

	getObject(ctx context.Context, k *kinds.Kind, ns, name string) (*unstructured.Unstructured, error)
	getWorkload(ctx context.Context, ns, name string) (*kueue.Workload, error)
	// workloadsForOwner lists the Workloads of a job by its UID (label
	// kueue.x-k8s.io/job-uid; files also match ownerReferences).
	workloadsForOwner(ctx context.Context, ns string, uid types.UID) ([]kueue.Workload, error)
	getLocalQueue(ctx context.Context, ns, name string) (*kueue.LocalQueue, error)
	// listLocalQueues lists the LocalQueues of ns (to suggest a fix for a
	// missing or stopped queue).
	listLocalQueues(ctx context.Context, ns string) ([]kueue.LocalQueue, error)
	getClusterQueue(ctx context.Context, name string) (*kueue.ClusterQueue, error)
	listClusterQueues(ctx context.Context) ([]kueue.ClusterQueue, error)
	listCohorts(ctx context.Context) ([]kueue.Cohort, error)
	// getFlavors returns the named flavors that exist.
	getFlavors(ctx context.Context, names []string) ([]kueue.ResourceFlavor, error)
	// getAdmissionChecks returns the named checks that exist.
	getAdmissionChecks(ctx context.Context, names []string) ([]kueue.AdmissionCheck, error)
	// pending returns the Workload's place in its queues and the pending
	// Workloads ahead of it in its LocalQueue, head first.
	pending(ctx context.Context, wl *kueue.Workload, cq string) (*diagnose.Position, []diagnose.QueuedWorkload, error)
	// listPods returns the Pods in ns matching selector (files also match
	// a controller ownerReference to ownerUID).
	listPods(ctx context.Context, ns, selector string, ownerUID types.UID) ([]corev1.Pod, error)
	// listEvents returns the events whose involvedObject is ref.
	listEvents(ctx context.Context, ns string, ref corev1.ObjectReference) ([]corev1.Event, error)
	getNamespace(ctx context.Context, name string) (*corev1.Namespace, error)
}

// collector builds one Snapshot.
type collector struct {
	src source
	s   *diagnose.Snapshot
	// first is the first fault recorded as a Gap: a read the diagnosis
	// cannot do without that was skipped after it reports it.
	first *ReadError
	// planned is set for a Workload that is not in the cluster
	// (FetchPlanned): nothing about the Workload itself is read.
	planned bool
}

// collect is the selection algorithm shared by the live and file modes.
func collect(ctx context.Context, src source, t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	k, ok := kinds.Lookup(t.Kind)
	if !ok {
		return nil, fmt.Errorf("%w: unknown kind %q", ErrBadTarget, t.Kind)
	}
	if t.Name == "" || t.Namespace == "" {
		// An empty namespace would turn namespaced LISTs cluster-wide.
		return nil, fmt.Errorf("%w: name and namespace are required", ErrBadTarget)
	}
	c := &collector{src: src, s: &diagnose.Snapshot{Now: now, Target: t}}
	if err := c.run(ctx, k); err != nil {
		return nil, err
	}
	return c.s, nil
}

// fatal reports whether err must end the fetch whatever was read: the
// caller's context ended, or the bot's own RBAC is wrong.
func fatal(ctx context.Context, err error) bool {
	return errors.Is(err, ErrImpersonation) || ctx.Err() != nil
}

// stop is the error that ends the fetch after a fatal err.
func stop(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// ErrImpersonation is returned when the API server refuses the
// impersonation itself: the bot's own RBAC is wrong, which is neither the
// caller's fault nor something to report as "not found".
var ErrImpersonation = errors.New("the API server refused the impersonation; the bot's ClusterRole does not list this identity: add it to the config's identity mapping and apply the RBAC again (helm upgrade, or kueuebot rbac --config FILE | kubectl apply -f -)")

// impersonationRefused tells a refused impersonation (the bot's RBAC) from
// a refused read (the caller's RBAC).
func impersonationRefused(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "cannot impersonate")
}

// gap records a failed read of an object the diagnosis can do without: the
// answer then rests on what was read. It returns a non-nil error only when
// the fetch must stop.
func (c *collector) gap(ctx context.Context, kind, name string, err error) error {
	if fatal(ctx, err) {
		return stop(ctx, err)
	}
	var sk *skipped
	if f := classify(err, 0); f != nil && c.first == nil && !errors.As(err, &sk) {
		c.first = newReadError(kind, "", name, f)
	}
	c.s.Gaps = append(c.s.Gaps, gapFor(kind, name, err))
	return nil
}

// targetGap records that the target could not be read. Missing and
// forbidden read the same, with no server text, so nothing leaks. Any other
// failure is a fault of the cluster, not an answer about the job: it ends
// the fetch with a *ReadError.
func (c *collector) targetGap(ctx context.Context, kind, name string, err error) error {
	if err != nil && fatal(ctx, err) {
		return stop(ctx, err)
	}
	if err != nil && !isAnswer(err) {
		return c.readError(kind, c.s.Target.Namespace, name, err)
	}
	c.s.Gaps = append(c.s.Gaps, diagnose.Gap{Kind: kind, Name: name, Reason: diagnose.GapNotFound})
	return nil
}

// readError is the *ReadError that ends the fetch when a read the diagnosis
// needs failed with a fault. A read skipped after an earlier fault reports
// that earlier read.
func (c *collector) readError(kind, ns, name string, err error) error {
	var sk *skipped
	if errors.As(err, &sk) && c.first != nil {
		return c.first
	}
	return newReadError(kind, ns, name, classify(err, 0))
}

func newReadError(kind, ns, name string, f *fault) *ReadError {
	if f == nil {
		f = &fault{class: FaultMalformed, err: errors.New("unknown failure")}
	}
	var sk *skipped
	if errors.As(f.err, &sk) {
		f = sk.first
	}
	return &ReadError{Kind: kind, Namespace: ns, Name: name, Class: f.class, Status: f.status, Timeout: f.timeout, Err: f.err}
}

// gapFor classifies a read error.
func gapFor(kind, name string, err error) diagnose.Gap {
	g := diagnose.Gap{Kind: kind, Name: name, Message: sanitize(err.Error())}
	var sk *skipped
	switch {
	case apierrors.IsForbidden(err):
		g.Reason = diagnose.GapForbidden
	case apierrors.IsNotFound(err):
		g.Reason = diagnose.GapNotFound
	case errors.As(err, &sk):
		g.Reason = diagnose.GapUnavailable
		g.Message = "not read: the cluster had stopped answering (" + sk.first.class.describe(sk.first.status, sk.first.timeout) + ")"
	default:
		f := classify(err, 0)
		g.Reason = diagnose.GapUnavailable
		if f != nil && f.class == FaultTimeout {
			g.Reason = diagnose.GapTimeout
			g.Message = "the request timed out"
		}
	}
	return g
}

// sanitize keeps a server message to one short line.
func sanitize(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	const maxLen = 300
	if len(msg) > maxLen {
		msg = msg[:maxLen] + "..."
	}
	return msg
}

func (c *collector) run(ctx context.Context, k *kinds.Kind) error {
	t := c.s.Target
	var owner ownerRef
	if k.Kind != KindWorkload {
		served, err := c.src.served(ctx, k)
		if err != nil && !isAnswer(err) {
			if fatal(ctx, err) {
				return stop(ctx, err)
			}
			return c.readError(kindDiscovery, "", k.Resource.GroupVersion().String(), err)
		}
		if !served {
			return c.targetGap(ctx, k.Kind, t.Name, nil)
		}
		obj, err := c.src.getObject(ctx, k, t.Namespace, t.Name)
		if err != nil {
			return c.targetGap(ctx, k.Kind, t.Name, err)
		}
		c.s.Job = obj
		if k.WorkloadPerPod {
			pod, err := c.perPod(ctx, k, obj)
			if err != nil {
				return err
			}
			if pod != nil {
				pk, _ := kinds.ByKind(kinds.Pod)
				if u, err := typedToUnstructured(pod, pk); err == nil {
					owner = workloadOwner(pk, u)
				}
			}
		} else {
			owner = workloadOwner(k, obj)
		}
	}

	ok, err := c.src.kueueServed(ctx)
	if err != nil && !isAnswer(err) {
		if fatal(ctx, err) {
			return stop(ctx, err)
		}
		return c.readError(kindDiscovery, "", kueue.GroupVersion.Group, err)
	}
	if !ok {
		c.s.Gaps = append(c.s.Gaps, diagnose.Gap{
			Kind: KindWorkload, Name: owner.workloadName, Reason: diagnose.GapNotFound,
			Message: "the cluster does not serve Kueue's API (kueue.x-k8s.io)",
		})
		return nil
	}

	var wl *kueue.Workload
	if k.Kind == KindWorkload {
		wl, err = c.src.getWorkload(ctx, t.Namespace, t.Name)
		if err != nil {
			return c.targetGap(ctx, KindWorkload, t.Name, err)
		}
	} else if owner.workloadName != "" {
		if wl, err = c.findWorkload(ctx, owner); err != nil {
			return err
		}
	}
	c.s.Workload = wl
	if wl != nil && isTrue(wl.Status.Conditions, kueue.WorkloadFinished) && !c.src.exhaustive() {
		return nil // Finished: nothing else changes the answer.
	}
	return c.queues(ctx, wl)
}

// ownerRef is the object whose UID and name the Workload is derived from.
type ownerRef struct {
	uid          types.UID
	workloadName string
	// verify is false when the name alone identifies the Workload (pod
	// groups, prebuilt Workloads).
	verify bool
}

// workloadOwner works out which Workload belongs to obj. A job whose
// controller is itself a supported job kind (a Job of a JobSet, ...) belongs
// to that parent's Workload; the parent's name and UID are in the
// ownerReference, so this costs no request. Only one level is followed.
func workloadOwner(k *kinds.Kind, obj *unstructured.Unstructured) ownerRef {
	if name := labelOf(obj, PrebuiltWorkloadLabel); name != "" {
		return ownerRef{uid: obj.GetUID(), workloadName: name}
	}
	if k.Kind == "Pod" {
		if g := labelOf(obj, PodGroupNameLabel); g != "" {
			return ownerRef{workloadName: g}
		}
	}
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		if pk, ok := ownerKind(ref.APIVersion, ref.Kind); ok {
			return ownerRef{uid: ref.UID, verify: true,
				workloadName: WorkloadName(ref.Name+pk.WorkloadNameSuffix, ref.UID, schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))}
		}
	}
	gvk := k.GroupVersionKind()
	return ownerRef{uid: obj.GetUID(), verify: true,
		workloadName: WorkloadName(obj.GetName()+k.WorkloadNameSuffix, obj.GetUID(), gvk)}
}

// findWorkload reads the Workload by its computed name and falls back to the
// job-uid label when the name misses (elastic jobs, renamed integrations).
func (c *collector) findWorkload(ctx context.Context, o ownerRef) (*kueue.Workload, error) {
	ns := c.s.Target.Namespace
	wl, err := c.src.getWorkload(ctx, ns, o.workloadName)
	switch {
	case err == nil && (!o.verify || ownedBy(wl, o.uid)):
		return wl, nil
	case err != nil && !isAnswer(err):
		if fatal(ctx, err) {
			return nil, stop(ctx, err)
		}
		return nil, c.readError(KindWorkload, ns, o.workloadName, err)
	case err != nil && !apierrors.IsNotFound(err):
		return nil, c.gap(ctx, KindWorkload, o.workloadName, err)
	}
	if o.uid == "" {
		return nil, c.gap(ctx, KindWorkload, o.workloadName, apierrors.NewNotFound(kueue.Resource("workloads"), o.workloadName))
	}
	list, err := c.src.workloadsForOwner(ctx, ns, o.uid)
	if err != nil && !isAnswer(err) {
		if fatal(ctx, err) {
			return nil, stop(ctx, err)
		}
		return nil, c.readError(KindWorkload, ns, o.workloadName, err)
	}
	if err != nil {
		return nil, c.gap(ctx, KindWorkload, o.workloadName, err)
	}
	var best *kueue.Workload
	for i := range list {
		w := &list[i]
		if ref := metav1.GetControllerOfNoCopy(w); ref != nil && ref.UID != o.uid {
			continue
		}
		if best == nil || betterWorkload(w, best) {
			best = w
		}
	}
	if best == nil {
		return nil, c.gap(ctx, KindWorkload, o.workloadName, apierrors.NewNotFound(kueue.Resource("workloads"), o.workloadName))
	}
	return best, nil // list is this call's own
}

// betterWorkload prefers an unfinished Workload, then the newest, then name.
func betterWorkload(a, b *kueue.Workload) bool {
	af, bf := isTrue(a.Status.Conditions, kueue.WorkloadFinished), isTrue(b.Status.Conditions, kueue.WorkloadFinished)
	if af != bf {
		return !af
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}

func controlledBy(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == uid
}

// ownedBy reports whether a Workload belongs to the object with uid: the
// object controls it, or nothing controls it and it carries the object's
// UID in its job-uid label or an ownerReference. Kueue's StatefulSet
// integration makes the StatefulSet a plain owner of its pod group's
// Workload (controllerutil.SetOwnerReference), next to the group's Pods.
func ownedBy(wl *kueue.Workload, uid types.UID) bool {
	if ref := metav1.GetControllerOfNoCopy(wl); ref != nil {
		return ref.UID == uid
	}
	if wl.Labels[JobUIDLabel] == string(uid) {
		return true
	}
	for _, ref := range wl.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// maxWaitingNamed caps PerPodCount.Waiting.
const maxWaitingNamed = 3

// perPod reads the Pods of a target each of whose Pods is a Workload of
// its own (a Deployment): one Pod LIST by the target's spec.selector, kept
// to the Pods its ReplicaSets control (kinds.Kind.OwnsPod, no ReplicaSet
// read). It counts them (Snapshot.PerPod) and returns the Pod whose
// Workload the diagnosis reads: the oldest one Kueue still gates (Kueue
// admits in creation order, so it is the head of the rest), else the first
// that is not running, else the first; nil when there is none.
func (c *collector) perPod(ctx context.Context, k *kinds.Kind, obj *unstructured.Unstructured) (*corev1.Pod, error) {
	ns := c.s.Target.Namespace
	replicas, found, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	count := &diagnose.PerPodCount{Replicas: replicas}
	c.s.PerPod = count
	sel := k.PodSelector(obj)
	if sel == "" {
		return nil, nil
	}
	pods, err := c.src.listPods(ctx, ns, sel, "")
	if err != nil && !isAnswer(err) {
		if fatal(ctx, err) {
			return nil, stop(ctx, err)
		}
		return nil, c.readError("Pod", ns, "", err)
	}
	if err != nil {
		return nil, c.gap(ctx, "Pod", sel, err)
	}
	var active []corev1.Pod
	for i := range pods {
		p := &pods[i]
		if !k.OwnsPod(obj, p) || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		active = append(active, *p)
	}
	slices.SortFunc(active, func(a, b corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	count.Pods = len(active)
	pick := -1
	for i := range active {
		if !kinds.PodGated(&active[i]) {
			count.Admitted++
			continue
		}
		if pick < 0 {
			pick = i
		} else if len(count.Waiting) < maxWaitingNamed {
			count.Waiting = append(count.Waiting, active[i].Name)
		}
	}
	if pick < 0 {
		for i := range active {
			if active[i].Status.Phase != corev1.PodRunning {
				pick = i
				break
			}
		}
	}
	if pick < 0 && len(active) > 0 {
		pick = 0
	}
	if pick < 0 {
		return nil, nil
	}
	count.Pod = active[pick].Name
	c.s.Pods = []corev1.Pod{active[pick]}
	return &c.s.Pods[0], nil
}

// isPending is Kueue's notion of a queued Workload: no quota reserved,
// active, not finished.
func isPending(wl *kueue.Workload) bool {
	return !isTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved) &&
		!isTrue(wl.Status.Conditions, kueue.WorkloadFinished) &&
		(wl.Spec.Active == nil || *wl.Spec.Active)
}

func isTrue(conds []metav1.Condition, t string) bool {
	return apimeta.IsStatusConditionTrue(conds, t)
}

// queues reads the LocalQueue, ClusterQueue and what hangs off them, then the
// position, Pods and events, as the Workload's state calls for.
func (c *collector) queues(ctx context.Context, wl *kueue.Workload) error {
	ns := c.s.Target.Namespace
	lqName := QueueName(c.s.Job)
	if wl != nil && wl.Spec.QueueName != "" {
		lqName = string(wl.Spec.QueueName)
	}
	admitted := wl != nil && isTrue(wl.Status.Conditions, kueue.WorkloadAdmitted)
	reserved := wl != nil && isTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	all := c.src.exhaustive()

	if lqName != "" {
		lq, err := c.src.getLocalQueue(ctx, ns, lqName)
		if err != nil {
			if err := c.gap(ctx, "LocalQueue", lqName, err); err != nil {
				return err
			}
		}
		c.s.LocalQueue = lq
	}
	// The namespace's other LocalQueues are read only when they can fix
	// the answer: no queue name, a missing queue, or a stopped one.
	lqStopped := c.s.LocalQueue != nil && c.s.LocalQueue.Spec.StopPolicy != nil && *c.s.LocalQueue.Spec.StopPolicy != kueue.None
	if all || (c.s.Job != nil && wl == nil && lqName == "") || (lqName != "" && c.s.LocalQueue == nil && c.s.HasGap("LocalQueue", diagnose.GapNotFound)) || lqStopped {
		lqs, err := c.src.listLocalQueues(ctx, ns)
		if err != nil && fatal(ctx, err) {
			return err
		}
		c.s.NamespaceLocalQueues = lqs
	}

	if wl == nil && c.s.Job != nil && lqName != "" {
		if err := c.noWorkload(ctx); err != nil {
			return err
		}
	}

	cqName := ""
	if c.s.LocalQueue != nil {
		cqName = string(c.s.LocalQueue.Spec.ClusterQueue)
		// clusterScopedReads=bot: only after the caller's own LocalQueue
		// read succeeded, and only for that LocalQueue's ClusterQueue.
		c.s.ClusterScopedByBot = c.src.useBot()
	}
	if wl != nil && wl.Status.Admission != nil && !c.s.ClusterScopedByBot {
		cqName = string(wl.Status.Admission.ClusterQueue)
	}
	if cqName != "" {
		if err := c.clusterQueue(ctx, cqName, wl, reserved, admitted); err != nil {
			return err
		}
	}

	if r, ok := c.src.(objectReader); ok && !c.planned && wl != nil && c.s.ClusterQueue != nil && (!reserved || all) {
		if err := c.pendingObjects(ctx, r, wl); err != nil {
			return err
		}
	}
	if c.planned {
		return nil
	}

	if wl != nil && c.s.LocalQueue != nil && isPending(wl) {
		pos, ahead, err := c.src.pending(ctx, wl, cqName)
		if err != nil {
			if err := c.gapPending(ctx, lqName, err); err != nil {
				return err
			}
		}
		c.s.Position, c.s.QueueAhead = pos, ahead
	}

	if wl != nil && c.s.ClusterQueue != nil && isPending(wl) && (all || (c.s.ClusterQueue.Spec.CohortName == "" && quotaMessage(wl))) {
		if err := c.alternatives(ctx, ns, lqName); err != nil {
			return err
		}
	}

	if wl != nil && !reserved {
		if err := c.preemptor(ctx, wl); err != nil {
			return err
		}
		if err := c.podsReadyConfig(ctx, wl); err != nil {
			return err
		}
	}

	if c.s.Job != nil && (admitted || all) {
		if err := c.podsAndEvents(ctx, wl); err != nil {
			return err
		}
		if r, ok := c.src.(objectReader); ok {
			if err := c.admittedObjects(ctx, r, wl); err != nil {
				return err
			}
		}
	}
	return nil
}

// priorityClassReader is implemented by sources that can read
// WorkloadPriorityClasses (the API server; a dump store may add it).
type priorityClassReader interface {
	getPriorityClass(ctx context.Context, name string) (*kueue.WorkloadPriorityClass, error)
}

// noWorkload reads what can tell why Kueue made no Workload for a job that
// names a LocalQueue: the WorkloadPriorityClass its label names, the Pods
// of its pod group, and the events about it (Kueue reports a Workload it
// cannot compose there), and, when the bot may read it, Kueue's own
// Configuration (and the namespace, if its selector tests labels). At most
// 5 requests; failures are gaps.
func (c *collector) noWorkload(ctx context.Context) error {
	job := c.s.Job
	ns := c.s.Target.Namespace
	if r, ok := c.src.(kueueConfigReader); ok {
		kc, err := r.kueueConfig(ctx)
		if err != nil {
			if err := c.gap(ctx, "KueueConfiguration", "", err); err != nil {
				return err
			}
		}
		c.s.KueueConfig = kc
		if kc != nil && diagnose.SelectorNeedsLabels(kc.ManagedJobsNamespaceSelector) && c.s.Namespace == nil {
			nsObj, err := c.src.getNamespace(ctx, ns)
			if err != nil {
				if err := c.gap(ctx, "Namespace", ns, err); err != nil {
					return err
				}
			}
			c.s.Namespace = nsObj
		}
	}
	if name := labelOf(job, diagnose.WorkloadPriorityClassLabel); name != "" {
		if c.s.LocalQueue != nil {
			// clusterScopedReads=bot: the bot reads the one class the
			// caller's own job names, as it reads their ClusterQueue.
			c.src.useBot()
		}
		if r, ok := c.src.(priorityClassReader); ok {
			wpc, err := r.getPriorityClass(ctx, name)
			if err != nil {
				if err := c.gap(ctx, "WorkloadPriorityClass", name, err); err != nil {
					return err
				}
			}
			c.s.PriorityClass = wpc
		}
	}
	if g := labelOf(job, PodGroupNameLabel); g != "" && job.GetKind() == "Pod" {
		pods, err := c.src.listPods(ctx, ns, PodGroupNameLabel+"="+g, "")
		if err != nil {
			if err := c.gap(ctx, "Pod", PodGroupNameLabel+"="+g, err); err != nil {
				return err
			}
		}
		slices.SortFunc(pods, func(a, b corev1.Pod) int { return cmp.Compare(a.Name, b.Name) })
		c.s.Pods = pods
	}
	evs, err := c.src.listEvents(ctx, ns, corev1.ObjectReference{Kind: job.GetKind(), Name: job.GetName(), UID: job.GetUID()})
	if err != nil {
		return c.gap(ctx, "Event", job.GetKind()+"/"+job.GetName(), err)
	}
	sortEvents(evs)
	c.s.Events = evs
	return nil
}

// preemptor reads, for a Workload waiting after a preemption, the Workload
// that preempted it, as the caller: one LIST by the job-uid label Kueue's
// message names in the Workload's namespace and, when it is not there
// (fair sharing and cohort reclamation preempt across teams), one LIST in
// every namespace, which succeeds only for a caller who may read them all.
// Failures are not gaps: this only names who preempted.
func (c *collector) preemptor(ctx context.Context, wl *kueue.Workload) error {
	p, ok := diagnose.PreemptorOf(wl)
	if !ok || p.JobUID == "" {
		return nil
	}
	for _, ns := range []string{wl.Namespace, metav1.NamespaceAll} {
		list, err := c.src.workloadsForOwner(ctx, ns, p.JobUID)
		if err != nil {
			if fatal(ctx, err) {
				return stop(ctx, err)
			}
			return nil
		}
		for i := range list {
			if list[i].UID == p.UID {
				c.s.Preemptor = list[i].DeepCopy()
				return nil
			}
		}
	}
	return nil
}

// podsReadyConfig reads, for a Workload that Kueue evicted or deactivated
// because its Pods were not ready in time, Kueue's Configuration when the
// bot may read it (cached; usually no request): its waitForPodsReady
// timeout and requeue limit make the answer exact. Failures are not gaps:
// this only adds the numbers.
func (c *collector) podsReadyConfig(ctx context.Context, wl *kueue.Workload) error {
	r, ok := c.src.(kueueConfigReader)
	if !ok || c.s.KueueConfig != nil || !podsReadyEvicted(wl) {
		return nil
	}
	kc, err := r.kueueConfig(ctx)
	if err != nil {
		if fatal(ctx, err) {
			return stop(ctx, err)
		}
		return nil
	}
	c.s.KueueConfig = kc
	return nil
}

// podsReadyEvicted reports a Workload whose last eviction, or whose
// deactivation, was for the waitForPodsReady timeout.
func podsReadyEvicted(wl *kueue.Workload) bool {
	for _, t := range []string{kueue.WorkloadEvicted, kueue.WorkloadRequeued, kueue.WorkloadDeactivationTarget} {
		c := apimeta.FindStatusCondition(wl.Status.Conditions, t)
		if c != nil && (strings.HasSuffix(c.Reason, kueue.WorkloadEvictedByPodsReadyTimeout) || strings.HasSuffix(c.Reason, kueue.WorkloadRequeuingLimitExceeded)) {
			return true
		}
	}
	return false
}

// quotaMessage reports whether Kueue says the Workload does not fit its
// quota: only then are other queues worth reading.
func quotaMessage(wl *kueue.Workload) bool {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "insufficient")
}

// alternatives reads the namespace's other active LocalQueues and their
// ClusterQueues as the caller, to suggest a queue with room. Live, it costs
// at most two requests (the LocalQueue and ClusterQueue lists) and is only
// made for a ClusterQueue without a cohort, which keeps a pending Job within
// 8 requests. Failures are not gaps: this only adds a suggestion.
func (c *collector) alternatives(ctx context.Context, ns, current string) error {
	if c.s.ClusterScopedByBot {
		return nil // the bot reads only the caller's own ClusterQueue
	}
	lqs := c.s.NamespaceLocalQueues
	if lqs == nil {
		var err error
		if lqs, err = c.src.listLocalQueues(ctx, ns); err != nil {
			if fatal(ctx, err) {
				return err
			}
			return nil
		}
		c.s.NamespaceLocalQueues = lqs
	}
	var others []kueue.LocalQueue
	for _, lq := range lqs {
		if lq.Name != current && lq.Spec.ClusterQueue != "" && string(lq.Spec.ClusterQueue) != c.s.ClusterQueue.Name &&
			(lq.Spec.StopPolicy == nil || *lq.Spec.StopPolicy == kueue.None) {
			others = append(others, lq)
		}
	}
	if len(others) == 0 {
		return nil
	}
	cqs, err := c.src.listClusterQueues(ctx)
	if err != nil {
		if fatal(ctx, err) {
			return err
		}
		return nil
	}
	for _, lq := range others {
		for _, cq := range cqs {
			if cq.Name != string(lq.Spec.ClusterQueue) {
				continue
			}
			alt := diagnose.AlternativeQueue{LocalQueue: lq, ClusterQueue: cq}
			if c.src.exhaustive() {
				alt.ResourceFlavors, _ = c.src.getFlavors(ctx, flavorNames(&cq, nil))
				if alt.ResourceFlavors == nil {
					alt.ResourceFlavors = []kueue.ResourceFlavor{}
				}
			}
			c.s.AlternativeQueues = append(c.s.AlternativeQueues, alt)
		}
	}
	return nil
}

// gapPending records a failed visibility read: a 404 there means the
// LocalQueue is unknown to Kueue's queue manager (or the API is not served),
// so it is reported as Unavailable rather than NotFound.
func (c *collector) gapPending(ctx context.Context, lq string, err error) error {
	if err := c.gap(ctx, "PendingWorkloads", lq, err); err != nil {
		return err
	}
	if g := &c.s.Gaps[len(c.s.Gaps)-1]; g.Reason == diagnose.GapNotFound {
		g.Reason = diagnose.GapUnavailable
	}
	return nil
}

func (c *collector) clusterQueue(ctx context.Context, name string, wl *kueue.Workload, reserved, admitted bool) error {
	all := c.src.exhaustive()
	cq, err := c.src.getClusterQueue(ctx, name)
	if err != nil {
		return c.gap(ctx, "ClusterQueue", name, err)
	}
	c.s.ClusterQueue = cq

	if names := flavorNames(cq, wl); len(names) > 0 {
		rfs, err := c.src.getFlavors(ctx, names)
		if err != nil {
			if err := c.gap(ctx, "ResourceFlavor", strings.Join(names, ","), err); err != nil {
				return err
			}
		} else {
			c.s.ResourceFlavors = rfs
			c.missing("ResourceFlavor", names, names2(rfs, func(rf *kueue.ResourceFlavor) string { return rf.Name }))
		}
	}

	if cq.Spec.CohortName != "" && (!reserved || all) {
		if err := c.cohort(ctx, cq); err != nil {
			return err
		}
	}

	// A Workload MultiKueue placed on workers: its checks and MultiKueue
	// objects name the worker cluster, admitted or not.
	if names := diagnose.ClusterQueueChecks(cq); len(names) > 0 && (reserved && !admitted || all || diagnose.InactiveByCheck(cq) || diagnose.MultiKueueDispatched(c.s.Workload)) {
		acs, err := c.src.getAdmissionChecks(ctx, names)
		if err != nil {
			if err := c.gap(ctx, "AdmissionCheck", strings.Join(names, ","), err); err != nil {
				return err
			}
		} else {
			c.s.AdmissionChecks = acs
			c.missing("AdmissionCheck", names, names2(acs, func(ac *kueue.AdmissionCheck) string { return ac.Name }))
			if r, ok := c.src.(objectReader); ok {
				if err := c.multiKueue(ctx, r); err != nil {
					return err
				}
			}
		}
	}

	// The namespace's labels matter only for a selector that tests them;
	// files are searched anyway, but a namespace missing from them is then
	// not worth a gap.
	if needs := diagnose.SelectorNeedsLabels(cq.Spec.NamespaceSelector); needs || all {
		nsObj, err := c.src.getNamespace(ctx, c.s.Target.Namespace)
		if err != nil && (needs || fatal(ctx, err)) {
			if err := c.gap(ctx, "Namespace", c.s.Target.Namespace, err); err != nil {
				return err
			}
		}
		c.s.Namespace = nsObj
	}
	return nil
}

// missing adds a NotFound gap for each wanted name that was not found.
func (c *collector) missing(kind string, want, found []string) {
	for _, n := range want {
		if !slices.Contains(found, n) {
			c.s.Gaps = append(c.s.Gaps, diagnose.Gap{Kind: kind, Name: n, Reason: diagnose.GapNotFound})
		}
	}
}

// names2 returns the name of each item.
func names2[T any](items []T, name func(*T) string) []string {
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, name(&items[i]))
	}
	return out
}

// cohort reads the ClusterQueue's cohort tree: every Cohort object on the
// way to the root and below it, and the ClusterQueues in it.
func (c *collector) cohort(ctx context.Context, cq *kueue.ClusterQueue) error {
	if ts, ok := c.src.(cohortTreeSource); ok {
		if members, tree, ok := ts.cohortTree(cq); ok {
			c.s.CohortClusterQueues, c.s.Cohorts = members, tree
			return nil
		}
	}
	cqs, err := c.src.listClusterQueues(ctx)
	if err != nil {
		if err := c.gap(ctx, "ClusterQueue", "cohort "+string(cq.Spec.CohortName), err); err != nil {
			return err
		}
	}
	cohorts, err := c.src.listCohorts(ctx)
	if err != nil {
		if err := c.gap(ctx, "Cohort", string(cq.Spec.CohortName), err); err != nil {
			return err
		}
	}
	c.s.CohortClusterQueues, c.s.Cohorts = cohortTree(cq, cqs, cohorts)
	return nil
}

// cohortTreeSource is a source that has every cohort tree worked out in
// advance (a Store): collect then uses it instead of listing (ok=false when
// the lists failed, so that their Gaps are reported as usual).
type cohortTreeSource interface {
	cohortTree(cq *kueue.ClusterQueue) (members []kueue.ClusterQueue, cohorts []kueue.Cohort, ok bool)
}

// cohortTree selects, from all ClusterQueues and Cohorts, the other members
// and the Cohort objects of cq's cohort tree (rooted at the topmost parent),
// sorted by name.
func cohortTree(cq *kueue.ClusterQueue, cqs []kueue.ClusterQueue, cohorts []kueue.Cohort) ([]kueue.ClusterQueue, []kueue.Cohort) {
	parent := map[string]string{}
	for _, co := range cohorts {
		parent[co.Name] = string(co.Spec.ParentName)
	}
	root := func(name string) string {
		for range maxCohortDepth {
			p := parent[name]
			if p == "" {
				return name
			}
			name = p
		}
		return name
	}
	r := root(string(cq.Spec.CohortName))
	var members []kueue.ClusterQueue
	for _, o := range cqs {
		if o.Name != cq.Name && o.Spec.CohortName != "" && root(string(o.Spec.CohortName)) == r {
			members = append(members, o)
		}
	}
	var tree []kueue.Cohort
	for _, co := range cohorts {
		if root(co.Name) == r {
			tree = append(tree, co)
		}
	}
	slices.SortFunc(members, func(a, b kueue.ClusterQueue) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(tree, func(a, b kueue.Cohort) int { return cmp.Compare(a.Name, b.Name) })
	return members, tree
}

// flavorNames lists the flavors the ClusterQueue references, then any the
// Workload's admission names, without repeats, in order of appearance.
func flavorNames(cq *kueue.ClusterQueue, wl *kueue.Workload) []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, rg := range cq.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			add(string(f.Name))
		}
	}
	if wl != nil && wl.Status.Admission != nil {
		for _, psa := range wl.Status.Admission.PodSetAssignments {
			keys := make([]string, 0, len(psa.Flavors))
			for _, f := range psa.Flavors {
				keys = append(keys, string(f))
			}
			slices.Sort(keys)
			for _, k := range keys {
				add(k)
			}
		}
	}
	return names
}

// podsAndEvents reads the job's Pods and the events about the job, its
// Workload and (a bounded number of) its Pods that are not running.
func (c *collector) podsAndEvents(ctx context.Context, wl *kueue.Workload) error {
	ns := c.s.Target.Namespace
	job := c.s.Job
	k, _ := kinds.Lookup(c.s.Target.Kind)
	switch {
	case k.WorkloadPerPod:
		// perPod has read the one Pod whose Workload this is.
	case k.Kind == "Pod" && labelOf(job, PodGroupNameLabel) == "":
		var pod corev1.Pod
		if err := fromUnstructured(job, &pod); err == nil {
			c.s.Pods = []corev1.Pod{pod}
		}
	default:
		sel := k.PodSelector(job)
		if sel == "" && !c.src.exhaustive() {
			break
		}
		pods, err := c.src.listPods(ctx, ns, sel, job.GetUID())
		if err != nil && !isAnswer(err) {
			// The verdict on an admitted job is about its Pods: without
			// them there is nothing to say.
			if fatal(ctx, err) {
				return stop(ctx, err)
			}
			return c.readError("Pod", ns, "", err)
		}
		if err != nil {
			if err := c.gap(ctx, "Pod", sel, err); err != nil {
				return err
			}
		}
		pods = slices.DeleteFunc(pods, func(p corev1.Pod) bool { return !k.OwnsPod(job, &p) })
		slices.SortFunc(pods, func(a, b corev1.Pod) int { return cmp.Compare(a.Name, b.Name) })
		c.s.Pods = pods
	}

	refs := []corev1.ObjectReference{{Kind: job.GetKind(), Name: job.GetName(), UID: job.GetUID()}}
	if wl != nil {
		refs = append(refs, corev1.ObjectReference{Kind: KindWorkload, Name: wl.Name, UID: wl.UID})
	}
	n := 0
	for _, p := range c.s.Pods {
		if k.Kind == "Pod" && p.UID == job.GetUID() {
			continue
		}
		if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded {
			if !c.src.exhaustive() {
				continue
			}
		}
		if n >= maxPodEventReads && !c.src.exhaustive() {
			break
		}
		n++
		refs = append(refs, corev1.ObjectReference{Kind: "Pod", Name: p.Name, UID: p.UID})
	}
	seen := map[types.UID]bool{}
	for _, ref := range refs {
		evs, err := c.src.listEvents(ctx, ns, ref)
		if err != nil {
			if err := c.gap(ctx, "Event", ref.Kind+"/"+ref.Name, err); err != nil {
				return err
			}
			continue
		}
		for _, e := range evs {
			if !seen[e.UID] || e.UID == "" {
				seen[e.UID] = true
				c.s.Events = append(c.s.Events, e)
			}
		}
	}
	sortEvents(c.s.Events)
	if len(c.s.Events) > maxEvents {
		c.s.Events = c.s.Events[len(c.s.Events)-maxEvents:]
	}
	return nil
}

// sortEvents orders events oldest first, ties by name.
func sortEvents(evs []corev1.Event) {
	slices.SortStableFunc(evs, func(a, b corev1.Event) int {
		if c := diagnose.EventTime(&a).Compare(diagnose.EventTime(&b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}
